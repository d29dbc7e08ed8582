/**
 * MCQA metrics over a grid (docs/metrics.md §2): accuracy, best fixed config, oracle and headroom,
 * visual confusion (dominance), text overwrite, terminal regression, transitions with exact
 * McNemar, pairwise wins. Items are the rows complete on the grid; the rest are `nExcluded`.
 * With N = 0 every rate is NaN (there is nothing to average).
 */
import type { ResponseMatrix } from '../domain/types';
import { ladder } from './config';
import { assertKind, loadRow, planGrid, type GridPlan } from './grid-plan';
import { completeRowsOfColumns } from './matrix';
import { mcnemarExact } from './mcnemar';
import { TALLY, type TrajectoryColumns } from './trajectories';

export { mcnemarExact } from './mcnemar';

export interface McqaMetrics {
  n: number;
  nExcluded: number;
  /** The grid's configs in config order. */
  configs: string[];
  /** Fraction correct per config. */
  accuracy: Record<string, number>;
  /** Items correct per config (the numerators of `accuracy`). */
  correctCounts: Record<string, number>;
  /** Highest accuracy; ties → earliest in config order. null for an empty grid. */
  bestFixed: string | null;
  oracleAccuracy: number;
  oracleHeadroomPts: number;
  visualConfusionRate: number;
  visualConfusionRateVisualOnly: number;
  /** null when text ∉ G. */
  textOverwriteRate: number | null;
  /** null when text ∉ G or no item is correct in text only. */
  textOverwriteRateOfTextCorrect: number | null;
  terminalConfig: string | null;
  terminalRegressionRate: number;
  /** Raw counts behind the rates. */
  counts: {
    oracle: number;
    visuallyConfused: number;
    visuallyConfusedVisualOnly: number;
    textOverwritten: number;
    textCorrect: number;
    terminalRegressions: number;
  };
}

/** Per-row flags of a grid (one byte per complete row, aligned with `rows`). */
export interface GridFlags {
  plan: GridPlan;
  rows: Int32Array;
  nExcluded: number;
  /** Correct counts per grid position. */
  correctCounts: Int32Array;
  oracle: Uint8Array;
  confused: Uint8Array;
  confusedVisualOnly: Uint8Array;
  textOverwritten: Uint8Array;
  terminalRegression: Uint8Array;
}

/** Evaluates every per-item flag of §2 on the complete rows of a grid in one pass. */
export function gridFlags(m: ResponseMatrix, grid?: readonly string[] | null): GridFlags {
  assertKind(m, 'mcqa', 'MCQA metrics');
  const plan = planGrid(m, grid);
  const { rows, nExcluded } = completeRowsOfColumns(m, plan.cols);
  const G = plan.cols.length;
  const N = rows.length;
  const y = new Int8Array(G);
  const correctCounts = new Int32Array(G);
  const oracle = new Uint8Array(N);
  const confused = new Uint8Array(N);
  const confusedVisualOnly = new Uint8Array(N);
  const textOverwritten = new Uint8Array(N);
  const terminalRegression = new Uint8Array(N);
  // The result is built before the loop: code after a hot loop that never ran has no type
  // feedback, and the loop's on-stack-replaced code would deoptimise there on every call.
  const out: GridFlags = { plan, rows, nExcluded, correctCounts, oracle, confused, confusedVisualOnly, textOverwritten, terminalRegression };
  // The grid-plan flag tests (loadRow, anyHarm, isTextOverwritten, isTerminalRegression)
  // written inline over locals: the release export calls this cold, where its rows mostly run
  // before optimised code exists and a call per flag per row is the main cost. Same
  // definitions (docs/metrics.md §2; the brute-force dominance test in mcqa.test.ts holds them).
  const correct = m.correct;
  const C = m.configs.length;
  const cols = plan.cols;
  const lower = plan.lowerPairs;
  const visual = plan.visualPairs;
  const textPos = plan.textPos;
  const visualPos = plan.visualPos;
  const terminalPos = plan.terminalPos;
  const below = plan.belowTerminal;
  for (let r = 0; r < N; r++) {
    const base = rows[r]! * C;
    let any = 0;
    for (let j = 0; j < G; j++) {
      const v = correct[base + cols[j]!]!;
      y[j] = v;
      if (v === 1) {
        correctCounts[j] = correctCounts[j]! + 1;
        any = 1;
      }
    }
    oracle[r] = any;
    if (!any) continue;
    let harm = 0;
    for (let p = 0; p < lower.length; p += 2) {
      if (y[lower[p]!] === 1 && y[lower[p + 1]!] === 0) {
        harm = 1;
        break;
      }
    }
    confused[r] = harm;
    let visualHarm = 0;
    if (harm) {
      for (let p = 0; p < visual.length; p += 2) {
        if (y[visual[p]!] === 1 && y[visual[p + 1]!] === 0) {
          visualHarm = 1;
          break;
        }
      }
    }
    confusedVisualOnly[r] = visualHarm;
    let over = 0;
    if (textPos >= 0 && y[textPos] === 1) {
      for (let j = 0; j < visualPos.length; j++) {
        if (y[visualPos[j]!] === 0) {
          over = 1;
          break;
        }
      }
    }
    textOverwritten[r] = over;
    let regression = 0;
    if (terminalPos >= 0 && y[terminalPos] === 0) {
      for (let j = 0; j < below.length; j++) {
        if (y[below[j]!] === 1) {
          regression = 1;
          break;
        }
      }
    }
    terminalRegression[r] = regression;
  }
  return out;
}

