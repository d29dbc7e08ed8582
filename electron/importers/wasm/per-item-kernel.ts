// AssemblyScript: the byte-level core of per-item-fast.ts, compiled to WebAssembly.
//
// Why WebAssembly: an import runs each of the reader's loops once, over ~145k rows. In JS
// those loops run mostly before V8 has optimised them (≈ 110 ms for a 14.6 MB file); the
// same loops as WebAssembly run as machine code from the first row (Liftoff), ≈ 4× faster.
//
// The caller (per-item-fast.ts) copies the file into this module's memory, calls `parse`
// once, and reads the results through the exported getters. Every rule here mirrors the
// JS fast path's rules exactly: on anything it does not handle, `parse` returns a non-zero
// code and the caller hands the file to the general reader, which reports the error.
// A fresh instance is made per file: its memory is only ever bump-allocated, never freed.

const ROW: u32 = 13; // i32s per row: the starts of the 11 fields, the row's end + 1, its line

// ---- bail codes (non-zero: the general reader takes the file) --------------------------
const TOO_MANY_FIELDS: i32 = 1;
const TOO_FEW_FIELDS: i32 = 2;
const EMPTY_NAME: i32 = 3;
const CONFIG_VALUES: i32 = 4;
const OUTCOME: i32 = 5;
const EMPTY_SAMPLE_ID: i32 = 6;
const HUGE_GRID: i32 = 7;
const TWO_ANSWERS: i32 = 8;
const DIFFERENT_REPEAT: i32 = 9;

/** Zeroed memory. */
function calloc(bytes: usize): usize {
  const p = heap.alloc(bytes);
  memory.fill(p, 0, bytes);
  return p;
}

function filled(count: u32, value: i32): usize {
  const p = heap.alloc(<usize>count << 2);
  for (let i: u32 = 0; i < count; i++) store<i32>(p + (<usize>i << 2), value);
  return p;
}

@inline function ld(p: usize, i: u32): i32 {
  return load<i32>(p + (<usize>i << 2));
}

