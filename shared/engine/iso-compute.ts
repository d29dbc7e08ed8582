/**
 * Iso-compute comparisons and sampling interventions (docs/metrics.md §6). Iso-compute pairs are never
 * an ordering (they are not confusion); here they are compared item by item instead.
 */
import type { ConfigSpec, ResponseMatrix } from '../domain/types';
import { compareCodePoints, terminalConfig, isLowerBudget } from './config';
import { assertKind, loadRow, planGrid } from './grid-plan';
import { gridFlags, argmaxFirst } from './mcqa';
import { completeRowsOfColumns, configIndex } from './matrix';

/** Relative tolerance of "the same compute": |x − y| ≤ 5% of the smaller. */
export const ISO_COMPUTE_TOLERANCE = 0.05;

export interface IsoPair {
  a: string;
  b: string;
  onlyA: number;
  onlyB: number;
  both: number;
  neither: number;
}

export interface IsoGroup {
  /** Members in the grid's config order. */
  configs: string[];
  /** frames × ppf of each member. */
  compute: number[];
  bestConfig: string;
  bestAccuracy: number;
  oracleAccuracy: number;
  oracleHeadroomPts: number;
  /** Every pair of members with different frame counts, a before b in config order. */
  pairs: IsoPair[];
}

export interface IsoComputeResult {
  n: number;
  nExcluded: number;
  groups: IsoGroup[];
}

function withinTolerance(x: number, y: number): boolean {
  return Math.abs(x - y) <= ISO_COMPUTE_TOLERANCE * Math.min(x, y);
}

/**
 * Groups of visual configs with known ppf whose frames × ppf are within ±5% of each other and that
 * differ in frames. Grouping is greedy along ascending compute: a group starts at the cheapest
 * ungrouped config and takes every later config within 5% of that anchor — so every member is
 * within tolerance of the anchor and chains cannot drift. Groups whose members all share one
 * frame count are dropped. Items: rows complete on the whole grid.
 */
export function isoComputeGroups(m: ResponseMatrix, grid?: readonly string[] | null): IsoComputeResult {
  assertKind(m, 'mcqa', 'iso-compute groups');
  const plan = planGrid(m, grid);
  const { rows, nExcluded } = completeRowsOfColumns(m, plan.cols);
  const candidates = plan.specs
    .map((c, pos) => ({ c, pos, compute: c.frames * (c.pixelCount ?? Number.NaN) }))
    .filter((x) => x.c.frames > 0 && x.c.pixelCount !== null && x.c.pixelCount > 0)
    .sort((x, y) => x.compute - y.compute || x.pos - y.pos);
  const groupsPos: number[][] = [];
  let i = 0;
  while (i < candidates.length) {
    const anchor = candidates[i]!;
    const members = [anchor];
    let j = i + 1;
    while (j < candidates.length && withinTolerance(anchor.compute, candidates[j]!.compute)) members.push(candidates[j++]!);
    i = j;
    if (new Set(members.map((x) => x.c.frames)).size < 2) continue;
    groupsPos.push(members.map((x) => x.pos).sort((a, b) => a - b));
  }
  const G = plan.cols.length;
  const y = new Int8Array(G);
  const N = rows.length;
  const groups: IsoGroup[] = groupsPos.map((pos) => {
    const k = pos.length;
    const correct = new Int32Array(k);
    const pairIdx: [number, number][] = [];
    for (let a = 0; a < k; a++) {
      for (let b = a + 1; b < k; b++) if (plan.specs[pos[a]!]!.frames !== plan.specs[pos[b]!]!.frames) pairIdx.push([a, b]);
    }
    const tab = new Int32Array(pairIdx.length * 4);
    let oracle = 0;
    for (let r = 0; r < N; r++) {
      loadRow(m, plan, rows[r]!, y);
      let any = false;
      for (let a = 0; a < k; a++) {
        if (y[pos[a]!] === 1) {
          correct[a]!++;
          any = true;
        }
      }
      if (any) oracle++;
      for (let p = 0; p < pairIdx.length; p++) {
        const [a, b] = pairIdx[p]!;
        const ya = y[pos[a]!] === 1 ? 1 : 0;
        const yb = y[pos[b]!] === 1 ? 1 : 0;
        tab[p * 4 + (ya ? (yb ? 2 : 0) : yb ? 1 : 3)]!++;
      }
    }
    const best = argmaxFirst(correct);
    return {
      configs: pos.map((p) => plan.keys[p]!),
      compute: pos.map((p) => plan.specs[p]!.frames * (plan.specs[p]!.pixelCount ?? 0)),
      bestConfig: plan.keys[pos[best]!]!,
      bestAccuracy: correct[best]! / N,
      oracleAccuracy: oracle / N,
      oracleHeadroomPts: (100 * (oracle - correct[best]!)) / N,
      pairs: pairIdx.map(([a, b], p) => ({
        a: plan.keys[pos[a]!]!,
        b: plan.keys[pos[b]!]!,
        onlyA: tab[p * 4]!,
        onlyB: tab[p * 4 + 1]!,
        both: tab[p * 4 + 2]!,
        neither: tab[p * 4 + 3]!,
      })),
    };
  });
  return { n: N, nExcluded, groups };
}

