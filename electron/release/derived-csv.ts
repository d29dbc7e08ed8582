/**
 * labels/derived.csv (docs/release-format.md): one line per item complete on its model's grid, per
 * MCQA (model, split), in sample_id code-point order.
 *
 * Written as bytes straight from the engine's typed-array trajectories (trajectoryColumns) rather than
 * through derivedRows → row objects → csvText: that path built an object, a pattern string and
 * a row array per item and tested every cell against a regex — ~35 ms of the cold export of
 * the ~25k-row benchmark (`npm run bench -- release`). The text is the same, byte for byte
 * (test/electron/release/derived-csv.test.ts holds it to csvText of derivedRows).
 * The export passes the grid's ids as per_item.csv encoded them (encoded-ids.ts).
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { sortedItemOrder } from '../../shared/engine/matrix';
import { TALLY, TRAJECTORY_CLASSES, type TrajectoryColumns, trajectoryColumns } from '../../shared/engine/trajectories';
import { DERIVED_COLUMNS } from '../../shared/release/aggregate';
import { type EncodedIds, encodeIds } from './encoded-ids';
import { lineWriter, loadShared } from './line-writer';
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
 * Everything after a line's sample id takes few values (two flags, five classes, the configs,
 * the matched configs): each part is encoded once, and the WebAssembly writer
 * (line-writer.ts `derived`) copies the id and the parts of each complete row.
 */
export function derivedCsvBytes(m: ResponseMatrix, matchedGrid: readonly string[] | null, opts: DerivedOptions = {}): { data: Uint8Array; rows: number } {
  const t = opts.t ?? trajectoryColumns(m, { matchedGrid });
  let order: Int32Array | null = null;
  let ids = opts.sortedIds;
  if (ids === undefined) {
    order = isCodePointSorted(m.itemIds) ? null : sortedItemOrder(m);
    ids = encodeIds(m.itemIds);
  }
  const rows = t.tallies[TALLY.complete]!;
  const n = m.itemIds.length;
  if (rows === 0) return { data: new Uint8Array(0), rows };
  const keys = t.keys.map(csvField);
  const matchedKeys = t.matchedKeys?.map(csvField) ?? null;
  const modelSplit = `,${csvField(m.model)},${csvField(m.split)},`;
  // The writer's segments, in the order its `derived` entry numbers them.
  const parts = [
    modelSplit,
    '0,',
    '1,',
    ...TRAJECTORY_CLASSES.map((c) => `${c},`),
    ...keys.map((k) => `${k},`),
    ...(matchedKeys === null ? ['\n'] : matchedKeys.map((k) => `${k}\n`)),
  ];
  const segments = parts.map((p) => enc.encode(p));
  if (TRAJECTORY_CLASSES.length !== 5) throw new Error('derived.csv: the writer numbers five trajectory classes (segments 3–7)');
  const longest = (from: number, to?: number): number => Math.max(0, ...segments.slice(from, to).map((b) => b.length));
  // A line after its id: the head, two flags, a class, a key, a matched key (or the bare '\n').
  const tailMax = segments[0]!.length + 4 + longest(3, 8) + longest(8, 8 + keys.length) + longest(8 + keys.length);
  const cap = ids.bytes.length + n * tailMax;

  const w = lineWriter();
  const { segBytes, segStart, idBytes, idStart } = loadShared(w, segments, ids);
  // Allocate the rest first (allocation may grow the memory, detaching views), then fill.
  const table = w.alloc(4 * 7);
  const orderAt = order === null ? 0 : w.alloc(4 * n);
  const complete = w.alloc(n);
  const vc = w.alloc(n);
  const to = w.alloc(n);
  const cls = w.alloc(n);
  const best = w.alloc(4 * n);
  const matched = matchedKeys === null ? 0 : w.alloc(4 * n);
  const out = w.alloc(cap + 8);
  const heap = w.memory.buffer;
  const bytes = new Uint8Array(heap);
  if (order !== null) new Int32Array(heap, orderAt, n).set(order);
  bytes.set(t.complete, complete);
  bytes.set(t.visuallyConfused, vc);
  bytes.set(t.textOverwritten, to);
  new Int8Array(heap, cls, n).set(t.trajectoryClass);
  new Int32Array(heap, best, n).set(t.best);
  if (matched !== 0) new Int32Array(heap, matched, n).set(t.matchedBest);
  new Int32Array(heap, table, 7).set([orderAt, complete, vc, to, cls, best, matched]);
  w.grid(n, keys.length, idBytes, idStart, 0, table, segBytes, segStart, 0);
  w.derived(out);
  return { data: new Uint8Array(w.memory.buffer, out, w.written() - out).slice(), rows };
}
