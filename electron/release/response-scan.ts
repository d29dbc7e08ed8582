/**
 * Reads every response cell of a project straight from its SQLite tables, already sorted by
 * (model, split, sample_id, config) in code-point order.
 *
 * Why not `project.iterateResponses()`: it joins five tables, sorts by names in SQL and makes
 * one JS object per row from a row object — about 2.5 s for 145k cells on the bench machine
 * (npm run bench), most of the export's time. better-sqlite3 returns one scalar per row far
 * faster than a row (`pluck`), so each column is read by its own scan of the responses table in
 * primary-key order inside one read transaction (the scans see the same rows in the same
 * order), and names come from the small id tables. The store exposes `db` for exactly this
 * (project.ts: "for services that need their own queries (export, frames)"); the columns
 * read here are those of migration 0010.
 */
import type Database from 'better-sqlite3';
import { codePointRanks } from './rank';
import type { ReleaseCell } from './release-data';

const ORDER = 'ORDER BY model_id, split_id, item_id, config_id';

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

export function scanCells(db: Database.Database): ReleaseCell[] {
  return db.transaction((): ReleaseCell[] => {
    const models = nameTable(db, 'SELECT id, name FROM models');
    const splits = nameTable(db, 'SELECT id, name FROM splits');
    const items = nameTable(db, 'SELECT id, sample_id FROM items');
    const configs = nameTable(db, 'SELECT id, key FROM configs');
    const col = <T>(expr: string): T[] => db.prepare(`SELECT ${expr} FROM responses ${ORDER}`).pluck(true).all() as T[];

    // Ids packed two by two into exact integers (ids < 2^26 each keeps them below 2^53).
    const ms = col<number>('model_id * 67108864 + split_id');
    const ic = col<number>('item_id * 67108864 + config_id');
    const correct = col<number | null>('correct');
    const pred = col<string | null>('pred');
    const gt = col<string | null>('ground_truth');
    const tag = col<string | null>('source_tag');
    const note = col<string | null>('protocol_note');
    const present = db
      .prepare('SELECT count(score), count(confidence), count(margin), count(latency_ms), count(frame_indices) FROM responses')
      .raw(true)
      .get() as [number, number, number, number, number];
    const n = ms.length;
    const optional = <T>(count: number, expr: string): (T | null)[] | null => (count > 0 ? col<T | null>(expr) : null);
    const score = optional<number>(present[0], 'score');
    const confidence = optional<number>(present[1], 'confidence');
    const margin = optional<number>(present[2], 'margin');
    const latency = optional<number>(present[3], 'latency_ms');
    const frames = optional<Buffer>(present[4], 'frame_indices');

    const mRank = rankById(models);
    const sRank = rankById(splits);
    const iRank = rankById(items);
    const cRank = rankById(configs);
    const S = splits.size + 1;
    const I = items.size + 1;
    const C = configs.size + 1;
    const P = 67108864;

    // The sort key of each cell from the ranks; cells usually arrive in key order already
    // (ids are assigned in the order a sorted per_item.csv lists them), so check first.
    const keys = new Float64Array(n);
    let sorted = true;
    for (let i = 0; i < n; i++) {
      const a = ms[i] as number;
      const b = ic[i] as number;
      const k =
        ((mRank[Math.floor(a / P)]! * S + sRank[a % P]!) * I + iRank[Math.floor(b / P)]!) * C + cRank[b % P]!;
      keys[i] = k;
      if (i > 0 && k < keys[i - 1]!) sorted = false;
    }
    let order: ArrayLike<number>;
    if (sorted) {
      order = { length: n } as ArrayLike<number>;
    } else if ((models.size + 1) * S * I * C * n < 2 ** 53) {
      // key × n + index is exact: one native numeric sort, no comparator calls.
      const packed = new Float64Array(n);
      for (let i = 0; i < n; i++) packed[i] = keys[i]! * n + i;
      packed.sort();
      const o = new Uint32Array(n);
      for (let i = 0; i < n; i++) o[i] = packed[i]! % n;
      order = o;
    } else {
      const o = Array.from({ length: n }, (_, i) => i);
      o.sort((x, y) => keys[x]! - keys[y]! || x - y);
      order = o;
    }

    const out = new Array<ReleaseCell>(n);
    for (let j = 0; j < n; j++) {
      const i = sorted ? j : (order[j] as number);
      const a = ms[i] as number;
      const b = ic[i] as number;
      const c = correct[i];
      const fi = frames?.[i] ?? null;
      out[j] = {
        model: models.get(Math.floor(a / P)) as string,
        split: splits.get(a % P) as string,
        sampleId: items.get(Math.floor(b / P)) as string,
        config: configs.get(b % P) as string,
        pred: pred[i] ?? null,
        correct: c === null || c === undefined ? null : c === 1,
        score: score?.[i] ?? null,
        groundTruth: gt[i] ?? null,
        confidence: confidence?.[i] ?? null,
        margin: margin?.[i] ?? null,
        latencyMs: latency?.[i] ?? null,
        frameIndices: fi === null ? null : Array.from(new Int32Array(fi.buffer.slice(fi.byteOffset, fi.byteOffset + fi.byteLength))),
        sourceTag: tag[i] ?? null,
        protocolNote: note[i] ?? null,
      };
    }
    return out;
  })();
}
