/**
 * Item trajectories (metrics.md §3; release-format.md derived.csv): pattern, class, flags and
 * best configs of every item of one (model, split) over its configs in config order.
 *
 * Incomplete rows get a pattern with `.` and no class; their flags are evaluated on the cells
 * they do have (a missing cell never makes or breaks a flag) so the UI can show them, but only
 * `complete` rows count in the metrics and in derived.csv.
 */
import type { ResponseMatrix } from '../domain/types';
import { assertKind, type GridPlan, loadRow, planGrid } from './grid-plan';

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
  /** The grid the columns were evaluated on. */
  plan: GridPlan;
  /** Complete rows correct per grid position (the numerators of the §2 accuracies). */
  correctCounts: Int32Array;
  /**
   * Counts over the complete rows, indexed by {@link TALLY}: what the §2 metrics sum, taken in
   * the same pass so a caller writing both derived.csv and the aggregated numbers (the
   * release export) walks the grid once (mcqa.ts metricsFromTrajectories).
   */
  tallies: Int32Array;
}

/** Positions in {@link TrajectoryColumns.tallies}. */
export const TALLY = {
  complete: 0,
  oracle: 1,
  visuallyConfused: 2,
  visuallyConfusedVisualOnly: 3,
  textOverwritten: 4,
  terminalRegressions: 5,
} as const;

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
    plan,
    correctCounts: new Int32Array(G),
    tallies: new Int32Array(6),
  };
  // One loop with the flag tests of grid-plan.ts (loadRow, anyHarm, isTextOverwritten,
  // isTerminalRegression) and classifyTrajectory written inline over locals: the release
  // export calls this cold on ~25k rows, and those rows mostly run before optimised code
  // exists, where a call per flag per row is the main cost. Same definitions (metrics.md §2–3).
  const { complete: completeOut, trajectoryClass, visuallyConfused, textOverwritten, terminalRegression, best: bestOut, matchedBest } = out;
  const { correctCounts, tallies } = out;
  const y = new Int8Array(G);
  const correct = m.correct;
  const C = m.configs.length;
  const cols = plan.cols;
  const lower = plan.lowerPairs;
  const visual = plan.visualPairs;
  const textPos = plan.textPos;
  const visualPos = plan.visualPos;
  const terminalPos = plan.terminalPos;
  const below = plan.belowTerminal;
  const matchedCols = matched ? matched.cols : null;
  for (let i = 0; i < n; i++) {
    const base = i * C;
    let complete = true;
    let best = -1;
    let switches = 0;
    for (let j = 0; j < G; j++) {
      const v = correct[base + cols[j]!]!;
      y[j] = v;
      if (v === -1) complete = false;
      else if (v === 1 && best < 0) best = j;
      if (j > 0 && v !== y[j - 1]) switches++;
    }
    if (matchedCols !== null) {
      let mb = 0;
      for (let j = 0; j < matchedCols.length; j++) {
        if (correct[base + matchedCols[j]!] === 1) {
          mb = j;
          break;
        }
      }
      matchedBest[i] = mb;
    }
    completeOut[i] = complete ? 1 : 0;
    // classifyTrajectory (switches along config order), for complete rows only.
    trajectoryClass[i] = !complete ? -1 : switches === 0 ? (y[0] === 1 ? 0 : 1) : switches === 1 ? (y[0] === 0 ? 2 : 3) : 4;
    // anyHarm over the dominance pairs: some a ≺ b with y(a) = 1 and y(b) = 0.
    let harm = 0;
    for (let p = 0; p < lower.length; p += 2) {
      if (y[lower[p]!] === 1 && y[lower[p + 1]!] === 0) {
        harm = 1;
        break;
      }
    }
    visuallyConfused[i] = harm;
    // isTextOverwritten: y(text) = 1 and some visual config wrong.
    let over = 0;
    if (textPos >= 0 && y[textPos] === 1) {
      for (let j = 0; j < visualPos.length; j++) {
        if (y[visualPos[j]!] === 0) {
          over = 1;
          break;
        }
      }
    }
    textOverwritten[i] = over;
    // isTerminalRegression: y(terminal) = 0 and some c ≺ terminal correct.
    let regression = 0;
    if (terminalPos >= 0 && y[terminalPos] === 0) {
      for (let j = 0; j < below.length; j++) {
        if (y[below[j]!] === 1) {
          regression = 1;
          break;
        }
      }
    }
    terminalRegression[i] = regression;
    bestOut[i] = best < 0 ? 0 : best;
    if (complete) {
      // The §2 counts (mcqa.ts gridFlags' definitions): y is all 0/1 here, so y[j] is the count.
      for (let j = 0; j < G; j++) correctCounts[j] = correctCounts[j]! + y[j]!;
      tallies[0] = tallies[0]! + 1;
      if (best >= 0) tallies[1] = tallies[1]! + 1;
      if (harm) {
        tallies[2] = tallies[2]! + 1;
        // visual confusion among visual configs only (the visual pairs are a subset of the lower ones).
        for (let p = 0; p < visual.length; p += 2) {
          if (y[visual[p]!] === 1 && y[visual[p + 1]!] === 0) {
            tallies[3] = tallies[3]! + 1;
            break;
          }
        }
      }
      tallies[4] = tallies[4]! + over;
      tallies[5] = tallies[5]! + regression;
    }
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
