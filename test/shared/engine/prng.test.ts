import { describe, expect, it } from 'vitest';
import { mulberry32, seededPermutation } from '../../../shared/engine/prng';

describe('mulberry32 and seeded permutations', () => {
  it('is deterministic per seed, in [0, 1), and seeds differ', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(mulberry32(8)()).not.toBe(xs[0]);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
  });
  it('first output of seed 0 follows the published algorithm (hand-traced)', () => {
    // a = 0x6d2b79f5; t = imul(a ^ a>>>15, a|1); t ^= t + imul(t ^ t>>>7, t|61); (t ^ t>>>14)>>>0
    let t = 0x6d2b79f5;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    expect(mulberry32(0)()).toBe(((t ^ (t >>> 14)) >>> 0) / 4294967296);
  });
  it('permutations are permutations', () => {
    for (const n of [0, 1, 2, 17, 500]) {
      const p = Array.from(seededPermutation(n, 3));
      expect([...p].sort((x, y) => x - y)).toEqual(Array.from({ length: n }, (_, i) => i));
    }
    expect(Array.from(seededPermutation(50, 1))).not.toEqual(Array.from(seededPermutation(50, 2)));
  });
});
