import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { isIsoComputePair, isoComputeGroups, protocolAgreement, samplingRecovery } from '../../../shared/engine/iso-compute';
import { fromPatterns } from './helpers';

const QWEN = ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '256f_151k', '128f_76k', '32f_302k', '64f_235k', '64f_360k', '64f_76k'];

describe('isoComputeGroups', () => {
  it("finds the release grid's iso-compute groups (±5%), members in config order", () => {
    const m = fromPatterns(QWEN, ['11111111111']);
    const g = isoComputeGroups(m);
    expect(g.groups.map((x) => x.configs)).toEqual([
      ['32f_151k', '64f_76k'],
      ['64f_151k', '128f_76k', '32f_302k'],
    ]);
    expect(g.groups[1]!.pairs.map((p) => `${p.a}|${p.b}`)).toEqual(['64f_151k|128f_76k', '64f_151k|32f_302k', '128f_76k|32f_302k']);
  });
  it('pair tables and group headroom; pairs listed in either input order', () => {
    // columns written out of order: 128f_76k, 32f_302k, 64f_151k
    const m = fromPatterns(['128f_76k', '32f_302k', '64f_151k'], ['100', '010', '110', '000', '001', '101']);
    const g = isoComputeGroups(m).groups[0]!;
    // one config per ppf: the tie goes to the smaller ppf (76k), the rest in code-point order
    expect(g.configs).toEqual(['128f_76k', '32f_302k', '64f_151k']);
    const p = g.pairs.find((x) => x.a === '128f_76k' && x.b === '32f_302k')!;
    expect([p.onlyA, p.onlyB, p.both, p.neither]).toEqual([2, 1, 1, 2]);
    // accuracies: 64f 2/6, 128f_76k 3/6, 32f_302k 2/6 → best 128f_76k; oracle 5/6
    expect(g.bestConfig).toBe('128f_76k');
    expect(g.oracleAccuracy).toBeCloseTo(5 / 6, 15);
    expect(g.oracleHeadroomPts).toBeCloseTo(200 / 6, 12);
  });
  it('no groups for a single-resolution ladder, unknown ppf, or same-frame variants', () => {
    expect(isoComputeGroups(fromPatterns(['textonly', '16f_151k', '32f_151k'], ['111'])).groups).toEqual([]);
    expect(isoComputeGroups(fromPatterns(['16f', '32f'], ['11'])).groups).toEqual([]);
    expect(isoComputeGroups(fromPatterns(['64f_151k', '64f_151k@random'], ['11'])).groups).toEqual([]);
    expect(isIsoComputePair(makeConfigSpec('32f_302k'), makeConfigSpec('128f_76k'))).toBe(true);
    expect(isIsoComputePair(makeConfigSpec('32f_302k'), makeConfigSpec('128f_151k'))).toBe(false);
    expect(isIsoComputePair(makeConfigSpec('64f_151k'), makeConfigSpec('64f_151k@x'))).toBe(false);
  });
});

describe('samplingRecovery', () => {
  const specs = [
    makeConfigSpec('textonly'),
    makeConfigSpec('32f_151k', { sampling: { policy: 'uniform-linspace', seed: null, fps: null } }),
    makeConfigSpec('64f_151k', { sampling: { policy: 'uniform-linspace', seed: null, fps: null } }),
    makeConfigSpec('64f_151k@random', { sampling: { policy: 'random', seed: 1, fps: null } }),
    makeConfigSpec('64f_151k@center', { sampling: { policy: 'uniform-center', seed: null, fps: null } }),
  ];
  // columns: text, 32f, 64f, 64f@random, 64f@center
  const m = fromPatterns(specs, ['01010', '01001', '11000', '00000', '01100', '0101.']);
  it('share of terminal regressions recovered by another policy at the same frames and ppf', () => {
    const r = samplingRecovery(m);
    const lin = r.find((x) => x.policy === 'uniform-linspace')!;
    expect(lin.terminalConfig).toBe('64f_151k');
    expect(lin.alternatives).toEqual(['64f_151k@center', '64f_151k@random']);
    // complete: rows 0–4; regressions under linspace: rows 0,1,2 ; recovered: 0 (random), 1 (center)
    expect(lin).toMatchObject({ n: 5, regressions: 3, recovered: 2 });
    expect(lin.recoveryRate).toBeCloseTo(2 / 3, 15);
    const rand = r.find((x) => x.policy === 'random')!;
    expect(rand.terminalConfig).toBe('64f_151k@random');
    expect(r.map((x) => x.policy)).toEqual(['random', 'uniform-center', 'uniform-linspace']);
  });
  it('a custom policy function and the no-alternative case', () => {
    const r = samplingRecovery(m, { policyOf: () => 'one' });
    expect(r).toHaveLength(1);
    expect(r[0]!.alternatives).toEqual([]);
    expect(r[0]!.recoveryRate).toBeNull();
  });
});

describe('protocolAgreement', () => {
  it('rates per grid and Jaccard of item sets over common items', () => {
    const keys = ['textonly', '16f_151k', '32f_151k'];
    const raw = fromPatterns(keys, ['010', '110', '011', '111', '001'], ['a', 'b', 'c', 'd', 'e']);
    const cache = fromPatterns(keys, ['010', '011', '110', '111'], ['a', 'b', 'c', 'x']);
    cache.model = 'M (cache)';
    const r = protocolAgreement(raw, cache);
    expect(r.a.n).toBe(5);
    expect(r.b.n).toBe(4);
    // confused: raw {a, b}; cache {a, c} ; common items a, b, c
    expect(r.nCommon).toBe(3);
    expect(r.confused).toEqual({ onlyA: 1, onlyB: 1, both: 1, jaccard: 1 / 3 });
    expect(r.a.visualConfusionRate).toBeCloseTo(2 / 5, 15);
    expect(r.b.visualConfusionRate).toBeCloseTo(2 / 4, 15);
    expect(r.terminalRegression).toEqual({ onlyA: 1, onlyB: 1, both: 1, jaccard: 1 / 3 }); // raw {a, b}, cache {a, c}
  });
  it('refuses different splits and gives null Jaccard for empty sets', () => {
    const a = fromPatterns(['16f'], ['1']);
    const b = fromPatterns(['16f'], ['1']);
    b.split = 'other';
    expect(() => protocolAgreement(a, b)).toThrow(/one split/);
    b.split = a.split;
    expect(protocolAgreement(a, b).confused.jaccard).toBeNull();
  });
});
