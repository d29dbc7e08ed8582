// The samplers' edges that the formula tests do not reach: integer ratios whose product leaves
// the safe range, CPython's random at seeds and widths past 32 bits, every argument check, and
// the policies' small cases (docs/metrics.md §8). python3 is the reference where it exists.
import { describe, expect, it } from 'vitest';
import { floorMulDiv, roundHalfEvenMulDiv } from '../../../shared/samplers/exact-ratio';
import { CPythonRandom, numpyLinspaceInt, SamplerError, sampleFrames } from '../../../shared/samplers/index';
import { mulberry32 } from '../../../shared/engine/prng';
import { pythonAvailable, runPython } from './python-reference';

const why = pythonAvailable();
if (why) console.log(`skipped python comparisons: ${why}`);

describe('exact ratios', () => {
  it('floor and round-half-even of a×b/q equal BigInt arithmetic, safe products and beyond', () => {
    const rng = mulberry32(20261206);
    const big = (bits: number) => Math.floor(rng() * 2 ** bits);
    const cases: [number, number, number][] = [
      [0, 5, 3],
      [7, 1, 2], // 3.5 → 4 (half, odd floor)
      [5, 1, 2], // 2.5 → 2 (half, even floor)
      [2 ** 40 + 1, 2 ** 20, 2], // beyond 2^53, exactly half-way: (2^60 + 2^20)/2 is whole
      [2 ** 40 + 1, 2 ** 20 + 1, 2], // beyond 2^53 and half-way with an odd floor
      [2 ** 45 + 3, 2 ** 20 + 1, 2], // beyond 2^53 and half-way with an even floor
      [2 ** 40 + 1, 2 ** 19, 2 ** 20], // beyond 2^53, half-way, the result 2^39 + 0.5 → 2^39 (even)
      [2 ** 40 + 1, 3 * 2 ** 19, 2 ** 20], // … and 3×2^39 + 1.5 → 3×2^39 + 2 (odd floor)
      [2 ** 53 - 1, 3, 3],
      [2 ** 53 - 1, 2 ** 53 - 1, 2 ** 53 - 2],
    ];
    for (let i = 0; i < 3000; i++) cases.push([big(1 + (i % 40)), big(1 + ((i * 7) % 40)), 1 + big(1 + ((i * 13) % 45))]);
    for (const [a, b, q] of cases) {
      const P = BigInt(a) * BigInt(b);
      const Q = BigInt(q);
      const f = P / Q;
      const twice = 2n * (P - f * Q);
      const round = twice < Q ? f : twice > Q ? f + 1n : f % 2n === 0n ? f : f + 1n;
      expect(floorMulDiv(a, b, q), `floor ${a}×${b}/${q}`).toBe(Number(f));
      expect(roundHalfEvenMulDiv(a, b, q), `round ${a}×${b}/${q}`).toBe(Number(round));
    }
  });
  it('a product beyond 2^53 is not rounded before dividing', () => {
    // 3 × (2^53 − 1) is 27021597764222973; as a float it is …972 or …976, and /3 would drift.
    expect(floorMulDiv(2 ** 53 - 1, 3, 3)).toBe(2 ** 53 - 1);
    expect(roundHalfEvenMulDiv(2 ** 53 - 1, 3, 3)).toBe(2 ** 53 - 1);
    expect(roundHalfEvenMulDiv(2 ** 52 + 1, 3, 2)).toBe(Number((3n * (2n ** 52n + 1n) + 1n) / 2n));
  });
});

