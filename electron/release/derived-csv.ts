/**
 * labels/derived.csv (release-format.md): one line per item complete on its model's grid, per
 * MCQA (model, split), in sample_id code-point order.
 *
 * Written as bytes straight from the engine's typed-array trajectories (trajectoryColumns) rather than
 * through derivedRows → row objects → csvText: that path built an object, a pattern string and
 * a row array per item and tested every cell against a regex — ~35 ms of the cold export of
 * the ~25k-row benchmark (issue #2 §7b). The text is the same, byte for byte
 * (test/electron/release/derived-csv.test.ts holds it to csvText of derivedRows).
 * The export passes the grid's ids as per_item.csv encoded them (encoded-ids.ts).
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { sortedItemOrder } from '../../shared/engine/matrix';
import { TALLY, TRAJECTORY_CLASSES, type TrajectoryColumns, trajectoryColumns } from '../../shared/engine/trajectories';
import { DERIVED_COLUMNS } from '../../shared/release/aggregate';
import { type EncodedIds, encodeIds } from './encoded-ids';
import { compareCodePoints, csvField } from './format';

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

/** How the rows of {@link derivedCsvBytes} are given when the caller has them encoded. */
export interface DerivedOptions {
  /** The matrix's trajectory columns over all its configs with the same matched grid. */
  t?: TrajectoryColumns;
  /**
   * The matrix's ids encoded in row order, its rows being in sample_id code-point order already
   * (the export's matrices: response-scan.ts sorts them, and per_item.csv encoded the ids).
   */
  sortedIds?: EncodedIds;
}

const enc = new TextEncoder();

/**
 * The derived.csv lines of one MCQA matrix as UTF-8 (each ending in `\n`; no header) and their
 * count. Bytes, not text: the lines were strings joined per grid, joined for the file and
 * encoded again — a copy of ~1.5 MB too many on the benchmark, and per-line string work.
 */
export function derivedCsvBytes(m: ResponseMatrix, matchedGrid: readonly string[] | null, opts: DerivedOptions = {}): { data: Uint8Array; rows: number } {
  const t = opts.t ?? trajectoryColumns(m, { matchedGrid });
  let order: Int32Array | null = null;
  let ids = opts.sortedIds;
  if (ids === undefined) {
    order = isCodePointSorted(m.itemIds) ? null : sortedItemOrder(m);
    ids = encodeIds(m.itemIds);
  }
  const keys = t.keys.map(csvField);
  const matchedKeys = t.matchedKeys?.map(csvField) ?? null;
  const modelSplit = `,${csvField(m.model)},${csvField(m.split)},`;
  const longest = (a: readonly string[] | null): number => (a === null ? 0 : Math.max(0, ...a.map((k) => Buffer.byteLength(k))));
  // A tail: modelSplit, two flags with commas, a class, a key, a comma, a matched key, \n.
  const tailMax = Buffer.byteLength(modelSplit) + 4 + longest(TRAJECTORY_CLASSES) + 1 + longest(keys) + 1 + longest(matchedKeys) + 1;
  const buf = Buffer.allocUnsafe(ids.bytes.length + m.itemIds.length * tailMax);
  const end = derivedLines(buf, m.itemIds.length, t, order, ids, modelSplit, keys, matchedKeys);
  return { data: buf.subarray(0, end), rows: t.tallies[TALLY.complete]! };
}

/**
 * Writes the lines of the complete rows into `buf` and returns their end. Everything after the
 * sample id takes few values (2 × 2 × 5 classes × configs × matched configs): each tail is
 * encoded once and a line is the id's bytes and the tail's. Its own function returning right
 * after the loop (no deopt there when cold).
 */
function derivedLines(
  buf: Buffer,
  n: number,
  t: TrajectoryColumns,
  order: Int32Array | null,
  ids: EncodedIds,
  modelSplit: string,
  keys: readonly string[],
  matchedKeys: readonly string[] | null,
): number {
  const M = matchedKeys === null ? 1 : matchedKeys.length;
  const tails: (Uint8Array | undefined)[] = [];
  const idBytes = ids.bytes;
  const idStart = ids.start;
  const { complete, visuallyConfused, textOverwritten, trajectoryClass, best, matchedBest } = t;
  const K = keys.length;
  let pos = 0;
  for (let x = 0; x < n; x++) {
    const i = order === null ? x : order[x]!;
    if (complete[i] !== 1) continue;
    const mb = matchedKeys === null ? 0 : matchedBest[i]!;
    const key = (((visuallyConfused[i]! * 2 + textOverwritten[i]!) * 5 + trajectoryClass[i]!) * K + best[i]!) * M + mb;
    let tail = tails[key];
    if (tail === undefined) {
      tail = tails[key] = enc.encode(
        modelSplit +
          (visuallyConfused[i] === 1 ? '1,' : '0,') +
          (textOverwritten[i] === 1 ? '1,' : '0,') +
          TRAJECTORY_CLASSES[trajectoryClass[i]!]! +
          ',' +
          keys[best[i]!]! +
          ',' +
          (matchedKeys === null ? '' : matchedKeys[mb]!) +
          '\n',
      );
    }
    const idAt = idStart[i]!;
    const idEnd = idStart[i + 1]!;
    // A short id byte by byte (cheaper than a native call), the tail (~50 bytes) with one.
    if (idEnd - idAt <= 16) for (let b = idAt; b < idEnd; b++) buf[pos++] = idBytes[b]!;
    else (buf.set(idBytes.subarray(idAt, idEnd), pos), (pos += idEnd - idAt));
    buf.set(tail, pos);
    pos += tail.length;
  }
  return pos;
}
