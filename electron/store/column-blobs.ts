/**
 * The BLOB encodings of a grid column's fields (response-columns.ts lists the layouts): typed
 * arrays as their bytes, string tables (the distinct strings once, then a small index per cell)
 * and frame-index lists; and StringCells, a string field held as its table and indices without
 * a string per cell.
 */
import type { InternedStrings } from '../../shared/domain/types';

const dec = new TextDecoder();

/** A copy of `b`'s bytes in a fresh ArrayBuffer (aligned for any typed array). */
function own(b: Uint8Array, from = 0, to = b.byteLength): ArrayBuffer {
  const out = new Uint8Array(to - from);
  out.set(b.subarray(from, to));
  return out.buffer;
}

export const asBuffer = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

export function decodeInt32(b: Uint8Array): Int32Array<ArrayBuffer> {
  return new Int32Array(own(b));
}
export function decodeInt8(b: Uint8Array): Int8Array<ArrayBuffer> {
  return new Int8Array(own(b));
}
export function decodeFloat64(b: Uint8Array): Float64Array<ArrayBuffer> {
  return new Float64Array(own(b));
}

/**
 * A float column's BLOB (NaN = null), or null when every cell is null (the column then stores
 * a NULL BLOB). Every NaN is written as the NaN literal, so the BLOB does not depend on the NaN
 * bits it was handed.
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
 * d × u32 UTF-8 byte lengths, then the UTF-8 bytes. Distinct strings are numbered by first
 * appearance in cell order (`order` applied). A Column's fields are StringCells and are
 * encoded by encodeInterned directly; this is the same writer for a plain array.
 */
export function encodeStrings(values: readonly (string | null)[], order: ArrayLike<number> | null): Buffer {
  const cells = new StringCells(new Int32Array(values.length));
  for (let k = 0; k < values.length; k++) cells.set(k, values[k] ?? null);
  return encodeInterned(cells, order);
}

/**
 * The string-table BLOB (layout: encodeStrings) of an interned field (a Column's StringCells,
 * whose table holds no string twice): the distinct values are numbered by first appearance in
 * `order` through their table index — no string compared or hashed per cell.
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

/** The distinct strings of a string table BLOB (encodeStrings), without its per-cell indices. */
export function distinctStrings(b: Uint8Array): string[] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const width = buf.readUInt8(0);
  const d = buf.readUInt32LE(4);
  const n = buf.readUInt32LE(8);
  let at = 12 + ((n * width + 3) & ~3);
  let text = at + 4 * d;
  const out: string[] = [];
  for (let i = 0; i < d; i++) {
    const len = buf.readUInt32LE(at);
    at += 4;
    out.push(dec.decode(buf.subarray(text, text + len)));
    text += len;
  }
  return out;
}

export function decodeStrings(b: Uint8Array): (string | null)[] {
  const cells = decodeStringCells(b);
  return Array.from({ length: cells.index.length }, (_, k) => cells.get(k));
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

/**
 * An empty array for Column.frames, already of the element kind it will hold (objects and
 * null, no holes): every Column's frames array then has one V8 map, so the code appending to
 * it (import-apply.ts `flush`) stays optimised. A `[]` starts as small-integer elements and
 * `new Array(n)` as holey ones; the first store into either changed the map and deoptimised it.
 */
export function framesArray<T extends ArrayLike<number>>(): (T | null)[] {
  const a: (T | null)[] = [null];
  a.pop(); // the kind stays: V8 never narrows an array's element kind
  return a;
}

export function decodeFrames(b: Uint8Array): (Int32Array | null)[] {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const n = buf.readUInt32LE(0);
  const pres = (n + 3) & ~3;
  const offsets = new Int32Array(own(buf, 4 + pres, 4 + pres + 4 * (n + 1)));
  const vals = new Int32Array(own(buf, 4 + pres + 4 * (n + 1)));
  const out = framesArray<Int32Array>();
  for (let k = 0; k < n; k++) out.push(buf[4 + k] ? vals.slice(offsets[k] as number, offsets[k + 1] as number) : null);
  return out;
}

/**
 * A string field of a Column: one index per cell (−1 = NULL) into the column's table of
 * distinct strings — the BLOB's own layout (encodeStrings), so decoding, appending a cell and
 * encoding cost array reads per cell, not a string per cell (a 1.45M-row import writes four of
 * these per row). The table never holds a string twice, which encodeInterned relies on.
 */
export class StringCells implements InternedStrings {
  private ids: Map<string, number> | null = null;

  constructor(
    public index: Int32Array<ArrayBuffer>,
    readonly table: string[] = [],
  ) {}

  get(k: number): string | null {
    const i = this.index[k] as number;
    return i < 0 ? null : (this.table[i] as string);
  }

  set(k: number, v: string | null): void {
    this.index[k] = v === null ? -1 : this.intern(v);
  }

  /** The table index of `v`, added when new. */
  intern(v: string): number {
    let ids = this.ids;
    if (ids === null) {
      ids = this.ids = new Map();
      for (let i = 0; i < this.table.length; i++) ids.set(this.table[i] as string, i);
    }
    let i = ids.get(v);
    if (i === undefined) {
      i = this.table.length;
      this.table.push(v);
      ids.set(v, i);
    }
    return i;
  }

  grow(n: number): void {
    const b = new Int32Array(n);
    b.set(this.index);
    this.index = b;
  }
}

/** A string table BLOB (encodeStrings) as StringCells, without building a string per cell. */
export function decodeStringCells(b: Uint8Array): StringCells {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const width = buf.readUInt8(0);
  const d = buf.readUInt32LE(4);
  const n = buf.readUInt32LE(8);
  const head = 12;
  const idxBytes = (n * width + 3) & ~3;
  const table: string[] = [];
  let at = head + idxBytes;
  let text = at + 4 * d;
  for (let i = 0; i < d; i++) {
    const len = buf.readUInt32LE(at);
    at += 4;
    table.push(dec.decode(buf.subarray(text, text + len)));
    text += len;
  }
  const raw = own(buf, head, head + n * width);
  const idx = width === 1 ? new Uint8Array(raw) : width === 2 ? new Uint16Array(raw) : new Uint32Array(raw);
  const index = new Int32Array(n);
  for (let k = 0; k < n; k++) index[k] = (idx[k] as number) - 1;
  return new StringCells(index, table);
}