export interface SamplingRecoveryEntry {
  policy: string;
  /** The terminal config of this policy's grid (its configs plus text only). */
  terminalConfig: string;
  /** Configs with the terminal's frames and ppf under another policy. */
  alternatives: string[];
  /** Items complete on this policy's grid and the alternatives. */
  n: number;
  regressions: number;
  recovered: number;
  /** recovered / regressions; null when there is no alternative or no regression. */
  recoveryRate: number | null;
}

export interface SamplingRecoveryOptions {
  /** The policy name of a config (default: its sampling policy, `default` when unset). */
  policyOf?: (c: ConfigSpec) => string;
}

/**
 * For each sampling policy p0: terminal regressions on p0's grid (p0's visual configs plus text
 * only, which has no policy) and the share of them correct under at least one config with the
 * terminal's frames and ppf but another policy.
 */
export function samplingRecovery(m: ResponseMatrix, opts: SamplingRecoveryOptions = {}): SamplingRecoveryEntry[] {
  assertKind(m, 'mcqa', 'sampling recovery');
  const policyOf = opts.policyOf ?? ((c: ConfigSpec) => c.sampling.policy ?? 'default');
  const text = m.configs.filter((c) => c.frames === 0);
  const byPolicy = new Map<string, ConfigSpec[]>();
  for (const c of m.configs) {
    if (c.frames === 0) continue;
    const p = policyOf(c);
    const l = byPolicy.get(p);
    if (l) l.push(c);
    else byPolicy.set(p, [c]);
  }
  const out: SamplingRecoveryEntry[] = [];
  for (const policy of [...byPolicy.keys()].sort(compareCodePoints)) {
    const own = byPolicy.get(policy)!;
    const term = terminalConfig(own)!;
    const alternatives = m.configs.filter(
      (c) => c.frames > 0 && policyOf(c) !== policy && c.frames === term.frames && c.pixelCount === term.pixelCount,
    );
    const grid = [...text, ...own].map((c) => c.key);
    const f = gridFlags(m, grid);
    // The §2 terminal of the policy grid is `term` (text never wins when a visual config exists).
    const altCols = Int32Array.from(alternatives.map((c) => configIndex(m, c.key)));
    const C = m.configs.length;
    let n = 0;
    let regressions = 0;
    let recovered = 0;
    for (let r = 0; r < f.rows.length; r++) {
      const base = f.rows[r]! * C;
      let complete = true;
      let altCorrect = false;
      for (let a = 0; a < altCols.length; a++) {
        const v = m.correct[base + altCols[a]!]!;
        if (v === -1) complete = false;
        else if (v === 1) altCorrect = true;
      }
      if (!complete) continue;
      n++;
      if (f.terminalRegression[r]) {
        regressions++;
        if (altCorrect) recovered++;
      }
    }
    out.push({
      policy,
      terminalConfig: term.key,
      alternatives: alternatives.map((c) => c.key),
      n,
      regressions,
      recovered,
      recoveryRate: alternatives.length > 0 && regressions > 0 ? recovered / regressions : null,
    });
  }
  return out;
}

