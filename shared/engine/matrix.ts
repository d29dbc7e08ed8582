/**
 * The response matrix (docs/metrics.md §1) on typed arrays: cell (i, c) is at i * configs.length + c,
 * configs in config order. Grids are chosen by config key and resolved to column indices once,
 * so metric loops never allocate per cell.
 */
import type { ConfigSpec, OutcomeMatrix, ResponseMatrix, TaskKind } from '../domain/types';
import { compareCodePoints, configOrder } from './config';

export interface MatrixInit {
  model: string;
  split: string;
  kind: TaskKind;
  itemIds: readonly string[];
  configs: readonly ConfigSpec[];
}

/** An empty matrix: every cell missing; configs are put into config order. */
export function createMatrix(init: MatrixInit): ResponseMatrix {
  const configs = configOrder(init.configs);
  const seen = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.key)) throw new Error(`config "${c.key}" appears twice in ${init.model} / ${init.split}`);
    seen.add(c.key);
  }
  const ids = new Set<string>();
  for (const id of init.itemIds) {
    if (ids.has(id)) throw new Error(`item "${id}" appears twice in ${init.model} / ${init.split}`);
    ids.add(id);
  }
  const cells = init.itemIds.length * configs.length;
  return {
    model: init.model,
    split: init.split,
    kind: init.kind,
    itemIds: [...init.itemIds],
    configs,
    correct: new Int8Array(cells).fill(-1),
    score: new Float64Array(cells).fill(Number.NaN),
    confidence: new Float64Array(cells).fill(Number.NaN),
    margin: new Float64Array(cells).fill(Number.NaN),
    latencyMs: new Float64Array(cells).fill(Number.NaN),
    frameIndices: new Array<Int32Array | null | undefined>(cells).fill(null),
  };
}

/** Column of a config key; throws naming the matrix when the key is not one of its configs. */
export function configIndex(m: Pick<OutcomeMatrix, 'model' | 'split' | 'configs'>, key: string): number {
  for (let c = 0; c < m.configs.length; c++) if (m.configs[c]!.key === key) return c;
  throw new Error(`config "${key}" is not in ${m.model} / ${m.split} (it has ${m.configs.map((c) => c.key).join(', ') || 'no configs'})`);
}

/**
 * The grid's columns in the grid's own config order (the config order of the chosen configs,
 * which is what a release of that grid would list). Default grid: all configs of the matrix.
 */
export function gridColumns(m: Pick<OutcomeMatrix, 'model' | 'split' | 'configs'>, grid?: readonly string[] | null): Int32Array {
  if (!grid) return Int32Array.from(m.configs.keys());
  const uniq = new Set(grid);
  if (uniq.size !== grid.length) throw new Error(`grid lists a config twice: ${grid.join(', ')}`);
  const specs = grid.map((k) => m.configs[configIndex(m, k)]!);
  const ordered = configOrder(specs);
  return Int32Array.from(ordered.map((c) => configIndex(m, c.key)));
}

/** The grid's configs in the grid's config order. */
export function gridConfigs(m: ResponseMatrix, grid?: readonly string[] | null): ConfigSpec[] {
  return Array.from(gridColumns(m, grid), (c) => m.configs[c]!);
}

/** Rows with an outcome in every column of `cols`. */
export function completeRowsOfColumns(m: ResponseMatrix, cols: Int32Array): { rows: Int32Array; nExcluded: number } {
  const C = m.configs.length;
  const nItems = m.itemIds.length;
  const out = new Int32Array(nItems);
  let n = 0;
  if (m.kind === 'mcqa') {
    const y = m.correct;
    for (let i = 0; i < nItems; i++) {
      const base = i * C;
      let ok = true;
      for (let j = 0; j < cols.length; j++) {
        if (y[base + cols[j]!] === -1) {
          ok = false;
          break;
        }
      }
      if (ok) out[n++] = i;
    }
  } else {
    const s = m.score;
    for (let i = 0; i < nItems; i++) {
      const base = i * C;
      let ok = true;
      for (let j = 0; j < cols.length; j++) {
        if (Number.isNaN(s[base + cols[j]!]!)) {
          ok = false;
          break;
        }
      }
      if (ok) out[n++] = i;
    }
  }
  return { rows: out.slice(0, n), nExcluded: nItems - n };
}

/** Items (rows) complete on the grid (default: all configs) and how many were excluded. */
export function completeRows(m: ResponseMatrix, configKeys?: readonly string[] | null): { rows: Int32Array; nExcluded: number } {
  return completeRowsOfColumns(m, gridColumns(m, configKeys));
}

/** A copy of the matrix restricted to some configs (config order) and optionally some rows. */
export function subMatrix(m: ResponseMatrix, configKeys: readonly string[], rows?: ArrayLike<number>): ResponseMatrix {
  const cols = gridColumns(m, configKeys);
  const rowList = rows ? Array.from(rows) : Array.from(m.itemIds.keys());
  const C = m.configs.length;
  const out = createMatrix({
    model: m.model,
    split: m.split,
    kind: m.kind,
    itemIds: rowList.map((r) => {
      const id = m.itemIds[r];
      if (id === undefined) throw new Error(`row ${r} is outside ${m.model} / ${m.split}`);
      return id;
    }),
    configs: Array.from(cols, (c) => m.configs[c]!),
  });
  const C2 = out.configs.length;
  // createMatrix re-sorts configs; map each output column back to its source column.
  const src = out.configs.map((c) => configIndex(m, c.key));
  for (let r = 0; r < rowList.length; r++) {
    const base = rowList[r]! * C;
    for (let j = 0; j < C2; j++) {
      const from = base + src[j]!;
      const to = r * C2 + j;
      out.correct[to] = m.correct[from]!;
      out.score[to] = m.score[from]!;
      out.confidence[to] = m.confidence[from]!;
      out.margin[to] = m.margin[from]!;
      out.latencyMs[to] = m.latencyMs[from]!;
      out.frameIndices[to] = m.frameIndices[from] ?? null;
    }
  }
  return out;
}

/** Config keys common to several matrices, in the first matrix's config order. */
export function commonConfigKeys(ms: readonly ResponseMatrix[]): string[] {
  const first = ms[0];
  if (!first) return [];
  // The first matrix's own set keeps all of its keys, so it needs no special case.
  const sets = ms.map((m) => new Set(m.configs.map((c) => c.key)));
  return first.configs.map((c) => c.key).filter((k) => sets.every((s) => s.has(k)));
}

/** Sorts item ids in code-point order (the release sorts rows this way). */
export function sortedItemOrder(m: ResponseMatrix): Int32Array {
  const idx = Array.from(m.itemIds.keys());
  idx.sort((a, b) => compareCodePoints(m.itemIds[a]!, m.itemIds[b]!));
  return Int32Array.from(idx);
}
