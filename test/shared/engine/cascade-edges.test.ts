/**
 * Edge cases of the confidence cascade (docs/metrics.md §5) checked against an independent,
 * item-by-item evaluation of the definition. Every cascade() call sits inside an `it`, so a
 * throwing engine fails a test instead of the file's collection.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { cascade, cascadeCorrectRows, type CascadeOptions } from '../../../shared/engine/cascade';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { mulberry32, seededPermutation } from '../../../shared/engine/prng';
import { fromPatterns } from './helpers';

type Signal = 'confidence' | 'margin';

const cellOf = (m: ResponseMatrix, row: number, key: string): number => row * m.configs.length + configIndex(m, key);

interface ItemOutcome {
  correct: number;
  shared: number;
  unshared: number;
  latShared: number;
  latUnshared: number;
}

/** One item at τ, straight from §5: stop at the first budget whose signal is ≥ τ, else the last. */
function itemAt(m: ResponseMatrix, opts: CascadeOptions, sig: Signal, row: number, tau: number): ItemOutcome {
  const B = opts.budgets;
  let stop = B.length - 1;
  for (let j = 0; j < B.length; j++) {
    const s = m[sig][cellOf(m, row, B[j]!)]!;
    if (!Number.isNaN(s) && s >= tau) {
      stop = j;
      break;
    }
  }
  const frames = B.map((k) => m.configs[configIndex(m, k)]!.frames);
  // A frame set per budget: the caller's, else the recorded one; without all of them the item
  // uses the nested assumption frames(b_j*) (CascadeResult.sharedCostBasis).
  const sets = B.map((k) => opts.frameSet?.(row, k) ?? m.frameIndices[cellOf(m, row, k)] ?? null);
  let shared = frames[stop]!;
  if (sets.every((s) => s !== null)) {
    const u = new Set<number>();
    for (let j = 0; j <= stop; j++) for (const f of Array.from(sets[j]!)) u.add(f);
    shared = u.size;
  }
  const lat = B.map((k) => m.latencyMs[cellOf(m, row, k)]!);
  let unshared = 0;
  let latUnshared = 0;
  let latShared = 0;
  for (let j = 0; j <= stop; j++) {
    unshared += frames[j]!;
    latUnshared += lat[j]!;
    latShared += j === 0 ? lat[0]! : Math.max(0, lat[j]! - lat[j - 1]!);
  }
  return { correct: m.correct[cellOf(m, row, B[stop]!)]!, shared, unshared, latShared, latUnshared };
}

interface BrutePoint extends ItemOutcome {
  tau: number;
}

/** Sums over `rows` at τ (costs are integers here, so the engine's means must match exactly). */
function bruteAt(m: ResponseMatrix, opts: CascadeOptions, sig: Signal, rows: readonly number[], tau: number): BrutePoint {
  const acc: BrutePoint = { tau, correct: 0, shared: 0, unshared: 0, latShared: 0, latUnshared: 0 };
  for (const row of rows) {
    const o = itemAt(m, opts, sig, row, tau);
    acc.correct += o.correct;
    acc.shared += o.shared;
    acc.unshared += o.unshared;
    acc.latShared += o.latShared;
    acc.latUnshared += o.latUnshared;
  }
  return acc;
}

/** Every distinct recorded signal of `rows` on the budgets, ascending, then +∞ (§5's sweep). */
function tausOf(m: ResponseMatrix, opts: CascadeOptions, sig: Signal, rows: readonly number[]): number[] {
  const vals = new Set<number>();
  for (const row of rows) for (const k of opts.budgets) if (!Number.isNaN(m[sig][cellOf(m, row, k)]!)) vals.add(m[sig][cellOf(m, row, k)]!);
  return [...[...vals].sort((a, b) => a - b), Infinity];
}

/** The operating point rule: cheapest τ with correct ≥ target; ties → more correct, then smaller τ. */
function bruteCheapest(points: readonly BrutePoint[], target: number): BrutePoint | null {
  const ok = points.filter((p) => p.correct >= target);
  if (ok.length === 0) return null;
  const cost = Math.min(...ok.map((p) => p.shared));
  const atCost = ok.filter((p) => p.shared === cost);
  const most = Math.max(...atCost.map((p) => p.correct));
  return atCost.filter((p) => p.correct === most).sort((a, b) => a.tau - b.tau)[0]!;
}

/**
 * The (cost, correct) Pareto front: points no other point matches or beats on both with one
 * strictly better; one point per (cost, correct) — the smallest τ, the operating point's tie rule.
 */
