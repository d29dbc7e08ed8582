/**
 * The cells an import writes into a grid column (response-columns.ts Column): a row's cell
 * written or patched, a column batch's string fields mapped onto the column's, the new cells of
 * a batch appended together (or adopted whole), the lines of this import that wrote each cell,
 * and a stored cell as mergeCell compares it (import-apply.ts).
 */
import type { InternedStrings, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import type { CellPatch, StoredCell } from './merge-cell';
import { StringCells } from './column-blobs';
import { Column, type FloatField, floatAt } from './response-columns';

export function writeCell(col: Column, k: number, r: ResponseRow, correct: number | null, runId: number): void {
  col.pred.set(k, r.pred);
  col.correct[k] = correct ?? -1;
  col.setFloat('score', k, r.score);
  col.groundTruth.set(k, r.groundTruth);
  col.setFloat('confidence', k, r.confidence);
  col.setFloat('margin', k, r.margin);
  col.setFloat('latencyMs', k, r.latencyMs);
  col.setFrames(k, r.frameIndices);
  col.sourceTag.set(k, r.sourceTag);
  col.protocolNote.set(k, r.protocolNote);
  col.runId[k] = runId;
  col.line[k] = r.line;
  col.dirty = true;
}

/**
 * A column batch's string field (its table indices) mapped onto a Column's StringCells: batch
 * table index → column table index + 1 (0 = not mapped yet). Each distinct string is interned
 * into the column once per batch; a cell then costs two array reads.
 */
export class FieldMap {
  private to: Int32Array;
  constructor(
    private readonly from: InternedStrings,
    private readonly cells: StringCells,
  ) {
    this.to = new Int32Array(from.table.length);
  }

  /** Cell k of the batch as a column table index (−1 = NULL). */
  at(k: number): number {
    const ti = this.from.index[k] as number;
    if (ti < 0) return -1;
    let i = this.to[ti] as number;
    if (i === 0) this.to[ti] = i = this.cells.intern(this.from.table[ti] as string) + 1;
    return i - 1;
  }
}

/** The string fields of one column batch mapped onto the Column it is applied to. */
interface BatchCells {
  c: ResponseColumnBatch;
  pred: FieldMap;
  groundTruth: FieldMap;
  sourceTag: FieldMap;
  protocolNote: FieldMap;
}

/**
 * New cells of a column batch, appended to its Column together (Column.append) rather than one
 * push and writeCell per cell: the cells' values are copied from the batch's arrays as they
 * are (a 1.45M-row per_item.csv is almost all new cells). The applier queues a cell here where
 * it would push it, and flushes before anything reads the Column (see `flush` there).
 */
export class PendingCells {
  ks: Int32Array;
  ids: Int32Array<ArrayBuffer>;
  correct: Int8Array<ArrayBuffer>;
  n = 0;

  constructor(readonly b: BatchCells) {
    const n = b.c.length;
    this.ks = new Int32Array(n);
    this.ids = new Int32Array(n);
    this.correct = new Int8Array(n);
  }

  add(k: number, itemId: number, correct: number | null): void {
    const j = this.n++;
    this.ks[j] = k;
    this.ids[j] = itemId;
    this.correct[j] = correct ?? -1;
  }

  /** Appends the queued cells to `col` (with `runId`); FreshLines knows them as appended. */
  flush(col: Column, runId: number): void {
    const n = this.n;
    if (n === 0) return;
    this.n = 0;
    const { b, ks } = this;
    const c = b.c;
    // Cells 0..n−1 of the batch in order (the usual case): whole arrays copied, or taken over.
    const whole = n === c.length && ks[n - 1] === n - 1;
    if (whole && col.length === 0) {
      this.adopt(col, runId);
      return;
    }
    const k0 = col.append(this.ids, n);
    col.correct.set(this.correct.subarray(0, n), k0);
    col.runId.fill(runId, k0, k0 + n);
    const copy = (to: Float64Array | Int32Array, from: Float64Array | Int32Array): void => {
      if (whole) to.set(from.subarray(0, n), k0);
      else for (let j = 0; j < n; j++) to[k0 + j] = from[ks[j] as number] as number;
    };
    // A float field without an array (no cell has a value: Column) keeps none while the new
    // cells have no value either.
    const copyFloats = (f: FloatField, from: Float64Array): void => {
      let to = col[f];
      if (to === null) {
        let any = false;
        for (let j = 0; j < n && !any; j++) {
          const v = from[whole ? j : (ks[j] as number)] as number;
          any = v === v;
        }
        if (!any) return;
        to = col.floats(f);
      }
      copy(to, from);
    };
    copyFloats('score', c.score);
    copyFloats('confidence', c.confidence);
    copyFloats('margin', c.margin);
    copyFloats('latencyMs', c.latencyMs);
    copy(col.line, c.line);
    const frames = c.frameIndices;
    for (let j = 0; j < n; j++) {
      const k = ks[j] as number;
      col.pred.index[k0 + j] = b.pred.at(k);
      col.groundTruth.index[k0 + j] = b.groundTruth.at(k);
      col.sourceTag.index[k0 + j] = b.sourceTag.at(k);
      col.protocolNote.index[k0 + j] = b.protocolNote.at(k);
    }
    // A column without frames keeps none while the new cells have none either (Column).
    if (col.frames === null && !anyFrames(frames, ks, n)) return;
    // Column.frames holds one entry per cell, so the new cells' entries are pushed (a store
    // past the end of a JS array is slower than a push).
    const out = col.frameList();
    if (out.length === k0) for (let j = 0; j < n; j++) out.push(frames[ks[j] as number] ?? null);
    else for (let j = 0; j < n; j++) out[k0 + j] = frames[ks[j] as number] ?? null;
  }

  /**
   * The whole batch as the cells of an empty column, kept in the batch's own arrays and this
   * queue's ids and outcomes instead of copies: memory touched for the first time is most of
   * what copying cost (docs/architecture.md "Import at lab scale"). The batch stays read-only
   * (ResponseColumnBatch): every cell of the column is then this import's, which a later line
   * only repeats or contradicts (merge-cell.ts), never patches, and a cell added later grows the
   * column into arrays of its own first (they are exactly the batch's length). A float field
   * with no value keeps no array (the reader shares one all-NaN array between columns); a
   * string field keeps the batch's index with a copy of its table (the column interns into
   * it), unless the table is larger than the column (one shared by many columns, e.g. a file's
   * source tags), which is mapped as `flush` maps it.
   */
  private adopt(col: Column, runId: number): void {
    const b = this.b;
    const c = b.c;
    const n = c.length;
    const t = c.tables;
    const floats = (from: Float64Array): Float64Array<ArrayBuffer> | null => {
      for (let j = 0; j < n; j++) if (from[j] === from[j]) return onArrayBuffer(from);
      return null;
    };
    const strings = (from: InternedStrings, map: FieldMap, cells: StringCells): StringCells => {
      if (from.table.length <= n) return new StringCells(onArrayBuffer(from.index), from.table.slice());
      const index = new Int32Array(n);
      for (let j = 0; j < n; j++) index[j] = map.at(j);
      cells.index = index;
      return cells;
    };
    col.adopt(n, {
      itemIds: this.ids,
      correct: this.correct,
      runId: new Int32Array(n).fill(runId),
      line: onArrayBuffer(c.line),
      score: floats(c.score),
      confidence: floats(c.confidence),
      margin: floats(c.margin),
      latencyMs: floats(c.latencyMs),
      pred: strings(t.pred, b.pred, col.pred),
      groundTruth: strings(t.groundTruth, b.groundTruth, col.groundTruth),
      sourceTag: strings(t.sourceTag, b.sourceTag, col.sourceTag),
      protocolNote: strings(t.protocolNote, b.protocolNote, col.protocolNote),
    });
    const frames = c.frameIndices;
    if (!anyFrames(frames, this.ks, n)) return;
    const out = col.frameList(); // a null per cell
    for (let j = 0; j < n; j++) out[j] = frames[j] ?? null;
  }
}

/** A typed array of the batch as one the Column can hold (Column's arrays are on ArrayBuffers). */
function onArrayBuffer(a: Int32Array): Int32Array<ArrayBuffer>;
function onArrayBuffer(a: Float64Array): Float64Array<ArrayBuffer>;
function onArrayBuffer(a: Int32Array | Float64Array): Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer> {
  if (!(a.buffer instanceof ArrayBuffer)) throw new Error('column batch arrays must be on ArrayBuffers');
  return a as Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>;
}

/** Whether any of the cells `ks[0, n)` of a batch has frame indices. */
function anyFrames(frames: readonly (ArrayLike<number> | null)[], ks: Int32Array, n: number): boolean {
  for (let j = 0; j < n; j++) if (frames[ks[j] as number] != null) return true;
  return false;
}

export const stringAt = (f: InternedStrings, k: number): string | null => {
  const i = f.index[k]!;
  return i < 0 ? null : f.table[i]!;
};

/**
 * The fields of row `r` (cell `k` of column batch `c`) that only a merge with a stored cell
 * reads: the applier fills them just before one (a new cell is copied from `c` itself).
 */
export function fillMergeFields(r: ResponseRow, c: ResponseColumnBatch, k: number): void {
  r.confidence = floatAt(c.confidence, k);
  r.margin = floatAt(c.margin, k);
  r.latencyMs = floatAt(c.latencyMs, k);
  r.frameIndices = c.frameIndices[k] ?? null;
  r.sourceTag = stringAt(c.tables.sourceTag, k);
  r.protocolNote = stringAt(c.tables.protocolNote, k);
}

/**
 * Cell position of a column → the line of this import that last wrote it (undefined = not
 * written by it). A cell this call appended (position ≥ the column's length when the call
 * first met it) was written by its own line, which the column holds: nothing is recorded per
 * appended cell (a 1.45M-row per_item.csv appends every cell). Only a stored cell this call
 * changed, or an appended one a later line merged with, is kept in `moved`.
 */
export class FreshLines {
  private readonly base: number;
  private readonly moved = new Map<number, number>();

  constructor(private readonly col: Column) {
    this.base = col.length;
  }

  get(k: number): number | undefined {
    const v = this.moved.get(k);
    if (v !== undefined) return v;
    return k >= this.base && k < this.col.length ? (this.col.line[k] as number) : undefined;
  }

  set(k: number, line: number): void {
    if (k >= this.base && k < this.col.length && this.col.line[k] === line) this.moved.delete(k);
    else this.moved.set(k, line);
  }
}

/** Cell `k` of `col`, as mergeCell compares it. */
export const cellAt = (col: Column, k: number): StoredCell => ({
  pred: col.pred.get(k),
  correct: correctAt(col, k),
  score: floatAt(col.score, k),
  groundTruth: col.groundTruth.get(k),
  confidence: floatAt(col.confidence, k),
  margin: floatAt(col.margin, k),
  latencyMs: floatAt(col.latencyMs, k),
  frames: col.frames?.[k] ?? null,
  sourceTag: col.sourceTag.get(k),
  protocolNote: col.protocolNote.get(k),
  runId: runAt(col, k),
});
export const correctAt = (col: Column, k: number): number | null => (col.correct[k]! < 0 ? null : col.correct[k]!);
export const runAt = (col: Column, k: number): number | null => (col.runId[k] === 0 ? null : col.runId[k]!);
export const lineAt = (col: Column, k: number): number | null => (col.line[k]! < 0 ? null : col.line[k]!);

/** Writes mergeCell's fill into cell `k`; false when there was nothing to fill. */
export function patchCell(col: Column, k: number, p: CellPatch): boolean {
  let filled = false;
  if (p.correct !== undefined) ((col.correct[k] = p.correct ?? -1), (filled = true));
  if (p.groundTruth !== undefined) (col.groundTruth.set(k, p.groundTruth), (filled = true));
  if (p.confidence !== undefined) (col.setFloat('confidence', k, p.confidence), (filled = true));
  if (p.margin !== undefined) (col.setFloat('margin', k, p.margin), (filled = true));
  if (p.latencyMs !== undefined) (col.setFloat('latencyMs', k, p.latencyMs), (filled = true));
  if (p.frames !== undefined) (col.setFrames(k, p.frames), (filled = true));
  if (p.sourceTag !== undefined) (col.sourceTag.set(k, p.sourceTag), (filled = true));
  if (p.protocolNote !== undefined) (col.protocolNote.set(k, p.protocolNote), (filled = true));
  if (filled) col.dirty = true;
  return filled;
}
