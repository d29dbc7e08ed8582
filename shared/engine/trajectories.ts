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

/** Class of a complete 0/1 sequence (§3): switches counted along config order. */
export function classifyTrajectory(y: ArrayLike<number>, length = y.length): TrajectoryClass {
  let switches = 0;
  for (let j = 1; j < length; j++) if (y[j] !== y[j - 1]) switches++;
  if (switches === 0) return y[0] === 1 ? 'always_correct' : 'always_wrong';
  if (switches === 1) return y[0] === 0 ? 'monotonic_increasing' : 'monotonic_decreasing';
  return 'oscillating';
}

const PATTERN_CHAR = ['.', '0', '1'] as const;

export function trajectories(m: ResponseMatrix, opts: TrajectoryOptions = {}): Trajectory[] {
  assertKind(m, 'mcqa', 'trajectories');
  const plan = planGrid(m, opts.grid);
  const G = plan.cols.length;
  if (G === 0) throw new Error(`trajectories need at least one config (${m.model} / ${m.split} has none in the grid)`);
  const have = new Set(m.configs.map((c) => c.key));
  const matched =
    opts.matchedGrid && opts.matchedGrid.length > 0 && opts.matchedGrid.every((k) => have.has(k))
      ? planGrid(m, opts.matchedGrid)
      : null;
  const y = new Int8Array(G);
  const ym = new Int8Array(matched ? matched.cols.length : 0);
  const out: Trajectory[] = new Array(m.itemIds.length);
  for (let i = 0; i < m.itemIds.length; i++) {
    loadRow(m, plan, i, y);
    let pattern = '';
    let complete = true;
    let best = -1;
    for (let j = 0; j < G; j++) {
      const v = y[j]!;
      pattern += PATTERN_CHAR[v + 1];
      if (v === -1) complete = false;
      else if (v === 1 && best < 0) best = j;
    }
    let matchedBest: string | null = null;
    if (matched) {
      loadRow(m, matched, i, ym);
      let mb = 0;
      for (let j = 0; j < ym.length; j++) {
        if (ym[j] === 1) {
          mb = j;
          break;
        }
      }
      matchedBest = matched.keys[mb]!;
    }
    out[i] = {
      sampleId: m.itemIds[i]!,
      row: i,
      pattern,
      complete,
      trajectoryClass: complete ? classifyTrajectory(y, G) : null,
      isVisuallyConfused: anyHarm(y, plan.lowerPairs),
      isTextOverwritten: isTextOverwritten(y, plan),
      terminalRegression: isTerminalRegression(y, plan),
      bestConfig: plan.keys[best < 0 ? 0 : best]!,
      matchedGridBestConfig: matchedBest,
    };
  }
  return out;
}
