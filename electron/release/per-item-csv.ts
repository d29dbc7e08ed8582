/**
 * labels/per_item.csv and the per-(model, split) wide CSVs (docs/release-format.md).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { csvField, formatNumber } from './format';
import type { StringTable } from './column-blobs';
import { type EncodedIds, encodedIds } from './encoded-ids';
import type { ReleaseColumn, ReleaseGrid } from './release-data';
import { lineWriter, loadShared } from './line-writer';

export { PER_ITEM_COLUMNS };

/**
 * Flipbook's optional columns, always in this order after the eleven. Rule: a column is
 * written iff at least one exported row has a value for it — so a project without
 * confidences exports exactly the release's eleven columns, and the same project always
 * gets the same header.
 */
export const OPTIONAL_COLUMNS = PER_ITEM_OPTIONAL_COLUMNS;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

const LETTER = /^[A-H]$/;

/**
 * Seconds from milliseconds, rounded to the microsecond: `ms / 1000` printed in full would
 * not survive export → import (×1000) → export bit-for-bit; a value rounded to 6 decimals does.
 */
export function latencySeconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

const enc = new TextEncoder();
const EMPTY = new Uint8Array(0);

/**
 * The CSV field of each dictionary entry of a string table, as UTF-8 bytes: escaped once per
 * distinct value (the repeated columns — letters, source tags, notes — take a few each), the
 * table's own bytes when no quoting is needed. null and '' → empty.
 */
function escapedBytes(t: StringTable): Uint8Array[] {
  return t.dict.map((v, i) => {
    if (v === null || v === '') return EMPTY;
    const f = csvField(v);
    return f === v ? (t.utf8[i] as Uint8Array) : enc.encode(f);
  });
}

/** A copy of `buf[0, used)` in a buffer of at least `need` more bytes (doubling). */
function grow(buf: Buffer, used: number, need: number): Buffer {
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, used + need));
  buf.copy(next, 0, 0, used);
  return next;
}

const hasValue = (a: Float64Array | null): boolean => a !== null && a.some((v) => !Number.isNaN(v));

export function optionalColumnsOf(grids: readonly ReleaseGrid[]): OptionalColumn[] {
  const has = { confidence: false, margin: false, latency_s: false, frame_indices: false, score: false };
  for (const g of grids) {
    for (const c of g.columns) {
      if (hasValue(c.confidence)) has.confidence = true;
      if (hasValue(c.margin)) has.margin = true;
      if (hasValue(c.latencyMs)) has.latency_s = true;
      if (c.frames?.some((f) => f !== null)) has.frame_indices = true;
      if (hasValue(c.score)) has.score = true;
    }
  }
  return OPTIONAL_COLUMNS.filter((k) => has[k]);
}

/** An open-ended cell: a score and no correctness (its pred and ground truth are not written). */
export const isOpenCell = (c: ReleaseColumn, k: number): boolean => c.score !== null && !Number.isNaN(c.score[k]!) && c.correct[k]! < 0;

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  n = 0;
  for (const p of parts) (out.set(p, n), (n += p.length));
  return out;
};

const COMMA = Uint8Array.of(44);
const CORRECT = [EMPTY, Uint8Array.of(48), Uint8Array.of(49)]; // by correct + 1: '', '0', '1'
/** The item answers that can stand in for a missing ground truth. */
const LETTERS = 'ABCDEFGH';

/** The optional columns of one cell, `,v` each (ASCII: numbers and space-separated ints). */
function optionalSuffix(c: ReleaseColumn, k: number, optional: readonly OptionalColumn[]): string {
  const num = (a: Float64Array | null): string => {
    const x = a === null ? NaN : (a[k] as number);
    return Number.isNaN(x) ? '' : formatNumber(x);
  };
  let line = '';
  for (const col of optional) {
    switch (col) {
      case 'confidence':
        line += `,${num(c.confidence)}`;
        break;
      case 'margin':
        line += `,${num(c.margin)}`;
        break;
      case 'latency_s': {
        const ms = c.latencyMs === null ? NaN : (c.latencyMs[k] as number);
        line += `,${Number.isNaN(ms) ? '' : formatNumber(latencySeconds(ms))}`;
        break;
      }
      case 'frame_indices': {
        const f = c.frames?.[k] ?? null;
        line += `,${f === null ? '' : f.join(' ')}`;
        break;
      }
      case 'score':
        line += `,${num(c.score)}`;
        break;
    }
  }
  return line;
}

