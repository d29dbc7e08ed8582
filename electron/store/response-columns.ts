/**
 * Column-wise storage of response cells (migration 0020): one `response_columns` row per
 * (model, split, config) — a grid column — holding packed typed-array BLOBs.
 *
 * Why: with one SQLite row per cell (migration 0010) every import paid a B-tree insert, four
 * foreign-key probes and a secondary-index insert per cell, and every read paid
 * better-sqlite3's per-row cost (~1 µs per scalar, several per row object). A 145k-cell
 * project spent ~0.9 s applying an import and ~0.1 s loading its matrices (npm run bench).
 * A grid column is read and written whole anyway (matrix load, export, an import of a run),
 * so storing it as ~15 BLOBs makes those costs per column (≈ 20 per project), not per cell.
 *
 * BLOB layouts (little-endian, as typed arrays on every platform Flipbook ships for):
 * - item_ids:      int32 × n, ascending item id (the cell order of every other BLOB);
 * - correct:       int8 × n, 1 / 0 / −1 = NULL;
 * - score, confidence, margin, latency_ms: float64 × n, NaN = NULL (SQLite REAL cannot hold
 *   NaN, and importers reject non-finite values, so NaN is free); the BLOB itself is NULL
 *   when no cell has a value;
 * - frame_indices: u32 n, a u8 presence flag per cell (0 = NULL), int32 offsets × (n + 1)
 *   into the values, int32 values (encodeFrames); the BLOB is NULL when no cell has frames;
 * - pred, ground_truth, source_tag, protocol_note: a string table (encodeStrings): the
 *   distinct strings once, then one small index per cell. Letters, source tags and protocol
 *   notes repeat across a column, so this interns them; free-text predictions degrade
 *   gracefully to one entry per cell;
 * - run_ids: int32 × n (0 = unknown run), lines: int32 × n (−1 = unknown line), for
 *   provenance and the conflict messages that name the stored row's file:line.
 */
import type Database from 'better-sqlite3';
import type { InternedStrings } from '../../shared/domain/types';

const dec = new TextDecoder();

/** A copy of `b`'s bytes in a fresh ArrayBuffer (aligned for any typed array). */
function own(b: Uint8Array, from = 0, to = b.byteLength): ArrayBuffer {
  const out = new Uint8Array(to - from);
  out.set(b.subarray(from, to));
  return out.buffer;
}

const asBuffer = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function encodeInt32(values: ArrayLike<number>): Buffer {
  return asBuffer(Int32Array.from(values as ArrayLike<number>));
}
export function decodeInt32(b: Uint8Array): Int32Array {
  return new Int32Array(own(b));
}
export function decodeInt8(b: Uint8Array): Int8Array {
  return new Int8Array(own(b));
}
export function decodeFloat64(b: Uint8Array): Float64Array {
  return new Float64Array(own(b));
}

/** null when every value is null (the column then stores a NULL BLOB). */
export function encodeFloat64(values: readonly (number | null)[], order: ArrayLike<number> | null): Buffer | null {
  const n = values.length;
  const out = new Float64Array(n);
  let any = false;
  for (let k = 0; k < n; k++) {
    const v = values[order ? (order[k] as number) : k];
    if (v === null || v === undefined) out[k] = NaN;
    else {
      out[k] = v;
      any = true;
    }
  }
  return any ? asBuffer(out) : null;
}

/**
 * encodeFloat64 for values already on a Float64Array with NaN = null (an importer's column
 * batch): the same bytes, without a (number | null)[] per cell. Every NaN is written as the
 * NaN literal, as encodeFloat64 does, so the BLOB does not depend on the NaN bits it was handed.
 */
export function encodeFloat64Array(values: Float64Array, order: ArrayLike<number> | null): Buffer | null {
  const n = values.length;
  // Most optional columns (confidence, margin, latency) are empty: a memcmp with canonical
  // NaNs finds that without a per-cell loop; other NaN bits still take the loop below.
  if (asBuffer(values).equals(nanBytes(n))) return null;
  let any = false;
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const v = values[order ? (order[k] as number) : k] as number;
    if (v !== v) out[k] = NaN;
    else {
      out[k] = v;
      any = true;
    }
  }
  return any ? asBuffer(out) : null;
}

let nans = new Float64Array(0);
/** n canonical NaNs as bytes (one growing array, viewed). */
function nanBytes(n: number): Buffer {
  if (nans.length < n) nans = new Float64Array(Math.max(n, nans.length * 2)).fill(NaN);
  return Buffer.from(nans.buffer, 0, n * 8);
}

