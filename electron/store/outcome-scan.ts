/**
 * Every item and every grid's MCQA outcomes, column-wise, in one read: what the audit queue
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
import { GRID_CONFIGS_SQL, specFromRow, type GridConfigRow } from './matrix-load';
import { decodeInt32, decodeInt8 } from './response-columns';

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
}

export interface OutcomeScan {
  items: ScannedItems;
  /** In (model, split) code-point order. */
  grids: OutcomeGrid[];
}

type ItemRow = [number, number, string, string | null, string | null, string | null];
type ColumnRow = [number, number, number, number, number, Buffer, Buffer];

export function scanOutcomes(db: Database.Database): OutcomeScan {
  return db.transaction((): OutcomeScan => {
    // SQLite's BINARY collation compares UTF-8 bytes, which is code-point order (column-scan.ts).
    const utf8 = db.pragma('encoding', { simple: true }) === 'UTF-8';
    const rows = db
      .prepare(`SELECT id, split_id, sample_id, task_type, video_file, question FROM items${utf8 ? ' ORDER BY sample_id, split_id' : ''}`)
      .raw(true)
      .all() as ItemRow[];
    if (!utf8) rows.sort((a, b) => compareCodePoints(a[2], b[2]) || a[1] - b[1]);
    const splitNames = new Map((db.prepare('SELECT id, name FROM splits').raw(true).all() as [number, string][]).map(([id, name]) => [id, name] as const));
    const splits: string[] = [];
    const splitCode = new Map<number, number>();
    const n = rows.length;
    const items: ScannedItems = { splits, split: new Int32Array(n), sampleId: new Array<string>(n), taskType: new Array<string | null>(n), videoFile: new Array<string | null>(n), question: new Array<string | null>(n) };
    let maxId = 0;
    for (const r of rows) if (r[0] > maxId) maxId = r[0];
    const indexOfId = new Int32Array(maxId + 1).fill(-1);
    for (let i = 0; i < n; i++) {
      const [id, splitId, sampleId, taskType, videoFile, question] = rows[i] as ItemRow;
      let code = splitCode.get(splitId);
      if (code === undefined) {
        code = splits.push(splitNames.get(splitId) ?? '') - 1;
        splitCode.set(splitId, code);
      }
      indexOfId[id] = i;
      items.split[i] = code;
      items.sampleId[i] = sampleId;
      items.taskType[i] = taskType;
      items.videoFile[i] = videoFile;
      items.question[i] = question;
    }

    const models = new Map((db.prepare('SELECT id, name FROM models').raw(true).all() as [number, string][]).map(([id, name]) => [id, name] as const));
    const columns = db.prepare('SELECT model_id, split_id, config_id, n_correct, n_score, item_ids, correct FROM response_columns').raw(true).all() as ColumnRow[];
    const byGrid = new Map<string, ColumnRow[]>();
    for (const c of columns) {
      const k = `${c[0]}:${c[1]}`;
      const list = byGrid.get(k);
      if (list) list.push(c);
      else byGrid.set(k, [c]);
    }
    const configsOf = db.prepare<[number, number], GridConfigRow>(GRID_CONFIGS_SQL);
    const seen = new Uint8Array(n);
    const rowOf = new Int32Array(n);
    const grids: OutcomeGrid[] = [];
    for (const cols of byGrid.values()) {
      const [modelId, splitId] = cols[0] as ColumnRow;
      // The same configs, kind and rows as loadMatrix (matrix-load.ts) gives this grid.
      const specsById = new Map<number, ConfigSpec>();
      for (const r of configsOf.all(modelId, splitId)) specsById.set(r.id, specFromRow(r));
      const configs = configOrder([...specsById.values()]);
      const colByKey = new Map(configs.map((c, i) => [c.key, i] as const));
      // A grid's columns mostly hold the same items: each distinct item list is decoded and
      // mapped to rows once (a BLOB comparison finds the repeats).
      const distinct: { blob: Buffer; items: Int32Array; rows: Int32Array | null }[] = [];
      const listOf = cols.map((c) => {
        let d = distinct.find((x) => x.blob.equals(c[5]));
        if (!d) {
          // Store item ids → item indexes.
          const items = decodeInt32(c[5]);
          for (let k = 0; k < items.length; k++) items[k] = indexOfId[items[k]!]!;
          distinct.push((d = { blob: c[5], items, rows: null }));
        }
        return d;
      });
      let count = 0;
      for (const { items: list } of distinct) {
        for (let k = 0; k < list.length; k++) {
          const i = list[k]!;
          if (seen[i] === 0) ((seen[i] = 1), count++);
        }
      }
      // Rows in item-index order, which is sample_id order within one split.
      const gridRows = new Int32Array(count);
      for (let i = 0, r = 0; r < count; i++) if (seen[i] === 1) ((seen[i] = 0), (rowOf[i] = r), (gridRows[r++] = i));
      for (const d of distinct) d.rows = d.items.map((i) => rowOf[i]!);
      const C = configs.length;
      const correct = new Int8Array(count * C).fill(-1);
      let nCorrect = 0;
      let nScore = 0;
      cols.forEach((c, j) => {
        nCorrect += c[3];
        nScore += c[4];
        const col = colByKey.get(specsById.get(c[2])!.key)!;
        const rows = listOf[j]!.rows!;
        const cor = decodeInt8(c[6]);
        for (let k = 0; k < rows.length; k++) correct[rows[k]! * C + col] = cor[k]!;
      });
      // Open-ended: scores and no MCQA outcomes (docs/metrics.md §4), as loadMatrix decides.
      const kind: TaskKind = nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa';
      if (kind === 'open') correct.fill(-1);
      const itemIds = new Array<string>(count);
      for (let r = 0; r < count; r++) itemIds[r] = items.sampleId[gridRows[r]!]!;
      grids.push({ model: models.get(modelId) ?? '', split: splitNames.get(splitId) ?? '', kind, configs, rows: gridRows, itemIds, correct });
    }
    grids.sort((a, b) => compareCodePoints(a.model, b.model) || compareCodePoints(a.split, b.split));
    return { items, grids };
  })();
}