/** A grid column ready to write: its constant head and the escaped bytes of each table entry. */
interface PreparedColumn {
  c: ReleaseColumn;
  /** `,model,split,config,frame_count,pixel_count,` */
  head: Uint8Array;
  pred: Uint8Array[];
  /** The ground-truth table's entries, then the eight answer letters A–H. */
  gt: Uint8Array[];
  src: Uint8Array[];
  note: Uint8Array[];
  /** Upper bound of a line's bytes after the sample id, its newline included (optional columns excluded). */
  longest: number;
  /** Number of distinct (pred, gt, correct, source_tag, note) index tuples. */
  space: number;
}

const longestOf = (t: readonly Uint8Array[]): number => t.reduce((m, b) => Math.max(m, b.length), 0);

/** The line of a cell after its sample id, from its parts' indices. */
function buildPiece(col: PreparedColumn, p: number, g: number, cor: number, s: number, n: number): Uint8Array {
  return concat([col.head, col.pred[p]!, COMMA, col.gt[g]!, COMMA, CORRECT[cor]!, COMMA, col.src[s]!, COMMA, col.note[n]!]);
}

/** Tuples of a column up to this many get one memo slot each; beyond, a piece per cell. */
const MEMO_LIMIT = 1 << 16;

/**
 * The output buffer. Without `emit` it holds the whole file and is replaced when it grows
 * (rare: its size is estimated up front). With `emit` it is a chunk that is handed to `emit`
 * and reused whenever it is full.
 */
interface Sink {
  buf: Buffer;
  emit: ((bytes: Uint8Array) => void) | null;
}

/** Makes room for `need` more bytes after `pos` in `sink.buf`; returns where to write them. */
function room(sink: Sink, pos: number, need: number): number {
  if (sink.emit === null) {
    sink.buf = grow(sink.buf, pos, need);
    return pos;
  }
  sink.emit(sink.buf.subarray(0, pos));
  if (need > sink.buf.length) sink.buf = Buffer.allocUnsafe(need);
  return 0;
}

/*
 * Why the shapes below: the export runs cold (`npm run bench -- release` measures its first call in a fresh
 * process), and most of its per-cell loops finish before the optimising compiler has code for
 * them. So the per-cell work is split into small loops over typed arrays with everything
 * hoisted into locals and no call per cell, each in a function of its own that returns a local
 * right after its loop (code after a hot loop that never ran has no type feedback, and the
 * loop's on-stack-replaced code would deoptimise there on every call).
 */

/**
 * Per grid row, the index in `pieces` of the row's cell's piece in this column (−1: no cell).
 * A cell's piece is named by a mixed-radix key over its (pred, gt, correct + 1, source_tag,
 * note) indices; `memo` (key → piece index, −1 = not built yet) builds each distinct piece
 * once. `answerAt` (or null) gives each row's item answer letter 1–8 for a missing ground
 * truth, as index gtBase + letter. Row order, so the writer reads one array per cell.
 */
function memoisedPieces(col: PreparedColumn, answerAt: Int8Array | null, memo: Int32Array, pieces: Uint8Array[]): Int32Array {
  const c = col.c;
  const at = c.at;
  const out = new Int32Array(at.length);
  const gtLen = col.gt.length;
  const srcLen = col.src.length;
  const noteLen = col.note.length;
  const score = c.score;
  const correct = c.correct;
  const pi = c.pred.idx;
  const gi = c.groundTruth.idx;
  const si = c.sourceTag.idx;
  const ni = c.protocolNote.idx;
  const gtBase = c.groundTruth.dict.length - 1;
  for (let r = 0; r < at.length; r++) {
    const k = at[r]!;
    if (k < 0) {
      out[r] = -1;
      continue;
    }
    const cor = correct[k]!;
    // An open-ended cell (a score, no correctness) writes no pred and no ground truth.
    const open = cor < 0 && score !== null && !Number.isNaN(score[k]!);
    let p = 0;
    let g = 0;
    if (!open) {
      p = pi[k]!;
      g = gi[k]!;
      if (g === 0 && answerAt !== null && answerAt[r]! > 0) g = gtBase + answerAt[r]!;
    }
    const key = (((p * gtLen + g) * 3 + cor + 1) * srcLen + si[k]!) * noteLen + ni[k]!;
    let piece = memo[key]!;
    if (piece < 0) {
      piece = memo[key] = pieces.length;
      pieces.push(buildPiece(col, p, g, cor + 1, si[k]!, ni[k]!));
    }
    out[r] = piece;
  }
  return out;
}

