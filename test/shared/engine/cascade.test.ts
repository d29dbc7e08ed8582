import { beforeAll, describe, expect, it } from 'vitest';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { cascade, cascadeCorrectRows } from '../../../shared/engine/cascade';
import { configIndex } from '../../../shared/engine/matrix';
import { seededPermutation } from '../../../shared/engine/prng';
import { fromPatterns, randomPatterns } from './helpers';

const B = ['16f_151k', '32f_151k', '64f_151k'];
const FR = [16, 32, 64];

function setSignals(m: ResponseMatrix, field: 'confidence' | 'margin' | 'latencyMs', keys: string[], rows: number[][]): void {
  const C = m.configs.length;
  rows.forEach((r, i) =>
    r.forEach((v, j) => {
      m[field][i * C + configIndex(m, keys[j]!)] = v;
    }),
  );
}

function handMatrix(): ResponseMatrix {
  const m = fromPatterns(B, ['101', '011', '001', '110']);
  setSignals(m, 'confidence', B, [
    [0.9, 0.5, 0.7],
    [0.3, 0.8, 0.6],
    [0.2, 0.4, 0.5],
    [Number.NaN, 0.95, 0.1],
  ]);
  return m;
}

/** Straightforward per-τ evaluation (the definition, item by item). */
function brute(m: ResponseMatrix, sig: 'confidence' | 'margin', items: number[], tau: number, sets?: (row: number, j: number) => number[]) {
  const C = m.configs.length;
  let y = 0,
    shared = 0,
    unshared = 0;
  for (const i of items) {
    let stop = B.length - 1;
    for (let j = 0; j < B.length; j++) {
      const s = m[sig][i * C + configIndex(m, B[j]!)]!;
      if (!Number.isNaN(s) && s >= tau) {
        stop = j;
        break;
      }
    }
    y += m.correct[i * C + configIndex(m, B[stop]!)]!;
    const u = new Set<number>();
    for (let j = 0; j <= stop; j++) {
      unshared += FR[j]!;
      if (sets) for (const f of sets(i, j)) u.add(f);
    }
    shared += sets ? u.size : FR[stop]!;
  }
  return { correct: y, shared: shared / items.length, unshared: unshared / items.length };
}