describe('CPython random: argument checks', () => {
  const r = () => new CPythonRandom(1);
  it('getrandbits takes integers in [0, 53]', () => {
    expect(r().getrandbits(0)).toBe(0);
    expect(r().getrandbits(53)).toBeLessThan(2 ** 53);
    for (const k of [-1, 54, 1.5]) expect(() => r().getrandbits(k), String(k)).toThrow(new RangeError(`getrandbits: k must be an integer in [0, 53], got ${k}`));
  });
  it('randbelow takes positive safe integers', () => {
    expect(r().randbelow(1)).toBe(0);
    for (const n of [0, -3, 2.5, 2 ** 53]) expect(() => r().randbelow(n), String(n)).toThrow(new RangeError(`randbelow: n must be a positive safe integer, got ${n}`));
  });
  it('sampleRange takes 0 ≤ k ≤ n, integers', () => {
    expect(r().sampleRange(0, 0)).toEqual([]);
    expect(r().sampleRange(3, 3).sort()).toEqual([0, 1, 2]);
    for (const n of [-1, 1.5]) expect(() => r().sampleRange(n, 0), String(n)).toThrow(new RangeError(`sample: population size must be a non-negative integer, got ${n}`));
    for (const [n, k] of [
      [3, 4],
      [3, -1],
      [3, 1.5],
    ] as const)
      expect(() => r().sampleRange(n, k), `${n} ${k}`).toThrow(new RangeError('Sample larger than population or is negative'));
  });
  it('a bigint seed and the same number seed give the same stream', () => {
    const a = new CPythonRandom(12345);
    const b = new CPythonRandom(12345n);
    const c = new CPythonRandom(-12345);
    const draws = (x: CPythonRandom) => Array.from({ length: 700 }, () => x.nextUint32());
    const da = draws(a);
    expect(draws(b)).toEqual(da);
    expect(draws(c)).toEqual(da);
  });
});

describe.skipIf(why !== null)('CPython random against python3 at its edges', () => {
  it('seeds longer than the state (more than 624 words) and widths at 2^32', () => {
    // A seed of 700 32-bit words makes init_by_array run over the key, not over the state.
    const seeds = [(1n << (32n * 700n)) + 987654321n, (1n << (32n * 624n)) - 1n, 2n ** 32n];
    const script = `
import json, sys, random
out = []
for s in json.load(sys.stdin):
    r = random.Random(int(s, 16))
    out.append({'u': [r.getrandbits(32) for _ in range(5)], 'below': [r._randbelow(n) for n in [2**32, 2**32 - 1, 2**32 + 1] * 20]})
print(json.dumps(out))`;
    const expected = runPython<{ u: number[]; below: number[] }[]>(
      script,
      seeds.map((s) => s.toString(16)),
    );
    seeds.forEach((seed, i) => {
      const r = new CPythonRandom(seed);
      expect(Array.from({ length: 5 }, () => r.getrandbits(32))).toEqual(expected[i]!.u);
      const ns = Array.from({ length: 20 }, () => [2 ** 32, 2 ** 32 - 1, 2 ** 32 + 1]).flat();
      expect(ns.map((n) => r.randbelow(n))).toEqual(expected[i]!.below);
    });
  });
});

describe('sampleFrames edges', () => {
  it('names its error class and lists the known policies', () => {
    let caught: unknown;
    try {
      sampleFrames('nope' as never, { total: 10, n: 2 });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SamplerError);
    expect((caught as Error).name).toBe('SamplerError');
    expect((caught as Error).message).toMatch(/expected one of uniform-linspace, uniform-linspace-round, /);
  });
  it('n = 0 gives [] before asking for a video id', () => {
    expect(sampleFrames('scalegrid-random', { total: 100, n: 0 })).toEqual([]);
    expect(() => sampleFrames('scalegrid-random', { total: 100, n: 2 })).toThrow(/needs the video id/);
  });
  it('explicit indices must lie in [0, T − 1]', () => {
    expect(() => sampleFrames('explicit', { total: 10, n: 1, explicit: [-1] })).toThrow(new SamplerError('explicit frame index #0 = -1 is not an integer in [0, 9]'));
    expect(sampleFrames('explicit', { total: 10, n: 1, explicit: [0, 9] })).toEqual([0, 9]);
  });
  it('the recorded indices are copied, not shared', () => {
    const recorded = [3, 1];
    const out = sampleFrames('explicit', { total: 10, n: 2, explicit: recorded });
    out.push(7);
    expect(recorded).toEqual([3, 1]);
  });
  it('random returns min(n, T) sorted frames', () => {
    const out = sampleFrames('random', { total: 50, n: 12, seed: 3 });
    expect(out).toHaveLength(12);
    expect([...out].sort((a, b) => a - b)).toEqual(out);
    expect(new Set(out).size).toBe(12);
  });
  it('numpyLinspaceInt for n = 0 and n = 1', () => {
    expect(numpyLinspaceInt(10, 0)).toEqual([]);
    expect(numpyLinspaceInt(10, 1)).toEqual([0]);
    expect(numpyLinspaceInt(10, 2)).toEqual([0, 9]);
  });
});
