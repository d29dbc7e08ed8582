/**
 * Response matrices of every (model, split) built from the export's sorted cells, so the
 * export reads the responses once (response-scan.ts) instead of once more per grid through
 * `project.loadMatrix` (~90 ms for 20 grids of 145k cells). Same rules as the store's loader:
 * columns in config order (the engine's createMatrix), rows in sample-id code-point order,
 * and a grid is open-ended when it has scores and no correctness.
 */
import type { ConfigSpec, ResponseMatrix } from '../../shared/domain/types';
import { createMatrix } from '../../shared/engine/matrix';
import type { ReleaseCell } from './release-data';

/** `sorted` by (model, split, sample_id, config); `configs` must cover every config key used. */
export function matricesFromCells(sorted: readonly ReleaseCell[], configs: readonly ConfigSpec[]): ResponseMatrix[] {
  const specs = new Map(configs.map((c) => [c.key, c]));
  const out: ResponseMatrix[] = [];
  for (let from = 0; from < sorted.length; ) {
    const first = sorted[from] as ReleaseCell;
    let to = from;
    const keys = new Set<string>();
    const itemIds: string[] = [];
    let nScore = 0;
    let nCorrect = 0;
    for (; to < sorted.length; to++) {
      const c = sorted[to] as ReleaseCell;
      if (c.model !== first.model || c.split !== first.split) break;
      keys.add(c.config);
      if (itemIds[itemIds.length - 1] !== c.sampleId) itemIds.push(c.sampleId);
      if (c.score !== null) nScore++;
      if (c.correct !== null) nCorrect++;
    }
    const m = createMatrix({
      model: first.model,
      split: first.split,
      kind: nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa',
      itemIds,
      configs: [...keys].map((k) => {
        const s = specs.get(k);
        if (!s) throw new Error(`config "${k}" of ${first.model} / ${first.split} is not among the project's configs`);
        return s;
      }),
    });
    const col = new Map(m.configs.map((c, i) => [c.key, i]));
    const C = m.configs.length;
    let row = -1;
    let last: string | null = null;
    for (let i = from; i < to; i++) {
      const c = sorted[i] as ReleaseCell;
      if (c.sampleId !== last) {
        row++;
        last = c.sampleId;
      }
      const k = row * C + (col.get(c.config) as number);
      if (m.kind === 'mcqa' && c.correct !== null) m.correct[k] = c.correct ? 1 : 0;
      if (c.score !== null) m.score[k] = c.score;
      if (c.confidence !== null) m.confidence[k] = c.confidence;
      if (c.margin !== null) m.margin[k] = c.margin;
      if (c.latencyMs !== null) m.latencyMs[k] = c.latencyMs;
      if (c.frameIndices !== null) m.frameIndices[k] = Int32Array.from(c.frameIndices);
    }
    out.push(m);
    from = to;
  }
  return out;
}