function bruteFront(points: readonly BrutePoint[]): number[] {
  const front = points.filter((p) => !points.some((q) => q.shared <= p.shared && q.correct >= p.correct && (q.shared < p.shared || q.correct > p.correct) && q !== p));
  const taus: number[] = [];
  const seen = new Set<string>();
  for (const p of [...front].sort((a, b) => a.shared - b.shared || a.tau - b.tau)) {
    const key = `${p.shared}/${p.correct}`;
    if (!seen.has(key)) taus.push(p.tau);
    seen.add(key);
  }
  return taus;
}

const KEYS = ['textonly', '16f_151k', '32f_151k', '32f_302k', '64f_302k', '128f_76k'];
// A chain with a tie in frames (32f_151k ≺ 32f_302k by resolution alone): equal shared costs at
// different τ, which is where the tie rules of the operating point and the front matter.
const B4 = ['16f_151k', '32f_151k', '32f_302k', '64f_302k'];

/** A seeded random matrix: missing cells, missing signals, integer latencies where complete. */
function randomMatrix(seed: number, n: number, withMargin: boolean, reference: string): ResponseMatrix {
  const m = fromPatterns(
    KEYS,
    Array.from({ length: n }, () => KEYS.map(() => '0').join('')),
  );
  const rnd = mulberry32(seed);
  const used = [...B4, reference];
  for (let row = 0; row < n; row++) {
    for (const k of KEYS) {
      const c = cellOf(m, row, k);
      m.correct[c] = rnd() < 0.05 ? -1 : rnd() < 0.55 ? 1 : 0;
      m.confidence[c] = rnd() < 0.1 ? Number.NaN : Math.round(rnd() * 20) / 20;
      if (withMargin) m.margin[c] = rnd() < 0.3 ? Number.NaN : Math.round(rnd() * 10) / 10;
    }
    // Latency only on complete rows (excluded rows keep NaN): an engine that looked at the wrong
    // rows or columns would wrongly find latency missing.
    if (used.every((k) => m.correct[cellOf(m, row, k)] !== -1)) for (const k of used) m.latencyMs[cellOf(m, row, k)] = 20 + Math.floor(rnd() * 400);
  }
  return m;
}

function completeRows(m: ResponseMatrix, keys: readonly string[]): number[] {
  return Array.from({ length: m.itemIds.length }, (_, i) => i).filter((row) => keys.every((k) => m.correct[cellOf(m, row, k)] !== -1));
}

/**
 * Frame sets of three kinds, by row: from the caller (overlapping across budgets), recorded only,
 * and recorded for the first budget alone (10 frames for a 16-frame budget), which leaves the item
 * on the nested assumption for its whole row.
 */
function withFrameSets(m: ResponseMatrix): CascadeOptions['frameSet'] {
  const frames = (k: string) => m.configs[configIndex(m, k)]!.frames;
  for (let row = 0; row < m.itemIds.length; row++) {
    if (row % 3 === 1) B4.forEach((k, j) => (m.frameIndices[cellOf(m, row, k)] = Int32Array.from({ length: frames(k) }, (_, t) => (row + t * (j + 2)) % 90)));
    if (row % 3 === 2) m.frameIndices[cellOf(m, row, B4[0]!)] = Int32Array.from({ length: 10 }, (_, t) => t);
  }
  return (row, k) => (row % 3 === 0 ? Array.from({ length: frames(k) }, (_, t) => (row * 5 + t * (B4.indexOf(k) + 1)) % 70) : row % 3 === 1 ? undefined : null);
}

