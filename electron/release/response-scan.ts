/**
 * Reads every response cell of a project straight from its SQLite tables as grids in
 * (model, split) code-point order, each with rows in sample_id and columns in config
 * code-point order — the release's sort (model, split, sample_id, config) without sorting cells.
 *
 * Why not `project.iterateResponses()`: that builds records with provenance (run source, line)
 * the release does not carry, and orders by SQLite's BINARY collation per grid. Here the store's
 * column rows (migration 0020, electron/store/response-columns.ts: one row of packed BLOBs per
 * model, split and config) are read in one SELECT inside one read transaction, names come from
 * the small id tables, and each grid's rows get one position array per column — no per-cell
 * SQL row, object or sort. The store exposes `db` for exactly this (project.ts: "for services
 * that need their own queries (export, frames)").
 */
import type Database from 'better-sqlite3';
import { type ColumnRow, decodeFloat64, decodeFrames, decodeInt32, decodeInt8 } from '../store/response-columns';
import { decodeStringTable } from './column-blobs';
import { compareCodePoints } from './format';
import { codePointRanks } from './rank';
import type { ReleaseColumn, ReleaseGrid } from './release-data';

/** The columns of `response_columns` the export reads (not run_ids / lines: provenance it does not carry). */
type ScanRow = Omit<ColumnRow, 'id' | 'n_correct' | 'n_score' | 'run_ids' | 'lines'>;

/** id → name as a dense array indexed by id (ids are small SQLite rowids). */
function nameTable(db: Database.Database, sql: string): string[] {
  const out: string[] = [];
  for (const [id, name] of db.prepare(sql).raw(true).all() as [number, string][]) out[id] = name;
  return out;
}

/** id → code-point rank of its name, as a dense array indexed by id. */
function rankById(names: readonly string[]): Int32Array {
  const ranks = codePointRanks(names.filter((n) => n !== undefined));
  const out = new Int32Array(names.length);
  names.forEach((name, id) => (out[id] = ranks.get(name) as number));
  return out;
}

/**
 * Item ids in sample_id code-point order. SQLite's BINARY collation compares UTF-8 bytes, and
 * UTF-8 byte order is code-point order, so the database sorts them (31k names sorted in JS
 * with a code-point comparator cost several ms of the cold export); a database in a UTF-16
 * encoding (never created by Flipbook) is sorted in JS instead.
 */
function itemsByName(db: Database.Database): { names: string[]; byRank: Int32Array } {
  const utf8 = db.pragma('encoding', { simple: true }) === 'UTF-8';
  const rows = db.prepare(`SELECT id, sample_id FROM items${utf8 ? ' ORDER BY sample_id' : ''}`).raw(true).all() as [number, string][];
  if (!utf8) rows.sort((a, b) => compareCodePoints(a[1], b[1]));
  const names: string[] = [];
  const byRank = new Int32Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const [id, name] = rows[r] as [number, string];
    names[id] = name;
    byRank[r] = id;
  }
  return { names, byRank };
}

/** The column's BLOBs decoded (no per-cell boxing: typed arrays and string tables). */
function decodeScan(r: ScanRow, config: string): ReleaseColumn {
  return {
    config,
    at: new Int32Array(0),
    length: r.n_cells,
    correct: decodeInt8(r.correct),
    pred: decodeStringTable(r.pred),
    groundTruth: decodeStringTable(r.ground_truth),
    score: r.score ? decodeFloat64(r.score) : null,
    confidence: r.confidence ? decodeFloat64(r.confidence) : null,
    margin: r.margin ? decodeFloat64(r.margin) : null,
    latencyMs: r.latency_ms ? decodeFloat64(r.latency_ms) : null,
    frames: r.frame_indices ? decodeFrames(r.frame_indices) : null,
    sourceTag: decodeStringTable(r.source_tag),
    protocolNote: decodeStringTable(r.protocol_note),
  };
}

/*
 * The per-cell loops below are functions of their own that return a local right after the
 * loop: code after a hot loop that never ran has no type feedback, and the loop's optimised
 * (on-stack-replaced) code would deoptimise there on every call — a cost of the cold export.
 */

