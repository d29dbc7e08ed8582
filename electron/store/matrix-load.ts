/**
 * Loads (model, split) grids as ResponseMatrix values. Speed matters (a 145k-cell project must
 * load in well under 100 ms): one SELECT of a grid's column rows (migration 0020), whose BLOBs
 * are decoded straight into the matrix's typed arrays — no per-cell rows or objects.
 */
import type Database from 'better-sqlite3';
import { configOrder } from '../../shared/engine/config';
import { mainConfigs } from '../../shared/engine/protocols';
import type { ConfigSpec, ResponseMatrix, TaskKind } from '../../shared/domain/types';
import { decodeFloat64, decodeFrames, decodeInt32, decodeInt8 } from './column-blobs';

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

type ColumnRow = [number, number, number, Buffer, Buffer, Buffer | null, Buffer | null, Buffer | null, Buffer | null, Buffer | null];

/** A grid to load, by name. */
export interface GridRef {
  model: string;
  split: string;
}

export interface LoadOptions {
  /**
   * Every config of the grid, whatever its protocol (the protocol comparisons). By default only
   * the main protocol's configs are loaded, and the rows are the items with a cell in one of
   * them: every headline number is the main grid's (docs/metrics.md §6), exactly as if the
   * variant files had never been imported.
   */
  allProtocols?: boolean;
  /** The protocol to load as main instead of the project's (`flipbook metrics --main-protocol`). */
  protocol?: string;
}

/**
 * The configs of a grid a load keeps: all of them, or those of the main protocol (none when
 * the protocol has no grid there). Shared by the loader, the grid list and the outcome scan.
 */
export function keptSpecs(specsById: Map<number, ConfigSpec>, main: string | null): Map<number, ConfigSpec> {
  if (main === null) return specsById;
  const keep = new Set(mainConfigs([...specsById.values()], main));
  return new Map([...specsById].filter(([, s]) => keep.has(s)));
}

/**
 * `loadMatrices(grids)`: the grids' matrices, read in one transaction. A split's items are read
 * once for all its grids: that read (a row per item, ~1 µs each here) was a third of the
 * overview's first computation at 10× the bench matrix, when each of a split's five grids read
 * the same 13k items again.
 */
/** The loader createMatrixLoader returns (named: the declarations tsc -b emits must name it). */
type MatrixLoader = (grids: readonly GridRef[], opts?: LoadOptions) => ResponseMatrix[];

