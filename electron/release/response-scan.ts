/**
 * Reads every response cell of a project straight from its SQLite tables, already sorted by
 * (model, split, sample_id, config) in code-point order.
 *
 * Why not `project.iterateResponses()`: that builds records with provenance (run source, line)
 * the release does not carry, and orders by SQLite's BINARY collation per grid. Here the store's
 * column rows (migration 0020, electron/store/response-columns.ts: one row of packed BLOBs per
 * model, split and config) are read in one SELECT inside one read transaction, names come from
 * the small id tables, and the cells are emitted grid by grid in rank order — no per-cell SQL
 * row and no global sort. The store exposes `db` for exactly this (project.ts: "for services
 * that need their own queries (export, frames)").
 */
import type Database from 'better-sqlite3';
import { type ColumnRow, decodeFloat64, decodeFrames, decodeInt32, decodeInt8, decodeStrings } from '../store/response-columns';
import { codePointRanks } from './rank';
import type { ReleaseCell } from './release-data';

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

interface ScanColumn {
  modelId: number;
  splitId: number;
  configId: number;
  itemIds: Int32Array;
  correct: Int8Array;
  pred: (string | null)[];
  groundTruth: (string | null)[];
  score: Float64Array | null;
  confidence: Float64Array | null;
  margin: Float64Array | null;
  latencyMs: Float64Array | null;
  frames: (Int32Array | null)[] | null;
  sourceTag: (string | null)[];
  protocolNote: (string | null)[];
  length: number;
}

function decodeScan(r: ColumnRow): ScanColumn {
  return {
    modelId: r.model_id,
    splitId: r.split_id,
    configId: r.config_id,
    itemIds: decodeInt32(r.item_ids),
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
    length: r.n_cells,
  };
}

const num = (a: Float64Array | null, k: number): number | null => {
  if (!a) return null;
  const v = a[k] as number;
  return Number.isNaN(v) ? null : v;
};

export function scanCells(db: Database.Database): ReleaseCell[] {
  return db.transaction((): ReleaseCell[] => {
    const models = nameTable(db, 'SELECT id, name FROM models');
    const splits = nameTable(db, 'SELECT id, name FROM splits');
    const items = nameTable(db, 'SELECT id, sample_id FROM items');
    const configs = nameTable(db, 'SELECT id, key FROM configs');
    const mRank = rankById(models);
    const sRank = rankById(splits);
    const iRank = rankById(items);
    const cRank = rankById(configs);

    // Decoded straight from the BLOBs into typed arrays and string tables (no per-cell boxing:
    // a JS array of `number | null` holds a heap number per cell, and that garbage cost more
    // than the SQL did).
    const cols = (db.prepare('SELECT * FROM response_columns').all() as ColumnRow[]).map(decodeScan);
    cols.sort((a, b) => mRank[a.modelId]! - mRank[b.modelId]! || sRank[a.splitId]! - sRank[b.splitId]! || cRank[a.configId]! - cRank[b.configId]!);

    let total = 0;
    for (const c of cols) total += c.length;
    const out = new Array<ReleaseCell>(total);
    let j = 0;
    const posOf = new Int32Array(iRank.length);
    for (let from = 0; from < cols.length; ) {
      let to = from;
      const first = cols[from] as ScanColumn;
      while (to < cols.length && cols[to]!.modelId === first.modelId && cols[to]!.splitId === first.splitId) to++;
      const grid = cols.slice(from, to);
      // Rows of the grid: the union of its columns' items, in sample_id rank order.
      const seen = new Set<number>();
      for (const c of grid) for (const id of c.itemIds) seen.add(id);
      const rows = Int32Array.from(seen).sort((a, b) => iRank[a]! - iRank[b]!);
      const model = models.get(first.modelId) as string;
      const split = splits.get(first.splitId) as string;
      // Per column: item id → cell position + 1 (0 = no cell), reusing one dense array.
      const positions = grid.map((c) => {
        posOf.fill(0);
        for (let k = 0; k < c.itemIds.length; k++) posOf[c.itemIds[k]!] = k + 1;
        const p = new Int32Array(rows.length);
        for (let r = 0; r < rows.length; r++) p[r] = posOf[rows[r]!]! - 1;
        return p;
      });
      for (let r = 0; r < rows.length; r++) {
        const sampleId = items.get(rows[r]!) as string;
        for (let g = 0; g < grid.length; g++) {
          const k = positions[g]![r]!;
          if (k < 0) continue;
          const c = grid[g] as ScanColumn;
          const cor = c.correct[k] as number;
          const fi = c.frames?.[k] ?? null;
          out[j++] = {
            model,
            split,
            sampleId,
            config: configs.get(c.configId) as string,
            pred: c.pred[k] ?? null,
            correct: cor < 0 ? null : cor === 1,
            score: num(c.score, k),
            groundTruth: c.groundTruth[k] ?? null,
            confidence: num(c.confidence, k),
            margin: num(c.margin, k),
            latencyMs: num(c.latencyMs, k),
            frameIndices: fi === null ? null : Array.from(fi),
            sourceTag: c.sourceTag[k] ?? null,
            protocolNote: c.protocolNote[k] ?? null,
          };
        }
      }
      from = to;
    }
    return out;
  })();
}