function sum(a: Uint8Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s;
}

/** Position of the highest count; ties → earliest. -1 when empty. */
export function argmaxFirst(counts: ArrayLike<number>): number {
  let best = -1;
  for (let j = 0; j < counts.length; j++) if (best < 0 || counts[j]! > counts[best]!) best = j;
  return best;
}

export function mcqaMetrics(m: ResponseMatrix, grid?: readonly string[] | null): McqaMetrics {
  const f = gridFlags(m, grid);
  return metricsFromFlags(f);
}

/** The §2 numbers from precomputed flags (lets callers reuse one pass for several outputs). */
export function metricsFromFlags(f: GridFlags): McqaMetrics {
  return metricsFromCounts(f.plan, f.rows.length, f.nExcluded, f.correctCounts, {
    oracle: sum(f.oracle),
    visuallyConfused: sum(f.confused),
    visuallyConfusedVisualOnly: sum(f.confusedVisualOnly),
    textOverwritten: sum(f.textOverwritten),
    terminalRegressions: sum(f.terminalRegression),
  });
}

/**
 * The §2 numbers from a grid's trajectory columns (trajectories.ts counts the complete rows in
 * the pass that classifies them): the release export writes derived.csv and the aggregated
 * JSON of a grid from one walk over its cells. Equal to {@link mcqaMetrics} on the same grid.
 */
export function metricsFromTrajectories(t: TrajectoryColumns): McqaMetrics {
  const n = t.tallies[TALLY.complete]!;
  return metricsFromCounts(t.plan, n, t.complete.length - n, t.correctCounts, {
    oracle: t.tallies[TALLY.oracle]!,
    visuallyConfused: t.tallies[TALLY.visuallyConfused]!,
    visuallyConfusedVisualOnly: t.tallies[TALLY.visuallyConfusedVisualOnly]!,
    textOverwritten: t.tallies[TALLY.textOverwritten]!,
    terminalRegressions: t.tallies[TALLY.terminalRegressions]!,
  });
}

type FlagCounts = Omit<McqaMetrics['counts'], 'textCorrect'>;

function metricsFromCounts(plan: GridPlan, N: number, nExcluded: number, counts: Int32Array, c: FlagCounts): McqaMetrics {
  const accuracy: Record<string, number> = {};
  const correctCounts: Record<string, number> = {};
  plan.keys.forEach((k, j) => {
    accuracy[k] = counts[j]! / N;
    correctCounts[k] = counts[j]!;
  });
  const best = argmaxFirst(counts);
  const oracleCount = c.oracle;
  const confused = c.visuallyConfused;
  const confusedVisual = c.visuallyConfusedVisualOnly;
  const overwritten = c.textOverwritten;
  const termReg = c.terminalRegressions;
  const textCorrect = plan.textPos >= 0 ? counts[plan.textPos]! : 0;
  const bestCount = best >= 0 ? counts[best]! : 0;
  return {
    n: N,
    nExcluded,
    configs: plan.keys.slice(),
    accuracy,
    correctCounts,
    bestFixed: best >= 0 ? plan.keys[best]! : null,
    oracleAccuracy: oracleCount / N,
    // From counts, not from two rounded accuracies: 100 × (oracle − best) / N.
    oracleHeadroomPts: (100 * (oracleCount - bestCount)) / N,
    visualConfusionRate: confused / N,
    visualConfusionRateVisualOnly: confusedVisual / N,
    textOverwriteRate: plan.textPos >= 0 ? overwritten / N : null,
    // textCorrect is 0 when text ∉ G, so this is null then too.
    textOverwriteRateOfTextCorrect: textCorrect > 0 ? overwritten / textCorrect : null,
    terminalConfig: plan.terminalPos >= 0 ? plan.keys[plan.terminalPos]! : null,
    terminalRegressionRate: termReg / N,
    counts: {
      oracle: oracleCount,
      visuallyConfused: confused,
      visuallyConfusedVisualOnly: confusedVisual,
      textOverwritten: overwritten,
      textCorrect,
      terminalRegressions: termReg,
    },
  };
}