/** Piece indices (by row, as memoisedPieces) of a column too varied to memoise (free text): a piece per cell. */
function perCellPieces(col: PreparedColumn, answerAt: Int8Array | null, pieces: Uint8Array[]): Int32Array {
  const c = col.c;
  const out = new Int32Array(c.at.length);
  const gtBase = c.groundTruth.dict.length - 1;
  for (let r = 0; r < c.at.length; r++) {
    const k = c.at[r]!;
    if (k < 0) {
      out[r] = -1;
      continue;
    }
    const open = isOpenCell(c, k);
    let g = open ? 0 : c.groundTruth.idx[k]!;
    if (g === 0 && !open && answerAt !== null && answerAt[r]! > 0) g = gtBase + answerAt[r]!;
    const p = open ? 0 : c.pred.idx[k]!;
    out[r] = pieces.length;
    pieces.push(buildPiece(col, p, g, c.correct[k]! + 1, c.sourceTag.idx[k]!, c.protocolNote.idx[k]!));
  }
  return out;
}

/**
 * Writes one grid's lines at `pos` (rows, then columns) and returns the new end: per cell the
 * sample id and the cell's piece (`pieceAt[j][r]` indexes `pieces`; −1: no cell).
 */
function writeGridLines(
  sink: Sink,
  pos: number,
  ids: EncodedIds,
  longest: number,
  ats: readonly Int32Array[],
  pieceAt: readonly Int32Array[],
  pieces: readonly Uint8Array[],
  columns: readonly PreparedColumn[],
  optional: readonly OptionalColumn[],
): number {
  const idBytes = ids.bytes;
  const idStart = ids.start;
  const rows = idStart.length - 1;
  const C = ats.length;
  const withOptional = optional.length > 0;
  let buf = sink.buf;
  for (let r = 0; r < rows; r++) {
    const idAt = idStart[r]!;
    const idLen = idStart[r + 1]! - idAt;
    const need = C * (idLen + longest);
    if (pos + need > buf.length) ((pos = room(sink, pos, need)), (buf = sink.buf));
    for (let j = 0; j < C; j++) {
      const at = pieceAt[j]![r]!;
      if (at < 0) continue;
      // The sample id (short: a byte loop beats a native call), then the cell's piece.
      if (idLen <= 16) for (let i = 0; i < idLen; i++) buf[pos + i] = idBytes[idAt + i]!;
      else buf.set(idBytes.subarray(idAt, idAt + idLen), pos);
      pos += idLen;
      const piece = pieces[at]!;
      buf.set(piece, pos);
      pos += piece.length;
      if (withOptional) {
        const suffix = optionalSuffix(columns[j]!.c, ats[j]![r]!, optional);
        if (pos + suffix.length + 1 + need > buf.length) ((pos = room(sink, pos, suffix.length + 1 + need)), (buf = sink.buf));
        pos += buf.write(suffix, pos, 'latin1');
      }
      buf[pos++] = 10;
    }
  }
  return pos;
}

/**
 * labels/per_item.csv as UTF-8 bytes: grids in (model, split) order, then rows, then columns —
 * already the release's (model, split, sample_id, config) order (response-scan.ts).
 *
 * Why bytes: building ~145k line strings, joining them and encoding the result was most of the
 * cold export (the release bench). A line is `<sample_id><piece>` where the piece —
 * `,model,split,config,frames,pixels,pred,gt,correct,source_tag,protocol_note` — depends only on
 * the column and the cell's small string-table indices, so each distinct piece is encoded once
 * and copied; the sample id is written once per row and copied for the row's other cells.
 */
export function perItemCsvBytes(
  grids: readonly ReleaseGrid[],
  configs: readonly ConfigSpec[],
  items: readonly ItemMeta[],
  opts: { kernel?: boolean } = {},
): Uint8Array {
  return perItemCsv(grids, configs, items, null, 0, opts.kernel ?? true);
}

