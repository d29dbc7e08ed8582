// AssemblyScript (compiled to WebAssembly by scripts/build-wasm.js): the byte-level core of
// the per_item.csv fast path, ../per-item-fast.ts.
//
// Why WebAssembly: an import runs each of the reader's loops once, over ~145k rows. In JS
// those loops ran mostly before V8 had optimised them (≈ 110 ms of a cold 14.6 MB import);
// WebAssembly runs as machine code from the first row. Why one pass: each row is handled when
// the scan reaches its end, while its bytes are in cache, instead of writing every field's
// offsets to a table (52 bytes a row) and re-reading them in a pass per field.
//
// The caller copies the file into this module's memory, calls `parse` once, and reads the
// results through the getters at the end. The rules mirror the general reader's: on anything
// the fast path does not handle, `parse` returns a non-zero code and the caller hands the file
// to the general reader, which reports the error (file:line:field). A fresh instance is made
// per file: memory is only bump-allocated (stub runtime), never freed, and dropped whole.

// ---- bail codes (non-zero: the general reader takes the file) --------------------------
const TOO_MANY_FIELDS: i32 = 1;
const TOO_FEW_FIELDS: i32 = 2;
const EMPTY_NAME: i32 = 3;
const CONFIG_VALUES: i32 = 4;
const OUTCOME: i32 = 5;
const EMPTY_SAMPLE_ID: i32 = 6;
const TWO_ANSWERS: i32 = 7;
const DIFFERENT_REPEAT: i32 = 8;
const QUOTED: i32 = 9; // RFC 4180 quoting

// ---- memory helpers --------------------------------------------------------------------

function calloc(bytes: usize): usize {
  const p = heap.alloc(bytes);
  memory.fill(p, 0, bytes);
  return p;
}

