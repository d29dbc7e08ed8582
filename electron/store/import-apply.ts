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
 *
 * The applier's parts, by job: the per-call state and its lookups (ImportCall, below), one
 * batch (applyBatch: its run, configs, item metadata and responses), the cells written into a
 * grid column (import-cells.ts) and the items table's fields and inserter (import-items.ts).
 */
import type Database from 'better-sqlite3';
import { emptyResponse } from '../importers/batch-builder';
import { ImportError } from '../importers/errors';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import { applyOverrides, type ImportOverrides } from './import-overrides';
import { cellAt, correctAt, FieldMap, fillMergeFields, FreshLines, lineAt, patchCell, PendingCells, runAt, stringAt, writeCell } from './import-cells';
import { createConfigUpserter, specFromKey } from './import-configs';
import { createItemInserter, ITEM_FIELDS, itemValue } from './import-items';
import { mergeCell } from './merge-cell';
import { Column, type ColumnRow, createColumnWriter, decodeColumn, floatAt } from './response-columns';

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

/** The applier's statements, prepared once per connection. */
function prepareApplierStatements(db: Database.Database) {
  return {
    runBySha: db.prepare<[string, string], { id: number }>('SELECT id FROM runs WHERE sha256 = ? AND format = ?'),
    runInsert: db.prepare('INSERT INTO runs (source_path, sha256, format, toolkit, model_args, imported_at) VALUES (?, ?, ?, ?, ?, ?)'),
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
    itemsOfSplit: db.prepare<[number], { id: number; sample_id: string; answer: string | null }>('SELECT id, sample_id, answer FROM items WHERE split_id = ?'),
    itemFull: db.prepare<[number], Record<string, string | number | null>>('SELECT * FROM items WHERE id = ?'),
    itemInsertBare: db.prepare('INSERT INTO items (split_id, sample_id) VALUES (?, ?)'),
    itemSetAnswer: db.prepare('UPDATE items SET answer = ? WHERE id = ?'),
    column: db.prepare<[number, number, number], ColumnRow>('SELECT * FROM response_columns WHERE model_id = ? AND split_id = ? AND config_id = ?'),
    columnsOfSplit: db.prepare<[number], ColumnRow>('SELECT * FROM response_columns WHERE split_id = ? ORDER BY model_id, config_id'),
    modelName: db.prepare<[number], string>('SELECT name FROM models WHERE id = ?'),
    configKey: db.prepare<[number], string>('SELECT key FROM configs WHERE id = ?'),
  };
}

type ApplierStatements = ReturnType<typeof prepareApplierStatements>;

/**
 * What one call of the applier keeps across its batches: the summary, the ids and items looked
 * up so far, and the grid columns it touched — decoded, merged in memory and written back once
 * at the end (inside the caller's transaction, so a rejected batch writes nothing).
 */
class ImportCall {
  readonly summary = emptySummary();
  private readonly modelNames = new Set<string>();
  private readonly splitNames = new Set<string>();
  readonly configNames = new Set<string>();
  private readonly modelIds = new Map<string, number>();
  private readonly splitIds = new Map<string, number>();
  readonly configIds = new Map<string, number>();
  private readonly itemsBySplit = new Map<number, Map<string, StoredItem>>();
  private readonly columns = new Map<string, Column>();
  /** What to write at the end (when dirty), in the order the columns were first touched. */
  private readonly pending: Column[] = [];
  /** Cells written by this call, per column: position → the line of this import that wrote it. */
  private readonly freshLines = new Map<Column, FreshLines>();
  private readonly splitsLoaded = new Set<number>();
  readonly updatedItems = new Set<number>();
  private readonly runSources = new Map<number, string>();
  readonly newItems: ReturnType<typeof createItemInserter>;
  /** Per sample-id table (one per split of a batch): its stored items, by table index. */
  readonly tableItems = new Map<readonly string[], TableItems>();

  constructor(
    readonly db: Database.Database,
    readonly q: ApplierStatements,
    private readonly storeConfig: ReturnType<typeof createConfigUpserter>,
  ) {
    this.newItems = createItemInserter(db);
  }

  private track(key: string, c: Column): void {
    this.columns.set(key, c);
    this.pending.push(c);
  }