/** Size of the chunks {@link writePerItemCsv} hands out. */
const CHUNK_BYTES = 1 << 20;

/**
 * The bytes of {@link perItemCsvBytes} handed to `emit` in chunks of about `chunkBytes`, each a
 * view of one reused buffer that is valid only during the call (the export writes them to the
 * file). Returns the number of bytes emitted. Why: the ~15 MB file built in fresh memory cost
 * ~10 ms of page faults in a cold export, on top of writing it; a reused 1 MB chunk faults once.
 */
export function writePerItemCsv(
  grids: readonly ReleaseGrid[],
  configs: readonly ConfigSpec[],
  items: readonly ItemMeta[],
  emit: (bytes: Uint8Array) => void,
  chunkBytes = CHUNK_BYTES,
  opts: { kernel?: boolean } = {},
): number {
  let total = 0;
  perItemCsv(grids, configs, items, (b) => ((total += b.length), emit(b)), chunkBytes, opts.kernel ?? true);
  return total;
}

function perItemCsv(
  grids: readonly ReleaseGrid[],
  configs: readonly ConfigSpec[],
  items: readonly ItemMeta[],
  emit: ((bytes: Uint8Array) => void) | null,
  chunkBytes: number,
  useKernel = true,
): Uint8Array {
  const specs = new Map(configs.map((c) => [c.key, c]));
  const answers = new Map<string, string>();
  for (const it of items) if (it.answer != null && LETTER.test(it.answer)) answers.set(`${it.split}\u0000${it.sampleId}`, it.answer);
  const optional = optionalColumnsOf(grids);
  const header = enc.encode([...PER_ITEM_COLUMNS, ...optional].join(',') + '\n');
  const letters = Array.from(LETTERS, (l) => enc.encode(l));

  const prepared = grids.map((g) => {
    let cells = 0;
    let longest = 0;
    const columns = g.columns.map((c): PreparedColumn => {
      const spec = specs.get(c.config);
      const head = enc.encode(
        `,${csvField(g.model)},${csvField(g.split)},${csvField(c.config)},${spec ? spec.frames : ''},${spec?.pixelCount ?? ''},`,
      );
      const pred = escapedBytes(c.pred);
      const gt = escapedBytes(c.groundTruth).concat(letters);
      const src = escapedBytes(c.sourceTag);
      const note = escapedBytes(c.protocolNote);
      cells += c.length;
      const col = {
        c,
        head,
        pred,
        gt,
        src,
        note,
        // The parts, four commas, the correct digit and the newline.
        longest: head.length + longestOf(pred) + longestOf(gt) + longestOf(src) + longestOf(note) + 6,
        space: pred.length * gt.length * 3 * src.length * note.length,
      };
      longest = Math.max(longest, col.longest);
      return col;
    });
    return { g, columns, cells, longest };
  });

  // Grid by grid, the answer letter (1–8 for A–H, 0 none) of each row's item, where items carry answers.
  const answerAtOf = (g: ReleaseGrid): Int8Array | null => {
    if (answers.size === 0) return null;
    const answerAt = new Int8Array(g.sampleIds.length);
    for (let r = 0; r < answerAt.length; r++) {
      const a = answers.get(`${g.split}\u0000${g.sampleIds[r]}`);
      if (a !== undefined) answerAt[r] = LETTERS.indexOf(a) + 1;
    }
    return answerAt;
  };
  // The common case (no optional column, so no open-ended cell either) goes through the
  // WebAssembly writer; the same bytes as below (per-item-csv.test.ts holds them equal).
  if (optional.length === 0 && useKernel) {
    if (emit !== null) {
      kernelLines(prepared, answerAtOf, emit, chunkBytes, header);
      return EMPTY;
    }
    // The whole file in one block of the writer's memory, the header in front: one copy less
    // than collecting chunks (a zip export holds every file in memory anyway).
    let whole: Uint8Array = EMPTY;
    kernelLines(prepared, answerAtOf, (b) => (whole = b), null, header);
    return whole;
  }

  let cap = header.length;
  for (const p of prepared) cap += p.cells * (p.longest + 24);
  const sink: Sink = { buf: Buffer.allocUnsafe(emit === null ? cap : Math.max(chunkBytes, header.length)), emit };
  sink.buf.set(header, 0);
  let pos = header.length;

  for (const { g, columns, longest } of prepared) {
    const answerAt = answerAtOf(g);
    const pieces: Uint8Array[] = [];
    const pieceAt = columns.map((col) =>
      col.space > MEMO_LIMIT ? perCellPieces(col, answerAt, pieces) : memoisedPieces(col, answerAt, new Int32Array(col.space).fill(-1), pieces),
    );
    const ats = columns.map((col) => col.c.at);
    pos = writeGridLines(sink, pos, encodedIds(g), longest, ats, pieceAt, pieces, columns, optional);
  }
  if (emit === null) return sink.buf.subarray(0, pos);
  if (pos > 0) emit(sink.buf.subarray(0, pos));
  return EMPTY;
}

