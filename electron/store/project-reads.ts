/**
 * The project's reads of items, runs and stored cells as records (Project.listItems,
 * listRuns, listGrids, responsesForItem, iterateResponses): module-level functions over the
 * connection and the statements project-api.ts prepares once.
 */
import type Database from 'better-sqlite3';
import { gridScore, scoreSourceOf } from '../../shared/domain/score';
import type { ItemMeta } from '../../shared/domain/types';
import { parseContext } from '../../shared/domain/item-context';
import { configOrder } from '../../shared/engine/config';
import { protocolsOf } from '../../shared/engine/protocols';
import { keptSpecs, specFromRow, type GridConfigRow } from './matrix-load';
import type { GridInfo, ItemFilter, ResponseRecord, RunRecord } from './project';
import { decodeInt32, distinctStrings } from './column-blobs';
import { type ColumnRow, decodeColumn, floatAt } from './response-columns';

export interface ItemRow {
  split: string;
  sample_id: string;
  question: string | null;
  options: string | null;
  answer: string | null;
  references_json: string | null;
  task_type: string | null;
  duration_s: number | null;
  duration_bucket: string | null;
  domain: string | null;
  sub_category: string | null;
  video_id: string | null;
  video_file: string | null;
  kind: string | null;
  context_json: string | null;
}

export function itemFromRow(r: ItemRow): ItemMeta {
  return {
    split: r.split,
    sampleId: r.sample_id,
    question: r.question,
    options: r.options === null ? null : (JSON.parse(r.options) as string[]),
    answer: r.answer,
    references: r.references_json === null ? null : (JSON.parse(r.references_json) as string[]),
    taskType: r.task_type,
    durationS: r.duration_s,
    durationBucket: r.duration_bucket,
    domain: r.domain,
    subCategory: r.sub_category,
    videoId: r.video_id,
    videoFile: r.video_file,
    kind: r.kind === 'mcqa' || r.kind === 'open' ? r.kind : null,
    context: r.context_json === null ? null : parseContext(r.context_json),
  };
}

export function listItems(db: Database.Database, filter: ItemFilter = {}): ItemMeta[] {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (filter.split !== undefined) (where.push('s.name = ?'), args.push(filter.split));
  if (filter.taskType !== undefined) (where.push('i.task_type = ?'), args.push(filter.taskType));
  if (filter.hasVideo !== undefined) where.push(filter.hasVideo ? 'i.video_file IS NOT NULL' : 'i.video_file IS NULL');
  if (filter.sampleIds !== undefined) {
    if (filter.sampleIds.length === 0) return [];
    where.push(`i.sample_id IN (SELECT value FROM json_each(?))`);
    args.push(JSON.stringify(filter.sampleIds));
  }
  const sql = `SELECT i.*, s.name AS split FROM items i JOIN splits s ON s.id = i.split_id ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.name, i.sample_id`;
  return (db.prepare(sql).all(...args) as ItemRow[]).map(itemFromRow);
}

export function listRuns(db: Database.Database): RunRecord[] {
  return (db.prepare('SELECT * FROM runs ORDER BY id').all() as Record<string, string | number | null>[]).map((r) => ({
    id: Number(r.id),
    sourcePath: String(r.source_path),
    sha256: String(r.sha256),
    format: String(r.format),
    toolkit: r.toolkit === null ? null : String(r.toolkit),
    modelArgs: r.model_args === null ? null : String(r.model_args),
    importedAt: String(r.imported_at),
    nItems: Number(r.n_items),
    nResponses: Number(r.n_responses),
    nConfigs: Number(r.n_configs),
  }));
}

/** The statements gridRecords reads through (prepared once per project). */
export interface GridRecordStatements {
  configs: Database.Statement<[], [number, string]>;
  itemsOfSplit: Database.Statement<[number], [number, string]>;
  columnsOfGrid: Database.Statement<[number, number], ColumnRow>;
  runSources: Database.Statement<[], [number, string]>;
}

const idMap = (stmt: Database.Statement<[], [number, string]>): Map<number, string> => new Map(stmt.raw(true).all());

/**
 * The records of one grid, ordered by sample_id then config key (SQLite BINARY order, as
 * the row-per-cell schema's ORDER BY gave), optionally of one item only.
 */