export function createMatrixLoader(db: Database.Database, mainProtocol: () => string): MatrixLoader {
  const q = {
    ids: db.prepare<[string, string], { model_id: number; split_id: number }>('SELECT m.id AS model_id, s.id AS split_id FROM models m, splits s WHERE m.name = ? AND s.name = ?'),
    configs: db.prepare<[number, number], GridConfigRow>(GRID_CONFIGS_SQL),
    items: db.prepare<[number], [number, string]>('SELECT id, sample_id FROM items WHERE split_id = ? ORDER BY sample_id'),
    // One row per grid column (migration 0020): the BLOBs decode straight into the matrix.
    columns: db.prepare<[number, number], ColumnRow>(
      `SELECT config_id, n_correct, n_score, item_ids, correct, score, confidence, margin, latency_ms, frame_indices
       FROM response_columns WHERE model_id = ? AND split_id = ?`,
    ),
  };

  const loadMatrices = db.transaction((grids: readonly GridRef[], opts: LoadOptions = {}): ResponseMatrix[] => {
    const itemsOf = new Map<number, [number, string][]>();
    const main = opts.allProtocols ? null : (opts.protocol ?? mainProtocol());
    return grids.map(({ model, split }) => {
      const ids = q.ids.get(model, split);
      if (!ids) throw new Error(`the project has no responses of model "${model}" on split "${split}"`);
      let items = itemsOf.get(ids.split_id);
      if (!items) {
        items = q.items.raw(true).all(ids.split_id) as [number, string][];
        itemsOf.set(ids.split_id, items);
      }
      return gridMatrix(model, split, ids, q.columns.raw(true).all(ids.model_id, ids.split_id) as ColumnRow[], items, main);
    });
  });

  /** One grid's matrix from its column rows and its split's items (sample_id order). */
  function gridMatrix(
    model: string,
    split: string,
    ids: { model_id: number; split_id: number },
    allCols: ColumnRow[],
    items: [number, string][],
    main: string | null,
  ): ResponseMatrix {
    const all = new Map<number, ConfigSpec>();
    for (const r of q.configs.all(ids.model_id, ids.split_id)) all.set(r.id, specFromRow(r));
    const specsById = keptSpecs(all, main);
    const cols = allCols.filter((c) => specsById.has(c[0]));
    const configs = configOrder([...specsById.values()]);
    const colByKey = new Map(configs.map((c, i) => [c.key, i] as const));

    // Rows: the items with at least one cell, in sample_id order (SQLite BINARY, as before).
    const itemLists = cols.map((c) => decodeInt32(c[3]));
    let maxId = 0;
    for (const list of itemLists) for (let k = 0; k < list.length; k++) if (list[k]! > maxId) maxId = list[k]!;
    const rowById = new Int32Array(maxId + 1).fill(-1);
    for (const list of itemLists) for (let k = 0; k < list.length; k++) rowById[list[k]!] = 0;
    const itemIds: string[] = [];
    for (const [id, sampleId] of items) {
      if (id <= maxId && rowById[id] === 0) {
        rowById[id] = itemIds.length + 1; // +1: 0 still means "has a cell, row not yet assigned"
        itemIds.push(sampleId);
      }
    }
    const nc = configs.length;
    const n = itemIds.length * nc;
    const correct = new Int8Array(n).fill(-1);
    const score = new Float64Array(n).fill(NaN);
    const confidence = new Float64Array(n).fill(NaN);
    const margin = new Float64Array(n).fill(NaN);
    const latencyMs = new Float64Array(n).fill(NaN);
    const frameIndices: (Int32Array | null | undefined)[] = new Array<Int32Array | null | undefined>(n);
    let nCorrect = 0;
    let nScore = 0;
    cols.forEach((c, j) => {
      const [configId, nc0, ns0, , correctBlob, scoreBlob, confBlob, marginBlob, latBlob, framesBlob] = c;
      nCorrect += nc0;
      nScore += ns0;
      const col = colByKey.get(specsById.get(configId)!.key)!;
      const list = itemLists[j]!;
      const cell = new Int32Array(list.length);
      for (let k = 0; k < list.length; k++) cell[k] = (rowById[list[k]!]! - 1) * nc + col;
      const cor = decodeInt8(correctBlob);
      for (let k = 0; k < cell.length; k++) correct[cell[k]!] = cor[k]!;
      const fill = (blob: Buffer | null, into: Float64Array): void => {
        if (!blob) return;
        const v = decodeFloat64(blob);
        for (let k = 0; k < cell.length; k++) into[cell[k]!] = v[k]!;
      };
      fill(scoreBlob, score);
      fill(confBlob, confidence);
      fill(marginBlob, margin);
      fill(latBlob, latencyMs);
      if (framesBlob) {
        const f = decodeFrames(framesBlob);
        for (let k = 0; k < cell.length; k++) if (f[k]) frameIndices[cell[k]!] = f[k];
      }
    });
    // A grid is open-ended when it carries scores and no MCQA outcomes (docs/metrics.md §4).
    const kind: TaskKind = nScore > 0 && nCorrect === 0 ? 'open' : 'mcqa';
    if (kind === 'open') correct.fill(-1);
    return { model, split, kind, itemIds, configs, correct, score, confidence, margin, latencyMs, frameIndices };
  }

  return loadMatrices;
}