describe('cascade: every figure against the §5 definition on seeded random matrices', () => {
  for (const { seed, withMargin, reference } of [
    { seed: 7, withMargin: false, reference: '64f_302k' },
    { seed: 8, withMargin: true, reference: '128f_76k' },
    { seed: 9, withMargin: false, reference: '128f_76k' },
  ]) {
    it(`seed ${seed}, ${withMargin ? 'margin' : 'confidence'}, reference ${reference}`, () => {
      const m = randomMatrix(seed, 90, withMargin, reference);
      const opts: CascadeOptions = { budgets: B4, reference, seed: seed * 3, frameSet: withFrameSets(m) };
      const sig: Signal = withMargin ? 'margin' : 'confidence';
      const rows = completeRows(m, [...B4, reference]);
      const N = rows.length;
      const refFrames = m.configs[configIndex(m, reference)]!.frames;
      const r = cascade(m, opts);

      expect(r.budgets).toEqual(B4);
      expect(r.reference).toBe(reference);
      expect(r.n).toBe(N);
      expect(r.nExcluded).toBe(m.itemIds.length - N);
      expect(r.signal).toBe(sig);
      // rows ≡ 0 and 1 (mod 3) have a set for every budget; rows ≡ 2 only for the first one.
      const exact = rows.filter((row) => row % 3 !== 2).length;
      expect(r.sharedCostBasis).toEqual({ frameSets: exact, nestedAssumption: N - exact });
      expect(r.latencyRecorded).toBe(true);
      const refCorrect = rows.reduce((a, row) => a + m.correct[cellOf(m, row, reference)]!, 0);
      expect(r.referenceAccuracy).toBe(refCorrect / N);
      expect(r.referenceFrames).toBe(refFrames);
      const refLat = rows.reduce((a, row) => a + m.latencyMs[cellOf(m, row, reference)]!, 0);
      expect(r.referenceMeanLatency).toBe(refLat / N);

      const taus = tausOf(m, opts, sig, rows);
      expect(r.sweep.map((p) => p.tau)).toEqual(taus);
      const brute = taus.map((tau) => bruteAt(m, opts, sig, rows, tau));
      r.sweep.forEach((p, t) => {
        const b = brute[t]!;
        const at = `τ=${p.tau}`;
        expect(p.correct, at).toBe(b.correct);
        expect(p.accuracy, at).toBe(b.correct / N);
        expect(p.meanSharedCost, at).toBe(b.shared / N);
        expect(p.meanUnsharedCost, at).toBe(b.unshared / N);
        expect(p.meanLatencyShared, at).toBe(b.latShared / N);
        expect(p.meanLatencyUnshared, at).toBe(b.latUnshared / N);
      });

      const op = bruteCheapest(brute, refCorrect);
      if (op === null) expect(r.operatingPoint).toBeNull();
      else {
        expect(r.operatingPoint!.tau).toBe(op.tau);
        expect(r.operatingPoint!.savingVsReference).toBeCloseTo(1 - op.shared / N / refFrames, 12);
        expect(r.operatingPoint!.unsharedSavingVsReference).toBeCloseTo(1 - op.unshared / N / refFrames, 12);
        expect(r.operatingPoint!.latencySavingVsReference).toBeCloseTo(1 - op.latShared / refLat, 12);
      }

      expect(r.pareto.map((p) => p.tau)).toEqual(bruteFront(brute));

      // Held-out (§5): τ chosen on the first ⌊N/2⌋ of the seeded permutation, measured on the rest.
      const perm = Array.from(seededPermutation(N, seed * 3), (i) => rows[i]!);
      const tune = perm.slice(0, Math.floor(N / 2));
      const evalRows = perm.slice(Math.floor(N / 2));
      const tuneTarget = tune.reduce((a, row) => a + m.correct[cellOf(m, row, reference)]!, 0);
      const tuneOp = bruteCheapest(
        tausOf(m, opts, sig, tune).map((tau) => bruteAt(m, opts, sig, tune, tau)),
        tuneTarget,
      );
      const evalRef = evalRows.reduce((a, row) => a + m.correct[cellOf(m, row, reference)]!, 0);
      const ev = tuneOp === null ? null : bruteAt(m, opts, sig, evalRows, tuneOp.tau);
      expect(r.heldOut).toEqual({
        seed: seed * 3,
        nTune: tune.length,
        nEval: evalRows.length,
        tau: tuneOp === null ? null : tuneOp.tau,
        accuracy: ev === null ? null : ev.correct / evalRows.length,
        referenceAccuracy: evalRef / evalRows.length,
        meanSharedCost: ev === null ? null : ev.shared / evalRows.length,
        savingVsReference: ev === null ? null : 1 - ev.shared / evalRows.length / refFrames,
      });

      // cascadeCorrectRows: the matrix rows behind each sweep point.
      for (const tau of taus) {
        const expected = rows.filter((row) => itemAt(m, opts, sig, row, tau).correct === 1);
        expect(cascadeCorrectRows(m, opts, tau === Infinity ? null : tau), `τ=${tau}`).toEqual(expected);
      }
    });
  }
});

// Budgets X ≺ Y share their frame count, so under the nested assumption stopping at either costs 32.
const XYZ = ['32f_151k', '32f_302k', '64f_302k'];