export interface ProtocolSide {
  model: string;
  split: string;
  configs: string[];
  n: number;
  visualConfusionRate: number;
  terminalRegressionRate: number;
}

export interface ProtocolAgreement {
  a: ProtocolSide;
  b: ProtocolSide;
  /** Items complete in both grids: the Jaccard overlaps are taken over these. */
  nCommon: number;
  confused: { onlyA: number; onlyB: number; both: number; jaccard: number | null };
  terminalRegression: { onlyA: number; onlyB: number; both: number; jaccard: number | null };
}

/**
 * Two grids of one model and split that differ only in pipeline or sampling policy: each one's
 * rates (on its own complete items) and the Jaccard overlap of their confused-item and
 * terminal-regression sets (on the items complete in both, so exclusions do not pose as moves).
 */
export function protocolAgreement(m1: ResponseMatrix, m2: ResponseMatrix): ProtocolAgreement {
  if (m1.split !== m2.split) {
    throw new Error(`protocol agreement compares one split; got ${m1.split} and ${m2.split} (sample ids only match within a split)`);
  }
  const f1 = gridFlags(m1);
  const f2 = gridFlags(m2);
  const idx2 = new Map<string, number>();
  f2.rows.forEach((row, r) => idx2.set(m2.itemIds[row]!, r));
  const conf = { onlyA: 0, onlyB: 0, both: 0 };
  const term = { onlyA: 0, onlyB: 0, both: 0 };
  let nCommon = 0;
  for (let r = 0; r < f1.rows.length; r++) {
    const r2 = idx2.get(m1.itemIds[f1.rows[r]!]!);
    if (r2 === undefined) continue;
    nCommon++;
    tally(conf, f1.confused[r]!, f2.confused[r2]!);
    tally(term, f1.terminalRegression[r]!, f2.terminalRegression[r2]!);
  }
  const side = (m: ResponseMatrix, f: ReturnType<typeof gridFlags>): ProtocolSide => {
    let c = 0;
    let t = 0;
    for (let r = 0; r < f.rows.length; r++) {
      c += f.confused[r]!;
      t += f.terminalRegression[r]!;
    }
    return {
      model: m.model,
      split: m.split,
      configs: f.plan.keys.slice(),
      n: f.rows.length,
      visualConfusionRate: c / f.rows.length,
      terminalRegressionRate: t / f.rows.length,
    };
  };
  return {
    a: side(m1, f1),
    b: side(m2, f2),
    nCommon,
    confused: { ...conf, jaccard: jaccard(conf) },
    terminalRegression: { ...term, jaccard: jaccard(term) },
  };
}

function tally(t: { onlyA: number; onlyB: number; both: number }, a: number, b: number): void {
  if (a && b) t.both++;
  else if (a) t.onlyA++;
  else if (b) t.onlyB++;
}

function jaccard(t: { onlyA: number; onlyB: number; both: number }): number | null {
  const union = t.onlyA + t.onlyB + t.both;
  return union === 0 ? null : t.both / union;
}

/** Whether two configs form an iso-compute pair (same compute within 5%, different frames). */
export function isIsoComputePair(a: ConfigSpec, b: ConfigSpec): boolean {
  if (a.frames === 0 || b.frames === 0 || a.frames === b.frames) return false;
  if (a.pixelCount === null || b.pixelCount === null) return false;
  return withinTolerance(a.frames * a.pixelCount, b.frames * b.pixelCount) && !isLowerBudget(a, b) && !isLowerBudget(b, a);
}
