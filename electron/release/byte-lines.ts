/**
 * What the release's three big CSV writers (per_item.csv, the wide CSVs, derived.csv) share:
 * CSV fields encoded to UTF-8 once, copied together into an output buffer that is either one
 * growing block or a reused chunk handed to a callback.
 *
 * Why bytes: a line of these files is a sample id and a few fields that take few distinct
 * values per column (letters, source tags, config keys). Each distinct field is escaped and
 * encoded once, and a line is copied together from those bytes: no string, array or object per
 * cell. Copies go four bytes at a time through DataViews — fields are a few bytes long, where a
 * native copy's call costs more than the copy, and a byte loop took twice as long (the release
 * bench, `npm run bench -- release`, exports ~145k cells in a cold process). A DataView also
 * throws on a write past its end, where a typed array drops it without a word: a line longer
 * than its writer's bound stops the export instead of leaving bytes out of a file.
 */
import { csvField, noneNeedQuotes } from './format';
import type { ReleaseGrid } from './release-data';

/**
 * Bytes a copy may read past a segment's end and write past the position it returns: the
 * segments' bytes and the sink's buffer end in this much padding. A copy's overrun is then
 * written over by the next copy or left beyond the end of the output.
 */
const PAD = 4;

/** Encoded texts: text i is bytes[start[i], start[i + 1]), PAD bytes of padding at the end. */
export interface Segments {
  bytes: Uint8Array;
  view: DataView;
  start: Int32Array;
}

const enc = new TextEncoder();

/**
 * The texts as given, in UTF-8, with one encode for all of them. Offsets are char offsets
 * when the joined text is ASCII (the usual case); otherwise each text is measured.
 */
export function encodeTexts(texts: readonly string[]): Segments {
  const joined = texts.join('');
  const bytes = new Uint8Array(Buffer.byteLength(joined) + PAD);
  enc.encodeInto(joined, bytes);
  const start = new Int32Array(texts.length + 1);
  const ascii = bytes.length - PAD === joined.length;
  let at = 0;
  for (let i = 0; i < texts.length; i++) {
    start[i] = at;
    at += ascii ? texts[i]!.length : Buffer.byteLength(texts[i]!);
  }
  start[texts.length] = at;
  return { bytes, view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), start };
}

/** Sample ids as CSV fields (quoted where needed), in the order given. */
export function encodeIds(ids: readonly string[]): Segments {
  // Ids rarely need quoting: test them all at once, and escape one by one only when some do.
  return encodeTexts(noneNeedQuotes(ids) ? ids : ids.map(csvField));
}

const idCache = new WeakMap<ReleaseGrid, Segments>();

/** {@link encodeIds} of a grid's sample ids, encoded once per grid for all three writers. */
export function encodedIds(g: ReleaseGrid): Segments {
  let e = idCache.get(g);
  if (!e) idCache.set(g, (e = encodeIds(g.sampleIds)));
  return e;
}

/** The longest segment of `s` in [from, to). */
export function longestSegment(s: Segments, from = 0, to = s.start.length - 1): number {
  let max = 0;
  for (let i = from; i < to; i++) max = Math.max(max, s.start[i + 1]! - s.start[i]!);
  return max;
}

/**
 * Copies segment `i` of `src` (viewed by `from`) to `out` at `pos` and returns the position
 * after it. Up to PAD − 1 bytes past that position are overwritten (see PAD).
 */
function putSegment(out: DataView, pos: number, from: DataView, start: Int32Array, i: number): number {
  const a = start[i]!;
  const n = start[i + 1]! - a;
  for (let k = 0; k < n; k += 4) out.setInt32(pos + k, from.getInt32(a + k, true), true);
  return pos + n;
}

/**
 * What the three writers have in common: row r of a file is, for each group g with a line in
 * that row, id r followed by K segments `groups[g][r * K … r * K + K)` (a line's first index
 * −1: no line there). per_item.csv has a group per config (a line per cell), a wide CSV and
 * derived.csv one group (a line per row). `perRow` bounds a row's segment bytes; ids are
 * bounded apart. Writes into `sink` in runs of rows that fit its room.
 */
