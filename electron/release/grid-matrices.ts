/**
 * One response matrix per exported grid, built from the columns the export already read
 * (response-scan.ts) instead of once more per grid through `project.loadMatrix`. Same rules
 * as the store's loader: columns in config order (the engine's createMatrix), rows in
 * sample-id code-point order, and a grid is open-ended when it has scores and no correctness.
 */
import type { ConfigSpec, ResponseMatrix } from '../../shared/domain/types';
import { createMatrix } from '../../shared/engine/matrix';
import type { ReleaseGrid } from './release-data';

/** `configs` must cover every config key the grids use. */
export function gridMatrices(grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[]): ResponseMatrix[] {
  const specs = new Map(configs.map((c) => [c.key, c]));
  return grids.map((g) => {
    let nScore = 0;
    let nCorrect = 0;
    for (const c of g.columns) {
      for (let k = 0; k < c.length; k++) {
        if (c.correct[k]! >= 0) nCorrect++;
        if (c.score !== null && !Number.isNaN(c.score[k]!)) nScore++;
      }
    }
    const m = createMatrix({
      model: g.model,
      split: g.split,
      kind: nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa',
      itemIds: g.sampleIds,
      configs: g.columns.map((c) => {
        const s = specs.get(c.config);
        if (!s) throw new Error(`config "${c.config}" of ${g.model} / ${g.split} is not among the project's configs`);
        return s;
      }),
    });
    const C = m.configs.length;
    const index = new Map(m.configs.map((c, i) => [c.key, i]));
    for (const c of g.columns) {
      const j = index.get(c.config) as number;
      const mcqa = m.kind === 'mcqa';
      for (let r = 0; r < g.sampleIds.length; r++) {
        const k = c.at[r] as number;
        if (k < 0) continue;
        const at = r * C + j;
        // The matrix's defaults (−1, NaN, null) already mean "missing".
        if (mcqa) m.correct[at] = c.correct[k] as number;
        if (c.score) m.score[at] = c.score[k] as number;
        if (c.confidence) m.confidence[at] = c.confidence[k] as number;
        if (c.margin) m.margin[at] = c.margin[k] as number;
        if (c.latencyMs) m.latencyMs[at] = c.latencyMs[k] as number;
        if (c.frames) m.frameIndices[at] = c.frames[k] ?? null;
      }
    }
    return m;
  });
}