/** A matrix over XYZ plus 128f_76k from per-item rows of [signal, correct] for X, Y, Z and a reference outcome. */
function tieMatrix(items: readonly { sig: readonly number[]; y: readonly number[]; ref: number }[]): ResponseMatrix {
  const m = fromPatterns(
    [...XYZ, '128f_76k'],
    items.map((it) => [...it.y, it.ref].join('')),
  );
  items.forEach((it, row) => XYZ.forEach((k, j) => (m.confidence[cellOf(m, row, k)] = it.sig[j]!)));
  return m;
}

describe('cascade: ties in shared cost (operating point and Pareto front)', () => {
  it('a later τ of the same cost with more correct answers wins; the cheaper ones with fewer are dominated', () => {
    // i0: 0.2 / 0.9 / – with y 0 1 1; i1: 0.8 / 0.1 / 0.1 with y 1 1 1.
    // τ 0.1, 0.2: both stop at X → 1 correct, cost 32; τ 0.8: i0 at Y → 2 correct, cost 32;
    // τ 0.9: i1 runs to Z → 2 correct, cost 48; τ ∞: 2 correct, cost 64.
    const m = tieMatrix([
      { sig: [0.2, 0.9, Number.NaN], y: [0, 1, 1], ref: 0 },
      { sig: [0.8, 0.1, 0.1], y: [1, 1, 1], ref: 1 },
    ]);
    const r = cascade(m, { budgets: XYZ, reference: '128f_76k' });
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost])).toEqual([
      [0.1, 1, 32],
      [0.2, 1, 32],
      [0.8, 2, 32],
      [0.9, 2, 48],
      [Infinity, 2, 64],
    ]);
    // The reference has 1 correct: every point reaches it; the cheapest (32) with most correct is τ 0.8.
    expect(r.operatingPoint!.tau).toBe(0.8);
    expect(r.operatingPoint!.savingVsReference).toBe(1 - 32 / 128);
    // Unshared at τ 0.8: i0 pays X + Y = 64, i1 pays X = 32.
    expect(r.operatingPoint!.unsharedSavingVsReference).toBe(1 - (64 + 32) / 2 / 128);
    // (32, 2) dominates every other point.
    expect(r.pareto.map((p) => p.tau)).toEqual([0.8]);
  });

  it('a later τ of the same cost with fewer correct answers does not replace the operating point', () => {
    // i0: 0.3 / 0.6 / 0.6 with y 1 0 0; i1: 0.5 / 0.6 / 0.6 with y 1 1 1.
    // τ 0.3: both at X → 2, cost 32; τ 0.5: i0 at Y → 1, cost 32; τ 0.6: i1 at Y → 1, cost 32; τ ∞: 1, cost 64.
    const m = tieMatrix([
      { sig: [0.3, 0.6, 0.6], y: [1, 0, 0], ref: 1 },
      { sig: [0.5, 0.6, 0.6], y: [1, 1, 1], ref: 0 },
    ]);
    const r = cascade(m, { budgets: XYZ, reference: '128f_76k' });
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost])).toEqual([
      [0.3, 2, 32],
      [0.5, 1, 32],
      [0.6, 1, 32],
      [Infinity, 1, 64],
    ]);
    expect(r.operatingPoint!.tau).toBe(0.3);
    expect(r.operatingPoint!.correct).toBe(2);
    expect(r.pareto.map((p) => [p.tau, p.correct])).toEqual([[0.3, 2]]);
  });

  it('equal cost and equal correct: the smallest τ, also when the cheapest point has a single correct answer', () => {
    // As above with i0 wrong at X: every τ below ∞ gives 1 correct at cost 32, τ ∞ gives 1 at 64.
    const m = tieMatrix([
      { sig: [0.3, 0.6, 0.6], y: [0, 0, 0], ref: 0 },
      { sig: [0.5, 0.6, 0.6], y: [1, 1, 1], ref: 1 },
    ]);
    const r = cascade(m, { budgets: XYZ, reference: '128f_76k' });
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost])).toEqual([
      [0.3, 1, 32],
      [0.5, 1, 32],
      [0.6, 1, 32],
      [Infinity, 1, 64],
    ]);
    expect(r.operatingPoint!.tau).toBe(0.3);
    expect(r.pareto.map((p) => p.tau)).toEqual([0.3]);
  });

  it('a front that starts at zero correct answers keeps that point', () => {
    // One item with signals 0.4 / 0.2 / 0.3, wrong at X: every τ ≤ 0.4 stops at X (0 correct, cost
    // 32); τ ∞ runs to Z (right, cost 64). The cheapest point, with 0 correct, is on the front.
    const m = tieMatrix([{ sig: [0.4, 0.2, 0.3], y: [0, 1, 1], ref: 1 }]);
    const r = cascade(m, { budgets: XYZ, reference: '128f_76k' });
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost])).toEqual([
      [0.2, 0, 32],
      [0.3, 0, 32],
      [0.4, 0, 32],
      [Infinity, 1, 64],
    ]);
    expect(r.pareto.map((p) => [p.tau, p.correct])).toEqual([
      [0.2, 0],
      [Infinity, 1],
    ]);
    expect(r.operatingPoint!.tau).toBe(Infinity);
  });
});

