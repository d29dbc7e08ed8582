// AssemblyScript (compiled to WebAssembly by scripts/build-wasm.js): the line loops of
// labels/per_item.csv, the wide CSVs and derived.csv (../line-writer.ts, ../per-item-csv.ts,
// ../derived-csv.ts).
//
// Why WebAssembly: an export writes ~145k lines once, in a fresh process; in JS that loop
// (and the one choosing each cell's pieces) ran mostly before V8 had optimised it, ≈ 30 ms of
// a cold export. Here it is machine code from the first line.
//
// The caller lays out, per grid, the sample ids as bytes, its arrays, and a pool of byte
// segments (for per_item.csv: every column's `,model,split,config,frames,pixels,` head and
// each of its escaped table entries with the separator that follows it), then calls an entry:
// `write` for per_item.csv, a chunk at a time (a line is
// `<sample_id><head><pred,><gt,><correct,><source_tag,><note\n>`), `wide` and `derived`.
// The segments and ids carry 8 bytes of padding, and outputs 8 bytes of slack: copies move 8
// bytes at a time and may read or write up to 7 bytes past an end.

export function alloc(bytes: usize): usize {
  return heap.alloc(bytes);
}

/** Frees every block at once (the stub runtime's bump allocator starts over). */
export function reset(): void {
  __reset();
}

/** i32s per column in the caller's column table. */
const COL: u32 = 11;
// Column table fields: the cell of each row (−1 = none), the cells' table indices (i32) and
// correct (i8), then segment numbers: the head, and the first entry of each table.
const AT: u32 = 0;
const PRED: u32 = 1;
const GT: u32 = 2;
const SRC: u32 = 3;
const NOTE: u32 = 4;
const CORRECT: u32 = 5;
const HEAD_SEG: u32 = 6;
const PRED_SEG: u32 = 7;
const GT_SEG: u32 = 8; // the table's entries, then the eight answer letters A–H
const SRC_SEG: u32 = 9;
const NOTE_SEG: u32 = 10;

let rows: u32 = 0;
let cols: u32 = 0;
let idBytes: usize = 0;
let idStart: usize = 0; // i32 × (rows + 1)
let answerAt: usize = 0; // i8 per row: 1–8 = the item's answer A–H, 0 = none; 0 = no array
let colTable: usize = 0; // COL i32s per column
let segBytes: usize = 0;
let segStart: usize = 0; // i32 × (segments + 1)
let corSeg: u32 = 0; // ',' '0,' '1,' for correct −1, 0, 1
/** Where the last `write` stopped. */
let end: usize = 0;

/** Sets the grid that `write` writes. */
export function grid(
  rows_: u32, cols_: u32, idBytes_: usize, idStart_: usize, answerAt_: usize,
  colTable_: usize, segBytes_: usize, segStart_: usize, corSeg_: u32,
): void {
  rows = rows_;
  cols = cols_;
  idBytes = idBytes_;
  idStart = idStart_;
  answerAt = answerAt_;
  colTable = colTable_;
  segBytes = segBytes_;
  segStart = segStart_;
  corSeg = corSeg_;
}

@inline function field(j: u32, f: u32): u32 {
  return load<u32>(colTable + ((<usize>(j * COL + f)) << 2));
}

/** Copies `len` bytes 8 at a time (see the file comment); returns the end. */
@inline function put(dst: usize, src: usize, len: usize): usize {
  for (let i: usize = 0; i < len; i += 8) store<u64>(dst + i, load<u64>(src + i));
  return dst + len;
}

/** Copies sample id r. */
@inline function id(dst: usize, r: u32): usize {
  const a = load<u32>(idStart + (<usize>r << 2));
  return put(dst, idBytes + a, load<u32>(idStart + (<usize>r << 2) + 4) - a);
}

@inline function seg(dst: usize, s: u32): usize {
  const a = load<u32>(segStart + (<usize>s << 2));
  const b = load<u32>(segStart + (<usize>s << 2) + 4);
  return put(dst, segBytes + a, b - a);
}

/**
 * Writes the lines of rows r0, r0 + 1, … at `out` while a row's lines surely fit before
 * `limit` (`rowMax`: an upper bound of one row's bytes, id included). Returns the next row
 * (r0 when not even one fits); `written()` is where the lines end.
 */
