/**
 * One response matrix per exported grid, built from the columns the export already read
 * (response-scan.ts) instead of once more per grid through `project.loadMatrix`. Same rules
 * as the store's loader: columns in config order (the engine's createMatrix), rows in
 * sample-id code-point order, and a grid is open-ended when it has scores and no correctness.
 */
import type { ConfigSpec, ResponseMatrix } from '../../shared/domain/types';
import { createMatrix } from '../../shared/engine/matrix';
import type { ReleaseColumn, ReleaseGrid } from './release-data';

/** `configs` must cover every config key the grids use. */
export function gridMatrices(grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[]): ResponseMatrix[] {
  const specs = new Map(configs.map((c) => [c.key, c]));
  return grids.map((g) => {
    const counts = new Int32Array(2);
    for (const c of g.columns) countOutcomes(c, counts);
    const nCorrect = counts[0]!;
    const nScore = counts[1]!;
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
    const index = new Map(m.configs.map((c, i) => [c.key, i]));
    for (const c of g.columns) copyColumn(m, c, index.get(c.config) as number);
    return m;
  });
}

/*
 * The per-cell loops are functions of their own returning right after the loop: code after a
 * hot loop that never ran has no type feedback, and the loop's optimised code would
 * deoptimise there on every call (a cost of the cold export).
 */

/** Adds the column's cells with a known correct to counts[0] and with a score to counts[1]. */
function countOutcomes(c: ReleaseColumn, counts: Int32Array): void {
  let nCorrect = 0;
  let nScore = 0;
  const score = c.score;
  for (let k = 0; k < c.length; k++) {
    if (c.correct[k]! >= 0) nCorrect++;
    if (score !== null && !Number.isNaN(score[k]!)) nScore++;
  }
  counts[0] = counts[0]! + nCorrect;
  counts[1] = counts[1]! + nScore;
}

/** Copies a column's cells into matrix column j (the matrix's defaults −1, NaN, null mean "missing"). */
function copyColumn(m: ResponseMatrix, c: ReleaseColumn, j: number): void {
  const C = m.configs.length;
  const mcqa = m.kind === 'mcqa';
  for (let r = 0; r < c.at.length; r++) {
    const k = c.at[r]!;
    if (k < 0) continue;
    const at = r * C + j;
    if (mcqa) m.correct[at] = c.correct[k]!;
    if (c.score) m.score[at] = c.score[k]!;
    if (c.confidence) m.confidence[at] = c.confidence[k]!;
    if (c.margin) m.margin[at] = c.margin[k]!;
    if (c.latencyMs) m.latencyMs[at] = c.latencyMs[k]!;
    if (c.frames) m.frameIndices[at] = c.frames[k] ?? null;
  }
}