/** i32s per column in the writer's column table (wasm/per-item-writer.ts). */
const WRITER_COL = 11;
const NEWLINE = Uint8Array.of(10);

/**
 * `head` then the lines of per_item.csv through the WebAssembly writer, handed to `emit` in
 * chunks of about `chunkBytes` (each a view of the writer's memory, valid during the call),
 * or with `chunkBytes` null in one view of the writer's memory (which stays valid: nothing
 * runs in that writer again). Only for grids without optional columns: no open-ended cell,
 * whose pred and ground truth are not written, can occur there.
 */
function kernelLines(
  prepared: readonly { g: ReleaseGrid; columns: PreparedColumn[]; longest: number }[],
  answerAtOf: (g: ReleaseGrid) => Int8Array | null,
  emit: (bytes: Uint8Array) => void,
  chunkBytes: number | null,
  head: Uint8Array,
): void {
  const w = lineWriter({ own: chunkBytes === null });
  const grids = prepared.map((p) => {
    const ids = encodedIds(p.g);
    let idMax = 0;
    for (let r = 0; r + 1 < ids.start.length; r++) idMax = Math.max(idMax, ids.start[r + 1]! - ids.start[r]!);
    return { ...p, ids, rowMax: p.columns.length * (idMax + p.longest) };
  });
  // One chunk, reused, that holds at least one row's lines; or one for the whole file.
  let whole = head.length;
  for (const g of grids) whole += g.g.sampleIds.length * g.rowMax;
  const cap = chunkBytes === null ? whole : Math.max(chunkBytes, ...grids.map((g) => g.rowMax));
  const chunk = w.alloc(cap + 8);
  if (chunkBytes !== null) emit(head);
  else new Uint8Array(w.memory.buffer).set(head, chunk);
  let used = chunkBytes === null ? head.length : 0;
  const flush = (): void => {
    if (used > 0) emit(new Uint8Array(w.memory.buffer, chunk, used));
    used = 0;
  };
  for (const { g, columns, ids, rowMax } of grids) {
    const rows = g.sampleIds.length;
    if (rows === 0 || columns.length === 0) continue;
    // Segments: correct's three, then per column its head and each table's entries with the
    // separator that follows them (the ground truth's entries, then the letters A–H).
    const segments: Uint8Array[] = CORRECT.map((b) => concat([b, COMMA])); // ',', '0,', '1,'
    const segAt: number[][] = [];
    for (const col of columns) {
      const at = [segments.length];
      segments.push(col.head);
      at.push(segments.length);
      for (const b of col.pred) segments.push(concat([b, COMMA]));
      at.push(segments.length);
      for (const b of col.gt) segments.push(concat([b, COMMA]));
      at.push(segments.length);
      for (const b of col.src) segments.push(concat([b, COMMA]));
      at.push(segments.length);
      for (const b of col.note) segments.push(concat([b, NEWLINE]));
      segAt.push(at);
    }
    const { segBytes, segStart, idBytes, idStart } = loadShared(w, segments, ids);
    // Allocate the rest first (allocation may grow the memory, detaching views), then fill.
    const answerAt = answerAtOf(g);
    const answerPtr = answerAt ? w.alloc(rows) : 0;
    const colTable = w.alloc(4 * WRITER_COL * columns.length);
    const cellPtrs = columns.map((col) => {
      const n = col.c.length;
      return { at: w.alloc(4 * rows), pred: w.alloc(4 * n), gt: w.alloc(4 * n), src: w.alloc(4 * n), note: w.alloc(4 * n), correct: w.alloc(n) };
    });
    const heap = w.memory.buffer;
    if (answerAt) new Uint8Array(heap).set(answerAt, answerPtr);
    const table = new Int32Array(heap, colTable, WRITER_COL * columns.length);
    columns.forEach((col, j) => {
      const c = col.c;
      const p = cellPtrs[j]!;
      const n = c.length;
      new Int32Array(heap, p.at, rows).set(c.at);
      new Int32Array(heap, p.pred, n).set(c.pred.idx);
      new Int32Array(heap, p.gt, n).set(c.groundTruth.idx);
      new Int32Array(heap, p.src, n).set(c.sourceTag.idx);
      new Int32Array(heap, p.note, n).set(c.protocolNote.idx);
      new Int8Array(heap, p.correct, n).set(c.correct);
      table.set([p.at, p.pred, p.gt, p.src, p.note, p.correct, ...segAt[j]!], WRITER_COL * j);
    });
    w.grid(rows, columns.length, idBytes, idStart, answerPtr, colTable, segBytes, segStart, 0);
    for (let r = 0; r < rows; ) {
      r = w.write(r, chunk + used, chunk + cap, rowMax);
      used = w.written() - chunk;
      if (r === rows) break;
      // The chunk is full (never the whole-file block: it was sized for every row).
      if (chunkBytes === null) throw new Error('per_item.csv: the writer ran out of room');
      flush();
    }
  }
  flush();
}