export interface Transition {
  from: string;
  to: string;
  rescued: number;
  harmed: number;
  churn: number;
  churnRate: number;
  netPts: number;
  mcnemarP: number;
}

/**
 * The ordered pairs §2 lists: each adjacent pair of the grid's budget ladder (text first), then
 * `text → c` for every other visual c in config order not already listed. Without text only the
 * ladder pairs are listed.
 */
export function transitionPairs(plan: GridPlan): [number, number][] {
  const rungs = ladder(plan.specs).map((c) => plan.specs.indexOf(c));
  const out: [number, number][] = [];
  const seen = new Set<string>();
  for (let i = 0; i + 1 < rungs.length; i++) {
    out.push([rungs[i]!, rungs[i + 1]!]);
    seen.add(`${rungs[i]}>${rungs[i + 1]}`);
  }
  if (plan.textPos >= 0) {
    for (let j = 0; j < plan.specs.length; j++) {
      if (plan.specs[j]!.frames === 0) continue;
      if (seen.has(`${plan.textPos}>${j}`)) continue;
      out.push([plan.textPos, j]);
    }
  }
  return out;
}

/**
 * One item's harmed (right at a, wrong at b) and rescued (wrong at a, right at b) transitions
 * among `pairs` (transitionPairs), named `a>b`; `y` holds its outcomes in the plan's config
 * order (1 right, 0 wrong, −1 missing).
 */
export function itemTransitions(plan: GridPlan, pairs: readonly [number, number][], y: ArrayLike<number>): { harmed: string[]; rescued: string[] } {
  const harmed: string[] = [];
  const rescued: string[] = [];
  for (const [a, b] of pairs) {
    if (y[a] === 1 && y[b] === 0) harmed.push(`${plan.keys[a]}>${plan.keys[b]}`);
    else if (y[a] === 0 && y[b] === 1) rescued.push(`${plan.keys[a]}>${plan.keys[b]}`);
  }
  return { harmed, rescued };
}

export function transitions(m: ResponseMatrix, grid?: readonly string[] | null): Transition[] {
  assertKind(m, 'mcqa', 'transitions');
  const plan = planGrid(m, grid);
  const { rows } = completeRowsOfColumns(m, plan.cols);
  const N = rows.length;
  const C = m.configs.length;
  return transitionPairs(plan).map(([a, b]) => {
    const ca = plan.cols[a]!;
    const cb = plan.cols[b]!;
    let rescued = 0;
    let harmed = 0;
    for (let r = 0; r < N; r++) {
      const base = rows[r]! * C;
      const ya = m.correct[base + ca]!;
      const yb = m.correct[base + cb]!;
      if (ya === 0 && yb === 1) rescued++;
      else if (ya === 1 && yb === 0) harmed++;
    }
    const churn = rescued + harmed;
    return {
      from: plan.keys[a]!,
      to: plan.keys[b]!,
      rescued,
      harmed,
      churn,
      churnRate: churn / N,
      netPts: (100 * (rescued - harmed)) / N,
      mcnemarP: mcnemarExact(rescued, harmed),
    };
  });
}

export interface PairwiseWins {
  configs: string[];
  n: number;
  /** wins[a][b] = items correct under a and wrong under b (grid positions, config order). */
  wins: number[][];
}

export function pairwiseWins(m: ResponseMatrix, grid?: readonly string[] | null): PairwiseWins {
  assertKind(m, 'mcqa', 'pairwise wins');
  const plan = planGrid(m, grid);
  const { rows } = completeRowsOfColumns(m, plan.cols);
  const G = plan.cols.length;
  const counts = new Int32Array(G * G);
  const y = new Int8Array(G);
  for (let r = 0; r < rows.length; r++) {
    loadRow(m, plan, rows[r]!, y);
    for (let a = 0; a < G; a++) {
      if (y[a] !== 1) continue;
      for (let b = 0; b < G; b++) if (y[b] === 0) counts[a * G + b]!++;
    }
  }
  const wins: number[][] = [];
  for (let a = 0; a < G; a++) wins.push(Array.from(counts.subarray(a * G, (a + 1) * G)));
  // The plan is this call's own: its key list needs no copy.
  return { configs: plan.keys, n: rows.length, wins };
}
