/**
 * Loads one (model, split) as a ResponseMatrix. Speed matters (a 145k-cell project must load
 * in well under 100 ms): one ordered scan of the responses' primary-key range with raw rows,
 * written straight into typed arrays — no per-cell objects.
 */
import type Database from 'better-sqlite3';
import { configOrder } from '../../shared/engine/config';
import type { ConfigSpec, ResponseMatrix, TaskKind } from '../../shared/domain/types';

export interface GridConfigRow {
  id: number;
  key: string;
  frames: number;
  pixel_count: number | null;
  width: number | null;
  height: number | null;
  sampling_policy: string | null;
  sampling_seed: number | null;
  sampling_fps: number | null;
  pipeline: string | null;
  toolkit: string | null;
  model_args: string | null;
  notes: string | null;
}

export function specFromRow(r: GridConfigRow): ConfigSpec {
  return {
    key: r.key,
    frames: r.frames,
    pixelCount: r.pixel_count,
    width: r.width,
    height: r.height,
    sampling: { policy: r.sampling_policy as ConfigSpec['sampling']['policy'], seed: r.sampling_seed, fps: r.sampling_fps },
    pipeline: r.pipeline === 'raw' || r.pipeline === 'cache' ? r.pipeline : null,
    toolkit: r.toolkit,
    modelArgs: r.model_args,
    notes: r.notes,
  };
}

/** Per-grid provenance wins over the project-wide config row where it is known. */
export const GRID_CONFIGS_SQL = `
  SELECT c.id, c.key, c.frames, c.pixel_count,
    COALESCE(g.width, c.width) AS width, COALESCE(g.height, c.height) AS height,
    COALESCE(g.sampling_policy, c.sampling_policy) AS sampling_policy, COALESCE(g.sampling_seed, c.sampling_seed) AS sampling_seed,
    COALESCE(g.sampling_fps, c.sampling_fps) AS sampling_fps, COALESCE(g.pipeline, c.pipeline) AS pipeline,
    COALESCE(g.toolkit, c.toolkit) AS toolkit, COALESCE(g.model_args, c.model_args) AS model_args, COALESCE(g.notes, c.notes) AS notes
  FROM grid_configs g JOIN configs c ON c.id = g.config_id
  WHERE g.model_id = ? AND g.split_id = ?`;

