/**
 * Item trajectories of a continuous (open-ended) grid, docs/metrics.md §4: per item its step
 * pattern along config order (`+`, `−`, `=`, `.`), its trajectory class, whether it regresses
 * with budget (some a ≺ b with s(b) < s(a) − ε, the items behind `regression_rate`), whether it
 * is a terminal regression (s(terminal) < max_c s − ε), its best config, and the transitions
 * (§2's list) on which it improved or regressed by more than ε: the continuous twins of §3's
 * pattern, class, confusion flag and rescued/harmed lists.
 *
 * Incomplete rows get `.` steps and no class; their flags and transitions are evaluated on the
 * cells they have (a missing cell never makes or breaks one), as §3 does for MCQA rows, and only
 * complete rows count in `tallies`.
 */
import type { ResponseMatrix } from '../domain/types';
import { type GridPlan, planGrid } from './grid-plan';
import { transitionPairs } from './mcqa';

export const CONTINUOUS_CLASSES = ['flat', 'monotonic_increasing', 'monotonic_decreasing', 'oscillating'] as const;
export type ContinuousClass = (typeof CONTINUOUS_CLASSES)[number];

/** The step characters of a continuous pattern (docs/metrics.md §4); `−` is U+2212. */
export const STEP_UP = '+';
export const STEP_DOWN = '\u2212';
export const STEP_SAME = '=';
export const STEP_MISSING = '.';

/** The default ε of §4. */
export const DEFAULT_EPS = 0.05;

export type ScoreMatrix = Pick<ResponseMatrix, 'model' | 'split' | 'kind' | 'itemIds' | 'configs' | 'score'>;

export interface ContinuousTrajectory {
  sampleId: string;
  row: number;
  /** One step per config after the first, in config order. */
  pattern: string;
  /** The first config's score (shown beside the pattern, not coded); null when missing. */
  first: number | null;
  complete: boolean;
  trajectoryClass: ContinuousClass | null;
  /** Some a ≺ b with s(b) < s(a) − ε. */
  regressed: boolean;
  terminalRegression: boolean;
  /** The first config reaching the item's best score; null when the row has no score. */
  bestConfig: string | null;
  /** Transitions `a>b` with s(b) > s(a) + ε / s(b) < s(a) − ε. */
  improvedOn: string[];
  regressedOn: string[];
}

export interface ContinuousResult {
  plan: GridPlan;
  eps: number;
  terminalConfig: string | null;
  rows: ContinuousTrajectory[];
  /** Over complete rows: how many, how many regress, how many are terminal regressions, per class. */
  tallies: { complete: number; regressed: number; terminalRegressions: number; classes: Record<ContinuousClass, number> };
}

export function checkEps(eps: number): void {
  if (!(eps >= 0) || !Number.isFinite(eps)) throw new Error(`ε must be a finite number ≥ 0 (got ${eps})`);
}

/** The class of a complete row's steps (`=` steps ignored). */
export function continuousClass(pattern: string): ContinuousClass {
  const up = pattern.includes(STEP_UP);
  const down = pattern.includes(STEP_DOWN);
  return up && down ? 'oscillating' : up ? 'monotonic_increasing' : down ? 'monotonic_decreasing' : 'flat';
}

export function continuousTrajectories(m: ScoreMatrix, opts: { grid?: readonly string[] | null; eps?: number } = {}): ContinuousResult {
  const eps = opts.eps ?? DEFAULT_EPS;
  checkEps(eps);
  const plan = planGrid({ ...m, correct: new Int8Array(0) }, opts.grid);
  const G = plan.cols.length;
  const C = m.configs.length;
  const pairs = transitionPairs(plan);
  const names = pairs.map(([a, b]) => `${plan.keys[a]}>${plan.keys[b]}`);
  const lp = plan.lowerPairs;
  const T = plan.terminalPos;
  const s = new Float64Array(G);
  const classes: Record<ContinuousClass, number> = { flat: 0, monotonic_increasing: 0, monotonic_decreasing: 0, oscillating: 0 };
  const tallies = { complete: 0, regressed: 0, terminalRegressions: 0, classes };
  const rows: ContinuousTrajectory[] = [];
  for (let r = 0; r < m.itemIds.length; r++) {
    let complete = true;
    let max = -Infinity;
    let best = -1;
    for (let j = 0; j < G; j++) {
      const v = m.score[r * C + plan.cols[j]!]!;
      s[j] = v;
      if (Number.isNaN(v)) complete = false;
      else if (v > max) {
        max = v;
        best = j;
      }
    }
    let pattern = '';
    for (let j = 1; j < G; j++) {
      const a = s[j - 1]!;
      const b = s[j]!;
      pattern += Number.isNaN(a) || Number.isNaN(b) ? STEP_MISSING : b > a + eps ? STEP_UP : b < a - eps ? STEP_DOWN : STEP_SAME;
    }
    let regressed = false;
    for (let p = 0; p < lp.length && !regressed; p += 2) {
      // NaN compares false: a missing cell never makes a regression.
      if (s[lp[p + 1]!]! < s[lp[p]!]! - eps) regressed = true;
    }
    const terminalRegression = T >= 0 && s[T]! < max - eps;
    const improvedOn: string[] = [];
    const regressedOn: string[] = [];
    for (let t = 0; t < pairs.length; t++) {
      const [a, b] = pairs[t]!;
      if (s[b]! > s[a]! + eps) improvedOn.push(names[t]!);
      else if (s[b]! < s[a]! - eps) regressedOn.push(names[t]!);
    }
    const cls = complete && G > 0 ? continuousClass(pattern) : null;
    if (complete && G > 0) {
      tallies.complete++;
      if (regressed) tallies.regressed++;
      if (terminalRegression) tallies.terminalRegressions++;
      classes[cls!]++;
    }
    rows.push({
      sampleId: m.itemIds[r]!,
      row: r,
      pattern,
      first: G > 0 && !Number.isNaN(s[0]!) ? s[0]! : null,
      complete: complete && G > 0,
      trajectoryClass: cls,
      regressed,
      terminalRegression,
      bestConfig: best >= 0 ? plan.keys[best]! : null,
      improvedOn,
      regressedOn,
    });
  }
  return { plan, eps, terminalConfig: T >= 0 ? plan.keys[T]! : null, rows, tallies };
}