export function write(r0: u32, out: usize, limit: usize, rowMax: u32): u32 {
  let pos = out;
  let r = r0;
  for (; r < rows; r++) {
    if (pos + rowMax > limit) break;
    const answer: i32 = answerAt == 0 ? 0 : <i32>load<i8>(answerAt + r);
    for (let j: u32 = 0; j < cols; j++) {
      const k = load<i32>(field(j, AT) + (<usize>r << 2));
      if (k < 0) continue;
      const kk = <usize>k << 2;
      pos = id(pos, r);
      pos = seg(pos, field(j, HEAD_SEG));
      pos = seg(pos, field(j, PRED_SEG) + load<u32>(field(j, PRED) + kk));
      let g = load<u32>(field(j, GT) + kk);
      // A missing ground truth: the item's answer letter. The letters follow the table's
      // entries, which end 8 segments before the source tags.
      if (g == 0 && answer > 0) g = field(j, SRC_SEG) - field(j, GT_SEG) - 8 + <u32>answer - 1;
      pos = seg(pos, field(j, GT_SEG) + g);
      pos = seg(pos, <u32>(<i32>corSeg + 1 + <i32>load<i8>(field(j, CORRECT) + k)));
      pos = seg(pos, field(j, SRC_SEG) + load<u32>(field(j, SRC) + kk));
      pos = seg(pos, field(j, NOTE_SEG) + load<u32>(field(j, NOTE) + kk));
    }
  }
  end = pos;
  return r;
}

/**
 * A wide CSV's rows (docs/release-format.md): per row its sample id, then per column the segment
 * `,<prediction>`, then '\n'. `colTable` holds 2 i32s per column: the segment number of each
 * row's cell (i32 per row), and the column's first segment. Same contract as `write`.
 */
export function wide(r0: u32, out: usize, limit: usize, rowMax: u32): u32 {
  let pos = out;
  let r = r0;
  for (; r < rows; r++) {
    if (pos + rowMax > limit) break;
    pos = id(pos, r);
    for (let j: u32 = 0; j < cols; j++) {
      const t = colTable + (<usize>j << 3);
      pos = seg(pos, load<u32>(t, 4) + load<u32>(<usize>load<u32>(t) + (<usize>r << 2)));
    }
    store<u8>(pos, 10);
    pos++;
  }
  end = pos;
  return r;
}

/**
 * derived.csv's lines of one matrix (docs/release-format.md) at `out`, all of them (the caller
 * sizes `out`); `grid`'s rows are the matrix's rows, its cols the matrix's configs. `colTable`
 * holds 7 addresses: the row order (i32 per line: a matrix row; 0 = rows in order), then per
 * matrix row: complete (u8), visually confused (u8), text overwritten (u8), trajectory class
 * (i8), best config (i32), best matched config (i32; 0 = no matched grid). A complete row's
 * line is its sample id, then the segments: 0 `,model,split,`, 1 + flag for each of the two
 * flags ('0,' '1,'), 3 + class (`class,`), 8 + best (`key,`), and 8 + cols + matched best
 * (`key\n`; the only one, '\n', when there is no matched grid).
 */
export function derived(out: usize): void {
  const order = <usize>load<u32>(colTable);
  const complete = <usize>load<u32>(colTable, 4);
  const vc = <usize>load<u32>(colTable, 8);
  const to = <usize>load<u32>(colTable, 12);
  const cls = <usize>load<u32>(colTable, 16);
  const best = <usize>load<u32>(colTable, 20);
  const matched = <usize>load<u32>(colTable, 24);
  let pos = out;
  for (let x: u32 = 0; x < rows; x++) {
    const i = order == 0 ? x : load<u32>(order + (<usize>x << 2));
    if (load<u8>(complete + i) != 1) continue;
    pos = id(pos, i);
    pos = seg(pos, 0);
    pos = seg(pos, 1 + <u32>load<u8>(vc + i));
    pos = seg(pos, 1 + <u32>load<u8>(to + i));
    pos = seg(pos, 3 + <u32>load<i8>(cls + i));
    pos = seg(pos, 8 + load<u32>(best + (<usize>i << 2)));
    pos = seg(pos, 8 + cols + (matched == 0 ? 0 : load<u32>(matched + (<usize>i << 2))));
  }
  end = pos;
}

export function written(): usize {
  return end;
}
