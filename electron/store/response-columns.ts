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
import {
  asBuffer,
  decodeFloat64,
  decodeFrames,
  decodeInt32,
  decodeInt8,
  decodeStringCells,
  encodeFloat64Array,
  encodeFrames,
  encodeInterned,
  framesArray,
  StringCells,
} from './column-blobs';

const growI32 = (a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> => {
  const b = new Int32Array(n);
  b.set(a);
  return b;
};
const growI8 = (a: Int8Array<ArrayBuffer>, n: number): Int8Array<ArrayBuffer> => {
  const b = new Int8Array(n);
  b.set(a);
  return b;
};
const growF64 = (a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> => {
  const b = new Float64Array(n);
  b.set(a);
  return b;
};

/** The float fields of a Column. */
export type FloatField = 'score' | 'confidence' | 'margin' | 'latencyMs';

/** Cell `k` of a Column's float field: null where it has no value (NaN, or no array at all). */
export function floatAt(a: Float64Array | null, k: number): number | null {
  if (a === null) return null;
  const v = a[k]!;
  return v !== v ? null : v;
}

/**
 * One decoded grid column, as the import applier and the record readers use it. Cells
 * [0, length) of typed arrays (capacity may be larger) with the BLOBs' null markers:
 * correct −1, the floats NaN, runId 0, line −1; the string fields as StringCells (index −1 =
 * NULL) and frames as an array. A float field no cell has a value in has no array (null), as
 * its BLOB is NULL: most columns have no scores, confidences, margins or latencies, and four
 * arrays of NaNs per cell were ~4.6 MB of memory a 145k-row import touched for the first time
 * (docs/architecture.md "Import at lab scale"). A value is written through `setFloat`, or into
 * the array `floats` gives (made on demand) for a block of cells. Frames likewise: `frames`
 * is null while no cell has any (most files list none, and an array of a null per cell was
 * ~3.5 MB of a 145k-row import's allocations), written through `setFrames` or `frameList`.
 * Typed arrays because an import writes a cell per row of a 1.45M-row file: JS arrays of
 * numbers and nulls cost a boxed value or a pointer per cell and most of the import's GC.
 */
export class Column {
  rowId: number | null = null;
  length = 0;
  itemIds: Int32Array<ArrayBuffer>;
  correct: Int8Array<ArrayBuffer>;
  score: Float64Array<ArrayBuffer> | null = null;
  confidence: Float64Array<ArrayBuffer> | null = null;
  margin: Float64Array<ArrayBuffer> | null = null;
  latencyMs: Float64Array<ArrayBuffer> | null = null;
  runId: Int32Array<ArrayBuffer>;
  line: Int32Array<ArrayBuffer>;
  pred: StringCells;
  groundTruth: StringCells;
  sourceTag: StringCells;
  protocolNote: StringCells;
  frames: (ArrayLike<number> | null)[] | null = null;
  /**
   * item id → cell position + 1, built on first lookup: dense over [lo, lo + length) of item
   * ids (a split's items mostly have neighbouring ids) — one array read per lookup instead of
   * a Map's hashing and its per-entry memory — or a Map when the ids spread too far.
   */
  private dense: Int32Array | null = null;
  private lo = 0;
  private sparse: Map<number, number> | null = null;
  dirty = false;

  constructor(
    readonly modelId: number,
    readonly splitId: number,
    readonly configId: number,
    capacity = 16,
  ) {
    this.itemIds = new Int32Array(capacity);
    this.correct = new Int8Array(capacity);
    this.runId = new Int32Array(capacity);
    this.line = new Int32Array(capacity);
    this.pred = new StringCells(new Int32Array(capacity));
    this.groundTruth = new StringCells(new Int32Array(capacity));
    this.sourceTag = new StringCells(new Int32Array(capacity));
    this.protocolNote = new StringCells(new Int32Array(capacity));
  }

  /** Field `f`'s array, made (every cell NaN, at the columns' capacity) when it has none. */
  floats(f: FloatField): Float64Array<ArrayBuffer> {
    const a = this[f];
    if (a !== null) return a;
    const made = new Float64Array(this.itemIds.length).fill(NaN);
    this[f] = made;
    return made;
  }

  /** The frames array, made (a null per cell) when the column has none. */
  frameList(): (ArrayLike<number> | null)[] {
    if (this.frames !== null) return this.frames;
    const made = framesArray();
    for (let k = 0; k < this.length; k++) made.push(null);
    this.frames = made;
    return made;
  }

  /** Sets cell `k`'s frame indices (null: none). */
  setFrames(k: number, v: ArrayLike<number> | null): void {
    if (v !== null) this.frameList()[k] = v;
    else if (this.frames !== null) this.frames[k] = null;
  }

  /** Sets cell `k` of field `f` (null: no value). */
  setFloat(f: FloatField, k: number, v: number | null): void {
    if (v !== null) this.floats(f)[k] = v;
    else {
      const a = this[f];
      if (a !== null) a[k] = NaN;
    }
  }

  find(itemId: number): number {
    if (this.dense !== null) {
      const i = itemId - this.lo;
      return i >= 0 && i < this.dense.length ? (this.dense[i] as number) - 1 : -1;
    }
    if (this.sparse !== null) return this.sparse.get(itemId) ?? -1;
    this.index();
    return this.find(itemId);
  }

  /** Builds the position index of cells [0, length). */
  private index(): void {
    this.dense = new Int32Array(0);
    this.lo = this.length > 0 ? (this.itemIds[0] as number) : 0;
    for (let k = 0; k < this.length; k++) this.place(this.itemIds[k] as number, k);
  }

  private place(itemId: number, k: number): void {
    if (this.dense !== null) this.room(itemId);
    if (this.dense !== null) this.dense[itemId - this.lo] = k + 1;
    else this.sparse!.set(itemId, k);
  }

  /**
   * Makes the dense index cover `itemId` (growing it), or turns it into a Map when the ids
   * spread too far apart for a mostly empty array.
   */
  private room(itemId: number): void {
    const dense = this.dense!;
    if (dense.length === 0) this.lo = itemId; // an empty index starts at its first id
    const i = itemId - this.lo;
    if (i >= 0 && i < dense.length) return;
    const lo = Math.min(this.lo, itemId);
    const hi = Math.max(this.lo + dense.length, itemId + 1);
    if (hi - lo > 4 * (this.length + 1024)) {
      this.sparse = new Map();
      for (let j = 0; j < dense.length; j++) if (dense[j] !== 0) this.sparse.set(this.lo + j, (dense[j] as number) - 1);
      this.dense = null;
      return;
    }
    const size = Math.max(hi - lo, Math.min(2 * dense.length, 4 * (this.length + 1024)));
    const grown = new Int32Array(size);
    grown.set(dense, this.lo - lo);
    this.dense = grown;
    this.lo = lo;
  }

  /**
   * Appends `count` cells for `ids[0, count)` and returns the first one's position. The caller
   * writes every field of them (import-apply.ts appends a column batch's new cells this way,
   * copying its arrays instead of one push per cell).
   */
  append(ids: Int32Array, count: number): number {
    const k0 = this.length;
    this.reserve(k0 + count);
    if (this.dense === null && this.sparse === null) this.index();
    this.itemIds.set(ids.subarray(0, count), k0);
    this.length = k0 + count;
    if (count > 0 && this.dense !== null) {
      // The index made to cover the block's smallest and largest id once, then filled.
      let min = ids[0] as number;
      let max = min;
      for (let j = 1; j < count; j++) {
        const v = ids[j] as number;
        if (v < min) min = v;
        else if (v > max) max = v;
      }
      this.room(min);
      if (this.dense !== null) this.room(max);
    }
    const dense = this.dense;
    if (dense !== null) {
      const lo = this.lo;
      for (let j = 0; j < count; j++) dense[(ids[j] as number) - lo] = k0 + j + 1;
    } else for (let j = 0; j < count; j++) this.place(ids[j] as number, k0 + j);
    this.dirty = true;
    return k0;
  }

  /**
   * Makes this empty column the `n` cells whose arrays `cells` gives, held as they are, not
   * copied (each exactly n long, so the first cell appended grows the column into arrays of its
   * own). The position index is built on the next lookup, if any: a column an import creates
   * is usually not looked up again.
   */
  adopt(n: number, cells: AdoptedCells): void {
    if (this.length !== 0) throw new Error('Column.adopt: the column has cells');
    for (const a of [cells.itemIds, cells.correct, cells.runId, cells.line, cells.score, cells.confidence, cells.margin, cells.latencyMs]) {
      if (a !== null && a.length !== n) throw new Error('Column.adopt: an array is not as long as the cells');
    }
    for (const f of [cells.pred, cells.groundTruth, cells.sourceTag, cells.protocolNote]) {
      if (f.index.length !== n) throw new Error('Column.adopt: an array is not as long as the cells');
    }
    Object.assign(this, cells);
    this.length = n;
    this.frames = null;
    this.dense = null;
    this.sparse = null;
    this.dirty = true;
  }

  private reserve(cells: number): void {
    if (cells > this.itemIds.length) {
      const n = Math.max(16, this.itemIds.length * 2, cells);
      this.itemIds = growI32(this.itemIds, n);
      this.correct = growI8(this.correct, n);
      if (this.score !== null) this.score = growF64(this.score, n);
      if (this.confidence !== null) this.confidence = growF64(this.confidence, n);
      if (this.margin !== null) this.margin = growF64(this.margin, n);
      if (this.latencyMs !== null) this.latencyMs = growF64(this.latencyMs, n);
      this.runId = growI32(this.runId, n);
      this.line = growI32(this.line, n);
      this.pred.grow(n);
      this.groundTruth.grow(n);
      this.sourceTag.grow(n);
      this.protocolNote.grow(n);
    }
  }

  /** Appends an empty cell (every field null) for `itemId`; returns its position. */
  push(itemId: number): number {
    const k = this.length;
    this.reserve(k + 1);
    if (this.dense === null && this.sparse === null) this.index();
    this.length = k + 1;
    this.itemIds[k] = itemId;
    this.place(itemId, k);
    this.correct[k] = -1;
    if (this.score !== null) this.score[k] = NaN;
    if (this.confidence !== null) this.confidence[k] = NaN;
    if (this.margin !== null) this.margin[k] = NaN;
    if (this.latencyMs !== null) this.latencyMs[k] = NaN;
    this.runId[k] = 0;
    this.line[k] = -1;
    this.pred.index[k] = -1;
    this.groundTruth.index[k] = -1;
    this.sourceTag.index[k] = -1;
    this.protocolNote.index[k] = -1;
    if (this.frames !== null) this.frames.push(null);
    this.dirty = true;
    return k;
  }
}

/** The fields of Column.adopt's cells. */
export type AdoptedCells = Pick<
  Column,
  'itemIds' | 'correct' | 'runId' | 'line' | 'score' | 'confidence' | 'margin' | 'latencyMs' | 'pred' | 'groundTruth' | 'sourceTag' | 'protocolNote'
>;

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

export function decodeColumn(r: ColumnRow): Column {
  const n = r.n_cells;
  const c = new Column(r.model_id, r.split_id, r.config_id, 0);
  c.rowId = r.id;
  c.length = n;
  c.itemIds = decodeInt32(r.item_ids);
  c.correct = decodeInt8(r.correct);
  c.pred = decodeStringCells(r.pred);
  c.groundTruth = decodeStringCells(r.ground_truth);
  // A NULL BLOB: no cell has a value (Column).
  c.score = r.score ? decodeFloat64(r.score) : null;
  c.confidence = r.confidence ? decodeFloat64(r.confidence) : null;
  c.margin = r.margin ? decodeFloat64(r.margin) : null;
  c.latencyMs = r.latency_ms ? decodeFloat64(r.latency_ms) : null;
  c.frames = r.frame_indices ? decodeFrames(r.frame_indices) : null;
  c.sourceTag = decodeStringCells(r.source_tag);
  c.protocolNote = decodeStringCells(r.protocol_note);
  c.runId = decodeInt32(r.run_ids);
  c.line = decodeInt32(r.lines);
  return c;
}

export const COLUMN_COLUMNS =
  'model_id, split_id, config_id, n_cells, n_correct, n_score, item_ids, correct, pred, ground_truth, score, confidence, margin, latency_ms, frame_indices, source_tag, protocol_note, run_ids, lines';

/** Cells [0, n) of a string field as its BLOB (encodeInterned: the bytes encodeStrings gives). */
const encodeCells = (f: StringCells, n: number, order: Uint32Array | null): Buffer => encodeInterned({ table: f.table, index: f.index.subarray(0, n) }, order);

/** Positions sorted by item id, or null when the ids ascend already (distinct ids). */
function itemOrder(ids: Int32Array): Uint32Array | null {
  const n = ids.length;
  let sorted = true;
  for (let k = 1; k < n; k++) {
    if ((ids[k] as number) < (ids[k - 1] as number)) {
      sorted = false;
      break;
    }
  }
  if (sorted) return null;
  const order = new Uint32Array(n);
  // id × 2^21 + position is exact in a float64 for ids < 2^31 and n < 2^21, and a typed-array
  // sort without a comparator is native; larger columns take the comparator sort.
  if (n < 1 << 21) {
    const keys = new Float64Array(n);
    for (let k = 0; k < n; k++) keys[k] = (ids[k] as number) * 2097152 + k;
    keys.sort();
    for (let k = 0; k < n; k++) order[k] = (keys[k] as number) % 2097152;
  } else {
    for (let k = 0; k < n; k++) order[k] = k;
    order.sort((a, b) => (ids[a] as number) - (ids[b] as number));
  }
  return order;
}

/**
 * The column's outcomes in item order, into `correct`; returns how many cells have an outcome
 * and a score. A function of its own: in encodeColumn, V8 compiled this loop on the stack and
 * then deoptimised at the code after it, once per column (~110 times in a 1.45M-row import).
 */
function outcomesInOrder(c: Column, n: number, order: Uint32Array | null, correct: Int8Array): [number, number] {
  let nCorrect = 0;
  let nScore = 0;
  const score = c.score;
  for (let k = 0; k < n; k++) {
    const i = order ? (order[k] as number) : k;
    const v = c.correct[i] as number;
    correct[k] = v;
    if (v >= 0) nCorrect++;
    if (score !== null && score[i] === score[i]) nScore++;
  }
  return [nCorrect, nScore];
}

/** The BLOBs and counts of a column, cells sorted by item id, in COLUMN_COLUMNS order. */
export function encodeColumn(c: Column): unknown[] {
  const n = c.length;
  const ids = c.itemIds.subarray(0, n);
  const order = itemOrder(ids);
  const pick32 = (a: Int32Array): Int32Array => {
    const v = a.subarray(0, n);
    if (!order) return v;
    const out = new Int32Array(n);
    for (let k = 0; k < n; k++) out[k] = v[order[k] as number] as number;
    return out;
  };
  const correct = new Int8Array(n);
  const [nCorrect, nScore] = outcomesInOrder(c, n, order, correct);
  return [
    c.modelId,
    c.splitId,
    c.configId,
    n,
    nCorrect,
    nScore,
    asBuffer(pick32(c.itemIds)),
    asBuffer(correct),
    encodeCells(c.pred, n, order),
    encodeCells(c.groundTruth, n, order),
    c.score && encodeFloat64Array(c.score.subarray(0, n), order),
    c.confidence && encodeFloat64Array(c.confidence.subarray(0, n), order),
    c.margin && encodeFloat64Array(c.margin.subarray(0, n), order),
    c.latencyMs && encodeFloat64Array(c.latencyMs.subarray(0, n), order),
    c.frames && encodeFrames(c.frames, order),
    encodeCells(c.sourceTag, n, order),
    encodeCells(c.protocolNote, n, order),
    asBuffer(pick32(c.runId)),
    asBuffer(pick32(c.line)),
  ];
}

export function createColumnWriter(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO response_columns (${COLUMN_COLUMNS}) VALUES (${COLUMN_COLUMNS.split(',')
      .map(() => '?')
      .join(', ')})`,
  );
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
