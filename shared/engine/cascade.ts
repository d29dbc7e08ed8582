/**
 * Confidence cascade (docs/metrics.md §5). Budgets b_1 ≺ … ≺ b_L; for threshold τ an item stops at
 * the first budget whose signal is ≥ τ (else the last; a missing signal is below every τ) and
 * answers with that budget's outcome.
 *
 * The sweep is exact and fast: for one item the stop index only changes where τ crosses a prefix
 * maximum of its signals, so each item adds its outcome and costs to a range of sorted τ values
 * through difference arrays — O(N·L·log T) instead of O(N·T).
 *
 * Held-out figure: the items are permuted with a Fisher–Yates shuffle driven by mulberry32(seed)
 * (shared/engine/prng.ts); the first ⌊N/2⌋ of the permutation choose τ (operating-point rule on
 * that half), the other half measures accuracy and cost at that τ.
 */
import type { ResponseMatrix } from '../domain/types';
import { isLowerBudget } from './config';
import { assertKind } from './grid-plan';
import { completeRowsOfColumns, configIndex } from './matrix';
import { seededPermutation } from './prng';

export interface CascadeOptions {
  budgets: readonly string[];
  reference: string;
  /** Seed of the held-out split (default 0). */
  seed?: number;
  /**
   * Frames a config showed for a row (e.g. from the §8 samplers). Recorded `frameIndices` are
   * used when this returns null/undefined or is not given.
   */
  frameSet?: (row: number, config: string) => ArrayLike<number> | null | undefined;
}

export interface CascadePoint {
  /** +∞ is the last τ (every item runs to b_L); JSON writes it as null. */
  tau: number;
  correct: number;
  accuracy: number;
  meanSharedCost: number;
  meanUnsharedCost: number;
  meanLatencyShared?: number;
  meanLatencyUnshared?: number;
}

export interface CascadeOperatingPoint extends CascadePoint {
  /** 1 − meanSharedCost / frames(reference). */
  savingVsReference: number;
  unsharedSavingVsReference: number;
  /** 1 − mean shared latency / mean latency of the reference (when latency is recorded). */
  latencySavingVsReference?: number;
}

export interface CascadeHeldOut {
  seed: number;
  nTune: number;
  nEval: number;
  /** τ chosen on the tuning half; null when no τ reaches the reference there. */
  tau: number | null;
  accuracy: number | null;
  referenceAccuracy: number;
  meanSharedCost: number | null;
  savingVsReference: number | null;
}

export interface CascadeResult {
  budgets: string[];
  reference: string;
  n: number;
  nExcluded: number;
  signal: 'margin' | 'confidence';
  /** How shared costs were obtained: per-item frame sets, or frames(b_j*) for items without them. */
  sharedCostBasis: { frameSets: number; nestedAssumption: number };
  latencyRecorded: boolean;
  sweep: CascadePoint[];
  /** The (meanSharedCost, accuracy) Pareto front, by ascending cost. */
  pareto: CascadePoint[];
  /** Cheapest τ with accuracy ≥ the reference's; null when none reaches it. */
  operatingPoint: CascadeOperatingPoint | null;
  heldOut: CascadeHeldOut;
  referenceAccuracy: number;
  referenceFrames: number;
  referenceMeanLatency?: number;
}

/** Per-item, per-budget quantities of a cascade that stops at budget j. */
interface Prepared {
  L: number;
  N: number;
  /** signal (−∞ when missing), N × L */
  sig: Float64Array;
  y: Float64Array;
  shared: Float64Array;
  unshared: Float64Array;
  latShared: Float64Array;
  latUnshared: Float64Array;
  refY: Float64Array;
  refLat: Float64Array;
  /** Latency recorded in every cell the cascade reads; the latency arrays are meaningless otherwise. */
  latency: boolean;
}