/**
 * String table: u8 index width (1, 2 or 4), 3 bytes padding, u32 distinct count d, u32 cell
 * count n, then n indices (0 = NULL, i = the i-th distinct string), padding to 4 bytes,
 * d × u32 UTF-8 byte lengths, then the UTF-8 bytes.
 */
export function encodeStrings(values: readonly (string | null)[], order: ArrayLike<number> | null): Buffer {
  const n = values.length;
  const dict = new Map<string, number>();
  const distinct: string[] = [];
  // Indices go straight into an array of the final width: 1 byte while fewer than 255
  // distinct strings, widened (a copy) when the table outgrows it — no u32 array per call
  // narrowed afterwards.
  let idx: Uint8Array | Uint16Array | Uint32Array = new Uint8Array(n);
  let cap = 255;
  // Neighbouring cells usually repeat a value (a column's source tag, a letter): compare with
  // the previous one before hashing (string equality is a pointer compare for the same string).
  let last: string | null = null;
  let lastIdx = 0;
  const ascii = new Int32Array(128);
  // A column's source tag or note is often one string object throughout: one pointer
  // compare per cell, then a native fill.
  const first = values[0];
  let same = 1;
  while (same < n && values[same] === first) same++;
  if (same === n && n > 0) return encodeSameString(first ?? null, n);
  for (let k = 0; k < n; k++) {
    const v = values[order ? (order[k] as number) : k];
    if (v === null || v === undefined) continue;
    if (v !== last) {
      // One-character values (MCQA letters) index a small table instead of hashing.
      const ch = v.length === 1 ? v.charCodeAt(0) : 128;
      let i = ch < 128 ? (ascii[ch] as number) : 0;
      if (i === 0) {
        i = dict.get(v) ?? 0;
        if (i === 0) {
          distinct.push(v);
          dict.set(v, (i = distinct.length));
          if (i >= cap) {
            cap = cap === 255 ? 65535 : Infinity;
            idx = cap === 65535 ? Uint16Array.from(idx) : Uint32Array.from(idx);
          }
        }
        if (ch < 128) ascii[ch] = i;
      }
      last = v;
      lastIdx = i;
    }
    idx[k] = lastIdx;
  }
  return stringTable(idx, n, distinct);
}

/**
 * encodeStrings of an interned field (ResponseColumnBatch.tables): the same bytes, with the
 * distinct values numbered by first appearance in `order` through their table index — no
 * string compared or hashed per cell.
 */
export function encodeInterned(f: InternedStrings, order: ArrayLike<number> | null): Buffer {
  const index = f.index;
  const n = index.length;
  const renumber = new Int32Array(f.table.length);
  const distinct: string[] = [];
  let idx: Uint8Array | Uint16Array | Uint32Array = new Uint8Array(n);
  let cap = 255;
  for (let k = 0; k < n; k++) {
    const ti = index[order ? (order[k] as number) : k] as number;
    if (ti < 0) continue;
    let i = renumber[ti] as number;
    if (i === 0) {
      distinct.push(f.table[ti] as string);
      renumber[ti] = i = distinct.length;
      if (i >= cap) {
        cap = cap === 255 ? 65535 : Infinity;
        idx = cap === 65535 ? Uint16Array.from(idx) : Uint32Array.from(idx);
      }
    }
    idx[k] = i;
  }
  return stringTable(idx, n, distinct);
}

/** encodeStrings of n cells that all hold `value` (one string, or null). */
function encodeSameString(value: string | null, n: number): Buffer {
  const idx = new Uint8Array(n);
  if (value === null) return stringTable(idx, n, []);
  return stringTable(idx.fill(1), n, [value]);
}

/** The string table of indices (1-based into `distinct`, 0 = NULL) at their final width. */
function stringTable(idx: Uint8Array | Uint16Array | Uint32Array, n: number, distinct: readonly string[]): Buffer {
  const width = idx.BYTES_PER_ELEMENT;
  const head = 12;
  const idxBytes = (n * width + 3) & ~3;
  const lengths = new Array<number>(distinct.length);
  let textBytes = 0;
  for (let i = 0; i < distinct.length; i++) textBytes += lengths[i] = Buffer.byteLength(distinct[i] as string, 'utf8');
  const out = Buffer.alloc(head + idxBytes + 4 * distinct.length + textBytes);
  out[0] = width;
  out.writeUInt32LE(distinct.length, 4);
  out.writeUInt32LE(n, 8);
  out.set(new Uint8Array(idx.buffer, 0, n * width), head);
  let at = head + idxBytes;
  for (const len of lengths) (out.writeUInt32LE(len, at), (at += 4));
  for (const s of distinct) at += out.write(s, at, 'utf8');
  return out;
}

