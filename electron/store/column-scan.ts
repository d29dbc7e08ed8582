/**
 * Every stored response cell, column-wise, for readers that walk whole grids in a fixed
 * order (the release export, the team-sync release identity): `project.scanColumns()`.
 *
 * Grids come in (model, split) code-point order, each with rows in sample_id and columns in
 * config-key code-point order — the release's sort (model, split, sample_id, config,
 * docs/release-format.md) without sorting cells. The column rows of `response_columns`
 * (response-columns.ts) are read in one SELECT inside one read transaction and their BLOBs
 * decoded into typed arrays and string tables: no SQL row, object or JS string per cell.
 * Callers see this shape only; the BLOB layouts stay the store's business.
 */
import type Database from 'better-sqlite3';
import { compareCodePoints } from '../../shared/engine/config';
import { withSmallPageCache } from './page-cache';
import { decodeFloat64, decodeFrames, decodeInt32, decodeInt8 } from './column-blobs';
import type { ColumnRow } from './response-columns';

/**
 * A column of strings as the store holds it: one index per cell into a small dictionary.
 * Letters, source tags and notes repeat down a column, so a writer escapes each distinct
 * value once instead of once per cell.
 */
export interface StringTable {
  /** Per cell: 0 = null, i ≥ 1 = `dict[i]`. */
  idx: Uint8Array | Uint16Array | Uint32Array;
  /** The distinct values; `dict[0]` is null. */
  dict: (string | null)[];
}

/** One config of a grid: its cells as typed arrays and string tables. */
export interface ScannedColumn {
  config: string;
  /** Cell position of each grid row (index into the arrays below), −1 = no cell. */
  at: Int32Array;
  /** Number of cells. */
  length: number;
  /** 1 correct, 0 wrong, −1 unknown. */
  correct: Int8Array;
  pred: StringTable;
  groundTruth: StringTable;
  /** NaN = no value; null = no cell of the column has one. */
  score: Float64Array | null;
  confidence: Float64Array | null;
  margin: Float64Array | null;
  latencyMs: Float64Array | null;
  frames: (Int32Array | null)[] | null;
  sourceTag: StringTable;
  protocolNote: StringTable;
}

/** One (model, split): rows in sample_id code-point order, columns in config-key code-point order. */
export interface ScannedGrid {
  model: string;
  split: string;
  sampleIds: string[];
  /** The store's item id of each row: unique per (split, sample_id), so items count without string keys. */
  rowItems: Int32Array;
  columns: ScannedColumn[];
}

const dec = new TextDecoder();

/** Decodes a string-table BLOB (layout: encodeStrings in response-columns.ts). */
function decodeStringTable(b: Uint8Array): StringTable {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const width = view.getUint8(0);
  const d = view.getUint32(4, true);
  const n = view.getUint32(8, true);
  const head = 12;
  const idxBytes = (n * width + 3) & ~3;
  let idx: StringTable['idx'];
  if (width === 1) idx = b.subarray(head, head + n);
  else {
    // Wider indices need an aligned buffer: view the BLOB in place when it is, else copy.
    const off = b.byteOffset + head;
    const buf = off % width === 0 ? b.buffer : b.slice(head, head + n * width).buffer;
    const at = off % width === 0 ? off : 0;
    idx = width === 2 ? new Uint16Array(buf, at, n) : new Uint32Array(buf, at, n);
  }
  const dict: (string | null)[] = new Array(d + 1);
  dict[0] = null;
  let at = head + idxBytes;
  let text = at + 4 * d;
  for (let i = 1; i <= d; i++) {
    const len = view.getUint32(at, true);
    at += 4;
    dict[i] = dec.decode(b.subarray(text, text + len));
    text += len;
  }
  return { idx, dict };
}

/** The columns of `response_columns` a scan reads (not run_ids / lines: provenance it does not carry). */
type ScanRow = Omit<ColumnRow, 'id' | 'n_correct' | 'n_score' | 'run_ids' | 'lines'>;

/** id → name as a dense array indexed by id (ids are small SQLite rowids). */
function nameTable(db: Database.Database, sql: string): string[] {
  const out: string[] = [];
  for (const [id, name] of db.prepare(sql).raw(true).all() as [number, string][]) out[id] = name;
  return out;
}

/** id → code-point rank of its name, as a dense array indexed by id. */
function rankById(names: readonly string[]): Int32Array {
  const sorted = [...new Set(names.filter((n) => n !== undefined))].sort(compareCodePoints);
  const ranks = new Map(sorted.map((n, i) => [n, i]));
  const out = new Int32Array(names.length);
  names.forEach((name, id) => (out[id] = ranks.get(name) as number));
  return out;
}

