/**
 * labels/derived.csv (docs/release-format.md): one line per item complete on its model's grid,
 * per MCQA (model, split), in sample_id code-point order.
 *
 * Written as bytes straight from the engine's typed-array trajectories (trajectoryColumns):
 * everything after a line's sample id takes few values (two flags, five classes, the configs,
 * the matched configs), so each is encoded once and a line is copied together from them
 * (byte-lines.ts). The text is csvText of derivedRows (shared/release/aggregate.ts), byte for
 * byte (test/electron/release/derived-csv.test.ts).
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { sortedItemOrder } from '../../shared/engine/matrix';
import { TALLY, TRAJECTORY_CLASSES, type TrajectoryColumns, trajectoryColumns } from '../../shared/engine/trajectories';
import { DERIVED_COLUMNS } from '../../shared/release/aggregate';
import { ByteSink, encodeIds, encodeTexts, longestSegment, type Segments, writeLines } from './byte-lines';
import { csvField } from './format';

/** The header line of derived.csv, with its line end. */
export const DERIVED_HEADER = `${DERIVED_COLUMNS.map(csvField).join(',')}\n`;

/** How the rows of {@link derivedCsvBytes} are given when the caller has them at hand. */
export interface DerivedOptions {
  /** The matrix's trajectory columns over all its configs with the same matched grid. */
  t?: TrajectoryColumns;
  /**
   * The matrix's ids encoded in row order, its rows being in sample_id code-point order already
   * (the export's matrices come from the store's column scan, and per_item.csv encoded the ids).
   */
  sortedIds?: Segments;
}

/** Segment numbers of the parts after an id (see the texts built in derivedCsvBytes). */
const FLAG = 1;
const CLASS = 3;
const KEY = CLASS + TRAJECTORY_CLASSES.length;

/**
 * The derived.csv lines of one MCQA matrix as UTF-8 (each ending in `\n`; no header) and their
 * count.
 */
export function derivedCsvBytes(m: ResponseMatrix, matchedGrid: readonly string[] | null, opts: DerivedOptions = {}): { data: Uint8Array; rows: number } {
  const t = opts.t ?? trajectoryColumns(m, { matchedGrid });
  let order: Int32Array | null = null;
  let ids = opts.sortedIds;
  if (ids === undefined) {
    // Without the caller's ids the rows are put in order here: sorting ids that are in order
    // already gives the identity, so no check for that (the export always passes sortedIds).
    order = sortedItemOrder(m);
    ids = encodeIds(Array.from(order, (i) => m.itemIds[i]!));
  }
  const rows = t.tallies[TALLY.complete]!;
  if (rows === 0) return { data: new Uint8Array(0), rows };
  const keys = t.keys.map(csvField);
  // The parts: `,model,split,`; the two flags; the classes; the best configs; the matched
  // grid's best configs with the line end (or the bare line end when none applies).
  const texts = [
    `,${csvField(m.model)},${csvField(m.split)},`,
    '0,',
    '1,',
    ...TRAJECTORY_CLASSES.map((c) => `${c},`),
    ...keys.map((k) => `${k},`),
    ...(t.matchedKeys === null ? ['\n'] : t.matchedKeys.map((k) => `${csvField(k)}\n`)),
  ];
  const segs = encodeTexts(texts);
  // A line after its id: the head, two flags, a class, a best config and a matched one (or the bare line end).
  const lineMax = longestSegment(segs, 0, 1) + 4 + longestSegment(segs, CLASS, KEY) + longestSegment(segs, KEY, KEY + keys.length) + longestSegment(segs, KEY + keys.length);
  // Sized for every row (incomplete ones write nothing): one run, no growth.
  const sink = new ByteSink(ids.bytes.length + m.itemIds.length * lineMax);
  writeLines(sink, ids, segs, [lineParts(t, order, keys.length)], PARTS, lineMax);
  return { data: sink.end(), rows };
}

/** Segments of a line after its id: the head, two flags, the class, the best config, the matched one. */
const PARTS = 6;

/** Per row in `order` (or row order), the segments of its line; −1 first where the row is not complete. */
function lineParts(t: TrajectoryColumns, order: Int32Array | null, nKeys: number): Int32Array {
  const { complete, visuallyConfused, textOverwritten, trajectoryClass, best, matchedBest } = t;
  const matched = t.matchedKeys !== null;
  const n = complete.length;
  const out = new Int32Array(n * PARTS);
  for (let x = 0; x < n; x++) {
    const i = order === null ? x : order[x]!;
    const o = x * PARTS;
    if (complete[i] !== 1) {
      out[o] = -1;
      continue;
    }
    out[o] = 0; // `,model,split,`
    out[o + 1] = FLAG + visuallyConfused[i]!;
    out[o + 2] = FLAG + textOverwritten[i]!;
    out[o + 3] = CLASS + trajectoryClass[i]!;
    out[o + 4] = KEY + best[i]!;
    out[o + 5] = KEY + nKeys + (matched ? matchedBest[i]! : 0);
  }
  return out;
}
