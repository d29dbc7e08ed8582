/**
 * Every item and every grid's outcomes (MCQA correctness, open-ended scores), column-wise, in one read: what the audit queue
 * derives its rows from once per import (`project.scanOutcomes()`, docs/architecture.md "The
 * queue at lab scale"). Only the columns the queue needs are read — the items' id, split,
 * task type, video file and question, and each grid column's item ids and outcomes — so a
 * lab-sized project costs one narrow SELECT per table, no per-cell row or object and no
 * per-row string beyond the items' own. Callers see this shape only; the BLOB layouts stay
 * the store's business (response-columns.ts).
 */
import type Database from 'better-sqlite3';
import { compareCodePoints, configOrder } from '../../shared/engine/config';
import type { ConfigSpec, TaskKind } from '../../shared/domain/types';
import { GRID_CONFIGS_SQL, keptSpecs, specFromRow, type GridConfigRow } from './matrix-load';
import { decodeFloat64, decodeInt32, decodeInt8 } from './column-blobs';

/** The project's items, one entry per index, in sample_id code-point order (ties: split id). */
export interface ScannedItems {
  /** Split names; `split[i]` indexes this list. */
  splits: string[];
  split: Int32Array;
  sampleId: string[];
  taskType: (string | null)[];
  videoFile: (string | null)[];
  question: (string | null)[];
}

/** One (model, split): what trajectories need of a ResponseMatrix, and each row's item. */
export interface OutcomeGrid {
  model: string;
  split: string;
  kind: TaskKind;
  /** In config order. */
  configs: ConfigSpec[];
  /** Per row: the item's index in ScannedItems; rows are the items with a cell, in sample_id order. */
  rows: Int32Array;
  /** Per row, the item's sample id (the items' own strings). */
  itemIds: string[];
  /** rows × configs, row-major: 1 correct, 0 wrong, −1 missing (all −1 for an open-ended grid). */
  correct: Int8Array;
  /** Open-ended grids: rows × configs scores, NaN = missing (docs/metrics.md §4); null for MCQA grids. */
  score: Float64Array | null;
}

export interface OutcomeScan {
  items: ScannedItems;
  /** In (model, split) code-point order. */
  grids: OutcomeGrid[];
}

type ItemRow = [number, number, string, string | null, string | null, string | null];
type ColumnRow = [number, number, number, number, number, Buffer, Buffer, Buffer | null];

/*
 * The work is split into small functions on purpose: this runs once per import in a fresh CLI
 * process, and one large function with several hot loops was compiled by V8 four times over
 * (on-stack replacement per loop, each deoptimised by the code after it), which cost more CPU
 * than the scan itself. A small function per loop is compiled once, quickly.
 */

/** The main protocol's grids only (docs/metrics.md §6): the queue audits the main grid. */
export function scanOutcomes(db: Database.Database, mainProtocol: string): OutcomeScan {
  return db.transaction((): OutcomeScan => {
    const splitNames = new Map((db.prepare('SELECT id, name FROM splits').raw(true).all() as [number, string][]).map(([id, name]) => [id, name] as const));
    const { items, indexOfId } = readItems(db, splitNames);
    const models = new Map((db.prepare('SELECT id, name FROM models').raw(true).all() as [number, string][]).map(([id, name]) => [id, name] as const));
    const columns = db.prepare('SELECT model_id, split_id, config_id, n_correct, n_score, item_ids, correct, score FROM response_columns').raw(true).all() as ColumnRow[];
    const byGrid = new Map<string, ColumnRow[]>();
    for (const c of columns) {
      const k = `${c[0]}:${c[1]}`;
      const list = byGrid.get(k);
      if (list) list.push(c);
      else byGrid.set(k, [c]);
    }
    const configsOf = db.prepare<[number, number], GridConfigRow>(GRID_CONFIGS_SQL);
    const n = items.sampleId.length;
    const scratch: Scratch = { seen: new Uint8Array(n), rowOf: new Int32Array(n) };
    const grids: OutcomeGrid[] = [];
    for (const allCols of byGrid.values()) {
      const [modelId, splitId] = allCols[0] as ColumnRow;
      // The same configs, kind and rows as loadMatrix (matrix-load.ts) gives this grid.
      const all = new Map<number, ConfigSpec>();
      for (const r of configsOf.all(modelId, splitId)) all.set(r.id, specFromRow(r));
      const specsById = keptSpecs(all, mainProtocol);
      const cols = allCols.filter((c) => specsById.has(c[2]));
      if (cols.length === 0) continue;
      const g = outcomeGrid(cols, specsById, indexOfId, items.sampleId, scratch);
      grids.push({ model: models.get(modelId) ?? '', split: splitNames.get(splitId) ?? '', ...g });
    }
    grids.sort((a, b) => compareCodePoints(a.model, b.model) || compareCodePoints(a.split, b.split));
    return { items, grids };
  })();
}