describe('cascade: hand example', () => {
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let r!: ReturnType<typeof cascade>;
  beforeAll(() => {
    r = cascade(handMatrix(), { budgets: B, reference: '64f_151k' });
  });
  it('sweeps every distinct signal value and +∞', () => {
    expect(r.signal).toBe('confidence');
    expect(r.n).toBe(4);
    expect(r.sweep.map((p) => p.tau)).toEqual([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, Infinity]);
    const at08 = r.sweep.find((p) => p.tau === 0.8)!;
    expect(at08.accuracy).toBe(1);
    expect(at08.meanSharedCost).toBe(36);
    expect(at08.meanUnsharedCost).toBe(56);
    const inf = r.sweep.at(-1)!;
    expect(inf.accuracy).toBe(0.75); // everyone at 64f
    expect(inf.meanSharedCost).toBe(64);
    expect(inf.meanUnsharedCost).toBe(112);
    expect(r.sharedCostBasis).toEqual({ frameSets: 0, nestedAssumption: 4 });
  });
  it('operating point: cheapest τ reaching the reference accuracy', () => {
    expect(r.referenceAccuracy).toBe(0.75);
    expect(r.referenceFrames).toBe(64);
    expect(r.operatingPoint).toMatchObject({ tau: 0.4, accuracy: 0.75, meanSharedCost: 28 });
    expect(r.operatingPoint!.savingVsReference).toBeCloseTo(1 - 28 / 64, 15);
  });
  it('Pareto front is increasing in both cost and accuracy', () => {
    expect(r.pareto.length).toBeGreaterThan(0);
    for (let i = 1; i < r.pareto.length; i++) {
      expect(r.pareto[i]!.meanSharedCost).toBeGreaterThan(r.pareto[i - 1]!.meanSharedCost);
      expect(r.pareto[i]!.accuracy).toBeGreaterThan(r.pareto[i - 1]!.accuracy);
    }
    expect(r.pareto[0]!.meanSharedCost).toBe(20);
    expect(r.pareto.at(-1)!.accuracy).toBe(1);
  });
  it('prefers margin when recorded', () => {
    const m = handMatrix();
    setSignals(m, 'margin', B, [
      [0.1, 0.1, 0.1],
      [0.9, 0.1, 0.1],
      [0.1, 0.1, 0.1],
      [0.1, 0.1, 0.1],
    ]);
    const rm = cascade(m, { budgets: B, reference: '64f_151k' });
    expect(rm.signal).toBe('margin');
    expect(rm.sweep.map((p) => p.tau)).toEqual([0.1, 0.9, Infinity]);
  });
  it('shared cost from frame sets: nested sets reuse frames, disjoint ones add up', () => {
    const nested = (row: number, c: string) => Array.from({ length: FR[B.indexOf(c)]! }, (_, k) => (k * 64) / FR[B.indexOf(c)]!);
    const rn = cascade(handMatrix(), { budgets: B, reference: '64f_151k', frameSet: nested });
    expect(rn.sharedCostBasis).toEqual({ frameSets: 4, nestedAssumption: 0 });
    expect(rn.sweep.find((p) => p.tau === 0.8)!.meanSharedCost).toBe(36);
    const disjoint = (row: number, c: string) => {
      const j = B.indexOf(c);
      const start = [0, 16, 48][j]!;
      return Array.from({ length: FR[j]! }, (_, k) => start + k);
    };
    const rd = cascade(handMatrix(), { budgets: B, reference: '64f_151k', frameSet: disjoint });
    // τ = 0.8: 16 + 48 + 112 + 48
    expect(rd.sweep.find((p) => p.tau === 0.8)!.meanSharedCost).toBe(56);
    // recorded frame indices are used when no callback is given
    const m = handMatrix();
    const C = m.configs.length;
    for (let i = 0; i < 4; i++)
      B.forEach((k, j) => {
        m.frameIndices[i * C + configIndex(m, k)] = Int32Array.from(disjoint(i, B[j]!));
      });
    expect(cascade(m, { budgets: B, reference: '64f_151k' }).sweep.find((p) => p.tau === 0.8)!.meanSharedCost).toBe(56);
  });
  it('latency: unshared sums, shared adds only increases', () => {
    const m = handMatrix();
    setSignals(m, 'latencyMs', B, [
      [100, 150, 300],
      [100, 90, 300],
      [100, 200, 300],
      [100, 200, 300],
    ]);
    const rl = cascade(m, { budgets: B, reference: '64f_151k' });
    expect(rl.latencyRecorded).toBe(true);
    const p = rl.sweep.find((x) => x.tau === 0.8)!;
    // stops: i0@16 (100), i1@32 (unshared 190, shared 100+0), i2@64 (600 / 300), i3@32 (300 / 200)
    expect(p.meanLatencyUnshared).toBeCloseTo((100 + 190 + 600 + 300) / 4, 12);
    expect(p.meanLatencyShared).toBeCloseTo((100 + 100 + 300 + 200) / 4, 12);
    expect(rl.referenceMeanLatency).toBe(300);
    // The operating point is τ = 0.4 (above): i0 stops at 16f, i1–i3 at 32f; shared latency
    // 100, 100 + max(0, 90 − 100), 100 + (200 − 100), 100 + (200 − 100) → mean 150 against 300.
    expect(rl.operatingPoint!.tau).toBe(0.4);
    expect(rl.operatingPoint!.latencySavingVsReference).toBeCloseTo(1 - 150 / 300, 12);
    expect(cascade(handMatrix(), { budgets: B, reference: '64f_151k' }).sweep[0]!.meanLatencyShared).toBeUndefined();
  });
});

describe('cascade: validation', () => {
  const m = fromPatterns(['textonly', '16f_151k', '32f_151k', '64f_151k', '32f_302k', '128f_76k'], ['111111']);
  it('budgets must form a chain of visual configs', () => {
    expect(() => cascade(m, { budgets: ['32f_151k', '16f_151k'], reference: '64f_151k' })).toThrow(/chain.*"32f_151k" is not a lower budget than "16f_151k"/);
    expect(() => cascade(m, { budgets: ['32f_302k', '128f_76k'], reference: '64f_151k' })).toThrow(/chain/);
    expect(() => cascade(m, { budgets: ['textonly', '16f_151k'], reference: '64f_151k' })).toThrow(/text only/);
    expect(() => cascade(m, { budgets: ['16f_151k', '512f_151k'], reference: '64f_151k' })).toThrow(/"512f_151k" is not in/);
    expect(() => cascade(m, { budgets: [], reference: '64f_151k' })).toThrow(/at least one/);
    expect(() => cascade(m, { budgets: ['16f_151k', '16f_151k'], reference: '64f_151k' })).toThrow(/twice/);
    expect(() => cascade(m, { budgets: ['16f_151k'], reference: 'textonly' })).toThrow(/reference/);
  });
});

