/**
 * Applies importer batches to a project. The caller runs this inside ONE transaction: any
 * ImportError thrown here rolls back every batch of the call, so a rejected file changes nothing.
 *
 * Rules:
 * - items are keyed by (split, sample_id); metadata may arrive before or after responses;
 * - a response without `correct` gets it from its item's answer once the answer is known,
 *   and a known `correct` must agree with the answer (else ImportError);
 * - the same (model, split, sample, config) from a DIFFERENT run with a different outcome is
 *   a conflict; the same file imported again (same sha256) is a no-op;
 * - a config key must agree with its frame count.
 */
import type Database from 'better-sqlite3';
import { emptyResponse } from '../importers/batch-builder';
import { ImportError } from '../importers/errors';
import type { ConfigSpec, ImportBatch, InternedStrings, ItemMeta, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import { contextJson } from '../../shared/domain/item-context';
import { applyOverrides, type ImportOverrides } from './import-overrides';
import { createConfigUpserter, specFromKey } from './import-configs';
import { mergeCell, type CellPatch, type StoredCell } from './merge-cell';
import { Column, type ColumnRow, createColumnWriter, decodeColumn, type FloatField, floatAt, StringCells } from './response-columns';

export type { ImportOverrides } from './import-overrides';
export { framesFromKey } from './import-configs';

export interface ImportSummary {
  itemsAdded: number;
  itemsUpdated: number;
  responsesAdded: number;
  responsesUpdated: number;
  /** New (model, split, config) columns: a config added to a model's grid on a split. */
  configsAdded: number;
  /** Names touched by the import, sorted. */
  models: string[];
  splits: string[];
  configs: string[];
  warnings: string[];
  /** Frame caches of cached pipelines recorded (video-caches.ts); absent when none. */
  videoCachesAdded?: number;
}

export function emptySummary(): ImportSummary {
  return { itemsAdded: 0, itemsUpdated: 0, responsesAdded: 0, responsesUpdated: 0, configsAdded: 0, models: [], splits: [], configs: [], warnings: [] };
}

const ITEM_FIELDS = [
  ['question', 'question'],
  ['options', 'options'],
  ['answer', 'answer'],
  ['references', 'references_json'],
  ['taskType', 'task_type'],
  ['durationS', 'duration_s'],
  ['durationBucket', 'duration_bucket'],
  ['domain', 'domain'],
  ['subCategory', 'sub_category'],
  ['videoId', 'video_id'],
  ['videoFile', 'video_file'],
  ['kind', 'kind'],
  ['context', 'context_json'],
] as const satisfies readonly (readonly [keyof ItemMeta, string])[];

function itemValue(meta: ItemMeta, field: (typeof ITEM_FIELDS)[number][0]): string | number | null {
  if (field === 'context') return contextJson(meta.context);
  const v = meta[field];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return JSON.stringify(v);
  return v;
}

const fieldValue = (v: string | number | readonly string[] | null | undefined): string | number | null =>
  v === undefined || v === null ? null : Array.isArray(v) ? JSON.stringify(v) : (v as string | number);

/**
 * itemValue for every ITEM_FIELDS entry, in its order, into `out`. Spelled out field by field:
 * a keyed `meta[field]` per field is a megamorphic load, and 12 of them per item showed in the
 * bench (5k items). Keep in step with ITEM_FIELDS (test/electron/store/import-encodings.test.ts
 * round-trips every field).
 */
function itemValues(meta: ItemMeta, out: (string | number | null)[]): void {
  out[0] = fieldValue(meta.question);
  out[1] = fieldValue(meta.options);
  out[2] = fieldValue(meta.answer);
  out[3] = fieldValue(meta.references);
  out[4] = fieldValue(meta.taskType);
  out[5] = fieldValue(meta.durationS);
  out[6] = fieldValue(meta.durationBucket);
  out[7] = fieldValue(meta.domain);
  out[8] = fieldValue(meta.subCategory);
  out[9] = fieldValue(meta.videoId);
  out[10] = fieldValue(meta.videoFile);
  out[11] = fieldValue(meta.kind);
  out[12] = contextJson(meta.context);
}

export interface StoredItem {
  id: number;
  splitId: number;
  answer: string | null;
}

/**
 * The stored items of a split's sample-id table (ColumnTables.sampleIds.table, shared by the
 * split's columns), by table index; undefined = not looked up yet, or no such item yet.
 * StoredItem objects are never replaced (only their answer is updated in place), so an entry
 * once found stays right for the whole call.
 */
type TableItems = (StoredItem | undefined)[];

function writeCell(col: Column, k: number, r: ResponseRow, correct: number | null, runId: number): void {
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
class FieldMap {
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
class PendingCells {
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

const stringAt = (f: InternedStrings, k: number): string | null => {
  const i = f.index[k]!;
  return i < 0 ? null : f.table[i]!;
};

/**
 * The fields of row `r` (cell `k` of column batch `c`) that only a merge with a stored cell
 * reads: the applier fills them just before one (a new cell is copied from `c` itself).
 */
function fillMergeFields(r: ResponseRow, c: ResponseColumnBatch, k: number): void {
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
class FreshLines {
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
const cellAt = (col: Column, k: number): StoredCell => ({
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
const correctAt = (col: Column, k: number): number | null => (col.correct[k]! < 0 ? null : col.correct[k]!);
const runAt = (col: Column, k: number): number | null => (col.runId[k] === 0 ? null : col.runId[k]!);
const lineAt = (col: Column, k: number): number | null => (col.line[k]! < 0 ? null : col.line[k]!);

/** Writes mergeCell's fill into cell `k`; false when there was nothing to fill. */
function patchCell(col: Column, k: number, p: CellPatch): boolean {
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

/** Rows per multi-row INSERT of items (at most 15 parameters each, well under SQLite's limit). */
const ITEM_CHUNK = 64;

/**
 * New items of the metadata loop, inserted ITEM_CHUNK rows per statement and binding only
 * the fields an item has (a per_item.csv item has an answer and a kind, not 12 fields):
 * one 15-parameter statement per item cost ~2 µs (5k items in the bench file). Items are
 * grouped by which fields they have; their ids are given explicitly as the ones SQLite
 * would pick (one more than the largest, in add order), so the rows are those one INSERT
 * per item gives, and nothing else may insert items between add() and flush().
 */
function createItemInserter(db: Database.Database) {
  const maxId = db.prepare<[], number | null>('SELECT max(id) FROM items').pluck(true);
  const sql = (fields: readonly number[], rows: number): string => {
    const cols = ['id', 'split_id', 'sample_id', ...fields.map((i) => ITEM_FIELDS[i]![1])];
    const row = `(${cols.map(() => '?').join(', ')})`;
    return `INSERT INTO items (${cols.join(', ')}) VALUES ${new Array<string>(rows).fill(row).join(', ')}`;
  };
  interface Shape {
    fields: number[];
    args: (string | number | null)[];
    rows: number;
    full: Database.Statement | null;
  }
  const shapes = new Map<number, Shape>();
  const values: (string | number | null)[] = new Array(ITEM_FIELDS.length).fill(null);
  let next: number | null = null;
  return {
    /** Queues an item; returns its id. */
    add(sid: number, meta: ItemMeta): number {
      if (next === null) next = (maxId.get() ?? 0) + 1;
      const id = next++;
      itemValues(meta, values);
      let mask = 0;
      for (let i = 0; i < values.length; i++) if (values[i] !== null) mask |= 1 << i;
      let shape = shapes.get(mask);
      if (!shape) {
        const fields = ITEM_FIELDS.map((_, i) => i).filter((i) => mask & (1 << i));
        shapes.set(mask, (shape = { fields, args: [], rows: 0, full: null }));
      }
      const args = shape.args;
      args.push(id, sid, meta.sampleId);
      for (let j = 0; j < shape.fields.length; j++) args.push(values[shape.fields[j]!]!);
      if (++shape.rows === ITEM_CHUNK) {
        (shape.full ??= db.prepare(sql(shape.fields, ITEM_CHUNK))).run(args);
        shape.args = [];
        shape.rows = 0;
      }
      return id;
    },
    flush(): void {
      for (const shape of shapes.values()) {
        if (shape.rows > 0) db.prepare(sql(shape.fields, shape.rows)).run(shape.args);
        shape.args = [];
        shape.rows = 0;
      }
      next = null;
    },
  };
}

export function createImportApplier(db: Database.Database) {
  const q = {
    runBySha: db.prepare<[string, string], { id: number }>('SELECT id FROM runs WHERE sha256 = ? AND format = ?'),
    runInsert: db.prepare(
      'INSERT INTO runs (source_path, sha256, format, toolkit, model_args, imported_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    runCounts: db.prepare('UPDATE runs SET n_items = ?, n_responses = ?, n_configs = ? WHERE id = ?'),
    runSource: db.prepare<[number], { source_path: string }>('SELECT source_path FROM runs WHERE id = ?'),
    model: db.prepare<[string], { id: number }>('SELECT id FROM models WHERE name = ?'),
    modelInsert: db.prepare('INSERT INTO models (name) VALUES (?)'),
    split: db.prepare<[string], { id: number }>('SELECT id FROM splits WHERE name = ?'),
    splitInsert: db.prepare('INSERT INTO splits (name) VALUES (?)'),
    gridInsert: db.prepare(
      `INSERT OR IGNORE INTO grid_configs (model_id, split_id, config_id, width, height, sampling_policy, sampling_seed, sampling_fps, pipeline, toolkit, model_args, notes, run_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    gridFill: db.prepare(
      `UPDATE grid_configs SET width = COALESCE(width, ?), height = COALESCE(height, ?),
         sampling_policy = COALESCE(sampling_policy, ?), sampling_seed = COALESCE(sampling_seed, ?), sampling_fps = COALESCE(sampling_fps, ?),
         pipeline = COALESCE(pipeline, ?), toolkit = COALESCE(toolkit, ?), model_args = COALESCE(model_args, ?), notes = COALESCE(notes, ?)
       WHERE model_id = ? AND split_id = ? AND config_id = ?`,
    ),
    itemsOfSplit: db.prepare<[number], { id: number; sample_id: string; answer: string | null }>(
      'SELECT id, sample_id, answer FROM items WHERE split_id = ?',
    ),
    itemFull: db.prepare<[number], Record<string, string | number | null>>('SELECT * FROM items WHERE id = ?'),
    itemInsertBare: db.prepare('INSERT INTO items (split_id, sample_id) VALUES (?, ?)'),
    itemSetAnswer: db.prepare('UPDATE items SET answer = ? WHERE id = ?'),
    column: db.prepare<[number, number, number], ColumnRow>('SELECT * FROM response_columns WHERE model_id = ? AND split_id = ? AND config_id = ?'),
    columnsOfSplit: db.prepare<[number], ColumnRow>('SELECT * FROM response_columns WHERE split_id = ? ORDER BY model_id, config_id'),
    modelName: db.prepare<[number], string>('SELECT name FROM models WHERE id = ?'),
    configKey: db.prepare<[number], string>('SELECT key FROM configs WHERE id = ?'),
  };

  const writeColumn = createColumnWriter(db);
  const storeConfig = createConfigUpserter(db);

  return function applyImports(batches: ImportBatch[], opts: ImportOverrides = {}): ImportSummary {
    const summary = emptySummary();
    const modelNames = new Set<string>();
    const splitNames = new Set<string>();
    const configNames = new Set<string>();
    const modelIds = new Map<string, number>();
    const splitIds = new Map<string, number>();
    const configIds = new Map<string, number>();
    const itemsBySplit = new Map<number, Map<string, StoredItem>>();
    // Grid columns touched by this call, decoded; merged in memory and written back once at
    // the end (inside the caller's transaction, so a rejected batch writes nothing).
    const columns = new Map<string, Column>();
    /** What to write at the end (when dirty), in the order the columns were first touched. */
    const pending: Column[] = [];
    const track = (key: string, c: Column): void => {
      columns.set(key, c);
      pending.push(c);
    };
    /** Cells written by this call, per column: position → the line of this import that wrote it. */
    const freshLines = new Map<Column, FreshLines>();
    const splitsLoaded = new Set<number>();
    const columnOf = (mid: number, sid: number, cid: number): Column => {
      const key = `${mid}:${sid}:${cid}`;
      let c = columns.get(key);
      if (!c) {
        const row = splitsLoaded.has(sid) ? undefined : q.column.get(mid, sid, cid);
        c = row ? decodeColumn(row) : new Column(mid, sid, cid);
        track(key, c);
      }
      return c;
    };
    /** Every column of a split (an answer that arrives must reach all models' cells of the item). */
    const columnsOfSplit = (sid: number): Column[] => {
      if (!splitsLoaded.has(sid)) {
        for (const row of q.columnsOfSplit.iterate(sid)) {
          const key = `${row.model_id}:${row.split_id}:${row.config_id}`;
          if (!columns.has(key)) track(key, decodeColumn(row));
        }
        splitsLoaded.add(sid);
      }
      return [...columns.values()]
        .filter((c) => c.splitId === sid)
        .sort((a, b) => a.modelId - b.modelId || a.configId - b.configId);
    };
    const freshOf = (c: Column): FreshLines => {
      let m = freshLines.get(c);
      if (!m) freshLines.set(c, (m = new FreshLines(c)));
      return m;
    };
    const updatedItems = new Set<number>();
    const runSources = new Map<number, string>();
    const newItems = createItemInserter(db);
    /** Per sample-id table (one per split of a batch): its stored items, by table index. */
    const tableItems = new Map<readonly string[], TableItems>();

    const idOf = (cache: Map<string, number>, name: string, get: Database.Statement<[string], { id: number }>, insert: Database.Statement): number => {
      let id = cache.get(name);
      if (id === undefined) {
        id = get.get(name)?.id ?? Number(insert.run(name).lastInsertRowid);
        cache.set(name, id);
      }
      return id;
    };
    const modelId = (name: string): number => (modelNames.add(name), idOf(modelIds, name, q.model, q.modelInsert));
    const splitId = (name: string): number => (splitNames.add(name), idOf(splitIds, name, q.split, q.splitInsert));

    const itemsOf = (sid: number): Map<string, StoredItem> => {
      let m = itemsBySplit.get(sid);
      if (!m) {
        m = new Map();
        for (const r of q.itemsOfSplit.iterate(sid)) m.set(r.sample_id, { id: r.id, splitId: sid, answer: r.answer });
        itemsBySplit.set(sid, m);
      }
      return m;
    };

    const sourceOf = (runId: number | null): string => {
      if (runId === null) return 'an earlier import';
      let s = runSources.get(runId);
      if (s === undefined) {
        s = q.runSource.get(runId)?.source_path ?? 'an earlier import';
        runSources.set(runId, s);
      }
      return s;
    };

    /** The item's answer became known: check stored outcomes against it, then fill missing ones. */
    const answerArrived = (item: StoredItem, answer: string, file: string, line0: number, field: string, split: string, sampleId: string): void => {
      const cols = columnsOfSplit(item.splitId);
      for (const c of cols) {
        const k = c.find(item.id);
        if (k < 0) continue;
        const pred = c.pred.get(k);
        const stored = correctAt(c, k);
        if (stored !== null && floatAt(c.score, k) === null && pred !== null && (pred === answer ? 1 : 0) !== stored) {
          const line = lineAt(c, k);
          throw new ImportError(
            file,
            line0,
            field,
            `answer "${answer}" for (${split}, ${sampleId}) contradicts ${sourceOf(runAt(c, k))}${line ? `:${line}` : ''} ` +
              `(${q.modelName.pluck().get(c.modelId) as string}, ${q.configKey.pluck().get(c.configId) as string}: predicted "${pred}", correct = ${stored})`,
          );
        }
      }
      for (const c of cols) {
        const k = c.find(item.id);
        if (k < 0 || c.correct[k]! >= 0 || floatAt(c.score, k) !== null) continue;
        c.correct[k] = c.pred.get(k) === answer ? 1 : 0;
        c.dirty = true;
        summary.responsesUpdated++;
      }
      item.answer = answer;
    };

    const upsertConfig = (spec: ConfigSpec, file: string, line: number): number => {
      const id = storeConfig(spec, file, line);
      configIds.set(spec.key, id);
      return id;
    };

    for (const batch of batches) {
      const file = batch.run.sourcePath;
      summary.warnings.push(...batch.warnings);

      // Overrides from the command line / dialog.
      const { rows, cols, specs, items } = applyOverrides(batch, opts);

      // Run provenance: identical bytes in the same format are the same run.
      const runId =
        q.runBySha.get(batch.run.sha256, batch.run.format)?.id ??
        Number(
          q.runInsert.run(file, batch.run.sha256, batch.run.format, batch.run.toolkit, batch.run.modelArgs, new Date().toISOString()).lastInsertRowid,
        );

      // Configs: declared specs first, then keys only named by responses.
      const specByKey = new Map<string, ConfigSpec>();
      for (const spec of specs) {
        specByKey.set(spec.key, spec);
        upsertConfig(spec, file, 0);
      }
      const configNamed = (config: string, line: number): void => {
        if (specByKey.has(config)) return;
        const spec = specFromKey(config, batch.run, file, line);
        specByKey.set(config, spec);
        upsertConfig(spec, file, line);
      };
      for (const r of rows) configNamed(r.config, r.line);
      for (const c of cols) if (c.length > 0) configNamed(c.config, c.line[0]!);

      // Items (metadata) before responses so that one batch's answers apply to its own rows.
      // Items come grouped by split: look the split up when it changes, not per item.
      let metaSplit: string | null = null;
      let metaSid = 0;
      let metaKnown = null as unknown as Map<string, StoredItem>;
      for (let i = 0; i < items.length; i++) {
        const meta = items[i]!;
        if (meta.split !== metaSplit) {
          metaSplit = meta.split;
          metaSid = splitId(metaSplit);
          metaKnown = itemsOf(metaSid);
        }
        const line = meta.line ?? 0;
        const stored = metaKnown.get(meta.sampleId);
        if (!stored) {
          const id = newItems.add(metaSid, meta);
          metaKnown.set(meta.sampleId, { id, splitId: metaSid, answer: meta.answer ?? null });
          summary.itemsAdded++;
          continue;
        }
        newItems.flush(); // the stored row is read back below
        const row = q.itemFull.get(stored.id)!;
        const sets: string[] = [];
        const vals: (string | number | null)[] = [];
        for (const [f, col] of ITEM_FIELDS) {
          const v = itemValue(meta, f);
          if (v === null || row[col] === v) continue;
          if (f === 'answer' && row[col] !== null) {
            throw new ImportError(file, line, 'answer', `answer "${v}" for (${meta.split}, ${meta.sampleId}) contradicts the project's "${row[col]}"`);
          }
          sets.push(`${col} = ?`);
          vals.push(v);
        }
        if (sets.length) {
          db.prepare(`UPDATE items SET ${sets.join(', ')} WHERE id = ?`).run(...vals, stored.id);
          if (!updatedItems.has(stored.id)) summary.itemsUpdated++;
          updatedItems.add(stored.id);
        }
        if (meta.answer != null && stored.answer === null) answerArrived(stored, meta.answer, file, line, 'answer', meta.split, meta.sampleId);
      }

      newItems.flush();

      // Responses. Rows usually come grouped by (model, split, config) and columns are one
      // each: the ids, the column and its grid_configs row are looked up when the triple
      // changes (enter), not per cell — merge runs once per cell, 145k times in the bench.
      const gridConfigsSeen = new Set<string>();
      let sid = 0;
      let col = null as unknown as Column;
      let fresh = null as unknown as FreshLines;
      let known = null as unknown as Map<string, StoredItem>;
      /** The ids of a (model, split, config), its items and its grid_configs row; returns [mid, cid]. */
      const enterGrid = (model: string, split: string, config: string): [number, number] => {
        const mid = modelId(model);
        sid = splitId(split);
        const cid = configIds.get(config)!;
        configNames.add(config);
        known = itemsOf(sid);
        const spec = specByKey.get(config)!;
        const gridSpec = [spec.width, spec.height, spec.sampling.policy, spec.sampling.seed, spec.sampling.fps, spec.pipeline, spec.toolkit, spec.modelArgs, spec.notes] as const;
        const gridConfigKey = `${mid}:${sid}:${cid}`;
        if (!gridConfigsSeen.has(gridConfigKey)) {
          gridConfigsSeen.add(gridConfigKey);
          if (q.gridInsert.run(mid, sid, cid, ...gridSpec, runId).changes) summary.configsAdded++;
          else q.gridFill.run(...gridSpec, mid, sid, cid);
        }
        return [mid, cid];
      };
      const enter = (model: string, split: string, config: string): void => {
        const [mid, cid] = enterGrid(model, split, config);
        col = columnOf(mid, sid, cid);
        fresh = freshOf(col);
      };
      /**
       * `found`: the cell's item when the caller already knows it (a column batch's table
       * cache). `from`: the cell is cell `fromK` of this column batch, whose values a new cell
       * takes as they are (no string per cell); `r` then holds the same values for the checks.
       */
      /**
       * Cells of the current column batch queued for appending. Flushed before anything reads
       * `col`: before a cell whose item an earlier cell of the batch named (it merges with
       * that cell), before an answer arrives (it fills cells of every column of the split),
       * and at the end of the batch.
       */
      let pendingCells: PendingCells | null = null;
      const flush = (): void => {
        if (pendingCells !== null) pendingCells.flush(col, runId);
      };
      const merge = (r: ResponseRow, found?: StoredItem, fromK = 0): StoredItem => {
        let item = found ?? known.get(r.sampleId);
        if (!item) {
          item = { id: Number(q.itemInsertBare.run(sid, r.sampleId).lastInsertRowid), splitId: sid, answer: null };
          known.set(r.sampleId, item);
          summary.itemsAdded++;
        }
        if (r.groundTruth !== null && r.score === null) {
          if (item.answer === null) {
            q.itemSetAnswer.run(r.groundTruth, item.id);
            if (!updatedItems.has(item.id)) summary.itemsUpdated++;
            updatedItems.add(item.id);
            flush();
            answerArrived(item, r.groundTruth, file, r.line, 'ground_truth', r.split, r.sampleId);
          } else if (item.answer !== r.groundTruth) {
            throw new ImportError(file, r.line, 'ground_truth', `ground truth "${r.groundTruth}" for (${r.split}, ${r.sampleId}) contradicts the project's "${item.answer}"`);
          }
        }
        let correct: number | null = r.correct === null ? null : r.correct ? 1 : 0;
        if (r.score === null && item.answer !== null) {
          const implied = r.pred !== null && r.pred === item.answer ? 1 : 0;
          if (correct === null) correct = implied;
          else if (r.pred !== null && correct !== implied) {
            throw new ImportError(file, r.line, 'correct', `correct = ${correct} contradicts predicted "${r.pred}" and answer "${item.answer}"`);
          }
        }

        const k = col.find(item.id);
        if (k < 0) {
          summary.responsesAdded++;
          if (pendingCells !== null) {
            pendingCells.add(fromK, item.id, correct);
            return item;
          }
          writeCell(col, col.push(item.id), r, correct, runId); // appended: fresh with its own line
          return item;
        }
        if (pendingCells !== null) fillMergeFields(r, pendingCells.b.c, fromK);
        const freshLine = fresh.get(k);
        const outcome = mergeCell(cellAt(col, k), r, correct, freshLine !== undefined, runId);
        if (outcome.kind === 'conflict') {
          const differing = outcome.field;
          const storedRun = runAt(col, k);
          const storedLine = lineAt(col, k);
          const where = freshLine !== undefined ? `line ${freshLine} of the same import` : `${sourceOf(storedRun)}${storedLine ? `:${storedLine}` : ''}`;
          throw new ImportError(
            file,
            r.line,
            differing,
            `(${r.model}, ${r.split}, ${r.sampleId}, ${r.config}) is already recorded with a different ${differing} (${where})`,
          );
        }
        if (outcome.kind === 'replace') {
          // Same bytes as an earlier run but read differently (e.g. a newer importer): the new reading wins.
          writeCell(col, k, r, correct, runId);
          fresh.set(k, r.line);
          summary.responsesUpdated++;
          return item;
        }
        if (outcome.kind === 'duplicate') return item; // an exact duplicate line within this import
        if (patchCell(col, k, outcome.patch)) summary.responsesUpdated++;
        fresh.set(k, r.line);
        return item;
      };
      let prevModel: string | null = null;
      let prevSplit: string | null = null;
      let prevConfig: string | null = null;
      for (const r of rows) {
        if (r.model !== prevModel || r.split !== prevSplit || r.config !== prevConfig) {
          prevModel = r.model;
          prevSplit = r.split;
          prevConfig = r.config;
          enter(r.model, r.split, r.config);
        }
        merge(r);
      }
      let nResponses = rows.length;
      for (const c of cols) {
        if (c.length === 0) continue;
        nResponses += c.length;
        enter(c.model, c.split, c.config);
        // One row object refilled per cell from the batch's tables (no string array built)
        // with what merge checks; the rest only where a stored cell is met (fillMergeFields). A split's sample-id table is shared by its
        // columns, so each item is looked up by string once per table, not once per cell.
        const r = emptyResponse(c.model, c.split, '', c.config, 0);
        const t = c.tables;
        let cache = tableItems.get(t.sampleIds.table);
        if (!cache) tableItems.set(t.sampleIds.table, (cache = []));
        pendingCells = new PendingCells({
          c,
          pred: new FieldMap(t.pred, col.pred),
          groundTruth: new FieldMap(t.groundTruth, col.groundTruth),
          sourceTag: new FieldMap(t.sourceTag, col.sourceTag),
          protocolNote: new FieldMap(t.protocolNote, col.protocolNote),
        });
        // Sample-id table indices this batch has named: a second cell of an item merges with the first.
        const named = new Uint8Array(t.sampleIds.table.length);
        for (let k = 0; k < c.length; k++) {
          const cor = c.correct[k]!;
          const ti = t.sampleIds.index[k]!;
          r.sampleId = t.sampleIds.table[ti]!;
          r.pred = stringAt(t.pred, k);
          r.correct = cor < 0 ? null : cor === 1;
          r.score = floatAt(c.score, k);
          r.groundTruth = stringAt(t.groundTruth, k);
          r.line = c.line[k]!;
          if (named[ti] === 1) flush();
          named[ti] = 1;
          const cached = cache[ti];
          // A cached item stays right: StoredItems are never replaced, and one per (split, id).
          cache[ti] = merge(r, cached !== undefined && cached.splitId === sid ? cached : undefined, k);
        }
        flush();
        pendingCells = null;
      }
      q.runCounts.run(items.length, nResponses, specByKey.size, runId);
    }
    for (const p of pending) if (p.dirty) writeColumn(p);
    summary.models = [...modelNames].sort();
    summary.splits = [...splitNames].sort();
    summary.configs = [...configNames].sort();
    return summary;
  };
}