/** Every item, in sample_id code-point order (ties: split id), and store item id → index. */
function readItems(db: Database.Database, splitNames: ReadonlyMap<number, string>): { items: ScannedItems; indexOfId: Int32Array } {
  // SQLite's BINARY collation compares UTF-8 bytes, which is code-point order (column-scan.ts).
  const utf8 = db.pragma('encoding', { simple: true }) === 'UTF-8';
  const rows = db
    .prepare(`SELECT id, split_id, sample_id, task_type, video_file, question FROM items${utf8 ? ' ORDER BY sample_id, split_id' : ''}`)
    .raw(true)
    .all() as ItemRow[];
  if (!utf8) rows.sort((a, b) => compareCodePoints(a[2], b[2]) || a[1] - b[1]);
  const splits: string[] = [];
  const splitCode = new Map<number, number>();
  const n = rows.length;
  const items: ScannedItems = {
    splits,
    split: new Int32Array(n),
    sampleId: new Array<string>(n),
    taskType: new Array<string | null>(n),
    videoFile: new Array<string | null>(n),
    question: new Array<string | null>(n),
  };
  let maxId = 0;
  // Indexed reads, not for-of or destructuring: this runs once per import, in code V8 has not
  // optimised, where each runs the array iterator (an object per element, ~1.8 MB here).
  for (let i = 0; i < n; i++) if (rows[i]![0] > maxId) maxId = rows[i]![0];
  const indexOfId = new Int32Array(maxId + 1).fill(-1);
  for (let i = 0; i < n; i++) {
    const row = rows[i]!;
    const id = row[0];
    const splitId = row[1];
    let code = splitCode.get(splitId);
    if (code === undefined) {
      code = splits.push(splitNames.get(splitId) ?? '') - 1;
      splitCode.set(splitId, code);
    }
    indexOfId[id] = i;
    items.split[i] = code;
    items.sampleId[i] = row[2];
    items.taskType[i] = row[3];
    items.videoFile[i] = row[4];
    items.question[i] = row[5];
  }
  return { items, indexOfId };
}

/** Per-item scratch arrays shared by every grid (each grid leaves them as it found them). */
interface Scratch {
  seen: Uint8Array;
  rowOf: Int32Array;
}

/** One distinct item list of a grid's columns: its item indexes and their rows. */
interface ItemList {
  blob: Buffer;
  items: Int32Array;
  rows: Int32Array;
}

