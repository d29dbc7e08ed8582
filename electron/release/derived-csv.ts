/**
 * labels/derived.csv (release-format.md): one line per item complete on its model's grid, per
 * MCQA (model, split), in sample_id code-point order.
 *
 * Written straight from the engine's typed-array trajectories (trajectoryColumns) rather than
 * through derivedRows → row objects → csvText: that path built an object, a pattern string and
 * a row array per item and tested every cell against a regex — ~35 ms of the cold export of
 * the ~25k-row benchmark (issue #2 §7b). The text is the same, byte for byte
 * (test/electron/release/derived-csv.test.ts holds it to csvText of derivedRows).
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { sortedItemOrder } from '../../shared/engine/matrix';
import { TRAJECTORY_CLASSES, type TrajectoryColumns, trajectoryColumns } from '../../shared/engine/trajectories';
import { DERIVED_COLUMNS } from '../../shared/release/aggregate';
import { compareCodePoints, csvField, noneNeedQuotes } from './format';

/** The header line of derived.csv, with its line end. */
export const DERIVED_HEADER = `${DERIVED_COLUMNS.map(csvField).join(',')}\n`;

/** Strictly increasing in code-point order (JS `<` where no surrogate or U+E000–FFFF can disagree). */
function isCodePointSorted(ids: readonly string[]): boolean {
  if (!/[\uD800-\uFFFF]/.test(ids.join(''))) {
    for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) return false;
    return true;
  }
  for (let i = 1; i < ids.length; i++) if (compareCodePoints(ids[i - 1]!, ids[i]!) >= 0) return false;
  return true;
}

/**
 * The derived.csv lines of one MCQA matrix (each ending in `\n`; no header) and their count.
 * `t`: the matrix's trajectory columns over all its configs with this matched grid, when the
 * caller has them (the export also takes the aggregated numbers from them).
 */
export function derivedCsvLines(
  m: ResponseMatrix,
  matchedGrid: readonly string[] | null,
  t: TrajectoryColumns = trajectoryColumns(m, { matchedGrid }),
): { text: string; rows: number } {
  // The export's matrices are already in sample_id order (response-scan.ts): no sort then.
  const order = isCodePointSorted(m.itemIds) ? null : sortedItemOrder(m);
  const keys = t.keys.map(csvField);
  const matchedKeys = t.matchedKeys?.map(csvField) ?? null;
  // Ids rarely need quoting: tested all at once, escaped one by one only when some do.
  const ids = noneNeedQuotes(m.itemIds) ? m.itemIds : m.itemIds.map(csvField);
  const lines = derivedLines(m, t, order, ids, `,${csvField(m.model)},${csvField(m.split)},`, keys, matchedKeys);
  return { text: lines.join(''), rows: lines.length };
}

/**
 * The lines of the complete rows. Everything after the sample id takes few values (2 × 2 × 5
 * classes × configs × matched configs): each tail is built once and a line is `id + tail`, no
 * string per field. Its own function returning right after the loop (no deopt there when cold).
 */
function derivedLines(
  m: ResponseMatrix,
  t: TrajectoryColumns,
  order: Int32Array | null,
  ids: readonly string[],
  modelSplit: string,
  keys: readonly string[],
  matchedKeys: readonly string[] | null,
): string[] {
  const M = matchedKeys === null ? 1 : matchedKeys.length;
  const tails: (string | undefined)[] = [];
  const lines: string[] = [];
  for (let x = 0; x < m.itemIds.length; x++) {
    const i = order === null ? x : order[x]!;
    if (t.complete[i] !== 1) continue;
    const mb = matchedKeys === null ? 0 : t.matchedBest[i]!;
    const key = (((t.visuallyConfused[i]! * 2 + t.textOverwritten[i]!) * 5 + t.trajectoryClass[i]!) * keys.length + t.best[i]!) * M + mb;
    let tail = tails[key];
    if (tail === undefined) {
      tail = tails[key] =
        modelSplit +
        (t.visuallyConfused[i] === 1 ? '1,' : '0,') +
        (t.textOverwritten[i] === 1 ? '1,' : '0,') +
        TRAJECTORY_CLASSES[t.trajectoryClass[i]!]! +
        ',' +
        keys[t.best[i]!]! +
        ',' +
        (matchedKeys === null ? '' : matchedKeys[mb]!) +
        '\n';
    }
    lines.push(ids[i]! + tail);
  }
  return lines;
}