function upperBound(a: Float64Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function distinctTaus(p: Prepared, items: Int32Array): Float64Array {
  const vals: number[] = [];
  for (let r = 0; r < items.length; r++) {
    const base = items[r]! * p.L;
    for (let j = 0; j < p.L; j++) {
      const v = p.sig[base + j]!;
      if (v !== -Infinity) vals.push(v);
    }
  }
  vals.sort((a, b) => a - b);
  // A Set keeps the first of equal values in insertion (here ascending) order.
  return Float64Array.from([...new Set(vals), Infinity]);
}

function sweepOn(p: Prepared, items: Int32Array, taus: Float64Array): CascadePoint[] {
  const T = taus.length;
  const L = p.L;
  const dY = new Float64Array(T + 1);
  const dS = new Float64Array(T + 1);
  const dU = new Float64Array(T + 1);
  const dLS = new Float64Array(T + 1);
  const dLU = new Float64Array(T + 1);
  for (let r = 0; r < items.length; r++) {
    const base = items[r]! * L;
    let lo = 0; // first τ index not yet assigned a stop
    // The last budget takes every τ left (+∞ is ≥ every τ), so lo reaches T by j = L − 1.
    for (let j = 0; lo < T; j++) {
      const v = j === L - 1 ? Infinity : p.sig[base + j]!;
      // The τ ≤ v stop here unless an earlier budget took them: a signal below an earlier one
      // gives hi < lo, so no running maximum of the signals is needed.
      const hi = upperBound(taus, v) - 1; // last τ index (inclusive) stopping at j
      if (hi < lo) continue;
      const k = base + j;
      dY[lo]! += p.y[k]!;
      dY[hi + 1]! -= p.y[k]!;
      dS[lo]! += p.shared[k]!;
      dS[hi + 1]! -= p.shared[k]!;
      dU[lo]! += p.unshared[k]!;
      dU[hi + 1]! -= p.unshared[k]!;
      // Skipped without latency only for speed (the sums would not be read).
      if (p.latency) {
        dLS[lo]! += p.latShared[k]!;
        dLS[hi + 1]! -= p.latShared[k]!;
        dLU[lo]! += p.latUnshared[k]!;
        dLU[hi + 1]! -= p.latUnshared[k]!;
      }
      lo = hi + 1;
    }
  }
  const N = items.length;
  const out: CascadePoint[] = [];
  let y = 0;
  let s = 0;
  let u = 0;
  let ls = 0;
  let lu = 0;
  for (let t = 0; t < T; t++) {
    y += dY[t]!;
    s += dS[t]!;
    u += dU[t]!;
    const point: CascadePoint = {
      tau: taus[t]!,
      correct: Math.round(y),
      accuracy: Math.round(y) / N,
      meanSharedCost: s / N,
      meanUnsharedCost: u / N,
    };
    if (p.latency) {
      ls += dLS[t]!;
      lu += dLU[t]!;
      point.meanLatencyShared = ls / N;
      point.meanLatencyUnshared = lu / N;
    }
    out.push(point);
  }
  return out;
}

/** The sweep is in ascending τ and the sort is stable, so a (cost, correct) tie keeps its smallest τ. */
function paretoFront(sweep: readonly CascadePoint[]): CascadePoint[] {
  const sorted = [...sweep].sort((a, b) => a.meanSharedCost - b.meanSharedCost || b.correct - a.correct);
  const out: CascadePoint[] = [];
  let bestCorrect = -1;
  for (const p of sorted) {
    if (p.correct > bestCorrect) {
      out.push(p);
      bestCorrect = p.correct;
    }
  }
  return out;
}

/**
 * Cheapest point with correct ≥ target; ties → more correct, then smaller τ. The sweep is in
 * ascending τ and its shared cost never falls as τ rises: an item's stop only moves to a later
 * budget, and its cost there (the union of its frame sets so far, or frames(b_j) along the chain)
 * is never smaller; the sums are of integers, so exact. Hence the first point reaching the target
 * is a cheapest one, and only a later one of the same cost with more correct answers beats it.
 */
function cheapestReaching(sweep: readonly CascadePoint[], target: number): CascadePoint | null {
  let best: CascadePoint | null = null;
  for (const p of sweep) {
    if (p.correct < target) continue;
    if (!best || (p.meanSharedCost === best.meanSharedCost && p.correct > best.correct)) best = p;
  }
  return best;
}

function sumOver(a: Float64Array, items: Int32Array): number {
  let s = 0;
  for (let r = 0; r < items.length; r++) s += a[items[r]!]!;
  return s;
}

/** The checked chain and per-item, per-budget quantities every cascade figure is computed from. */
function prepareCascade(m: ResponseMatrix, opts: CascadeOptions) {
  assertKind(m, 'mcqa', 'the confidence cascade');
  const budgets = [...opts.budgets];
  if (budgets.length === 0) throw new Error('the cascade needs at least one budget');
  if (new Set(budgets).size !== budgets.length) throw new Error(`the cascade's budgets list a config twice: ${budgets.join(', ')}`);
  const bCols = budgets.map((k) => configIndex(m, k));
  const specs = bCols.map((c) => m.configs[c]!);
  specs.forEach((c) => {
    if (c.frames === 0) throw new Error(`cascade budget "${c.key}" is text only: budgets must be visual configs`);
  });
  for (let j = 0; j + 1 < specs.length; j++) {
    if (!isLowerBudget(specs[j]!, specs[j + 1]!)) {
      throw new Error(`cascade budgets must form a chain b1 ≺ b2 ≺ …: "${specs[j]!.key}" is not a lower budget than "${specs[j + 1]!.key}"`);
    }
  }
  const refCol = configIndex(m, opts.reference);
  const refSpec = m.configs[refCol]!;
  if (refSpec.frames === 0) throw new Error(`cascade reference "${opts.reference}" is text only: it must be a visual config`);
  const seed = opts.seed ?? 0;

  const allCols = Int32Array.from(new Set([...bCols, refCol]));
  const { rows, nExcluded } = completeRowsOfColumns(m, allCols);
  const N = rows.length;
  const L = budgets.length;
  const C = m.configs.length;

  let anyMargin = false;
  for (let r = 0; r < N && !anyMargin; r++) {
    for (let j = 0; j < L; j++) {
      if (!Number.isNaN(m.margin[rows[r]! * C + bCols[j]!]!)) {
        anyMargin = true;
        break;
      }
    }
  }
  const signalArr = anyMargin ? m.margin : m.confidence;

  const latency = rows.every((row) => allCols.every((c) => !Number.isNaN(m.latencyMs[row * C + c]!)));

  const p: Prepared = {
    L,
    N,
    sig: new Float64Array(N * L),
    y: new Float64Array(N * L),
    shared: new Float64Array(N * L),
    unshared: new Float64Array(N * L),
    latShared: new Float64Array(N * L),
    latUnshared: new Float64Array(N * L),
    refY: new Float64Array(N),
    refLat: new Float64Array(N),
    latency,
  };
  let withSets = 0;
  const seen = new Set<number>();
  for (let r = 0; r < N; r++) {
    const row = rows[r]!;
    const base = row * C;
    seen.clear();
    let setsOk = true;
    let cumFrames = 0;
    let cumLat = 0;
    let sharedLat = 0;
    for (let j = 0; j < L; j++) {
      const cell = base + bCols[j]!;
      const k = r * L + j;
      const sv = signalArr[cell]!;
      p.sig[k] = Number.isNaN(sv) ? -Infinity : sv;
      p.y[k] = m.correct[cell]!;
      cumFrames += specs[j]!.frames;
      p.unshared[k] = cumFrames;
      if (setsOk) {
        const fs = opts.frameSet?.(row, budgets[j]!) ?? m.frameIndices[cell] ?? null;
        if (fs) for (let t = 0; t < fs.length; t++) seen.add(fs[t]!);
        else setsOk = false;
      }
      // Without every frame set up to j, fall back to the nested-uniform assumption.
      p.shared[k] = setsOk ? seen.size : specs[j]!.frames;
      // Skipped without latency only for speed (the arrays would not be read).
      if (latency) {
        const lat = m.latencyMs[cell]!;
        cumLat += lat;
        sharedLat += j === 0 ? lat : Math.max(0, lat - m.latencyMs[base + bCols[j - 1]!]!);
        p.latUnshared[k] = cumLat;
        p.latShared[k] = sharedLat;
      }
    }
    if (setsOk) withSets++;
    else {
      // The fallback must hold for the whole row, not a mix of exact and assumed prefixes.
      for (let j = 0; j < L; j++) p.shared[r * L + j] = specs[j]!.frames;
    }
    p.refY[r] = m.correct[base + refCol]!;
    p.refLat[r] = latency ? m.latencyMs[base + refCol]! : 0;
  }

  return { p, rows, budgets, refSpec, seed, N, nExcluded, anyMargin, latency, withSets };
}

export function cascade(m: ResponseMatrix, opts: CascadeOptions): CascadeResult {
  const { p, budgets, refSpec, seed, N, nExcluded, anyMargin, latency, withSets } = prepareCascade(m, opts);
  const all = Int32Array.from({ length: N }, (_, i) => i);
  const sweep = sweepOn(p, all, distinctTaus(p, all));
  const refCorrect = sumOver(p.refY, all);
  const refFrames = refSpec.frames;
  const refMeanLat = latency ? sumOver(p.refLat, all) / N : undefined;
  const op = cheapestReaching(sweep, refCorrect);
  let operatingPoint: CascadeOperatingPoint | null = null;
  if (op) {
    operatingPoint = {
      ...op,
      savingVsReference: 1 - op.meanSharedCost / refFrames,
      unsharedSavingVsReference: 1 - op.meanUnsharedCost / refFrames,
    };
    // Sweep points carry latency exactly when it is recorded.
    if (latency) operatingPoint.latencySavingVsReference = 1 - op.meanLatencyShared! / refMeanLat!;
  }

  const perm = seededPermutation(N, seed);
  const nTune = Math.floor(N / 2);
  const tune = perm.slice(0, nTune);
  const evalItems = perm.slice(nTune);
  const tuneSweep = sweepOn(p, tune, distinctTaus(p, tune));
  const tuneOp = cheapestReaching(tuneSweep, sumOver(p.refY, tune));
  const evalRefAcc = sumOver(p.refY, evalItems) / evalItems.length;
  let heldOut: CascadeHeldOut = {
    seed,
    nTune,
    nEval: evalItems.length,
    tau: null,
    accuracy: null,
    referenceAccuracy: evalRefAcc,
    meanSharedCost: null,
    savingVsReference: null,
  };
  if (tuneOp) {
    // A sweep over one τ has exactly one point.
    const atTau = sweepOn(p, evalItems, Float64Array.of(tuneOp.tau))[0]!;
    heldOut = {
      ...heldOut,
      tau: tuneOp.tau,
      accuracy: atTau.accuracy,
      meanSharedCost: atTau.meanSharedCost,
      savingVsReference: 1 - atTau.meanSharedCost / refFrames,
    };
  }

  const result: CascadeResult = {
    budgets,
    reference: opts.reference,
    n: N,
    nExcluded,
    signal: anyMargin ? 'margin' : 'confidence',
    sharedCostBasis: { frameSets: withSets, nestedAssumption: N - withSets },
    latencyRecorded: latency,
    sweep,
    pareto: paretoFront(sweep),
    operatingPoint,
    heldOut,
    referenceAccuracy: refCorrect / N,
    referenceFrames: refFrames,
  };
  if (refMeanLat !== undefined) result.referenceMeanLatency = refMeanLat;
  return result;
}

/**
 * Rows of `m` (matrix row indices) that the cascade at τ answers correctly — the items behind
 * one point of the sweep: an item stops at the first budget whose signal reaches τ, else at the
 * last (τ = +∞, written null, runs every item to the last budget), as in sweepOn.
 */
export function cascadeCorrectRows(m: ResponseMatrix, opts: CascadeOptions, tau: number | null): number[] {
  const { p, rows } = prepareCascade(m, opts);
  const t = tau ?? Infinity;
  const out: number[] = [];
  rows.forEach((row, r) => {
    let j = 0;
    while (j < p.L - 1 && !(p.sig[r * p.L + j]! >= t)) j++;
    if (p.y[r * p.L + j] === 1) out.push(row);
  });
  return out;
}