export function decodeStrings(b: Uint8Array): (string | null)[] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const width = buf.readUInt8(0);
  const d = buf.readUInt32LE(4);
  const n = buf.readUInt32LE(8);
  const head = 12;
  const idxBytes = (n * width + 3) & ~3;
  const dict: (string | null)[] = [null];
  let at = head + idxBytes;
  let text = at + 4 * d;
  for (let i = 0; i < d; i++) {
    const len = buf.readUInt32LE(at);
    at += 4;
    dict.push(dec.decode(buf.subarray(text, text + len)));
    text += len;
  }
  const raw = own(buf, head, head + n * width);
  const idx = width === 1 ? new Uint8Array(raw) : width === 2 ? new Uint16Array(raw) : new Uint32Array(raw);
  const out = new Array<string | null>(n);
  for (let k = 0; k < n; k++) out[k] = dict[idx[k] as number] as string | null;
  return out;
}

/** u32 n, int8 × n presence (padded to 4), int32 offsets × (n + 1), int32 values. */
export function encodeFrames(values: readonly (ArrayLike<number> | null)[], order: ArrayLike<number> | null): Buffer | null {
  const n = values.length;
  let total = 0;
  let any = false;
  // Indexed, not for-of: most columns have no frames and this pass is all the work they cost.
  for (let k = 0; k < n; k++) {
    const v = values[k];
    if (v) ((total += v.length), (any = true));
  }
  if (!any) return null;
  const pres = (n + 3) & ~3;
  const out = Buffer.alloc(4 + pres + 4 * (n + 1) + 4 * total);
  out.writeUInt32LE(n, 0);
  const offsets = new Int32Array(n + 1);
  const vals = new Int32Array(total);
  let at = 0;
  for (let k = 0; k < n; k++) {
    const v = values[order ? (order[k] as number) : k];
    offsets[k] = at;
    if (!v) continue;
    out[4 + k] = 1;
    for (let j = 0; j < v.length; j++) vals[at++] = v[j] as number;
  }
  offsets[n] = at;
  out.set(new Uint8Array(offsets.buffer), 4 + pres);
  out.set(new Uint8Array(vals.buffer), 4 + pres + 4 * (n + 1));
  return out;
}

export function decodeFrames(b: Uint8Array): (Int32Array | null)[] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const n = buf.readUInt32LE(0);
  const pres = (n + 3) & ~3;
  const offsets = new Int32Array(own(buf, 4 + pres, 4 + pres + 4 * (n + 1)));
  const vals = new Int32Array(own(buf, 4 + pres + 4 * (n + 1)));
  const out = new Array<Int32Array | null>(n);
  for (let k = 0; k < n; k++) out[k] = buf[4 + k] ? vals.slice(offsets[k] as number, offsets[k + 1] as number) : null;
  return out;
}

/** One decoded grid column, as the import applier and the record readers use it. */
export class Column {
  rowId: number | null = null;
  itemIds: number[] = [];
  pred: (string | null)[] = [];
  correct: (number | null)[] = [];
  score: (number | null)[] = [];
  groundTruth: (string | null)[] = [];
  confidence: (number | null)[] = [];
  margin: (number | null)[] = [];
  latencyMs: (number | null)[] = [];
  frames: (ArrayLike<number> | null)[] = [];
  sourceTag: (string | null)[] = [];
  protocolNote: (string | null)[] = [];
  runId: (number | null)[] = [];
  line: (number | null)[] = [];
  /** item id → cell position (built on first lookup). */
  private pos: Map<number, number> | null = null;
  dirty = false;

  constructor(
    readonly modelId: number,
    readonly splitId: number,
    readonly configId: number,
  ) {}

  get length(): number {
    return this.itemIds.length;
  }

  find(itemId: number): number {
    if (!this.pos) {
      this.pos = new Map();
      for (let k = 0; k < this.itemIds.length; k++) this.pos.set(this.itemIds[k] as number, k);
    }
    return this.pos.get(itemId) ?? -1;
  }

  push(itemId: number): number {
    const k = this.itemIds.length;
    this.find(itemId); // builds the map before the push
    this.itemIds.push(itemId);
    this.pos!.set(itemId, k);
    this.pred.push(null);
    this.correct.push(null);
    this.score.push(null);
    this.groundTruth.push(null);
    this.confidence.push(null);
    this.margin.push(null);
    this.latencyMs.push(null);
    this.frames.push(null);
    this.sourceTag.push(null);
    this.protocolNote.push(null);
    this.runId.push(null);
    this.line.push(null);
    this.dirty = true;
    return k;
  }
}