describe('cascade: when no τ reaches the reference', () => {
  it('has no operating point and no held-out τ, but still the reference accuracy of each half', () => {
    // The reference (128f_76k) is right on all four items; every budget is wrong on items 0–2.
    const m = fromPatterns(['16f_151k', '32f_151k', '128f_76k'], ['001', '001', '001', '111']);
    const r = cascade(m, { budgets: ['16f_151k', '32f_151k'], reference: '128f_76k', seed: 5 });
    expect(r.referenceAccuracy).toBe(1);
    expect(r.sweep.every((p) => p.correct === 1)).toBe(true);
    expect(r.operatingPoint).toBeNull();
    expect(r.heldOut).toEqual({ seed: 5, nTune: 2, nEval: 2, tau: null, accuracy: null, referenceAccuracy: 1, meanSharedCost: null, savingVsReference: null });
    expect(r.pareto.map((p) => p.tau)).toEqual([Infinity]);
  });
});

describe('cascade: latency only where every needed cell has it', () => {
  it('one missing latency on a complete row switches latency off everywhere', () => {
    const B = ['16f_151k', '32f_151k'];
    const m = fromPatterns(B, ['11', '01', '10']);
    for (let row = 0; row < 3; row++) B.forEach((k) => (m.latencyMs[cellOf(m, row, k)] = 100));
    m.confidence.fill(0.5);
    const on = cascade(m, { budgets: B, reference: '32f_151k' });
    expect(on.latencyRecorded).toBe(true);
    expect(on.referenceMeanLatency).toBe(100);
    expect(on.sweep.at(-1)!.meanLatencyUnshared).toBe(200);
    expect(on.sweep.at(-1)!.meanLatencyShared).toBe(100);

    m.latencyMs[cellOf(m, 2, '32f_151k')] = Number.NaN;
    const off = cascade(m, { budgets: B, reference: '32f_151k' });
    expect(off.latencyRecorded).toBe(false);
    expect('referenceMeanLatency' in off).toBe(false);
    for (const p of off.sweep) {
      expect('meanLatencyShared' in p).toBe(false);
      expect('meanLatencyUnshared' in p).toBe(false);
    }
    expect(off.operatingPoint).not.toBeNull();
    expect('latencySavingVsReference' in off.operatingPoint!).toBe(false);
  });

  it('a row left out for a missing outcome does not need latency', () => {
    const B = ['16f_151k', '32f_151k'];
    const m = fromPatterns(B, ['11', '0.', '10']);
    for (const row of [0, 2]) B.forEach((k) => (m.latencyMs[cellOf(m, row, k)] = 40 + 10 * row));
    m.confidence.fill(0.5);
    const r = cascade(m, { budgets: B, reference: '32f_151k' });
    expect(r.n).toBe(2);
    expect(r.latencyRecorded).toBe(true);
    // τ ∞: both rows run to 32f; unshared (40 + 40) and (60 + 60), shared 40 and 60.
    expect(r.sweep.at(-1)!.meanLatencyUnshared).toBe(100);
    expect(r.sweep.at(-1)!.meanLatencyShared).toBe(50);
  });
});

