/**
 * One response matrix per exported grid, built from the columns the export already read
 * (`project.scanColumns()`) instead of once more per grid through `project.loadMatrix`. Same rules
 * as the store's loader: columns in config order (the engine's createMatrix), rows in
 * sample-id code-point order, and a grid is open-ended when it has scores and no correctness.
 */
import type { ConfigSpec, ResponseMatrix, TaskKind } from '../../shared/domain/types';
import { configOrder } from '../../shared/engine/config';
import type { ReleaseColumn, ReleaseGrid } from './release-data';

/** `configs` must cover every config key the grids use. */
export function gridMatrices(grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[]): ResponseMatrix[] {
  const specs = new Map(configs.map((c) => [c.key, c]));
  return grids.map((g) => {
    const ordered = configOrder(
      g.columns.map((c) => {
        const s = specs.get(c.config);
        if (!s) throw new Error(`config "${c.config}" of ${g.model} / ${g.split} is not among the project's configs`);
        return s;
      }),
    );
    const byKey = new Map(g.columns.map((c) => [c.config, c]));
    return new GridMatrix(
      g,
      kindOf(g.columns),
      ordered,
      ordered.map((s) => byKey.get(s.key) as ReleaseColumn),
    );
  });
}

/** Open-ended when some cell has a score and none a correctness (the store's rule, on its n_correct / n_score). */
function kindOf(columns: readonly ReleaseColumn[]): TaskKind {
  let score = false;
  for (const c of columns) {
    if (hasCorrect(c)) return 'mcqa';
    if (!score && c.score !== null) score = hasScore(c.score);
  }
  return score ? 'open' : 'mcqa';
}

function hasCorrect(c: ReleaseColumn): boolean {
  const correct = c.correct;
  for (let k = 0; k < c.length; k++) if (correct[k]! >= 0) return true;
  return false;
}

function hasScore(score: Float64Array): boolean {
  for (let k = 0; k < score.length; k++) if (!Number.isNaN(score[k]!)) return true;
  return false;
}

/**
 * A grid's matrix (the engine's createMatrix layout, −1 / NaN / null = missing) whose cell
 * arrays other than `correct` are filled from the grid's columns when first read. The export
 * reads `correct` (MCQA) or `score` (open-ended) and nothing else: building all six arrays up front — four
 * NaN-filled Float64Arrays and a null-filled array of ~145k slots each on the benchmark —
 * was a cost of every cold export for data it never looked at. Ids are not checked for
 * duplicates either: a grid's rows are distinct item ids of one split (`project.scanColumns()`).
 */
class GridMatrix implements ResponseMatrix {
  model: string;
  split: string;
  kind: TaskKind;
  itemIds: string[];
  configs: ConfigSpec[];
  /** Filled up front: every MCQA metric reads it, in per-cell loops (no accessor call there). */
  correct: Int8Array;
  /** The grid's column of each matrix column. */
  readonly #columns: readonly ReleaseColumn[];
  #score: Float64Array | null = null;
  #confidence: Float64Array | null = null;
  #margin: Float64Array | null = null;
  #latencyMs: Float64Array | null = null;
  #frameIndices: (Int32Array | null | undefined)[] | null = null;

  constructor(g: ReleaseGrid, kind: TaskKind, configs: ConfigSpec[], columns: readonly ReleaseColumn[]) {
    this.model = g.model;
    this.split = g.split;
    this.kind = kind;
    this.itemIds = g.sampleIds.slice();
    this.configs = configs;
    this.#columns = columns;
    const C = columns.length;
    this.correct = new Int8Array(this.itemIds.length * C).fill(-1);
    // An open-ended matrix has no correctness (all −1), as the store's loader gives it.
    if (kind === 'mcqa') columns.forEach((c, j) => scatterInt8(c.at, c.correct, this.correct, j, C));
  }
  get score(): Float64Array {
    return (this.#score ??= this.#floats((c) => c.score));
  }
  set score(v: Float64Array) {
    this.#score = v;
  }
  get confidence(): Float64Array {
    return (this.#confidence ??= this.#floats((c) => c.confidence));
  }
  set confidence(v: Float64Array) {
    this.#confidence = v;
  }
  get margin(): Float64Array {
    return (this.#margin ??= this.#floats((c) => c.margin));
  }
  set margin(v: Float64Array) {
    this.#margin = v;
  }
  get latencyMs(): Float64Array {
    return (this.#latencyMs ??= this.#floats((c) => c.latencyMs));
  }
  set latencyMs(v: Float64Array) {
    this.#latencyMs = v;
  }
  get frameIndices(): (Int32Array | null | undefined)[] {
    if (this.#frameIndices === null) {
      const C = this.#columns.length;
      const out = new Array<Int32Array | null | undefined>(this.itemIds.length * C).fill(null);
      this.#columns.forEach((c, j) => {
        if (c.frames === null) return;
        for (let r = 0; r < c.at.length; r++) {
          const k = c.at[r]!;
          if (k >= 0) out[r * C + j] = c.frames[k] ?? null;
        }
      });
      this.#frameIndices = out;
    }
    return this.#frameIndices;
  }
  set frameIndices(v: (Int32Array | null | undefined)[]) {
    this.#frameIndices = v;
  }

  #floats(pick: (c: ReleaseColumn) => Float64Array | null): Float64Array {
    const C = this.#columns.length;
    const out = new Float64Array(this.itemIds.length * C).fill(Number.NaN);
    this.#columns.forEach((c, j) => {
      const v = pick(c);
      if (v !== null) scatterFloat64(c.at, v, out, j, C);
    });
    return out;
  }
}

/*
 * The per-cell loops are functions of their own returning right after the loop: code after a
 * hot loop that never ran has no type feedback, and the loop's optimised code would
 * deoptimise there on every call (a cost of the cold export).
 */

/** out[r * C + j] = from[at[r]] for each row r with a cell. */
function scatterInt8(at: Int32Array, from: Int8Array, out: Int8Array, j: number, C: number): void {
  for (let r = 0; r < at.length; r++) {
    const k = at[r]!;
    if (k >= 0) out[r * C + j] = from[k]!;
  }
}

function scatterFloat64(at: Int32Array, from: Float64Array, out: Float64Array, j: number, C: number): void {
  for (let r = 0; r < at.length; r++) {
    const k = at[r]!;
    if (k >= 0) out[r * C + j] = from[k]!;
  }
}