/**
 * Item ids in sample_id code-point order. SQLite's BINARY collation compares UTF-8 bytes, and
 * UTF-8 byte order is code-point order, so the database sorts them; a database in a UTF-16
 * encoding (never created by Flipbook) is sorted in JS instead.
 */
function itemsByName(db: Database.Database): { names: string[]; byRank: Int32Array } {
  const utf8 = db.pragma('encoding', { simple: true }) === 'UTF-8';
  const rows = db
    .prepare(`SELECT id, sample_id FROM items${utf8 ? ' ORDER BY sample_id' : ''}`)
    .raw(true)
    .all() as [number, string][];
  if (!utf8) rows.sort((a, b) => compareCodePoints(a[1], b[1]));
  const names: string[] = [];
  const byRank = new Int32Array(rows.length);
  // Indexed reads, not destructuring: this runs once per export, in code V8 has not optimised,
  // where `const [a, b] = row` runs the array iterator (an object per element, ~1.7 MB here).
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    names[row[0]] = row[1];
    byRank[r] = row[0];
  }
  return { names, byRank };
}

function decodeScan(r: ScanRow, config: string): ScannedColumn {
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

/**
 * Rows of a grid: the union of its columns' items, in sample_id rank order (ranks are unique,
 * so a numeric sort of the ranks gives the order). `seen` is all zeros and is left so.
 */
function gridRows(itemIds: readonly Int32Array[], seen: Uint8Array, iRank: Int32Array, byRank: Int32Array): Int32Array {
  let n = 0;
  for (const ids of itemIds) {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (seen[id] === 0) ((seen[id] = 1), n++);
    }
  }
  const ranks = new Int32Array(n);
  n = 0;
  for (const ids of itemIds) {
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      if (seen[id] === 1) ((seen[id] = 0), (ranks[n++] = iRank[id]!));
    }
  }
  ranks.sort();
  for (let i = 0; i < ranks.length; i++) ranks[i] = byRank[ranks[i]!]!;
  return ranks;
}

/** Cell position of each row's item in a column (−1 = none); `posOf` is a zeroed scratch array, left so. */
function cellPositions(ids: Int32Array, order: Int32Array, posOf: Int32Array): Int32Array {
  for (let k = 0; k < ids.length; k++) posOf[ids[k]!] = k + 1;
  const at = new Int32Array(order.length);
  for (let i = 0; i < order.length; i++) at[i] = posOf[order[i]!]! - 1;
  for (let k = 0; k < ids.length; k++) posOf[ids[k]!] = 0;
  return at;
}

export function scanColumns(db: Database.Database): ScannedGrid[] {
  // It reads most pages of the project once (page-cache.ts).
  return withSmallPageCache(db, () => scan(db));
}

function scan(db: Database.Database): ScannedGrid[] {
  return db.transaction((): ScannedGrid[] => {
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
    rows.sort((a, b) => mRank[a.model_id]! - mRank[b.model_id]! || sRank[a.split_id]! - sRank[b.split_id]! || cRank[a.config_id]! - cRank[b.config_id]!);

    const out: ScannedGrid[] = [];
    const posOf = new Int32Array(iRank.length);
    const seen = new Uint8Array(iRank.length);
    for (let from = 0; from < rows.length;) {
      let to = from;
      const first = rows[from] as ScanRow;
      while (to < rows.length && rows[to]!.model_id === first.model_id && rows[to]!.split_id === first.split_id) to++;
      // A column without cells adds no config to the grid.
      const grid = rows.slice(from, to).filter((r) => r.n_cells > 0);
      from = to;
      if (grid.length === 0) continue;
      const itemIds = grid.map((r) => decodeInt32(r.item_ids));
      const order = gridRows(itemIds, seen, iRank, items.byRank);
      const sampleIds = new Array<string>(order.length);
      for (let i = 0; i < order.length; i++) sampleIds[i] = items.names[order[i]!] as string;
      const columns = grid.map((r, g) => {
        const c = decodeScan(r, configs[r.config_id] as string);
        c.at = cellPositions(itemIds[g] as Int32Array, order, posOf);
        return c;
      });
      out.push({ model: models[first.model_id] as string, split: splits[first.split_id] as string, sampleIds, rowItems: order, columns });
    }
    return out;
  })();
}