@inline function st(p: usize, i: u32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

function sameBytes(a: usize, b: usize, len: u32): bool {
  let i: u32 = 0;
  for (; i + 8 <= len; i += 8) if (load<u64>(a + i) != load<u64>(b + i)) return false;
  for (; i < len; i++) if (load<u8>(a + i) != load<u8>(b + i)) return false;
  return true;
}

/**
 * Byte ranges mapped to dense ids (FNV-1a, open addressing), in order of first appearance.
 * With groups (sample ids per split), equal bytes in two groups are two values, and ids are
 * dense per group.
 */
@final @unmanaged
class Interner {
  table: usize = 0; // slot → entry + 1 (0 = empty)
  mask: u32 = 0;
  count: u32 = 0;
  cap: u32 = 0;
  hashes: usize = 0;
  starts: usize = 0;
  lens: usize = 0;
  groups: usize = 0;
  ids: usize = 0;
  perGroup: usize = 0; // per-group counters

  init(groups: u32): void {
    this.table = calloc(1024 << 2);
    this.mask = 1023;
    this.cap = 256;
    this.hashes = heap.alloc(256 << 2);
    this.starts = heap.alloc(256 << 2);
    this.lens = heap.alloc(256 << 2);
    this.groups = heap.alloc(256 << 2);
    this.ids = heap.alloc(256 << 2);
    this.perGroup = calloc(<usize>max<u32>(groups, 1) << 2);
  }

  id(s: usize, len: u32, group: u32): i32 {
    let h: u32 = 0x811c9dc5 ^ group;
    for (let i: u32 = 0; i < len; i++) h = (h ^ load<u8>(s + i)) * 0x01000193;
    let slot = h & this.mask;
    for (;;) {
      const v = ld(this.table, slot);
      if (v == 0) break;
      const e = <u32>(v - 1);
      if (<u32>ld(this.hashes, e) == h && <u32>ld(this.lens, e) == len && <u32>ld(this.groups, e) == group && sameBytes(<usize>ld(this.starts, e), s, len)) {
        return ld(this.ids, e);
      }
      slot = (slot + 1) & this.mask;
    }
    const e = this.count;
    if (e == this.cap) this.grow();
    const id = ld(this.perGroup, group);
    st(this.perGroup, group, id + 1);
    st(this.hashes, e, <i32>h);
    st(this.starts, e, <i32>s);
    st(this.lens, e, <i32>len);
    st(this.groups, e, <i32>group);
    st(this.ids, e, id);
    st(this.table, slot, <i32>e + 1);
    this.count = e + 1;
    if (this.count * 2 > this.mask + 1) this.rehash();
    return id;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const bytes = <usize>this.cap << 2;
    this.hashes = moved(this.hashes, bytes, cap);
    this.starts = moved(this.starts, bytes, cap);
    this.lens = moved(this.lens, bytes, cap);
    this.groups = moved(this.groups, bytes, cap);
    this.ids = moved(this.ids, bytes, cap);
    this.cap = cap;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.table = calloc(<usize>size << 2);
    this.mask = size - 1;
    for (let e: u32 = 0; e < this.count; e++) {
      let slot = <u32>ld(this.hashes, e) & this.mask;
      while (ld(this.table, slot) != 0) slot = (slot + 1) & this.mask;
      st(this.table, slot, <i32>e + 1);
    }
  }
}

function moved(p: usize, bytes: usize, cap: u32): usize {
  const q = heap.alloc(<usize>cap << 2);
  memory.copy(q, p, bytes);
  return q;
}

// ---- state of the last parse, read by the caller through the getters below ---------------
let rows: usize = 0;
let rowCount: u32 = 0;
const names = new StaticArray<Interner>(6); // model, split, config, sample id, tag, note
let configFirst: usize = 0; // per config: its first row
let colKeys: usize = 0; // per column: model, split, config
let colCount: u32 = 0;
let colFirst: usize = 0; // column c's cells are [colFirst[c], colFirst[c + 1]) of the flat arrays
let flatItem: usize = 0;
let flatPred: usize = 0;
let flatGt: usize = 0;
let flatTag: usize = 0;
let flatNote: usize = 0;
let flatCorrect: usize = 0; // i8
let flatLine: usize = 0;
let answered: usize = 0; // (split, item, letter) per item with a ground truth, in file order
let answeredCount: u32 = 0;
let inconsistent: u32 = 0;
let duplicates: u32 = 0;

export function alloc(bytes: usize): usize {
  return heap.alloc(bytes);
}

/**
 * Phase 1: field starts of every data row. `src` holds the file's n bytes plus 16 bytes of
 * padding; rows start at `from` (after the header). Returns 0 or a bail code.
 */
function scanRows(src: usize, from: u32, n: u32): i32 {
  let cap: u32 = max<u32>(64, n / 64);
  let out = heap.alloc(<usize>cap * ROW * 4);
  let r: u32 = 0;
  let line: u32 = 2;
  let nf: u32 = 0;
  let start: u32 = from;
  let base = out;
  store<i32>(base, start);
  const comma = i8x16.splat(44);
  const lf = i8x16.splat(10);
  // 16 bytes at a time: a bit per ',' or '\n', then one step per delimiter.
  for (let p: u32 = from; p < n; p += 16) {
    const v = v128.load(src + p);
    let m = <u32>i8x16.bitmask(v128.or(i8x16.eq(v, comma), i8x16.eq(v, lf)));
    if (n - p < 16) m &= (<u32>1 << (n - p)) - 1;
    while (m != 0) {
      const pos = p + ctz(m);
      m &= m - 1;
      if (load<u8>(src + pos) == 44) {
        if (nf == 10) return TOO_MANY_FIELDS;
        nf++;
        store<i32>(base + (<usize>nf << 2), pos + 1);
        continue;
      }
      let end = pos;
      if (end > start && load<u8>(src + end - 1) == 13) end--; // CRLF
      if (end != start) { // an empty line is skipped, as the general reader does
        if (nf != 10) return TOO_FEW_FIELDS;
        store<i32>(base + 44, end + 1);
        store<i32>(base + 48, line);
        r++;
        if (r == cap) {
          out = moved(out, <usize>cap * ROW * 4, cap * 2 * ROW);
          cap *= 2;
        }
        base = out + <usize>r * ROW * 4;
      }
      line++;
      start = pos + 1;
      nf = 0;
      store<i32>(base, start);
    }
  }
  // The last row, when the file does not end with a newline.
  let end = n;
  if (end > start && load<u8>(src + end - 1) == 13) end--;
  if (end != start) {
    if (nf != 10) return TOO_FEW_FIELDS;
    store<i32>(base + 44, end + 1);
    store<i32>(base + 48, line);
    r++;
  }
  rows = out;
  rowCount = r;
  return 0;
}

@inline function fieldStart(src: usize, r: u32, j: u32): usize {
  return src + <usize>load<u32>(rows + ((<usize>r * ROW + j) << 2));
}

@inline function fieldLen(r: u32, j: u32): u32 {
  const p = rows + ((<usize>r * ROW + j) << 2);
  return load<u32>(p + 4) - 1 - load<u32>(p);
}

/**
 * Ids of field j of every row (−1 = empty). Each row is first compared with the last value
 * of its group (a column, or one group for all rows: `group` = 0) before hashing.
 */
function internField(src: usize, j: u32, names: Interner, group: usize, groups: u32): usize {
  const R = rowCount;
  const ids = heap.alloc(<usize>R << 2);
  const lastS = calloc(<usize>groups << 2);
  const lastLen = filled(groups, -1);
  const lastId = calloc(<usize>groups << 2);
  for (let r: u32 = 0; r < R; r++) {
    const s = fieldStart(src, r, j);
    const len = fieldLen(r, j);
    const g: u32 = group == 0 ? 0 : <u32>ld(group, r);
    if (<i32>len == ld(lastLen, g) && sameBytes(s, <usize>ld(lastS, g), len)) {
      st(ids, r, ld(lastId, g));
      continue;
    }
    const id = len == 0 ? -1 : names.id(s, len, 0);
    st(lastS, g, <i32>s);
    st(lastLen, g, <i32>len);
    st(lastId, g, id);
    st(ids, r, id);
  }
  return ids;
}

/**
 * internField for two adjacent fields j and j + 1: the span from the start of the first to
 * the end of the second is compared with the group's last such span in one go, and only a
 * changed span is interned field by field. Writes the ids of both fields to idsA and idsB.
 */
function internPair(src: usize, j: u32, a: Interner, b: Interner, group: usize, groups: u32, idsA: usize, idsB: usize): void {
  const R = rowCount;
  const lastS = calloc(<usize>groups << 2);
  const lastLen = filled(groups, -1);
  const lastA = calloc(<usize>groups << 2);
  const lastB = calloc(<usize>groups << 2);
  for (let r: u32 = 0; r < R; r++) {
    const s = fieldStart(src, r, j);
    const mid = fieldStart(src, r, j + 1); // start of the second field
    const len = <u32>(fieldStart(src, r, j + 2) - 1 - s);
    const g: u32 = group == 0 ? 0 : <u32>ld(group, r);
    if (<i32>len != ld(lastLen, g) || !sameBytes(s, <usize>ld(lastS, g), len)) {
      st(lastS, g, <i32>s);
      st(lastLen, g, <i32>len);
      st(lastA, g, mid - 1 == s ? -1 : a.id(s, <u32>(mid - 1 - s), 0));
      st(lastB, g, s + len == mid ? -1 : b.id(mid, <u32>(s + len - mid), 0));
    }
    st(idsA, r, ld(lastA, g));
    st(idsB, r, ld(lastB, g));
  }
}

/** A one-letter option A–H as its char code, 0 for an empty field, −1 for anything else. */
@inline function letterOf(s: usize, len: u32): i32 {
  if (len == 0) return 0;
  if (len != 1) return -1;
  const c = <i32>load<u8>(s);
  return c >= 65 && c <= 72 ? c : -1;
}

/**
 * Reads the rows of a per_item.csv held at `src` (n bytes, 16 bytes of padding after them)
 * from byte `from`; j* are the columns' positions in the header. Returns 0, or a bail code.
 */
export function parse(
  src: usize, from: u32, n: u32,
  jSid: u32, jModel: u32, jSplit: u32, jConfig: u32, jFc: u32, jPc: u32,
  jPred: u32, jGt: u32, jCorrect: u32, jTag: u32, jNote: u32,
): i32 {
  const scanned = scanRows(src, from, n);
  if (scanned != 0) return scanned;
  const R = rowCount;
  for (let k = 0; k < 6; k++) {
    const x = new Interner();
    names[k] = x;
  }
  const models = names[0];
  const splits = names[1];
  const configs = names[2];
  const items = names[3];
  const tags = names[4];
  const notes = names[5];
  models.init(1);
  splits.init(1);
  configs.init(1);
  tags.init(1);
  notes.init(1);

  // Model, split, config: names, never empty.
  let model: usize;
  let split: usize;
  if (jSplit == jModel + 1) {
    model = heap.alloc(<usize>R << 2);
    split = heap.alloc(<usize>R << 2);
    internPair(src, jModel, models, splits, 0, 1, model, split);
  } else {
    model = internField(src, jModel, models, 0, 1);
    split = internField(src, jSplit, splits, 0, 1);
  }
  const config = internField(src, jConfig, configs, 0, 1);
  for (let r: u32 = 0; r < R; r++) {
    if (ld(model, r) < 0 || ld(split, r) < 0 || ld(config, r) < 0) return EMPTY_NAME;
  }

  // Each config's frame_count / pixel_count: the caller checks them on its first row; every
  // later row must repeat those bytes exactly.
  configFirst = filled(configs.count, -1);
  for (let r: u32 = 0; r < R; r++) {
    const c = <u32>ld(config, r);
    const f = ld(configFirst, c);
    if (f < 0) {
      st(configFirst, c, <i32>r);
      continue;
    }
    const fcLen = fieldLen(r, jFc);
    const pcLen = fieldLen(r, jPc);
    if (fcLen != fieldLen(<u32>f, jFc) || !sameBytes(fieldStart(src, r, jFc), fieldStart(src, <u32>f, jFc), fcLen)) return CONFIG_VALUES;
    if (pcLen != fieldLen(<u32>f, jPc) || !sameBytes(fieldStart(src, r, jPc), fieldStart(src, <u32>f, jPc), pcLen)) return CONFIG_VALUES;
  }

  // predicted / ground-truth letters (char code, 0 = empty) and `correct` as 0/1.
  const pred = heap.alloc(R);
  const gt = heap.alloc(R);
  const correct = heap.alloc(R);
  for (let r: u32 = 0; r < R; r++) {
    const p = letterOf(fieldStart(src, r, jPred), fieldLen(r, jPred));
    const g = letterOf(fieldStart(src, r, jGt), fieldLen(r, jGt));
    if (p < 0 || g < 0 || fieldLen(r, jCorrect) != 1) return OUTCOME;
    const c = <i32>load<u8>(fieldStart(src, r, jCorrect)) - 48;
    if (c != 0 && c != 1) return OUTCOME;
    store<u8>(pred + r, <u8>p);
    store<u8>(gt + r, <u8>g);
    store<u8>(correct + r, <u8>c);
  }

  // Sample ids: dense per split, in order of first appearance.
  const S = splits.count;
  items.init(S);
  const item = heap.alloc(<usize>R << 2);
  {
    let lastS: usize = 0;
    let lastLen: u32 = 0;
    let lastSplit: i32 = -1;
    let lastId: i32 = -1;
    for (let r: u32 = 0; r < R; r++) {
      const s = fieldStart(src, r, jSid);
      const len = fieldLen(r, jSid);
      const sp = ld(split, r);
      if (sp == lastSplit && len == lastLen && sameBytes(s, lastS, len)) {
        st(item, r, lastId);
        continue;
      }
      if (len == 0) return EMPTY_SAMPLE_ID;
      lastId = items.id(s, len, <u32>sp);
      lastS = s;
      lastLen = len;
      lastSplit = sp;
      st(item, r, lastId);
    }
  }

  // (model, split, config) → a column number, columns in order of first appearance, through
  // a dense table.
  const K = configs.count;
  const cells = <u64>models.count * <u64>S * <u64>K;
  if (cells > (1 << 22)) return HUGE_GRID;
  const cellCol = filled(<u32>cells, -1);
  const column = heap.alloc(<usize>R << 2);
  colKeys = heap.alloc(<usize>R * 12);
  let C: u32 = 0;
  for (let r: u32 = 0; r < R; r++) {
    const key = (<u32>ld(model, r) * S + <u32>ld(split, r)) * K + <u32>ld(config, r);
    let k = ld(cellCol, key);
    if (k < 0) {
      k = <i32>C;
      C++;
      st(cellCol, key, k);
      st(colKeys, 3 * <u32>k, ld(model, r));
      st(colKeys, 3 * <u32>k + 1, ld(split, r));
      st(colKeys, 3 * <u32>k + 2, ld(config, r));
    }
    st(column, r, k);
  }
  colCount = C;

  // Source tag and protocol note, compared per column with its last row.
  let tag: usize;
  let note: usize;
  if (jNote == jTag + 1) {
    tag = heap.alloc(<usize>R << 2);
    note = heap.alloc(<usize>R << 2);
    internPair(src, jTag, tags, notes, column, C, tag, note);
  } else {
    tag = internField(src, jTag, tags, column, C);
    note = internField(src, jNote, notes, column, C);
  }

  // Items' answers, exact repeats, inconsistent rows — in file order, as the general reader.
  const splitBase = calloc((<usize>S + 1) << 2);
  for (let s: u32 = 0; s < S; s++) st(splitBase, s + 1, ld(splitBase, s) + ld(items.perGroup, s));
  const answerOf = calloc(<usize>ld(splitBase, S));
  answered = heap.alloc(<usize>ld(splitBase, S) * 12);
  answeredCount = 0;
  const colBase = calloc((<usize>C + 1) << 2); // column c's first cell in posOf
  for (let c: u32 = 0; c < C; c++) st(colBase, c + 1, ld(colBase, c) + ld(items.perGroup, <u32>ld(colKeys, 3 * c + 1)));
  const posOf = calloc(<usize>ld(colBase, C) << 2);
  const keep = calloc(R);
  const counts = calloc(<usize>C << 2);
  inconsistent = 0;
  duplicates = 0;
  for (let r: u32 = 0; r < R; r++) {
    const p = load<u8>(pred + r);
    const g = load<u8>(gt + r);
    const ok = load<u8>(correct + r);
    if (g != 0 && p != 0 && <u8>(p == g ? 1 : 0) != ok) inconsistent++;
    const it = ld(item, r);
    const sp = <u32>ld(split, r);
    if (g != 0) {
      const flat = <usize>(ld(splitBase, sp) + it);
      const had = load<u8>(answerOf + flat);
      if (had == 0) {
        store<u8>(answerOf + flat, g);
        st(answered, 3 * answeredCount, <i32>sp);
        st(answered, 3 * answeredCount + 1, it);
        st(answered, 3 * answeredCount + 2, g);
        answeredCount++;
      } else if (had != g) return TWO_ANSWERS;
    }
    const c = <u32>ld(column, r);
    const slot = <u32>(ld(colBase, c) + it);
    const prev = ld(posOf, slot) - 1;
    if (prev >= 0) {
      // The same cell again: an exact repeat is ignored, anything else is the general reader's error.
      const q = <u32>prev;
      if (load<u8>(pred + q) != p || load<u8>(correct + q) != ok || load<u8>(gt + q) != g) return DIFFERENT_REPEAT;
      duplicates++;
      continue;
    }
    st(posOf, slot, <i32>r + 1);
    store<u8>(keep + r, 1);
    st(counts, c, ld(counts, c) + 1);
  }

  // The kept rows' fields in column-major order, letters as indices into A–H (−1 = empty).
  colFirst = calloc((<usize>C + 1) << 2);
  for (let c: u32 = 0; c < C; c++) st(colFirst, c + 1, ld(colFirst, c) + ld(counts, c));
  const next = heap.alloc(<usize>C << 2);
  memory.copy(next, colFirst, <usize>C << 2);
  const N = <u32>ld(colFirst, C);
  flatItem = heap.alloc(<usize>N << 2);
  flatPred = heap.alloc(<usize>N << 2);
  flatGt = heap.alloc(<usize>N << 2);
  flatTag = heap.alloc(<usize>N << 2);
  flatNote = heap.alloc(<usize>N << 2);
  flatCorrect = heap.alloc(N);
  flatLine = heap.alloc(<usize>N << 2);
  for (let r: u32 = 0; r < R; r++) {
    if (load<u8>(keep + r) == 0) continue;
    const c = <u32>ld(column, r);
    const d = <u32>ld(next, c);
    st(next, c, <i32>d + 1);
    st(flatItem, d, ld(item, r));
    const p = <i32>load<u8>(pred + r);
    st(flatPred, d, p == 0 ? -1 : p - 65);
    const g = <i32>load<u8>(gt + r);
    st(flatGt, d, g == 0 ? -1 : g - 65);
    st(flatTag, d, ld(tag, r));
    st(flatNote, d, ld(note, r));
    store<u8>(flatCorrect + d, load<u8>(correct + r));
    st(flatLine, d, load<i32>(rows + ((<usize>r * ROW + 12) << 2)));
  }
  return 0;
}

// ---- getters ---------------------------------------------------------------------------
export function getRowCount(): u32 { return rowCount; }
export function getRows(): usize { return rows; }
/** k: 0 model, 1 split, 2 config, 3 sample id, 4 tag, 5 note. */
export function namesCount(k: i32): u32 { return names[k].count; }
export function namesStarts(k: i32): usize { return names[k].starts; }
export function namesLens(k: i32): usize { return names[k].lens; }
export function namesGroups(k: i32): usize { return names[k].groups; }
export function namesPerGroup(k: i32): usize { return names[k].perGroup; }
export function getConfigFirst(): usize { return configFirst; }
export function getColumnCount(): u32 { return colCount; }
export function getColumnKeys(): usize { return colKeys; }
export function getColumnFirst(): usize { return colFirst; }
export function getFlatItem(): usize { return flatItem; }
export function getFlatPred(): usize { return flatPred; }
export function getFlatGt(): usize { return flatGt; }
export function getFlatTag(): usize { return flatTag; }
export function getFlatNote(): usize { return flatNote; }
export function getFlatCorrect(): usize { return flatCorrect; }
export function getFlatLine(): usize { return flatLine; }
export function getAnswered(): usize { return answered; }
export function getAnsweredCount(): u32 { return answeredCount; }
export function getInconsistent(): u32 { return inconsistent; }
export function getDuplicates(): u32 { return duplicates; }