export function gridRecords(names: GridRecordStatements, modelId: number, splitId: number, model: string, split: string, onlySample?: string): ResponseRecord[] {
  const cols = names.columnsOfGrid.all(modelId, splitId).map(decodeColumn);
  if (cols.length === 0) return [];
  const configKeys = idMap(names.configs);
  const runs = idMap(names.runSources);
  // Config-key order as SQLite sorts it (BINARY): the map was filled in that order.
  const rank = new Map([...configKeys.keys()].map((id, i) => [id, i] as const));
  cols.sort((a, b) => (rank.get(a.configId) as number) - (rank.get(b.configId) as number));
  const out: ResponseRecord[] = [];
  for (const [itemId, sampleId] of names.itemsOfSplit.raw(true).iterate(splitId) as IterableIterator<[number, string]>) {
    if (onlySample !== undefined && sampleId !== onlySample) continue;
    for (const c of cols) {
      const k = c.find(itemId);
      if (k < 0) continue;
      const correct = c.correct[k]! < 0 ? null : c.correct[k]!;
      const run = c.runId[k] === 0 ? null : c.runId[k]!;
      const fi = c.frames?.[k] ?? null;
      out.push({
        model,
        split,
        sampleId,
        config: configKeys.get(c.configId) as string,
        pred: c.pred.get(k),
        correct: correct === null ? null : correct === 1,
        score: floatAt(c.score, k),
        groundTruth: c.groundTruth.get(k),
        confidence: floatAt(c.confidence, k),
        margin: floatAt(c.margin, k),
        latencyMs: floatAt(c.latencyMs, k),
        frameIndices: fi === null ? null : Array.from(fi),
        sourceTag: c.sourceTag.get(k),
        protocolNote: c.protocolNote.get(k),
        source: run === null ? null : (runs.get(run) ?? null),
        line: c.line[k]! < 0 ? null : c.line[k]!,
      });
    }
  }
  return out;
}

/** The grids with the main protocol's configs (`main`), or with every config (`main` null). */
export function readGrids(db: Database.Database, gridConfigs: Database.Statement<[number, number], GridConfigRow>, main: string | null): GridInfo[] {
  // Counts per column are stored; distinct items need the columns' item-id BLOBs.
  const rows = db
    .prepare(
      `SELECT DISTINCT m.name AS model, s.name AS split, g.model_id, g.split_id
       FROM response_columns g JOIN models m ON m.id = g.model_id JOIN splits s ON s.id = g.split_id
       ORDER BY m.name, s.name`,
    )
    .all() as { model: string; split: string; model_id: number; split_id: number }[];
  const columns = db.prepare<[number, number], { config_id: number; n_cells: number; n_correct: number; n_score: number; item_ids: Buffer; protocol_note: Buffer }>(
    'SELECT config_id, n_cells, n_correct, n_score, item_ids, protocol_note FROM response_columns WHERE model_id = ? AND split_id = ?',
  );
  const out: GridInfo[] = [];
  for (const r of rows) {
    const all = new Map(gridConfigs.all(r.model_id, r.split_id).map((c) => [c.id, specFromRow(c)] as const));
    const kept = keptSpecs(all, main);
    if (kept.size === 0) continue;
    const seen = new Set<number>();
    let nCells = 0;
    let nCorrect = 0;
    let nScore = 0;
    const notes: Buffer[] = [];
    for (const c of columns.all(r.model_id, r.split_id)) {
      if (!kept.has(c.config_id)) continue;
      nCells += c.n_cells;
      nCorrect += c.n_correct;
      nScore += c.n_score;
      notes.push(c.protocol_note);
      for (const id of decodeInt32(c.item_ids)) seen.add(id);
    }
    const kind = nScore > 0 && nCorrect === 0 ? ('open' as const) : ('mcqa' as const);
    // The score sources the cells name (docs/metrics.md §1): only each column's distinct notes are read.
    const sources: string[] = [];
    for (const b of notes)
      for (const note of distinctStrings(b)) {
        const src = scoreSourceOf(note);
        if (src !== null) sources.push(src);
      }
    out.push({
      model: r.model,
      split: r.split,
      kind,
      configs: configOrder([...kept.values()]),
      nItems: seen.size,
      nCells,
      score: gridScore(kind, sources),
      protocols: protocolsOf([...all.values()].map((c) => c.key)),
    });
  }
  return out;
}
