/**
 * Open-ended (continuous) metrics (docs/metrics.md §4) over scores s(i, c) ∈ [0, 1]. An MCQA matrix
 * is accepted too (s = correct as 0/1), which makes these the continuous twins of §2.
 */
import type { ResponseMatrix } from '../domain/types';
import { planGrid } from './grid-plan';
import { completeRowsOfColumns } from './matrix';
import { transitionPairs } from './mcqa';

export interface OpenTransition {
  from: string;
  to: string;
  /** s(b) > s(a) + ε. */
  improved: number;
  /** s(b) < s(a) − ε. */
  regressed: number;
  /** 100 × (mean[b] − mean[a]). */
  netPts: number;
}

export interface OpenMetrics {
  n: number;
  nExcluded: number;
  configs: string[];
  eps: number;
  mean: Record<string, number>;
  bestFixed: string | null;
  oracleMean: number;
  oracleGapPts: number;
  /** Share of items with some a ≺ b and s(b) < s(a) − ε. */
  regressionRate: number;
  transitions: OpenTransition[];
}

export function openMetrics(m: ResponseMatrix, grid?: readonly string[] | null, eps = 0.05): OpenMetrics {
  if (!(eps >= 0)) throw new Error(`ε must be a number ≥ 0 (got ${eps})`);
  const plan = planGrid(m, grid);
  const { rows, nExcluded } = completeRowsOfColumns(m, plan.cols);
  const G = plan.cols.length;
  const C = m.configs.length;
  const N = rows.length;
  const isMcqa = m.kind === 'mcqa';
  const s = new Float64Array(G);
  const sums = new Float64Array(G);
  let oracleSum = 0;
  let regressions = 0;
  const pairs = transitionPairs(plan);
  const improved = new Int32Array(pairs.length);
  const regressed = new Int32Array(pairs.length);
  const lp = plan.lowerPairs;
  for (let r = 0; r < N; r++) {
    const base = rows[r]! * C;
    let mx = -Infinity;
    for (let j = 0; j < G; j++) {
      const k = base + plan.cols[j]!;
      const v = isMcqa ? m.correct[k]! : m.score[k]!;
      s[j] = v;
      sums[j]! += v;
      if (v > mx) mx = v;
    }
    oracleSum += mx;
    for (let p = 0; p < lp.length; p += 2) {
      if (s[lp[p + 1]!]! < s[lp[p]!]! - eps) {
        regressions++;
        break;
      }
    }
    for (let t = 0; t < pairs.length; t++) {
      const [a, b] = pairs[t]!;
      if (s[b]! > s[a]! + eps) improved[t]!++;
      else if (s[b]! < s[a]! - eps) regressed[t]!++;
    }
  }
  const mean: Record<string, number> = {};
  let best = -1;
  for (let j = 0; j < G; j++) {
    mean[plan.keys[j]!] = sums[j]! / N;
    if (best < 0 || sums[j]! > sums[best]!) best = j;
  }
  const oracleMean = oracleSum / N;
  return {
    n: N,
    nExcluded,
    // The plan is this call's own: its key list needs no copy.
    configs: plan.keys,
    eps,
    mean,
    bestFixed: best >= 0 ? plan.keys[best]! : null,
    oracleMean,
    oracleGapPts: best >= 0 ? 100 * (oracleMean - sums[best]! / N) : Number.NaN,
    regressionRate: regressions / N,
    transitions: pairs.map(([a, b], t) => ({
      from: plan.keys[a]!,
      to: plan.keys[b]!,
      improved: improved[t]!,
      regressed: regressed[t]!,
      netPts: (100 * (sums[b]! - sums[a]!)) / N,
    })),
  };
}
