/**
 * Item trajectories (metrics.md §3; release-format.md derived.csv): pattern, class, flags and
 * best configs of every item of one (model, split) over its configs in config order.
 *
 * Incomplete rows get a pattern with `.` and no class; their flags are evaluated on the cells
 * they do have (a missing cell never makes or breaks a flag) so the UI can show them, but only
 * `complete` rows count in the metrics and in derived.csv.
 */
import type { ResponseMatrix } from '../domain/types';
import { anyHarm, assertKind, isTerminalRegression, isTextOverwritten, loadRow, planGrid } from './grid-plan';

export type TrajectoryClass =
  | 'always_correct'
  | 'always_wrong'
  | 'monotonic_increasing'
  | 'monotonic_decreasing'
  | 'oscillating';

export interface Trajectory {
  sampleId: string;
  row: number;
  /** One char per grid config: 1 correct, 0 wrong, . missing. */
  pattern: string;
  complete: boolean;
  trajectoryClass: TrajectoryClass | null;
  isVisuallyConfused: boolean;
  isTextOverwritten: boolean;
  terminalRegression: boolean;
  bestConfig: string;
  /** null when no matched grid is set or the model lacks one of its configs. */
  matchedGridBestConfig: string | null;
}

export interface TrajectoryOptions {
  grid?: readonly string[] | null;
  matchedGrid?: readonly string[] | null;
}

/** The classes in a fixed order: {@link TrajectoryColumns.trajectoryClass} indexes this list. */
export const TRAJECTORY_CLASSES: readonly TrajectoryClass[] = [
  'always_correct',
  'always_wrong',
  'monotonic_increasing',
  'monotonic_decreasing',
  'oscillating',
];

/** Index in {@link TRAJECTORY_CLASSES} of a complete 0/1 sequence's class (§3): switches counted along config order. */
function classIndex(y: ArrayLike<number>, length: number): number {
  let switches = 0;
  for (let j = 1; j < length; j++) if (y[j] !== y[j - 1]) switches++;
  if (switches === 0) return y[0] === 1 ? 0 : 1;
  if (switches === 1) return y[0] === 0 ? 2 : 3;
  return 4;
}

/** Class of a complete 0/1 sequence (§3): switches counted along config order. */
export function classifyTrajectory(y: ArrayLike<number>, length = y.length): TrajectoryClass {
  return TRAJECTORY_CLASSES[classIndex(y, length)]!;
}

/**
 * The trajectories of a matrix as typed arrays, one entry per row (no object or pattern string
 * per item): what bulk writers such as the release's derived.csv need, at a fraction of the
 * cost of {@link trajectories} on ~25k rows (issue #2 §7b export budget).
 */
export interface TrajectoryColumns {
  /** Grid config keys in grid order: `best` indexes this list. */
  keys: string[];
  /** Matched-grid keys in their config order, null when not applicable: `matchedBest` indexes it. */
  matchedKeys: string[] | null;
  complete: Uint8Array;
  /** Index into TRAJECTORY_CLASSES; −1 for incomplete rows. */
  trajectoryClass: Int8Array;
  visuallyConfused: Uint8Array;
  textOverwritten: Uint8Array;
  terminalRegression: Uint8Array;
  /** Grid position of the best config: the first correct in config order, else 0. */
  best: Int32Array;
  /** Matched-grid position of the best matched config (likewise), −1 when matchedKeys is null. */
  matchedBest: Int32Array;
}

export function trajectoryColumns(m: ResponseMatrix, opts: TrajectoryOptions = {}): TrajectoryColumns {
  assertKind(m, 'mcqa', 'trajectories');
  const plan = planGrid(m, opts.grid);
  const G = plan.cols.length;
  if (G === 0) throw new Error(`trajectories need at least one config (${m.model} / ${m.split} has none in the grid)`);
  const have = new Set(m.configs.map((c) => c.key));
  const matched =
    opts.matchedGrid && opts.matchedGrid.length > 0 && opts.matchedGrid.every((k) => have.has(k))
      ? planGrid(m, opts.matchedGrid)
      : null;
  const n = m.itemIds.length;
  const out: TrajectoryColumns = {
    keys: plan.keys,
    matchedKeys: matched ? matched.keys : null,
    complete: new Uint8Array(n),
    trajectoryClass: new Int8Array(n),
    visuallyConfused: new Uint8Array(n),
    textOverwritten: new Uint8Array(n),
    terminalRegression: new Uint8Array(n),
    best: new Int32Array(n),
    matchedBest: new Int32Array(n).fill(-1),
  };
  const y = new Int8Array(G);
  const ym = new Int8Array(matched ? matched.cols.length : 0);
  // Locals, not out.*: the loop mostly runs before optimised code exists (cold export).
  const { complete: completeOut, trajectoryClass, visuallyConfused, textOverwritten, terminalRegression, best: bestOut, matchedBest } = out;
  for (let i = 0; i < n; i++) {
    loadRow(m, plan, i, y);
    let complete = true;
    let best = -1;
    for (let j = 0; j < G; j++) {
      const v = y[j]!;
      if (v === -1) complete = false;
      else if (v === 1 && best < 0) best = j;
    }
    if (matched) {
      loadRow(m, matched, i, ym);
      let mb = 0;
      for (let j = 0; j < ym.length; j++) {
        if (ym[j] === 1) {
          mb = j;
          break;
        }
      }
      matchedBest[i] = mb;
    }
    completeOut[i] = complete ? 1 : 0;
    trajectoryClass[i] = complete ? classIndex(y, G) : -1;
    visuallyConfused[i] = anyHarm(y, plan.lowerPairs) ? 1 : 0;
    textOverwritten[i] = isTextOverwritten(y, plan) ? 1 : 0;
    terminalRegression[i] = isTerminalRegression(y, plan) ? 1 : 0;
    bestOut[i] = best < 0 ? 0 : best;
  }
  return out;
}

const PATTERN_CHAR = ['.', '0', '1'] as const;

export function trajectories(m: ResponseMatrix, opts: TrajectoryOptions = {}): Trajectory[] {
  const t = trajectoryColumns(m, opts);
  // The pattern is the one per-row field the columns do not carry (only the UI shows it).
  const plan = planGrid(m, opts.grid);
  const G = plan.cols.length;
  const y = new Int8Array(G);
  const out: Trajectory[] = new Array(m.itemIds.length);
  for (let i = 0; i < m.itemIds.length; i++) {
    loadRow(m, plan, i, y);
    let pattern = '';
    for (let j = 0; j < G; j++) pattern += PATTERN_CHAR[y[j]! + 1];
    const cls = t.trajectoryClass[i]!;
    const mb = t.matchedBest[i]!;
    out[i] = {
      sampleId: m.itemIds[i]!,
      row: i,
      pattern,
      complete: t.complete[i] === 1,
      trajectoryClass: cls < 0 ? null : TRAJECTORY_CLASSES[cls]!,
      isVisuallyConfused: t.visuallyConfused[i] === 1,
      isTextOverwritten: t.textOverwritten[i] === 1,
      terminalRegression: t.terminalRegression[i] === 1,
      bestConfig: t.keys[t.best[i]!]!,
      matchedGridBestConfig: t.matchedKeys === null || mb < 0 ? null : t.matchedKeys[mb]!,
    };
  }
  return out;
}