export function createMatrixLoader(db: Database.Database) {
  const q = {
    ids: db.prepare<[string, string], { model_id: number; split_id: number }>(
      'SELECT m.id AS model_id, s.id AS split_id FROM models m, splits s WHERE m.name = ? AND s.name = ?',
    ),
    configs: db.prepare<[number, number], GridConfigRow>(GRID_CONFIGS_SQL),
    items: db.prepare<[number, number, number], [number, string]>(
      `SELECT i.id, i.sample_id FROM items i WHERE i.split_id = ?
         AND EXISTS (SELECT 1 FROM responses r WHERE r.model_id = ? AND r.split_id = ? AND r.item_id = i.id)
       ORDER BY i.sample_id`,
    ),
    // better-sqlite3 pays ~1 µs per row for a JS array (raw) but far less for one scalar
    // (pluck), so the outcome and the cell's position travel packed in one integer:
    // ((item_id * 2^16 + config_id) * 4 + correct + 1). Optional columns are fetched only
    // when the grid has them, again as scalars in primary-key order.
    presence: db.prepare<[number, number], { n_score: number; n_conf: number; n_margin: number; n_lat: number; n_frames: number }>(
      `SELECT count(score) AS n_score, count(confidence) AS n_conf, count(margin) AS n_margin, count(latency_ms) AS n_lat,
         count(frame_indices) AS n_frames FROM responses WHERE model_id = ? AND split_id = ?`,
    ),
    packed: db.prepare<[number, number], number>(
      'SELECT ((item_id * 65536 + config_id) * 4 + coalesce(correct, -1) + 1) FROM responses WHERE model_id = ? AND split_id = ?',
    ),
    ...Object.fromEntries(
      (['score', 'confidence', 'margin', 'latency_ms', 'frame_indices'] as const).map((col) => [
        col,
        {
          keys: db.prepare(`SELECT item_id * 65536 + config_id FROM responses WHERE model_id = ? AND split_id = ? AND ${col} IS NOT NULL`),
          values: db.prepare(`SELECT ${col} FROM responses WHERE model_id = ? AND split_id = ? AND ${col} IS NOT NULL`),
        },
      ]),
    ) as Record<'score' | 'confidence' | 'margin' | 'latency_ms' | 'frame_indices', { keys: Database.Statement; values: Database.Statement }>,
  };

  return function loadMatrix(model: string, split: string): ResponseMatrix {
    const ids = q.ids.get(model, split);
    if (!ids) throw new Error(`the project has no responses of model "${model}" on split "${split}"`);
    const specsById = new Map<number, ConfigSpec>();
    for (const r of q.configs.all(ids.model_id, ids.split_id)) specsById.set(r.id, specFromRow(r));
    const configs = configOrder([...specsById.values()]);
    const colByKey = new Map(configs.map((c, i) => [c.key, i] as const));
    const colById = new Map<number, number>();
    for (const [id, spec] of specsById) colById.set(id, colByKey.get(spec.key)!);

    const itemIds: string[] = [];
    const rowById = new Map<number, number>();
    for (const [id, sampleId] of q.items.raw().iterate(ids.split_id, ids.model_id, ids.split_id) as IterableIterator<[number, string]>) {
      rowById.set(id, itemIds.length);
      itemIds.push(sampleId);
    }
    const nc = configs.length;
    const n = itemIds.length * nc;
    const cellOf = (key: number): number => rowById.get(Math.floor(key / 65536))! * nc + colById.get(key % 65536)!;
    const correct = new Int8Array(n).fill(-1);
    const score = new Float64Array(n).fill(NaN);
    const confidence = new Float64Array(n).fill(NaN);
    const margin = new Float64Array(n).fill(NaN);
    const latencyMs = new Float64Array(n).fill(NaN);
    const frameIndices: (Int32Array | null | undefined)[] = new Array<Int32Array | null | undefined>(n);
    let nCorrect = 0;
    for (const v of q.packed.pluck().all(ids.model_id, ids.split_id) as number[]) {
      const c = (v % 4) - 1;
      if (c < 0) continue;
      correct[cellOf(Math.floor(v / 4))] = c;
      nCorrect++;
    }
    const has = q.presence.get(ids.model_id, ids.split_id)!;
    const fill = (col: 'score' | 'confidence' | 'margin' | 'latency_ms', into: Float64Array): void => {
      const keys = q[col].keys.pluck().all(ids.model_id, ids.split_id) as number[];
      const values = q[col].values.pluck().all(ids.model_id, ids.split_id) as number[];
      for (let k = 0; k < keys.length; k++) into[cellOf(keys[k]!)] = values[k]!;
    };
    if (has.n_score) fill('score', score);
    if (has.n_conf) fill('confidence', confidence);
    if (has.n_margin) fill('margin', margin);
    if (has.n_lat) fill('latency_ms', latencyMs);
    if (has.n_frames) {
      const keys = q.frame_indices.keys.pluck().all(ids.model_id, ids.split_id) as number[];
      const blobs = q.frame_indices.values.pluck().all(ids.model_id, ids.split_id) as Buffer[];
      for (let k = 0; k < keys.length; k++) {
        const b = blobs[k]!;
        frameIndices[cellOf(keys[k]!)] = new Int32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
      }
    }
    const nScore = has.n_score;
    // A grid is open-ended when it carries scores and no MCQA outcomes (metrics.md §4).
    const kind: TaskKind = nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa';
    if (kind === 'open') correct.fill(-1);
    return { model, split, kind, itemIds, configs, correct, score, confidence, margin, latencyMs, frameIndices };
  };
}