export interface ColumnRow {
  id: number;
  model_id: number;
  split_id: number;
  config_id: number;
  n_cells: number;
  n_correct: number;
  n_score: number;
  item_ids: Buffer;
  correct: Buffer;
  pred: Buffer;
  ground_truth: Buffer;
  score: Buffer | null;
  confidence: Buffer | null;
  margin: Buffer | null;
  latency_ms: Buffer | null;
  frame_indices: Buffer | null;
  source_tag: Buffer;
  protocol_note: Buffer;
  run_ids: Buffer;
  lines: Buffer;
}

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);

function floats(b: Buffer | null, n: number): (number | null)[] {
  if (!b) return new Array<number | null>(n).fill(null);
  return Array.from(decodeFloat64(b), nullable);
}

export function decodeColumn(r: ColumnRow): Column {
  const c = new Column(r.model_id, r.split_id, r.config_id);
  c.rowId = r.id;
  const n = r.n_cells;
  c.itemIds = Array.from(decodeInt32(r.item_ids));
  c.correct = Array.from(decodeInt8(r.correct), (v) => (v < 0 ? null : v));
  c.pred = decodeStrings(r.pred);
  c.groundTruth = decodeStrings(r.ground_truth);
  c.score = floats(r.score, n);
  c.confidence = floats(r.confidence, n);
  c.margin = floats(r.margin, n);
  c.latencyMs = floats(r.latency_ms, n);
  c.frames = r.frame_indices ? decodeFrames(r.frame_indices) : new Array<null>(n).fill(null);
  c.sourceTag = decodeStrings(r.source_tag);
  c.protocolNote = decodeStrings(r.protocol_note);
  c.runId = Array.from(decodeInt32(r.run_ids), (v) => (v === 0 ? null : v));
  c.line = Array.from(decodeInt32(r.lines), (v) => (v < 0 ? null : v));
  return c;
}

export const COLUMN_COLUMNS =
  'model_id, split_id, config_id, n_cells, n_correct, n_score, item_ids, correct, pred, ground_truth, score, confidence, margin, latency_ms, frame_indices, source_tag, protocol_note, run_ids, lines';

/** The BLOBs and counts of a column, cells sorted by item id, in COLUMN_COLUMNS order. */
export function encodeColumn(c: Column): unknown[] {
  const n = c.itemIds.length;
  let order: Uint32Array | null = null;
  for (let k = 1; k < n; k++) {
    if ((c.itemIds[k] as number) < (c.itemIds[k - 1] as number)) {
      order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => (c.itemIds[a] as number) - (c.itemIds[b] as number));
      break;
    }
  }
  const at = (k: number): number => (order ? (order[k] as number) : k);
  const items = new Int32Array(n);
  const correct = new Int8Array(n);
  const runs = new Int32Array(n);
  const lines = new Int32Array(n);
  let nCorrect = 0;
  let nScore = 0;
  for (let k = 0; k < n; k++) {
    const i = at(k);
    items[k] = c.itemIds[i] as number;
    const v = c.correct[i];
    correct[k] = v === null || v === undefined ? -1 : v;
    if (correct[k]! >= 0) nCorrect++;
    if (c.score[i] !== null) nScore++;
    runs[k] = c.runId[i] ?? 0;
    lines[k] = c.line[i] ?? -1;
  }
  return [
    c.modelId,
    c.splitId,
    c.configId,
    n,
    nCorrect,
    nScore,
    asBuffer(items),
    asBuffer(correct),
    encodeStrings(c.pred, order),
    encodeStrings(c.groundTruth, order),
    encodeFloat64(c.score, order),
    encodeFloat64(c.confidence, order),
    encodeFloat64(c.margin, order),
    encodeFloat64(c.latencyMs, order),
    encodeFrames(c.frames, order),
    encodeStrings(c.sourceTag, order),
    encodeStrings(c.protocolNote, order),
    asBuffer(runs),
    asBuffer(lines),
  ];
}

export function createColumnWriter(db: Database.Database) {
  const insert = db.prepare(`INSERT INTO response_columns (${COLUMN_COLUMNS}) VALUES (${COLUMN_COLUMNS.split(',').map(() => '?').join(', ')})`);
  const update = db.prepare(
    `UPDATE response_columns SET ${COLUMN_COLUMNS.split(', ')
      .slice(3)
      .map((c) => `${c} = ?`)
      .join(', ')} WHERE id = ?`,
  );
  return (c: Column): void => {
    const v = encodeColumn(c);
    if (c.rowId === null) c.rowId = Number(insert.run(...v).lastInsertRowid);
    else update.run(...v.slice(3), c.rowId);
    c.dirty = false;
  };
}