/**
 * Rows of a grid: the union of its columns' items, in sample_id rank order (ranks are unique,
 * so a plain numeric sort of the ranks gives the order). `seen` is all zeros and is left so.
 */
function gridRows(itemIds: readonly Int32Array[], seen: Uint8Array, iRank: Int32Array, byRank: Int32Array): Int32Array {
  let n = 0;
  for (const ids of itemIds) n += markNew(ids, seen);
  const ranks = new Int32Array(n);
  n = 0;
  for (const ids of itemIds) n = takeMarked(ids, seen, iRank, ranks, n);
  ranks.sort();
  for (let i = 0; i < ranks.length; i++) ranks[i] = byRank[ranks[i]!]!;
  return ranks;
}

/** Marks the ids not yet in `seen` and returns how many there were. */
export function markNew(ids: Int32Array, seen: Uint8Array): number {
  let n = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (seen[id] === 0) ((seen[id] = 1), n++);
  }
  return n;
}

function takeMarked(ids: Int32Array, seen: Uint8Array, iRank: Int32Array, out: Int32Array, n: number): number {
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (seen[id] === 1) ((seen[id] = 0), (out[n++] = iRank[id]!));
  }
  return n;
}

/** Cell position of each row's item in a column (−1 = none); `posOf` is a zeroed scratch array. */
function cellPositions(ids: Int32Array, order: Int32Array, posOf: Int32Array): Int32Array {
  // item id → cell position + 1 (0 = no cell), in one dense array that is all zeros again on return.
  for (let k = 0; k < ids.length; k++) posOf[ids[k]!] = k + 1;
  const at = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) at[i] = posOf[order[i]!]! - 1;
  for (let k = 0; k < ids.length; k++) posOf[ids[k]!] = 0;
  return at;
}

export function scanGrids(db: Database.Database): ReleaseGrid[] {
  return db.transaction((): ReleaseGrid[] => {
    const models = nameTable(db, 'SELECT id, name FROM models');
    const splits = nameTable(db, 'SELECT id, name FROM splits');
    const configs = nameTable(db, 'SELECT id, key FROM configs');
    const items = itemsByName(db);
    const mRank = rankById(models);
    const sRank = rankById(splits);
    const cRank = rankById(configs);
    const iRank = new Int32Array(items.names.length);
    for (let r = 0; r < items.byRank.length; r++) iRank[items.byRank[r]!] = r;

    const rows = db
      .prepare(
        `SELECT model_id, split_id, config_id, n_cells, item_ids, correct, pred, ground_truth, score, confidence,
                margin, latency_ms, frame_indices, source_tag, protocol_note FROM response_columns`,
      )
      .all() as ScanRow[];
    rows.sort(
      (a, b) => mRank[a.model_id]! - mRank[b.model_id]! || sRank[a.split_id]! - sRank[b.split_id]! || cRank[a.config_id]! - cRank[b.config_id]!,
    );

    const out: ReleaseGrid[] = [];
    const posOf = new Int32Array(iRank.length);
    const seen = new Uint8Array(iRank.length);
    for (let from = 0; from < rows.length; ) {
      let to = from;
      const first = rows[from] as ScanRow;
      while (to < rows.length && rows[to]!.model_id === first.model_id && rows[to]!.split_id === first.split_id) to++;
      // A column without cells adds no config to the grid (it writes nothing anywhere).
      const grid = rows.slice(from, to).filter((r) => r.n_cells > 0);
      from = to;
      if (grid.length === 0) continue;
      const itemIds = grid.map((r) => decodeInt32(r.item_ids));
      const order = gridRows(itemIds, seen, iRank, items.byRank);
      const n = order.length;
      const sampleIds = new Array<string>(n);
      for (let i = 0; i < n; i++) sampleIds[i] = items.names[order[i]!] as string;
      const columns = grid.map((r, g) => {
        const c = decodeScan(r, configs[r.config_id] as string);
        c.at = cellPositions(itemIds[g] as Int32Array, order, posOf);
        return c;
      });
      out.push({
        model: models[first.model_id] as string,
        split: splits[first.split_id] as string,
        sampleIds,
        rowItems: order,
        columns,
      });
    }
    return out;
  })();
}