export function writeLines(sink: ByteSink, ids: Segments, segs: Segments, groups: readonly Int32Array[], K: number, perRow: number): void {
  const idStart = ids.start;
  const rows = idStart.length - 1;
  const idCopies = groups.length;
  for (let r = 0; r < rows;) {
    let space = sink.space;
    let r1 = r;
    while (r1 < rows) {
      const b = idCopies * (idStart[r1 + 1]! - idStart[r1]!) + perRow;
      if (b > space) break;
      space -= b;
      r1++;
    }
    if (r1 === r) sink.room(idCopies * (idStart[r + 1]! - idStart[r]!) + perRow);
    else {
      sink.pos = copyLines(sink.view, sink.pos, r, r1, ids, segs, groups, K);
      r = r1;
    }
  }
}

/**
 * The one copy loop of the release's CSV writers (see writeLines), for rows [r0, r1) written
 * through `out` from `pos`; returns the end. Why runs of rows: this loop never stops for the
 * sink, so it stays one tight loop (a rarely taken branch inside it would stop its optimised
 * code the first time it is taken, in a cold export); and one loop for all three writers is
 * compiled once per export, not once per writer.
 */
function copyLines(out: DataView, pos: number, r0: number, r1: number, ids: Segments, segs: Segments, groups: readonly Int32Array[], K: number): number {
  const idView = ids.view;
  const idStart = ids.start;
  const view = segs.view;
  const start = segs.start;
  const G = groups.length;
  for (let r = r0; r < r1; r++) {
    const o = r * K;
    for (let g = 0; g < G; g++) {
      const line = groups[g]!;
      if (line[o]! < 0) continue;
      pos = putSegment(out, pos, idView, idStart, r);
      for (let q = o; q < o + K; q++) pos = putSegment(out, pos, view, start, line[q]!);
    }
  }
  return pos;
}

/**
 * The output of a writer. Without `emit` it is one block that doubles when full (sized from
 * an estimate up front, so rarely); with `emit` it is a chunk handed to `emit` whenever full
 * and then reused (a folder export writes per_item.csv to its file that way: a ~15 MB block
 * of fresh memory cost ~10 ms of page faults in a cold export, a reused 1 MB chunk faults once).
 * Writers write through {@link writeLines}.
 */
export class ByteSink {
  buf: Buffer;
  view: DataView;
  pos = 0;
  /** Bytes handed to `emit` so far. */
  private emitted = 0;

  constructor(
    capacity: number,
    private readonly emit: ((bytes: Uint8Array) => void) | null = null,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 64) + PAD);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Makes room for `need` more bytes at `pos` and returns the view to write them through. */
  room(need: number): DataView {
    if (this.pos + need + PAD <= this.buf.length) return this.view;
    let next: Buffer | null = null;
    if (this.emit === null) {
      next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + need + PAD));
      this.buf.copy(next, 0, 0, this.pos);
    } else {
      this.flush(this.emit);
      if (need + PAD > this.buf.length) next = Buffer.allocUnsafe(need + PAD);
    }
    if (next !== null) {
      this.buf = next;
      this.view = new DataView(next.buffer, next.byteOffset, next.length);
    }
    return this.view;
  }

  /** Bytes that fit before the buffer's padding. */
  get space(): number {
    return this.buf.length - PAD - this.pos;
  }

  /** Appends `bytes`. */
  put(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  private flush(emit: (bytes: Uint8Array) => void): void {
    if (this.pos === 0) return;
    emit(this.buf.subarray(0, this.pos));
    this.emitted += this.pos;
    this.pos = 0;
  }

  /** The whole output (without `emit`), or nothing after handing out the rest (with it). */
  end(): Uint8Array {
    if (this.emit === null) return this.buf.subarray(0, this.pos);
    this.flush(this.emit);
    return new Uint8Array(0);
  }

  /** Bytes written in all. */
  get total(): number {
    return this.emitted + this.pos;
  }
}
