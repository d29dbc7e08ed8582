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
import { type ColumnRow, decodeFloat64, decodeFrames, decodeInt32, decodeInt8, decodeStrings } from '../store/response-columns';
import { codePointRanks } from './rank';
import type { ReleaseColumn, ReleaseGrid } from './release-data';

function nameTable(db: Database.Database, sql: string): Map<number, string> {
  const m = new Map<number, string>();
  for (const [id, name] of db.prepare(sql).raw(true).all() as [number, string][]) m.set(id, name);
  return m;
}

/** id → code-point rank of its name, as a dense array indexed by id. */
function rankById(names: Map<number, string>): Float64Array {
  const ranks = codePointRanks(names.values());
  let max = 0;
  for (const id of names.keys()) if (id > max) max = id;
  const out = new Float64Array(max + 1);
  for (const [id, name] of names) out[id] = ranks.get(name) as number;
  return out;
}

/** The column's BLOBs decoded (no per-cell boxing: typed arrays and string tables). */
function decodeScan(r: ColumnRow, config: string): ReleaseColumn {
  return {
    config,
    at: new Int32Array(0),
    length: r.n_cells,
    correct: decodeInt8(r.correct),
    pred: decodeStrings(r.pred),
    groundTruth: decodeStrings(r.ground_truth),
    score: r.score ? decodeFloat64(r.score) : null,
    confidence: r.confidence ? decodeFloat64(r.confidence) : null,
    margin: r.margin ? decodeFloat64(r.margin) : null,
    latencyMs: r.latency_ms ? decodeFloat64(r.latency_ms) : null,
    frames: r.frame_indices ? decodeFrames(r.frame_indices) : null,
    sourceTag: decodeStrings(r.source_tag),
    protocolNote: decodeStrings(r.protocol_note),
  };
}

export function scanGrids(db: Database.Database): ReleaseGrid[] {
  return db.transaction((): ReleaseGrid[] => {
    const models = nameTable(db, 'SELECT id, name FROM models');
    const splits = nameTable(db, 'SELECT id, name FROM splits');
    const items = nameTable(db, 'SELECT id, sample_id FROM items');
    const configs = nameTable(db, 'SELECT id, key FROM configs');
    const mRank = rankById(models);
    const sRank = rankById(splits);
    const iRank = rankById(items);
    const cRank = rankById(configs);

    const rows = db.prepare('SELECT * FROM response_columns').all() as ColumnRow[];
    rows.sort(
      (a, b) => mRank[a.model_id]! - mRank[b.model_id]! || sRank[a.split_id]! - sRank[b.split_id]! || cRank[a.config_id]! - cRank[b.config_id]!,
    );

    const out: ReleaseGrid[] = [];
    const posOf = new Int32Array(iRank.length);
    for (let from = 0; from < rows.length; ) {
      let to = from;
      const first = rows[from] as ColumnRow;
      while (to < rows.length && rows[to]!.model_id === first.model_id && rows[to]!.split_id === first.split_id) to++;
      // A column without cells adds no config to the grid (it writes nothing anywhere).
      const grid = rows.slice(from, to).filter((r) => r.n_cells > 0);
      from = to;
      if (grid.length === 0) continue;
      const itemIds = grid.map((r) => decodeInt32(r.item_ids));
      // Rows of the grid: the union of its columns' items, in sample_id rank order.
      const seen = new Set<number>();
      for (const ids of itemIds) for (const id of ids) seen.add(id);
      const order = Int32Array.from(seen).sort((a, b) => iRank[a]! - iRank[b]!);
      const columns = grid.map((r, g) => {
        const c = decodeScan(r, configs.get(r.config_id) as string);
        const ids = itemIds[g] as Int32Array;
        // item id → cell position + 1 (0 = no cell), reusing one dense array.
        posOf.fill(0);
        for (let k = 0; k < ids.length; k++) posOf[ids[k]!] = k + 1;
        const at = new Int32Array(order.length);
        for (let i = 0; i < order.length; i++) at[i] = posOf[order[i]!]! - 1;
        c.at = at;
        return c;
      });
      out.push({
        model: models.get(first.model_id) as string,
        split: splits.get(first.split_id) as string,
        sampleIds: Array.from(order, (id) => items.get(id) as string),
        columns,
      });
    }
    return out;
  })();
}