  columnOf(mid: number, sid: number, cid: number): Column {
    const key = `${mid}:${sid}:${cid}`;
    let c = this.columns.get(key);
    if (!c) {
      const row = this.splitsLoaded.has(sid) ? undefined : this.q.column.get(mid, sid, cid);
      c = row ? decodeColumn(row) : new Column(mid, sid, cid);
      this.track(key, c);
    }
    return c;
  }

  /** Every column of a split (an answer that arrives must reach all models' cells of the item). */
  columnsOfSplit(sid: number): Column[] {
    if (!this.splitsLoaded.has(sid)) {
      for (const row of this.q.columnsOfSplit.iterate(sid)) {
        const key = `${row.model_id}:${row.split_id}:${row.config_id}`;
        if (!this.columns.has(key)) this.track(key, decodeColumn(row));
      }
      this.splitsLoaded.add(sid);
    }
    return [...this.columns.values()].filter((c) => c.splitId === sid).sort((a, b) => a.modelId - b.modelId || a.configId - b.configId);
  }

  freshOf(c: Column): FreshLines {
    let m = this.freshLines.get(c);
    if (!m) this.freshLines.set(c, (m = new FreshLines(c)));
    return m;
  }

  private idOf(cache: Map<string, number>, name: string, get: Database.Statement<[string], { id: number }>, insert: Database.Statement): number {
    let id = cache.get(name);
    if (id === undefined) {
      id = get.get(name)?.id ?? Number(insert.run(name).lastInsertRowid);
      cache.set(name, id);
    }
    return id;
  }

  modelId(name: string): number {
    return (this.modelNames.add(name), this.idOf(this.modelIds, name, this.q.model, this.q.modelInsert));
  }

  splitId(name: string): number {
    return (this.splitNames.add(name), this.idOf(this.splitIds, name, this.q.split, this.q.splitInsert));
  }

  itemsOf(sid: number): Map<string, StoredItem> {
    let m = this.itemsBySplit.get(sid);
    if (!m) {
      m = new Map();
      for (const r of this.q.itemsOfSplit.iterate(sid)) m.set(r.sample_id, { id: r.id, splitId: sid, answer: r.answer });
      this.itemsBySplit.set(sid, m);
    }
    return m;
  }

  sourceOf(runId: number | null): string {
    if (runId === null) return 'an earlier import';
    let s = this.runSources.get(runId);
    if (s === undefined) {
      s = this.q.runSource.get(runId)?.source_path ?? 'an earlier import';
      this.runSources.set(runId, s);
    }
    return s;
  }

  /** The item's answer became known: check stored outcomes against it, then fill missing ones. */
  answerArrived(item: StoredItem, answer: string, file: string, line0: number, field: string, split: string, sampleId: string): void {
    const cols = this.columnsOfSplit(item.splitId);
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
          `answer "${answer}" for (${split}, ${sampleId}) contradicts ${this.sourceOf(runAt(c, k))}${line ? `:${line}` : ''} ` +
            `(${this.q.modelName.pluck().get(c.modelId) as string}, ${this.q.configKey.pluck().get(c.configId) as string}: predicted "${pred}", correct = ${stored})`,
        );
      }
    }
    for (const c of cols) {
      const k = c.find(item.id);
      if (k < 0 || c.correct[k]! >= 0 || floatAt(c.score, k) !== null) continue;
      c.correct[k] = c.pred.get(k) === answer ? 1 : 0;
      c.dirty = true;
      this.summary.responsesUpdated++;
    }
    item.answer = answer;
  }

  upsertConfig(spec: ConfigSpec, file: string, line: number): number {
    const id = this.storeConfig(spec, file, line);
    this.configIds.set(spec.key, id);
    return id;
  }

  /** The call's end: the dirty columns written, the names it touched sorted into the summary. */
  finish(writeColumn: (c: Column) => void): ImportSummary {
    const summary = this.summary;
    for (const p of this.pending) if (p.dirty) writeColumn(p);
    summary.models = [...this.modelNames].sort();
    summary.splits = [...this.splitNames].sort();
    summary.configs = [...this.configNames].sort();
    return summary;
  }
}

export function createImportApplier(db: Database.Database) {
  const q = prepareApplierStatements(db);
  const writeColumn = createColumnWriter(db);
  const storeConfig = createConfigUpserter(db);

  return function applyImports(batches: ImportBatch[], opts: ImportOverrides = {}): ImportSummary {
    const call = new ImportCall(db, q, storeConfig);
    for (const batch of batches) applyBatch(call, batch, opts);
    return call.finish(writeColumn);
  };
}