/**
 * The wide CSV of one (model, split): `sample_id` and one column per config in code-point
 * order holding `predicted_option` (empty where the cell is missing or open-ended), as UTF-8.
 * Each distinct prediction is escaped and encoded once per column with its leading comma
 * (entry 0, null, is the bare comma); the rows are copied together by the WebAssembly writer
 * (wasm/per-item-writer.ts `wide`), which needs no warm-up in a cold export.
 */
export function wideCsvBytes(g: ReleaseGrid): Uint8Array {
  const header = enc.encode(`${['sample_id', ...g.columns.map((c) => c.config)].map(csvField).join(',')}\n`);
  const rows = g.sampleIds.length;
  if (rows === 0) return header;
  const cellBytes = g.columns.map((c) => escapedBytes(c.pred).map((b) => concat([COMMA, b])));
  let lineMax = 1;
  for (const t of cellBytes) lineMax += longestOf(t);
  const ids = encodedIds(g);
  const cap = ids.bytes.length + rows * lineMax;

  const w = lineWriter();
  const { segBytes, segStart, idBytes, idStart } = loadShared(w, cellBytes.flat(), ids);
  // Allocate the rest first (allocation may grow the memory, detaching views), then fill.
  const colTable = w.alloc(8 * g.columns.length);
  const predAt = g.columns.map(() => w.alloc(4 * rows));
  const out = w.alloc(cap + 8);
  const heap = w.memory.buffer;
  const table = new Int32Array(heap, colTable, 2 * g.columns.length);
  let base = 0;
  g.columns.forEach((c, j) => {
    new Int32Array(heap, predAt[j]!, rows).set(widePredictions(c));
    table[2 * j] = predAt[j]!;
    table[2 * j + 1] = base;
    base += cellBytes[j]!.length;
  });
  w.grid(rows, g.columns.length, idBytes, idStart, 0, colTable, segBytes, segStart, 0);
  w.wide(0, out, out + cap, 0); // `cap` bounds every row: one call writes them all
  const body = new Uint8Array(w.memory.buffer, out, w.written() - out);
  return concat([header, body]);
}

/**
 * Per grid row, the column's prediction as an index into its cell bytes: 0 (the bare comma)
 * where the row has no cell or an open-ended one. By row, so the writer reads one array per cell.
 */
function widePredictions(c: ReleaseColumn): Int32Array {
  const at = c.at;
  const out = new Int32Array(at.length);
  const score = c.score;
  const correct = c.correct;
  const pi = c.pred.idx;
  for (let r = 0; r < at.length; r++) {
    const k = at[r]!;
    if (k < 0) continue;
    const open = correct[k]! < 0 && score !== null && !Number.isNaN(score[k]!);
    out[r] = open ? 0 : pi[k]!;
  }
  return out;
}
