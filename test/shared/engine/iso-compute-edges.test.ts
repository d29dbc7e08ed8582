/**
 * Iso-compute edges (docs/metrics.md §6): the ±5% boundary (of the smaller compute), configs
 * without a known compute, same-frame members, and every pair table, member accuracy and the
 * group headroom recomputed by brute force from seeded random rows.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigSpec } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { isIsoComputePair, isoComputeGroups } from '../../../shared/engine/iso-compute';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { mulberry32 } from '../../../shared/engine/prng';
import { fromPatterns } from './helpers';

const spec = (key: string, partial: Partial<ConfigSpec> = {}) => makeConfigSpec(key, partial);

describe('isIsoComputePair: the tolerance is 5% of the smaller compute, inclusive', () => {
  it('|x − y| equal to 5% of the smaller is in; above it is out even when within 5% of the larger', () => {
    // 10 × 200 = 2000 and 20 × 105 = 2100: |Δ| = 100 = 5% of 2000 exactly (both exact in binary).
    expect(isIsoComputePair(spec('10f_200'), spec('20f_105'))).toBe(true);
    expect(isIsoComputePair(spec('20f_105'), spec('10f_200'))).toBe(true);
    // 10 × 2000 = 20000 and 20 × 1052 = 21040: |Δ| = 1040 > 1000 (5% of the smaller) but ≤ 1052 (5% of the larger).
    expect(isIsoComputePair(spec('10f_2000'), spec('20f_1052'))).toBe(false);
    expect(isIsoComputePair(spec('20f_1052'), spec('10f_2000'))).toBe(false);
  });

  it('an unknown ppf never has the same compute, not even as a config of 0 pixels', () => {
    // An unknown ppf must not be read as 0 (frames × null is 0 in JS): §1 keeps unknown apart from any known value.
    expect(isIsoComputePair(spec('16f'), spec('32f_151k'))).toBe(false);
    expect(isIsoComputePair(spec('32f_151k'), spec('16f'))).toBe(false);
    expect(isIsoComputePair(spec('16f'), spec('32f', { pixelCount: 0 }))).toBe(false);
    expect(isIsoComputePair(spec('32f', { pixelCount: 0 }), spec('16f'))).toBe(false);
    expect(isIsoComputePair(spec('16f'), spec('32f'))).toBe(false);
  });

  it('text only is never in a pair, in either position', () => {
    expect(isIsoComputePair(spec('textonly'), spec('32f_151k'))).toBe(false);
    expect(isIsoComputePair(spec('32f_151k'), spec('textonly'))).toBe(false);
    expect(isIsoComputePair(spec('textonly'), spec('textonly@subs'))).toBe(false);
  });
});

describe('isoComputeGroups', () => {
  it('refuses an open-ended matrix, naming the computation', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'open', itemIds: ['g0'], configs: [spec('32f_151k'), spec('64f_76k')] });
    expect(() => isoComputeGroups(m)).toThrow(/iso-compute groups/);
  });

  it('the 5% boundary: a member exactly 5% above the anchor is in, one just past it is not', () => {
    // Anchor 10 × 200 = 2000; 20 × 105 = 2100 is exactly 5% above it and joins. Config order: the
    // tie for the most common ppf goes to the smaller (105), so 20f_105 comes first.
    expect(isoComputeGroups(fromPatterns(['10f_200', '20f_105'], ['11'])).groups.map((g) => g.configs)).toEqual([['20f_105', '10f_200']]);
    // 20000 vs 21040: within 5% of 21040 but not of 20000, the anchor (the smaller): no group.
    expect(isoComputeGroups(fromPatterns(['10f_2000', '20f_1052'], ['11'])).groups).toEqual([]);
  });

  it('configs with an unknown ppf take no part, wherever the config order puts them', () => {
    // Config order: 8f_10k, 16f_10k (the most common ppf), then by key 32f_151k, 48f, 64f_76k — the
    // unknown-ppf 48f sits between the iso-compute pair 32f_151k (4 832 000) and 64f_76k (4 864 000).
    const keys = ['8f_10k', '16f_10k', '32f_151k', '48f', '64f_76k'];
    const g = isoComputeGroups(fromPatterns(keys, ['11111']));
    expect(g.groups.map((x) => x.configs)).toEqual([['32f_151k', '64f_76k']]);
    expect(g.groups[0]!.compute).toEqual([32 * 151_000, 64 * 76_000]);
    // With text only too (ppf 0, compute 0) nothing changes.
    expect(isoComputeGroups(fromPatterns(['textonly', ...keys], ['111111'])).groups.map((x) => x.configs)).toEqual([['32f_151k', '64f_76k']]);
  });

  it('a config sharing a member’s frame count joins the group but pairs only with other frame counts', () => {
    // 64 × 151k = 32 × 302k = 9 664 000 and 128 × 76k = 9 728 000 (+0.66%): one group of four.
    const m = fromPatterns(['64f_151k', '64f_151k@random', '128f_76k', '32f_302k'], ['1100']);
    const g = isoComputeGroups(m).groups;
    expect(g.map((x) => x.configs)).toEqual([['64f_151k', '64f_151k@random', '128f_76k', '32f_302k']]);
    expect(g[0]!.compute).toEqual([9_664_000, 9_664_000, 9_728_000, 9_664_000]);
    expect(g[0]!.pairs.map((p) => `${p.a}|${p.b}`)).toEqual([
      '64f_151k|128f_76k',
      '64f_151k|32f_302k',
      '64f_151k@random|128f_76k',
      '64f_151k@random|32f_302k',
      '128f_76k|32f_302k',
    ]);
    // The one row is right under both 64f configs and wrong under the others.
    expect(g[0]!.pairs.map((p) => [p.onlyA, p.onlyB, p.both, p.neither])).toEqual([
      [1, 0, 0, 0],
      [1, 0, 0, 0],
      [1, 0, 0, 0],
      [1, 0, 0, 0],
      [0, 0, 0, 1],
    ]);
  });

  it('pair tables, accuracies and headroom match a brute-force count over complete rows (seed 20240611)', () => {
    // The release grid's two groups (§6): {32f_151k, 64f_76k} and {64f_151k, 128f_76k, 32f_302k}.
    const keys = ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '128f_76k', '32f_302k', '64f_76k'];
    const rand = mulberry32(20240611);
    const rows = Array.from({ length: 60 }, () => Array.from(keys, () => (rand() < 0.05 ? '.' : rand() < 0.5 ? '1' : '0')).join(''));
    const m = fromPatterns(keys, rows);
    const res = isoComputeGroups(m);
    const cell = (r: number, k: string) => m.correct[r * m.configs.length + configIndex(m, k)]!;
    const complete = rows.map((_, r) => keys.every((k) => cell(r, k) !== -1));
    const items = complete.flatMap((ok, r) => (ok ? [r] : []));
    const N = items.length;
    expect(res.n).toBe(N);
    expect(res.nExcluded).toBe(rows.length - N);
    expect(N).toBeGreaterThan(10);
    expect(N).toBeLessThan(rows.length);

    expect(res.groups.map((g) => g.configs)).toEqual([
      ['32f_151k', '64f_76k'],
      ['64f_151k', '128f_76k', '32f_302k'],
    ]);
    for (const g of res.groups) {
      const specs = g.configs.map((k) => m.configs[configIndex(m, k)]!);
      expect(g.compute).toEqual(specs.map((c) => c.frames * c.pixelCount!));
      const correct = g.configs.map((k) => items.filter((r) => cell(r, k) === 1).length);
      const oracle = items.filter((r) => g.configs.some((k) => cell(r, k) === 1)).length;
      const best = correct.indexOf(Math.max(...correct)); // first of the highest: config order breaks ties (§2)
      expect(g.bestConfig).toBe(g.configs[best]);
      expect(g.bestAccuracy).toBeCloseTo(correct[best]! / N, 12);
      expect(g.oracleAccuracy).toBeCloseTo(oracle / N, 12);
      expect(g.oracleHeadroomPts).toBeCloseTo((100 * (oracle - correct[best]!)) / N, 10);

      const expectedPairs = g.configs.flatMap((a, i) => g.configs.slice(i + 1).map((b) => [a, b] as const));
      expect(g.pairs.map((p) => [p.a, p.b])).toEqual(expectedPairs.map(([a, b]) => [a, b]));
      for (const p of g.pairs) {
        const count = (ya: number, yb: number) => items.filter((r) => cell(r, p.a) === ya && cell(r, p.b) === yb).length;
        expect([p.onlyA, p.onlyB, p.both, p.neither]).toEqual([count(1, 0), count(0, 1), count(1, 1), count(0, 0)]);
        expect(p.onlyA + p.onlyB + p.both + p.neither).toBe(N);
      }
    }
    // Guard against a degenerate draw: the tables must tell "only a" from "only b" somewhere.
    expect(res.groups.flatMap((g) => g.pairs).some((p) => p.onlyA !== p.onlyB && p.both !== p.neither)).toBe(true);
  });

  it('with one complete row, accuracies are 0 or 1 and the tables hold one item', () => {
    // Config order: 64f_76k (76k, the smaller of two equally common ppfs), then 32f_151k; the row
    // missing 64f_76k is left out.
    const g = isoComputeGroups(fromPatterns(['32f_151k', '64f_76k'], ['10', '1.'])).groups[0]!;
    expect(g.configs).toEqual(['64f_76k', '32f_151k']);
    expect(g.bestConfig).toBe('32f_151k');
    expect([g.bestAccuracy, g.oracleAccuracy, g.oracleHeadroomPts]).toEqual([1, 1, 0]);
    expect(g.pairs.map((p) => [p.a, p.b, p.onlyA, p.onlyB, p.both, p.neither])).toEqual([['64f_76k', '32f_151k', 0, 1, 0, 0]]);
  });

  it('best accuracy is a share of the N items (N = 4 here)', () => {
    // 64f_76k right on 3 of 4, 32f_151k on 1: best 64f_76k at 0.75; oracle 3/4 (the one row 32f_151k gets, 64f_76k gets too).
    const g = isoComputeGroups(fromPatterns(['32f_151k', '64f_76k'], ['11', '01', '01', '00'])).groups[0]!;
    expect(g.bestConfig).toBe('64f_76k');
    expect(g.bestAccuracy).toBe(0.75);
    expect(g.oracleAccuracy).toBe(0.75);
    expect(g.oracleHeadroomPts).toBe(0);
  });
});
