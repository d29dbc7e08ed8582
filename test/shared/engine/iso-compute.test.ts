import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { isIsoComputePair, isoComputeGroups } from '../../../shared/engine/iso-compute';
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
