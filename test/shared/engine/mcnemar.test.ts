import { describe, expect, it } from 'vitest';
import { mcnemarExact } from '../../../shared/engine/mcnemar';
import { exactMcnemar } from './helpers';

describe('mcnemarExact (docs/metrics.md §2)', () => {
  it('hand values: min(1, 2 · P[X ≤ min(rescued, harmed)]), X ~ Bin(churn, ½)', () => {
    expect(mcnemarExact(0, 2)).toBe(0.5); // 2 · 1/4
    expect(mcnemarExact(1, 5)).toBeCloseTo(14 / 64, 15); // 2 · (1 + 6)/64
    expect(mcnemarExact(10, 2)).toBeCloseTo(158 / 4096, 15); // 2 · (1 + 12 + 66)/4096
    expect(mcnemarExact(0, 0)).toBe(1); // no churn
    expect(mcnemarExact(7, 7)).toBe(1); // P[X ≤ n/2] > ½
  });
  it('rejects a negative or fractional count on either side', () => {
    expect(() => mcnemarExact(2, -1)).toThrow('McNemar counts must be whole numbers ≥ 0 (got rescued=2, harmed=-1)');
    expect(() => mcnemarExact(2, 0.5)).toThrow(/whole numbers/);
  });
  it('keeps the accumulated log of the leading term accurate at churn 2e4 and 4e4 (relative 1e-11)', () => {
    // The sum starts at −n·ln 2 ≈ −1.4e4, whose last bit is ~2e-12: about 1e-12 relative error is
    // the floor of this method; summing the k ≈ 1e4 log terms without compensation would add
    // rounding errors of that size k times over.
    for (const [r, h] of [
      [9_800, 10_200],
      [19_700, 20_300],
    ] as const) {
      const want = exactMcnemar(r, h);
      const got = mcnemarExact(r, h);
      expect(Math.abs(got - want) / want, `${r},${h}: ${got} vs ${want}`).toBeLessThan(1e-11);
    }
  });
});