describe('cascade: shared cost without every frame set', () => {
  it('one budget without a set puts the whole item on the nested assumption', () => {
    // The 16f budget recorded 10 distinct frames, the 32f one none: the item is costed frames(b_j*),
    // 16 when it stops at 16f (not the 10 it recorded) and 32 at 32f.
    const B = ['16f_151k', '32f_151k'];
    const m = fromPatterns(B, ['11']);
    m.frameIndices[cellOf(m, 0, '16f_151k')] = Int32Array.from({ length: 10 }, (_, t) => t);
    m.confidence[cellOf(m, 0, '16f_151k')] = 0.7;
    const r = cascade(m, { budgets: B, reference: '32f_151k' });
    expect(r.sharedCostBasis).toEqual({ frameSets: 0, nestedAssumption: 1 });
    expect(r.sweep.map((p) => [p.tau, p.meanSharedCost, p.meanUnsharedCost])).toEqual([
      [0.7, 16, 16],
      [Infinity, 32, 48],
    ]);
  });

  it('with every set, the union counts each frame once (§5)', () => {
    const B = ['16f_151k', '32f_151k'];
    const m = fromPatterns(B, ['11']);
    m.confidence[cellOf(m, 0, '16f_151k')] = 0.7;
    // 10 distinct frames at 16f (some repeated), 32 at 32f of which 6 are among the first 10.
    const sets: Record<string, number[]> = { '16f_151k': [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 9, 9], '32f_151k': Array.from({ length: 32 }, (_, t) => t + 4) };
    const r = cascade(m, { budgets: B, reference: '32f_151k', frameSet: (_row, k) => sets[k] });
    expect(r.sharedCostBasis).toEqual({ frameSets: 1, nestedAssumption: 0 });
    // τ 0.7 stops at 16f: 10 frames; τ ∞: frames 0…35 → 36.
    expect(r.sweep.map((p) => [p.tau, p.meanSharedCost])).toEqual([
      [0.7, 10],
      [Infinity, 36],
    ]);
  });
});

describe('cascade: signals that fall along the chain', () => {
  it('an item stops at its first budget reaching τ even when later signals are lower', () => {
    // Signals 0.9 / 0.2 / 0.5 and outcomes 1 / 0 / 0 on 16f / 32f / 64f.
    const B = ['16f_151k', '32f_151k', '64f_151k'];
    const m = fromPatterns(B, ['100']);
    B.forEach((k, j) => (m.confidence[cellOf(m, 0, k)] = [0.9, 0.2, 0.5][j]!));
    const r = cascade(m, { budgets: B, reference: '64f_151k' });
    // Every τ ≤ 0.9 stops at 16f (right, cost 16); only ∞ runs to 64f (wrong, unshared 112).
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost, p.meanUnsharedCost])).toEqual([
      [0.2, 1, 16, 16],
      [0.5, 1, 16, 16],
      [0.9, 1, 16, 16],
      [Infinity, 0, 64, 112],
    ]);
    expect(cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, 0.5)).toEqual([0]);
    expect(cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, null)).toEqual([]);
  });

  it('a single budget is a valid chain: every τ answers there', () => {
    const m = fromPatterns(['16f_151k', '32f_151k'], ['10', '01', '11']);
    m.confidence.fill(0.4);
    const r = cascade(m, { budgets: ['16f_151k'], reference: '32f_151k' });
    expect(r.sweep.map((p) => [p.tau, p.correct, p.meanSharedCost])).toEqual([
      [0.4, 2, 16],
      [Infinity, 2, 16],
    ]);
    expect(r.operatingPoint!.tau).toBe(0.4);
  });
});

describe('cascade: what it refuses', () => {
  it('an open-ended matrix', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'open', itemIds: ['a'], configs: [makeConfigSpec('16f_151k'), makeConfigSpec('32f_151k')] });
    expect(() => cascade(m, { budgets: ['16f_151k', '32f_151k'], reference: '32f_151k' })).toThrow(/^the confidence cascade needs a multiple-choice matrix/);
    expect(() => cascadeCorrectRows(m, { budgets: ['16f_151k', '32f_151k'], reference: '32f_151k' }, 0.5)).toThrow(/confidence cascade/);
  });

  it('a budget listed twice, naming the list', () => {
    const m = fromPatterns(['16f_151k', '32f_151k'], ['11']);
    expect(() => cascade(m, { budgets: ['16f_151k', '32f_151k', '16f_151k'], reference: '32f_151k' })).toThrow('list a config twice: 16f_151k, 32f_151k, 16f_151k');
  });

  it('a longer chain is accepted link by link, and a break anywhere in it is named', () => {
    const m = fromPatterns(KEYS, ['111111']);
    expect(cascade(m, { budgets: B4, reference: '64f_302k' }).n).toBe(1);
    expect(() => cascade(m, { budgets: ['16f_151k', '32f_151k', '128f_76k'], reference: '64f_302k' })).toThrow(/"32f_151k" is not a lower budget than "128f_76k"/);
    expect(() => cascade(m, { budgets: B4, reference: 'textonly' })).toThrow(/reference "textonly" is text only/);
    expect(() => cascade(m, { budgets: ['textonly', '16f_151k'], reference: '64f_302k' })).toThrow(/budget "textonly" is text only/);
  });
});
