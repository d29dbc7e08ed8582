/** A hand-made release column for the release-file tests (electron/release/release-data.ts). */
import type { ReleaseColumn } from '../../../electron/release/release-data';

/** A column with cells at the given rows (cell k of row rows[k]) and the given per-cell arrays. */
export function column(config: string, nRows: number, rows: number[], o: Partial<ReleaseColumn> = {}): ReleaseColumn {
  const at = new Int32Array(nRows).fill(-1);
  rows.forEach((r, k) => (at[r] = k));
  const none = { idx: new Uint8Array(rows.length), dict: [null] };
  return {
    config,
    at,
    length: rows.length,
    correct: new Int8Array(rows.length).fill(-1),
    pred: none,
    groundTruth: none,
    score: null,
    confidence: null,
    margin: null,
    latencyMs: null,
    frames: null,
    sourceTag: none,
    protocolNote: none,
    ...o,
  };
}
