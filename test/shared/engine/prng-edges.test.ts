import { describe, expect, it } from 'vitest';
import { mulberry32, seededPermutation } from '../../../shared/engine/prng';

/** The documented construction, written out: Fisher–Yates from the top, j = floor(u × (i + 1)). */
function fisherYates(n: number, seed: number): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  const u = mulberry32(seed);
  for (let i = n - 1; i >= 1; i--) {
    const j = Math.floor(u() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

describe('seededPermutation', () => {
  it('is Fisher–Yates from the top driven by mulberry32(seed)', () => {
    for (const seed of [0, 1, 42, 1985]) {
      for (const n of [1, 2, 3, 10, 64]) expect(Array.from(seededPermutation(n, seed)), `n=${n} seed=${seed}`).toEqual(fisherYates(n, seed));
    }
  });
  it('is uniform: each of the 6 orders of 3 items turns up about equally often over seeds 0…5999', () => {
    // Every order can occur (j ranges over 0…i, the element may stay); with 6000 seeds each order
    // is expected 1000 times, standard deviation ≈ 29, so 850…1150 is > 5σ either side.
    const counts = new Map<string, number>();
    for (let seed = 0; seed < 6000; seed++) {
      const k = Array.from(seededPermutation(3, seed)).join('');
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(['012', '021', '102', '120', '201', '210']);
    for (const [k, c] of counts) {
      expect(c, k).toBeGreaterThan(850);
      expect(c, k).toBeLessThan(1150);
    }
  });
});