/** One batch of a call: its run, its configs, its items' metadata, then its responses. */
function applyBatch(call: ImportCall, batch: ImportBatch, opts: ImportOverrides): void {
  const { q, summary } = call;
  const file = batch.run.sourcePath;
  summary.warnings.push(...batch.warnings);

  // Overrides from the command line / dialog.
  const { rows, cols, specs, items } = applyOverrides(batch, opts);

  // Run provenance: identical bytes in the same format are the same run.
  const runId =
    q.runBySha.get(batch.run.sha256, batch.run.format)?.id ??
    Number(q.runInsert.run(file, batch.run.sha256, batch.run.format, batch.run.toolkit, batch.run.modelArgs, new Date().toISOString()).lastInsertRowid);

  // Configs: declared specs first, then keys only named by responses.
  const specByKey = new Map<string, ConfigSpec>();
  for (const spec of specs) {
    specByKey.set(spec.key, spec);
    call.upsertConfig(spec, file, 0);
  }
  const configNamed = (config: string, line: number): void => {
    if (specByKey.has(config)) return;
    const spec = specFromKey(config, batch.run, file, line);
    specByKey.set(config, spec);
    call.upsertConfig(spec, file, line);
  };
  for (const r of rows) configNamed(r.config, r.line);
  for (const c of cols) if (c.length > 0) configNamed(c.config, c.line[0]!);

  applyItemMetas(call, items, file);
  call.newItems.flush();

  const nResponses = applyResponses(call, file, runId, specByKey, rows, cols);
  q.runCounts.run(items.length, nResponses, specByKey.size, runId);
}

/**
 * Items (metadata) before responses so that one batch's answers apply to its own rows: new
 * items queued on the inserter, stored ones filled in (a different answer is refused).
 */
function applyItemMetas(call: ImportCall, items: readonly ItemMeta[], file: string): void {
  const { db, q, summary, updatedItems } = call;
  // Items come grouped by split: look the split up when it changes, not per item.
  let metaSplit: string | null = null;
  let metaSid = 0;
  let metaKnown = null as unknown as Map<string, StoredItem>;
  for (let i = 0; i < items.length; i++) {
    const meta = items[i]!;
    if (meta.split !== metaSplit) {
      metaSplit = meta.split;
      metaSid = call.splitId(metaSplit);
      metaKnown = call.itemsOf(metaSid);
    }
    const line = meta.line ?? 0;
    const stored = metaKnown.get(meta.sampleId);
    if (!stored) {
      const id = call.newItems.add(metaSid, meta);
      metaKnown.set(meta.sampleId, { id, splitId: metaSid, answer: meta.answer ?? null });
      summary.itemsAdded++;
      continue;
    }
    call.newItems.flush(); // the stored row is read back below
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
    if (meta.answer != null && stored.answer === null) call.answerArrived(stored, meta.answer, file, line, 'answer', meta.split, meta.sampleId);
  }
}

/**
 * A batch's responses, row by row and then column batch by column batch, merged with the
 * stored cells (merge-cell.ts); returns how many it named.
 */
function applyResponses(
  call: ImportCall,
  file: string,
  runId: number,
  specByKey: Map<string, ConfigSpec>,
  rows: readonly ResponseRow[],
  cols: readonly ResponseColumnBatch[],
): number {
  const { q, summary, updatedItems } = call;
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
    const mid = call.modelId(model);
    sid = call.splitId(split);
    const cid = call.configIds.get(config)!;
    call.configNames.add(config);
    known = call.itemsOf(sid);
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
    col = call.columnOf(mid, sid, cid);
    fresh = call.freshOf(col);
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
        call.answerArrived(item, r.groundTruth, file, r.line, 'ground_truth', r.split, r.sampleId);
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
      const where = freshLine !== undefined ? `line ${freshLine} of the same import` : `${call.sourceOf(storedRun)}${storedLine ? `:${storedLine}` : ''}`;
      throw new ImportError(file, r.line, differing, `(${r.model}, ${r.split}, ${r.sampleId}, ${r.config}) is already recorded with a different ${differing} (${where})`);
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
    let cache = call.tableItems.get(t.sampleIds.table);
    if (!cache) call.tableItems.set(t.sampleIds.table, (cache = []));
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
  return nResponses;
}