describe('cascade: against a brute-force evaluation on random data', () => {
  const pats = randomPatterns(300, 3, 11, 0.02);
  const m = fromPatterns(B, pats);
  const C = m.configs.length;
  let s = 12345;
  const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  for (let i = 0; i < pats.length; i++) for (const k of B) m.confidence[i * C + configIndex(m, k)] = rnd() < 0.05 ? Number.NaN : Math.round(rnd() * 50) / 50;
  const sets = (row: number, j: number) => Array.from({ length: FR[j]! }, (_, k) => (row * 7 + k * (j + 1)) % 80);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let r!: ReturnType<typeof cascade>;
  beforeAll(() => {
    r = cascade(m, { budgets: B, reference: '64f_151k', seed: 42, frameSet: (row, c) => sets(row, B.indexOf(c)) });
  });
  const items = Array.from({ length: m.itemIds.length }, (_, i) => i).filter((i) => !pats[i]!.includes('.'));
  it('every sweep point equals the item-by-item definition', () => {
    expect(r.n).toBe(items.length);
    expect(r.nExcluded).toBe(pats.length - items.length);
    for (const p of r.sweep) {
      const b = brute(m, 'confidence', items, p.tau, sets);
      expect(p.correct, `τ=${p.tau}`).toBe(b.correct);
      expect(p.meanSharedCost).toBeCloseTo(b.shared, 9);
      expect(p.meanUnsharedCost).toBeCloseTo(b.unshared, 9);
    }
  });
  it('held-out: τ chosen on a seeded half, measured on the other', () => {
    const perm = Array.from(seededPermutation(items.length, 42));
    const tune = perm.slice(0, Math.floor(items.length / 2)).map((x) => items[x]!);
    const evalSet = perm.slice(Math.floor(items.length / 2)).map((x) => items[x]!);
    const refTune = tune.reduce((a, i) => a + m.correct[i * C + configIndex(m, '64f_151k')]!, 0);
    const taus = [...new Set(tune.flatMap((i) => B.map((k) => m.confidence[i * C + configIndex(m, k)]!)).filter((v) => !Number.isNaN(v)))].sort((a, b) => a - b);
    taus.push(Infinity);
    let best: { tau: number; shared: number; correct: number } | null = null;
    for (const tau of taus) {
      const b = brute(m, 'confidence', tune, tau, sets);
      if (b.correct < refTune) continue;
      if (!best || b.shared < best.shared - 1e-12 || (Math.abs(b.shared - best.shared) <= 1e-12 && b.correct > best.correct)) best = { tau, shared: b.shared, correct: b.correct };
    }
    expect(r.heldOut.seed).toBe(42);
    expect(r.heldOut.nTune + r.heldOut.nEval).toBe(items.length);
    expect(r.heldOut.tau).toBe(best!.tau);
    const ev = brute(m, 'confidence', evalSet, best!.tau, sets);
    expect(r.heldOut.accuracy).toBeCloseTo(ev.correct / evalSet.length, 12);
    expect(r.heldOut.meanSharedCost).toBeCloseTo(ev.shared, 9);
    expect(r.heldOut.savingVsReference).toBeCloseTo(1 - ev.shared / 64, 9);
    // deterministic for a seed
    expect(cascade(m, { budgets: B, reference: '64f_151k', seed: 42, frameSet: (row, c) => sets(row, B.indexOf(c)) }).heldOut).toEqual(r.heldOut);
  });
});

describe('cascadeCorrectRows: the items behind one cascade point', () => {
  it('are exactly the items the hand example gets right at τ, and as many as the sweep counts', () => {
    const m = handMatrix();
    const r = cascade(m, { budgets: B, reference: '64f_151k' });
    // τ 0.8: row 0 stops at 16f (0.9, correct), row 1 at 32f (0.8, correct), row 2 runs to 64f (correct), row 3 at 32f (0.95, correct).
    expect(cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, 0.8)).toEqual([0, 1, 2, 3]);
    // τ +∞ (null): everyone answers at 64f: rows 0, 1, 2 are right there, row 3 is not.
    expect(cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, null)).toEqual([0, 1, 2]);
    for (const p of r.sweep) expect(cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, p.tau === Infinity ? null : p.tau).length).toBe(p.correct);
  });
  it('agree with the sweep on random matrices at every τ', () => {
    const m = fromPatterns(B, randomPatterns(200, 3, 7, 0.03));
    let s = 99;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    setSignals(
      m,
      'confidence',
      B,
      Array.from({ length: 200 }, () => B.map(() => Math.round(rnd() * 20) / 20)),
    );
    const r = cascade(m, { budgets: B, reference: '64f_151k' });
    for (const p of r.sweep) {
      const rows = cascadeCorrectRows(m, { budgets: B, reference: '64f_151k' }, p.tau === Infinity ? null : p.tau);
      expect(rows.length).toBe(p.correct);
      expect(rows.length).toBe(brute(m, 'confidence', rows, p.tau).correct);
    }
  });
});