/** A copy of `bytes` bytes at p in a new block of `size` bytes (the old block is abandoned). */
function moved(p: usize, bytes: usize, size: usize): usize {
  const q = heap.alloc(size);
  memory.copy(q, p, bytes);
  return q;
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

/** A growable i32 array. */
@final @unmanaged
class Ints {
  ptr: usize = 0;
  cap: u32 = 0;

  init(cap: u32): void {
    this.ptr = heap.alloc(<usize>cap << 2);
    this.cap = cap;
  }

  /** Makes room for index i (new cells: `fill`). */
  @inline reserve(i: u32, fill: i32): void {
    if (i >= this.cap) this.grow(i, fill);
  }

  private grow(i: u32, fill: i32): void {
    let cap = this.cap * 2;
    while (cap <= i) cap *= 2;
    this.ptr = moved(this.ptr, <usize>this.cap << 2, <usize>cap << 2);
    for (let k = this.cap; k < cap; k++) st(this.ptr, k, fill);
    this.cap = cap;
  }
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
  hashes: Ints = changetype<Ints>(0);
  starts: Ints = changetype<Ints>(0);
  lens: Ints = changetype<Ints>(0);
  groups: Ints = changetype<Ints>(0);
  ids: Ints = changetype<Ints>(0);
  perGroup: Ints = changetype<Ints>(0); // per group: its number of values

  init(): void {
    this.table = calloc(1024 << 2);
    this.mask = 1023;
    this.hashes = ints(256, 0);
    this.starts = ints(256, 0);
    this.lens = ints(256, 0);
    this.groups = ints(256, 0);
    this.ids = ints(256, 0);
    this.perGroup = ints(16, 0);
  }

  id(s: usize, len: u32, group: u32): i32 {
    let h: u32 = 0x811c9dc5 ^ group;
    for (let i: u32 = 0; i < len; i++) h = (h ^ load<u8>(s + i)) * 0x01000193;
    let slot = h & this.mask;
    for (;;) {
      const v = ld(this.table, slot);
      if (v == 0) break;
      const e = <u32>(v - 1);
      if (
        <u32>ld(this.hashes.ptr, e) == h && <u32>ld(this.lens.ptr, e) == len &&
        <u32>ld(this.groups.ptr, e) == group && sameBytes(<usize>ld(this.starts.ptr, e), s, len)
      ) return ld(this.ids.ptr, e);
      slot = (slot + 1) & this.mask;
    }
    const e = this.count;
    this.hashes.reserve(e, 0);
    this.starts.reserve(e, 0);
    this.lens.reserve(e, 0);
    this.groups.reserve(e, 0);
    this.ids.reserve(e, 0);
    this.perGroup.reserve(group, 0);
    const id = ld(this.perGroup.ptr, group);
    st(this.perGroup.ptr, group, id + 1);
    st(this.hashes.ptr, e, <i32>h);
    st(this.starts.ptr, e, <i32>s);
    st(this.lens.ptr, e, <i32>len);
    st(this.groups.ptr, e, <i32>group);
    st(this.ids.ptr, e, id);
    st(this.table, slot, <i32>e + 1);
    this.count = e + 1;
    if (this.count * 2 > this.mask + 1) this.rehash();
    return id;
  }

  private rehash(): void {
    const size = (this.mask + 1) * 2;
    this.table = calloc(<usize>size << 2);
    this.mask = size - 1;
    for (let e: u32 = 0; e < this.count; e++) {
      let slot = <u32>ld(this.hashes.ptr, e) & this.mask;
      while (ld(this.table, slot) != 0) slot = (slot + 1) & this.mask;
      st(this.table, slot, <i32>e + 1);
    }
  }
}

function ints(cap: u32, fill: i32): Ints {
  const x = new Ints();
  x.init(cap);
  for (let k: u32 = 0; k < cap; k++) st(x.ptr, k, fill);
  return x;
}

function interner(): Interner {
  const x = new Interner();
  x.init();
  return x;
}

/**
 * "The last value seen" per group (the whole file, or each column): rows repeat their
 * neighbours' values, so a row's span is first compared with its group's last span, and only
 * a changed span is hashed. A span covers one field, or two adjacent fields compared as one
 * (model+split, tag+note in the release's column order); `a`/`b` hold their ids.
 */
@final @unmanaged
class Last {
  s: Ints = changetype<Ints>(0);
  len: Ints = changetype<Ints>(0);
  a: Ints = changetype<Ints>(0);
  b: Ints = changetype<Ints>(0);

  init(groups: u32): void {
    this.s = ints(groups, 0);
    this.len = ints(groups, -1);
    this.a = ints(groups, 0);
    this.b = ints(groups, 0);
  }

  reserve(g: u32): void {
    this.s.reserve(g, 0);
    this.len.reserve(g, -1);
    this.a.reserve(g, 0);
    this.b.reserve(g, 0);
  }

  @inline same(g: u32, s: usize, len: u32): bool {
    return <i32>len == ld(this.len.ptr, g) && sameBytes(s, <usize>ld(this.s.ptr, g), len);
  }

  @inline set(g: u32, s: usize, len: u32): void {
    st(this.s.ptr, g, <i32>s);
    st(this.len.ptr, g, <i32>len);
  }
}

function last(groups: u32): Last {
  const x = new Last();
  x.init(groups);
  return x;
}

/** Id of a field's value (−1 = empty), through the group's last value. */
function one(cache: Last, g: u32, s: usize, len: u32, names: Interner): i32 {
  if (cache.same(g, s, len)) return ld(cache.a.ptr, g);
  const id = len == 0 ? -1 : names.id(s, len, 0);
  cache.set(g, s, len);
  st(cache.a.ptr, g, id);
  return id;
}

/** Ids of two adjacent fields [s, mid − 1) and [mid, end) into cache.a/b[g] (−1 = empty). */
function two(cache: Last, g: u32, s: usize, mid: usize, end: usize, a: Interner, b: Interner): void {
  const len = <u32>(end - s);
  if (cache.same(g, s, len)) return;
  cache.set(g, s, len);
  st(cache.a.ptr, g, mid - 1 == s ? -1 : a.id(s, <u32>(mid - 1 - s), 0));
  st(cache.b.ptr, g, end == mid ? -1 : b.id(mid, <u32>(end - mid), 0));
}

/** A one-letter option A–H as its char code, 0 for an empty field, −1 for anything else. */
@inline function letterOf(s: usize, len: u32): i32 {
  if (len == 0) return 0;
  if (len != 1) return -1;
  const c = <i32>load<u8>(s);
  return c >= 65 && c <= 72 ? c : -1;
}

// ---- the parse ---------------------------------------------------------------------------

// The caller's columns: where each field sits in a row.
let jSid: u32 = 0;
let jModel: u32 = 0;
let jSplit: u32 = 0;
let jConfig: u32 = 0;
let jFc: u32 = 0;
let jPc: u32 = 0;
let jPred: u32 = 0;
let jGt: u32 = 0;
let jCorrect: u32 = 0;
let jTag: u32 = 0;
let jNote: u32 = 0;

/** The current row's field starts (12: the 11 fields, then its end + 1), absolute addresses. */
let f: usize = 0;
@inline function start(j: u32): usize {
  return <usize>load<u32>(f + (<usize>j << 2));
}
@inline function fieldLen(j: u32): u32 {
  return <u32>(start(j + 1) - 1 - start(j));
}

// Names: 0 model, 1 split, 2 config, 3 sample id (grouped by split), 4 tag, 5 note.
const names = new StaticArray<Interner>(6);
let models: Interner = changetype<Interner>(0);
let splits: Interner = changetype<Interner>(0);
let configs: Interner = changetype<Interner>(0);
let items: Interner = changetype<Interner>(0);
let tags: Interner = changetype<Interner>(0);
let notes: Interner = changetype<Interner>(0);
let lastModelSplit: Last = changetype<Last>(0);
let lastSplit: Last = changetype<Last>(0); // when split does not follow model
let lastConfig: Last = changetype<Last>(0);
let lastTagNote: Last = changetype<Last>(0); // per column
let lastNote: Last = changetype<Last>(0); // per column, when note does not follow tag
let lastItem: Last = changetype<Last>(0); // a = the item, b = its split

// Per config: where its frame_count and pixel_count sit on its first row (start, end).
let configSpec: Ints = changetype<Ints>(0);

// Columns: (model, split, config) → column, in order of first appearance.
let cellTable: usize = 0; // slot → column + 1
let cellMask: u32 = 0;
let colKeys: Ints = changetype<Ints>(0); // 3 per column: model, split, config
let colCount: u32 = 0;

// Per row so far (grown together): its fields as ids and letters, its line.
let rowCap: u32 = 0;
let rowCount: u32 = 0;
let rowItem: usize = 0;
let rowCol: usize = 0;
let rowTag: usize = 0;
let rowNote: usize = 0;
let rowLine: usize = 0;
let rowPred: usize = 0; // u8: char code, 0 = empty
let rowGt: usize = 0; // u8
let rowCorrect: usize = 0; // u8: 0/1

function growRows(): void {
  const cap = rowCap * 2;
  const b4 = <usize>rowCap << 2;
  rowItem = moved(rowItem, b4, <usize>cap << 2);
  rowCol = moved(rowCol, b4, <usize>cap << 2);
  rowTag = moved(rowTag, b4, <usize>cap << 2);
  rowNote = moved(rowNote, b4, <usize>cap << 2);
  rowLine = moved(rowLine, b4, <usize>cap << 2);
  rowPred = moved(rowPred, rowCap, cap);
  rowGt = moved(rowGt, rowCap, cap);
  rowCorrect = moved(rowCorrect, rowCap, cap);
  rowCap = cap;
}

@inline function cellHash(m: u32, s: u32, k: u32): u32 {
  const h = (m * 0x9e3779b1) ^ (s * 0x85ebca77) ^ (k * 0xc2b2ae3d);
  return h ^ (h >> 15);
}

/** The column of (model, split, config), added when new. */
function columnOf(m: u32, s: u32, k: u32): u32 {
  let slot = cellHash(m, s, k) & cellMask;
  for (;;) {
    const v = ld(cellTable, slot);
    if (v == 0) break;
    const c = <u32>(v - 1);
    if (<u32>ld(colKeys.ptr, 3 * c) == m && <u32>ld(colKeys.ptr, 3 * c + 1) == s && <u32>ld(colKeys.ptr, 3 * c + 2) == k) return c;
    slot = (slot + 1) & cellMask;
  }
  const c = colCount++;
  colKeys.reserve(3 * c + 2, 0);
  st(colKeys.ptr, 3 * c, <i32>m);
  st(colKeys.ptr, 3 * c + 1, <i32>s);
  st(colKeys.ptr, 3 * c + 2, <i32>k);
  lastTagNote.reserve(c);
  lastNote.reserve(c);
  st(cellTable, slot, <i32>c + 1);
  if (colCount * 2 > cellMask + 1) {
    const size = (cellMask + 1) * 2;
    cellTable = calloc(<usize>size << 2);
    cellMask = size - 1;
    for (let x: u32 = 0; x < colCount; x++) {
      const km = <u32>ld(colKeys.ptr, 3 * x);
      const ks = <u32>ld(colKeys.ptr, 3 * x + 1);
      const kk = <u32>ld(colKeys.ptr, 3 * x + 2);
      let sx = cellHash(km, ks, kk) & cellMask;
      while (ld(cellTable, sx) != 0) sx = (sx + 1) & cellMask;
      st(cellTable, sx, <i32>x + 1);
    }
  }
  return c;
}

/** One data row (its field starts in `f`): its values as ids, checked. 0 or a bail code. */
function row(line: u32): i32 {
  // Model and split: names, never empty.
  let m: i32;
  let sp: i32;
  if (jSplit == jModel + 1) {
    two(lastModelSplit, 0, start(jModel), start(jSplit), start(jSplit + 1) - 1, models, splits);
    m = ld(lastModelSplit.a.ptr, 0);
    sp = ld(lastModelSplit.b.ptr, 0);
  } else {
    m = one(lastModelSplit, 0, start(jModel), fieldLen(jModel), models);
    sp = one(lastSplit, 0, start(jSplit), fieldLen(jSplit), splits);
  }
  const k = one(lastConfig, 0, start(jConfig), fieldLen(jConfig), configs);
  if (m < 0 || sp < 0 || k < 0) return EMPTY_NAME;

  // frame_count / pixel_count: the caller checks them on a config's first row; every later
  // row must repeat those bytes exactly (`016` for `16` is the general reader's).
  const fc = start(jFc);
  const fcLen = fieldLen(jFc);
  const pc = start(jPc);
  const pcLen = fieldLen(jPc);
  configSpec.reserve(4 * <u32>k + 3, -1);
  const spec = configSpec.ptr + (<usize>k << 4);
  if (load<i32>(spec) == -1) {
    store<i32>(spec, <i32>fc);
    store<i32>(spec, <i32>(fc + fcLen), 4);
    store<i32>(spec, <i32>pc, 8);
    store<i32>(spec, <i32>(pc + pcLen), 12);
  } else {
    const a = <usize>load<i32>(spec);
    const c = <usize>load<i32>(spec, 8);
    if (<usize>fcLen != <usize>load<i32>(spec, 4) - a || !sameBytes(fc, a, fcLen)) return CONFIG_VALUES;
    if (<usize>pcLen != <usize>load<i32>(spec, 12) - c || !sameBytes(pc, c, pcLen)) return CONFIG_VALUES;
  }

  // predicted / ground-truth letters and `correct` as 0/1 (an empty `correct` needs a score
  // column: the general reader's).
  const p = letterOf(start(jPred), fieldLen(jPred));
  const g = letterOf(start(jGt), fieldLen(jGt));
  if (p < 0 || g < 0 || fieldLen(jCorrect) != 1) return OUTCOME;
  const ok = <i32>load<u8>(start(jCorrect)) - 48;
  if (ok != 0 && ok != 1) return OUTCOME;

  // The sample id, per split.
  const sid = start(jSid);
  const sidLen = fieldLen(jSid);
  let it: i32;
  if (ld(lastItem.b.ptr, 0) == sp && lastItem.same(0, sid, sidLen)) it = ld(lastItem.a.ptr, 0);
  else {
    if (sidLen == 0) return EMPTY_SAMPLE_ID;
    it = items.id(sid, sidLen, <u32>sp);
    lastItem.set(0, sid, sidLen);
    st(lastItem.a.ptr, 0, it);
    st(lastItem.b.ptr, 0, sp);
  }

  const col = columnOf(<u32>m, <u32>sp, <u32>k);

  // Source tag and protocol note, through the column's last values.
  let tag: i32;
  let note: i32;
  if (jNote == jTag + 1) {
    two(lastTagNote, col, start(jTag), start(jNote), start(jNote + 1) - 1, tags, notes);
    tag = ld(lastTagNote.a.ptr, col);
    note = ld(lastTagNote.b.ptr, col);
  } else {
    tag = one(lastTagNote, col, start(jTag), fieldLen(jTag), tags);
    note = one(lastNote, col, start(jNote), fieldLen(jNote), notes);
  }

  const r = rowCount;
  if (r == rowCap) growRows();
  st(rowItem, r, it);
  st(rowCol, r, <i32>col);
  st(rowTag, r, tag);
  st(rowNote, r, note);
  st(rowLine, r, <i32>line);
  store<u8>(rowPred + r, <u8>p);
  store<u8>(rowGt + r, <u8>g);
  store<u8>(rowCorrect + r, <u8>ok);
  rowCount = r + 1;
  return 0;
}

function setUp(n: u32): void {
  f = heap.alloc(12 << 2);
  models = interner();
  splits = interner();
  configs = interner();
  items = interner();
  tags = interner();
  notes = interner();
  names[0] = models;
  names[1] = splits;
  names[2] = configs;
  names[3] = items;
  names[4] = tags;
  names[5] = notes;
  lastModelSplit = last(1);
  lastSplit = last(1);
  lastConfig = last(1);
  lastTagNote = last(64);
  lastNote = last(64);
  lastItem = last(1);
  st(lastItem.b.ptr, 0, -1);
  configSpec = ints(64, -1);
  cellTable = calloc(256 << 2);
  cellMask = 255;
  colKeys = ints(3 * 64, 0);
  colCount = 0;
  rowCap = max<u32>(64, n / 64);
  rowCount = 0;
  rowItem = heap.alloc(<usize>rowCap << 2);
  rowCol = heap.alloc(<usize>rowCap << 2);
  rowTag = heap.alloc(<usize>rowCap << 2);
  rowNote = heap.alloc(<usize>rowCap << 2);
  rowLine = heap.alloc(<usize>rowCap << 2);
  rowPred = heap.alloc(rowCap);
  rowGt = heap.alloc(rowCap);
  rowCorrect = heap.alloc(rowCap);
}

export function alloc(bytes: usize): usize {
  return heap.alloc(bytes);
}

/**
 * Reads the rows of a per_item.csv held at `src` (n bytes, then 16 bytes of padding) from
 * byte `from` (after the header); j* are the columns' positions in the header. Returns 0, or
 * a bail code.
 */
export function parse(
  src: usize, from: u32, n: u32,
  sid: u32, model: u32, split: u32, config: u32, fc: u32, pc: u32,
  pred: u32, gt: u32, correct: u32, tag: u32, note: u32,
): i32 {
  jSid = sid;
  jModel = model;
  jSplit = split;
  jConfig = config;
  jFc = fc;
  jPc = pc;
  jPred = pred;
  jGt = gt;
  jCorrect = correct;
  jTag = tag;
  jNote = note;
  setUp(n);

  // The scan: 16 bytes at a time, a bit per ',', '\n' or '"', then one step per delimiter; a
  // row is handled when its '\n' is reached.
  let line: u32 = 2;
  let nf: u32 = 0;
  let rowStart: usize = src + from;
  store<i32>(f, <i32>rowStart);
  const comma = i8x16.splat(44);
  const lf = i8x16.splat(10);
  const quote = i8x16.splat(34);
  for (let p: u32 = from; p < n; p += 16) {
    const v = v128.load(src + p);
    let bits = <u32>i8x16.bitmask(v128.or(v128.or(i8x16.eq(v, comma), i8x16.eq(v, lf)), i8x16.eq(v, quote)));
    if (n - p < 16) bits &= (<u32>1 << (n - p)) - 1;
    while (bits != 0) {
      const pos = src + p + ctz(bits);
      bits &= bits - 1;
      const c = load<u8>(pos);
      if (c == 44) {
        if (nf == 10) return TOO_MANY_FIELDS;
        nf++;
        store<i32>(f + (<usize>nf << 2), <i32>pos + 1);
        continue;
      }
      if (c == 34) return QUOTED;
      let end = pos;
      if (end > rowStart && load<u8>(end - 1) == 13) end--; // CRLF
      if (end != rowStart) { // an empty line is skipped, as the general reader does
        if (nf != 10) return TOO_FEW_FIELDS;
        store<i32>(f + 44, <i32>end + 1);
        const bad = row(line);
        if (bad != 0) return bad;
      }
      line++;
      rowStart = pos + 1;
      nf = 0;
      store<i32>(f, <i32>rowStart);
    }
  }
  // The last row, when the file does not end with a newline.
  let end = src + n;
  if (end > rowStart && load<u8>(end - 1) == 13) end--;
  if (end != rowStart) {
    if (nf != 10) return TOO_FEW_FIELDS;
    store<i32>(f + 44, <i32>end + 1);
    const bad = row(line);
    if (bad != 0) return bad;
  }
  return finish();
}

// ---- after the scan: answers, repeats, and the column-major output -----------------------
let answered: usize = 0; // (split, item, letter) per item with a ground truth, in file order
let answeredCount: u32 = 0;
let inconsistent: u32 = 0;
let duplicates: u32 = 0;
let colFirst: usize = 0; // column c's cells are [colFirst[c], colFirst[c + 1]) of the flat arrays
let flatItem: usize = 0;
let flatPred: usize = 0; // i32: index into A–H, −1 = empty
let flatGt: usize = 0;
let flatTag: usize = 0;
let flatNote: usize = 0;
let flatCorrect: usize = 0; // i8
let flatLine: usize = 0;

/** Items' answers, exact repeats and inconsistent rows, in file order as the general reader. */
function finish(): i32 {
  const R = rowCount;
  const C = colCount;
  const S = splits.count;
  const perSplit = items.perGroup;
  perSplit.reserve(S, 0);
  const splitBase = calloc((<usize>S + 1) << 2);
  for (let s: u32 = 0; s < S; s++) st(splitBase, s + 1, ld(splitBase, s) + ld(perSplit.ptr, s));
  const answerOf = calloc(<usize>ld(splitBase, S));
  answered = heap.alloc(<usize>ld(splitBase, S) * 12);
  answeredCount = 0;
  const colBase = calloc((<usize>C + 1) << 2); // column c's first cell in posOf
  for (let c: u32 = 0; c < C; c++) st(colBase, c + 1, ld(colBase, c) + ld(perSplit.ptr, <u32>ld(colKeys.ptr, 3 * c + 1)));
  const posOf = calloc(<usize>ld(colBase, C) << 2); // a cell's first row + 1
  const keep = calloc(R);
  const counts = calloc(<usize>C << 2);
  inconsistent = 0;
  duplicates = 0;
  for (let r: u32 = 0; r < R; r++) {
    const p = load<u8>(rowPred + r);
    const g = load<u8>(rowGt + r);
    const ok = load<u8>(rowCorrect + r);
    if (g != 0 && p != 0 && <u8>(p == g ? 1 : 0) != ok) inconsistent++;
    const it = ld(rowItem, r);
    const c = <u32>ld(rowCol, r);
    const sp = <u32>ld(colKeys.ptr, 3 * c + 1);
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
    const slot = <u32>(ld(colBase, c) + it);
    const prev = ld(posOf, slot) - 1;
    if (prev >= 0) {
      // The same cell again: an exact repeat is ignored, anything else is the general reader's error.
      const q = <u32>prev;
      if (load<u8>(rowPred + q) != p || load<u8>(rowCorrect + q) != ok || load<u8>(rowGt + q) != g) return DIFFERENT_REPEAT;
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
    const c = <u32>ld(rowCol, r);
    const d = <u32>ld(next, c);
    st(next, c, <i32>d + 1);
    st(flatItem, d, ld(rowItem, r));
    const p = <i32>load<u8>(rowPred + r);
    st(flatPred, d, p == 0 ? -1 : p - 65);
    const g = <i32>load<u8>(rowGt + r);
    st(flatGt, d, g == 0 ? -1 : g - 65);
    st(flatTag, d, ld(rowTag, r));
    st(flatNote, d, ld(rowNote, r));
    store<u8>(flatCorrect + d, load<u8>(rowCorrect + r));
    st(flatLine, d, ld(rowLine, r));
  }
  joinNames();
  return 0;
}

/**
 * Each name table's values joined by '\n' (which no value contains: it ends a row), so that
 * the caller decodes a table in one call instead of one per value (≈ 1 µs each: 5k sample ids).
 */
const joined = new StaticArray<usize>(12); // per table: address, length
function joinNames(): void {
  for (let t = 0; t < 6; t++) {
    const x = names[t];
    let bytes: usize = 0;
    for (let e: u32 = 0; e < x.count; e++) bytes += <usize>ld(x.lens.ptr, e) + 1;
    const out = heap.alloc(max<usize>(bytes, 1));
    let at = out;
    for (let e: u32 = 0; e < x.count; e++) {
      const len = <usize>ld(x.lens.ptr, e);
      memory.copy(at, <usize>ld(x.starts.ptr, e), len);
      store<u8>(at + len, 10);
      at += len + 1;
    }
    joined[2 * t] = out;
    joined[2 * t + 1] = bytes > 0 ? bytes - 1 : 0; // without the last '\n'
  }
}

// ---- the results, read by the caller after `parse` returned 0 ----------------------------
/** k: 0 model, 1 split, 2 config, 3 sample id, 4 tag, 5 note. */
export function namesCount(k: i32): u32 { return names[k].count; }
/** Absolute addresses of each value's bytes, in order of first appearance. */
export function namesStarts(k: i32): usize { return names[k].starts.ptr; }
export function namesLens(k: i32): usize { return names[k].lens.ptr; }
/** Each value's group (sample ids: its split; else 0). */
export function namesGroups(k: i32): usize { return names[k].groups.ptr; }
/** The values joined by '\n': address and length in bytes. */
export function namesJoined(k: i32): usize { return joined[2 * k]; }
export function namesJoinedLength(k: i32): usize { return joined[2 * k + 1]; }
/** Per config, on its first row: frame_count's start and end, pixel_count's start and end (absolute). */
export function getConfigSpecs(): usize { return configSpec.ptr; }
export function getColumnCount(): u32 { return colCount; }
/** Per column: model, split, config. */
export function getColumnKeys(): usize { return colKeys.ptr; }
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