/** A grid from its columns (store rows): configs, kind, rows and outcomes. */
function outcomeGrid(
  cols: ColumnRow[],
  specsById: Map<number, ConfigSpec>,
  indexOfId: Int32Array,
  sampleIds: readonly string[],
  scratch: Scratch,
): Omit<OutcomeGrid, 'model' | 'split'> {
  const configs = configOrder([...specsById.values()]);
  const colByKey = new Map(configs.map((c, i) => [c.key, i] as const));
  // A grid's columns mostly hold the same items: each distinct item list is decoded and
  // mapped to rows once (a BLOB comparison finds the repeats).
  const distinct: ItemList[] = [];
  const listOf: ItemList[] = [];
  for (const c of cols) {
    let d = distinct.find((x) => x.blob.equals(c[5]));
    if (!d) {
      d = { blob: c[5], items: toIndexes(decodeInt32(c[5]), indexOfId), rows: new Int32Array(0) };
      distinct.push(d);
    }
    listOf.push(d);
  }
  let count = 0;
  for (const d of distinct) count += mark(d.items, scratch.seen);
  // Rows in item-index order, which is sample_id order within one split.
  const rows = collectRows(scratch, count);
  for (const d of distinct) d.rows = lookUp(d.items, scratch.rowOf);
  const C = configs.length;
  const correct = new Int8Array(count * C).fill(-1);
  let nCorrect = 0;
  let nScore = 0;
  for (let j = 0; j < cols.length; j++) {
    const c = cols[j] as ColumnRow;
    nCorrect += c[3];
    nScore += c[4];
    scatter(correct, listOf[j]!.rows, decodeInt8(c[6]), C, colByKey.get(specsById.get(c[2])!.key)!);
  }
  // Open-ended: scores and no MCQA outcomes (docs/metrics.md §4), as loadMatrix decides.
  const kind: TaskKind = nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa';
  let score: Float64Array | null = null;
  if (kind === 'open') {
    correct.fill(-1);
    score = new Float64Array(count * C).fill(Number.NaN);
    for (let j = 0; j < cols.length; j++) {
      const c = cols[j] as ColumnRow;
      if (c[7] !== null) scatterScores(score, listOf[j]!.rows, decodeFloat64(c[7]), C, colByKey.get(specsById.get(c[2])!.key)!);
    }
  }
  const itemIds = new Array<string>(count);
  for (let r = 0; r < count; r++) itemIds[r] = sampleIds[rows[r]!]!;
  return { kind, configs, rows, itemIds, correct, score };
}

/** Writes a column's scores into its place `col` of the rows × C matrix. */
function scatterScores(score: Float64Array, rows: Int32Array, values: Float64Array, C: number, col: number): void {
  for (let k = 0; k < rows.length; k++) score[rows[k]! * C + col] = values[k]!;
}

/** Store item ids → item indexes, in place. */
function toIndexes(ids: Int32Array<ArrayBuffer>, indexOfId: Int32Array): Int32Array<ArrayBuffer> {
  for (let k = 0; k < ids.length; k++) ids[k] = indexOfId[ids[k]!]!;
  return ids;
}

/** Marks the items of `list` in `seen`; returns how many were not marked yet. */
function mark(list: Int32Array, seen: Uint8Array): number {
  let added = 0;
  for (let k = 0; k < list.length; k++) {
    const i = list[k]!;
    if (seen[i] === 0) {
      seen[i] = 1;
      added++;
    }
  }
  return added;
}

/** The `count` marked items in index order, their row numbers in `rowOf`; clears the marks. */
function collectRows({ seen, rowOf }: Scratch, count: number): Int32Array {
  const rows = new Int32Array(count);
  for (let i = 0, r = 0; r < count; i++) {
    if (seen[i] === 1) {
      seen[i] = 0;
      rowOf[i] = r;
      rows[r++] = i;
    }
  }
  return rows;
}

function lookUp(items: Int32Array, rowOf: Int32Array): Int32Array {
  const out = new Int32Array(items.length);
  for (let k = 0; k < items.length; k++) out[k] = rowOf[items[k]!]!;
  return out;
}

/** Writes a column's outcomes into its place `col` of the rows × C matrix. */
function scatter(correct: Int8Array, rows: Int32Array, cor: Int8Array, C: number, col: number): void {
  for (let k = 0; k < rows.length; k++) correct[rows[k]! * C + col] = cor[k]!;
}
