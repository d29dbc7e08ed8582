import { describe, expect, it } from 'vitest';
import type { SamplingPolicy } from '../../../shared/domain/types';
import { CPythonRandom, defaultPolicyForModel, frameTimestamps, mulberry32Uint32, numpyLinspaceInt, sampleFrames, scalegridSeedOffset } from '../../../shared/samplers/index';
import { pythonAvailable, runPython } from './python-reference';

const POLICIES_WITH_N: SamplingPolicy[] = [
  'uniform-linspace',
  'uniform-linspace-round',
  'uniform-center',
  'scalegrid-uniform',
  'scalegrid-dense-start',
  'scalegrid-random',
  'random',
];

const s = (policy: SamplingPolicy, total: number, n: number, extra: { seed?: number; videoId?: string } = {}) => sampleFrames(policy, { total, n, ...extra });

describe('uniform-linspace (trunc, lmms-eval)', () => {
  it('hand cases', () => {
    expect(s('uniform-linspace', 10, 4)).toEqual([0, 3, 6, 9]);
    expect(s('uniform-linspace', 10, 3)).toEqual([0, 4, 9]); // 4.5 truncates
    expect(s('uniform-linspace', 100, 1)).toEqual([0]);
    expect(s('uniform-linspace', 1, 1)).toEqual([0]);
    expect(s('uniform-linspace', 1, 4)).toEqual([0, 0, 0, 0]);
  });
  it('keeps duplicates when n ≥ T', () => {
    expect(s('uniform-linspace', 3, 5)).toEqual([0, 0, 1, 1, 2]);
  });
});

describe('uniform-linspace-round (round half to even, qwen-vl-utils)', () => {
  it('hand cases', () => {
    expect(s('uniform-linspace-round', 10, 3)).toEqual([0, 4, 9]); // 4.5 → 4 (even)
    expect(s('uniform-linspace-round', 12, 3)).toEqual([0, 6, 11]); // 5.5 → 6 (even)
    expect(s('uniform-linspace-round', 3, 5)).toEqual([0, 0, 1, 2, 2]); // 0.5 → 0, 1.5 → 2
    expect(s('uniform-linspace-round', 100, 1)).toEqual([0]);
    expect(s('uniform-linspace-round', 8, 8)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

describe('uniform-center (InternVL segment centres)', () => {
  it('hand cases', () => {
    expect(s('uniform-center', 10, 4)).toEqual([1, 3, 6, 8]);
    expect(s('uniform-center', 10, 1)).toEqual([5]);
    expect(s('uniform-center', 1, 3)).toEqual([0, 0, 0]);
    expect(s('uniform-center', 4, 8)).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
  });
});

describe('scalegrid-uniform and scalegrid-dense-start', () => {
  it('uniform: all frames when n ≥ T, [0] when n = 1, else rounded linspace', () => {
    expect(s('scalegrid-uniform', 5, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(s('scalegrid-uniform', 5, 8)).toEqual([0, 1, 2, 3, 4]);
    expect(s('scalegrid-uniform', 50, 1)).toEqual([0]);
    expect(s('scalegrid-uniform', 10, 3)).toEqual([0, 4, 9]);
    expect(s('scalegrid-uniform', 12, 3)).toEqual([0, 6, 11]);
  });
  it('dense-start: samples the first third of the video', () => {
    expect(s('scalegrid-dense-start', 100, 4)).toEqual([0, 11, 22, 33]);
    expect(s('scalegrid-dense-start', 100, 8)).toEqual([0, 5, 9, 14, 19, 24, 28, 33]);
    // e = max(n−1, floor((T−1)/3)) = 4 → the first five frames
    expect(s('scalegrid-dense-start', 10, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(s('scalegrid-dense-start', 10, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s('scalegrid-dense-start', 10, 1)).toEqual([0]);
  });
});

describe('scalegrid-random', () => {
  it('follows the first two scalegrid rules', () => {
    expect(s('scalegrid-random', 4, 9, { videoId: 'x' })).toEqual([0, 1, 2, 3]);
    expect(s('scalegrid-random', 400, 1, { videoId: 'x' })).toEqual([0]);
  });
  it('returns k distinct sorted indices and needs a video id', () => {
    const out = s('scalegrid-random', 1000, 64, { seed: 3, videoId: 'abc' });
    expect(out).toHaveLength(64);
    expect(new Set(out).size).toBe(64);
    expect(out).toEqual([...out].sort((a, b) => a - b));
    expect(() => s('scalegrid-random', 1000, 64, { seed: 3 })).toThrow(/video id/);
  });
  it('seed offset counts Unicode code points, not UTF-16 units', () => {
    expect(scalegridSeedOffset('')).toBe(0);
    expect(scalegridSeedOffset('ab')).toBe(97 + 2 * 98);
    expect(scalegridSeedOffset('😀a')).toBe(0x1f600 + 2 * 97);
  });
});

describe('random (mulberry32 partial Fisher–Yates)', () => {
  it('is deterministic, distinct, sorted, in range', () => {
    const a = s('random', 500, 32, { seed: 9 });
    expect(a).toEqual(s('random', 500, 32, { seed: 9 }));
    expect(a).not.toEqual(s('random', 500, 32, { seed: 10 }));
    expect(new Set(a).size).toBe(32);
    expect(a.every((x) => x >= 0 && x < 500)).toBe(true);
    expect(a).toEqual([...a].sort((x, y) => x - y));
  });
  it('n ≥ T gives every frame', () => {
    expect(s('random', 6, 10, { seed: 1 })).toEqual([0, 1, 2, 3, 4, 5]);
  });
  it('handles a huge T without allocating it', () => {
    const out = s('random', 10 ** 9, 8, { seed: 5 });
    expect(out).toHaveLength(8);
    expect(out.every((x) => Number.isInteger(x) && x >= 0 && x < 10 ** 9)).toBe(true);
  });
});

describe('explicit', () => {
  it('returns the recorded indices as recorded, duplicates included', () => {
    expect(sampleFrames('explicit', { total: 10, n: 0, explicit: [5, 1, 1] })).toEqual([5, 1, 1]);
  });
  it('rejects missing or out-of-range indices', () => {
    expect(() => sampleFrames('explicit', { total: 10, n: 3 })).toThrow(/recorded frame indices/);
    expect(() => sampleFrames('explicit', { total: 10, n: 3, explicit: [0, 10] })).toThrow(/#1 = 10/);
    expect(() => sampleFrames('explicit', { total: 10, n: 3, explicit: [0.5] })).toThrow(/#0/);
  });
});

describe('common rules', () => {
  it('n = 0 gives [] for every policy', () => {
    for (const p of POLICIES_WITH_N) expect(s(p, 100, 0, { videoId: 'v' })).toEqual([]);
  });
  it('T = 1 gives frame 0', () => {
    for (const p of POLICIES_WITH_N) {
      const out = s(p, 1, 3, { videoId: 'v' });
      expect(out.length).toBeGreaterThan(0);
      expect(new Set(out)).toEqual(new Set([0]));
    }
  });
  it('validates its arguments with clear errors', () => {
    expect(() => s('uniform-linspace', 0, 3)).toThrow(/total must be an integer ≥ 1/);
    expect(() => s('uniform-linspace', 2.5, 3)).toThrow(/total/);
    expect(() => s('uniform-linspace', 10, -1)).toThrow(/n must be an integer ≥ 0/);
    expect(() => s('uniform-linspace', 10, 1.5)).toThrow(/n must/);
    expect(() => s('random', 10, 2, { seed: 0.5 })).toThrow(/seed must be an integer/);
    expect(() => s('nope' as SamplingPolicy, 10, 2)).toThrow(/unknown sampling policy 'nope'/);
  });
  it('frameTimestamps divides by fps', () => {
    expect(frameTimestamps([0, 25, 50], { fps: 25 })).toEqual([0, 1, 2]);
    expect(() => frameTimestamps([1], { fps: 0 })).toThrow(/fps/);
  });
  it('defaultPolicyForModel follows the toolkit defaults', () => {
    expect(defaultPolicyForModel('Qwen2.5-VL-7B')).toBe('uniform-linspace-round');
    expect(defaultPolicyForModel('Qwen3-VL-8B')).toBe('uniform-linspace-round');
    expect(defaultPolicyForModel('InternVL3.5-8B')).toBe('uniform-center');
    // a LLaVA checkpoint named after its Qwen language model still samples like lmms-eval
    expect(defaultPolicyForModel('LLaVA-NeXT-Video-7B-Qwen2', 'lmms-eval')).toBe('uniform-linspace');
    expect(defaultPolicyForModel('SomethingElse', null)).toBe('uniform-linspace');
  });
});

describe('mulberry32Uint32', () => {
  it('matches the reference snippet written out independently (uint32 arithmetic in Python)', () => {
    const why = pythonAvailable();
    if (why) {
      console.log(`skipped mulberry32 python comparison: ${why}`);
      return;
    }
    const script = `
import json, sys
M = 0xffffffff
def imul(a, b): return (a * b) & M
def gen(seed, count):
    a = seed & M; out = []
    for _ in range(count):
        a = (a + 0x6D2B79F5) & M
        t = imul(a ^ (a >> 15), a | 1)
        t = (t ^ ((t + imul(t ^ (t >> 7), t | 61)) & M)) & M
        out.append((t ^ (t >> 14)) & M)
    return out
print(json.dumps([gen(s, 50) for s in json.load(sys.stdin)]))`;
    const seeds = [0, 1, 42, 2 ** 32 - 1, 123456789];
    const expected = runPython<number[][]>(script, seeds);
    seeds.forEach((seed, i) => {
      const g = mulberry32Uint32(seed);
      expect(Array.from({ length: 50 }, () => g())).toEqual(expected[i]);
    });
  });
});

describe('random policy against the spec written out in Python', () => {
  const why = pythonAvailable();
  if (why) console.log(`skipped random-policy python comparison: ${why}`);
  it.skipIf(why !== null)('partial Fisher–Yates over a full list gives the same frames', () => {
    const cases: { seed: number; total: number; n: number }[] = [];
    for (const seed of [0, 1, 7, 99, 2 ** 31 + 5]) for (const total of [1, 2, 10, 97, 750, 5000]) for (const n of [1, 3, 8, 64, 1000]) cases.push({ seed, total, n });
    const script = `
import json, sys, math
M = 0xffffffff
def imul(a, b): return (a * b) & M
def gen(seed):
    a = seed & M
    while True:
        a = (a + 0x6D2B79F5) & M
        t = imul(a ^ (a >> 15), a | 1)
        t = (t ^ ((t + imul(t ^ (t >> 7), t | 61)) & M)) & M
        yield ((t ^ (t >> 14)) & M) / 2**32
def pick(seed, T, n):
    k = min(n, T); arr = list(range(T)); g = gen(seed)
    for j in range(k):
        r = j + math.floor(next(g) * (T - j))
        arr[j], arr[r] = arr[r], arr[j]
    return sorted(arr[:k])
print(json.dumps([pick(c['seed'], c['total'], c['n']) for c in json.load(sys.stdin)]))`;
    const expected = runPython<number[][]>(script, cases);
    cases.forEach((cs, i) => expect(sampleFrames('random', cs), JSON.stringify(cs)).toEqual(expected[i]));
  });
});

describe('CPython random port against python3', () => {
  const why = pythonAvailable();
  if (why) console.log(`skipped CPython comparisons: ${why}`);

  it.skipIf(why !== null)('getrandbits and randbelow equal CPython for many seeds and widths', () => {
    const seeds = ['0', '1', '5489', '4294967295', '4294967296', '18446744073709551617', '-12345', '340282366920938463463374607431768211457'];
    const script = `
import json, sys, random
out = []
for s in json.load(sys.stdin):
    r = random.Random(int(s))
    bits = [r.getrandbits(k) for k in list(range(0, 54)) * 3]
    below = [r._randbelow(n) for n in [1, 2, 3, 5, 7, 100, 1000, 2**31 - 1, 2**31, 2**32 + 5, 2**40 + 3, 2**53 - 1] * 5]
    out.append({'bits': bits, 'below': below})
print(json.dumps(out))`;
    const expected = runPython<{ bits: number[]; below: number[] }[]>(script, seeds);
    seeds.forEach((seed, i) => {
      const r = new CPythonRandom(BigInt(seed));
      const ks = [...Array.from({ length: 54 }, (_, k) => k), ...Array.from({ length: 54 }, (_, k) => k), ...Array.from({ length: 54 }, (_, k) => k)];
      expect(ks.map((k) => r.getrandbits(k))).toEqual(expected[i]!.bits);
      const ns = Array.from({ length: 5 }, () => [1, 2, 3, 5, 7, 100, 1000, 2 ** 31 - 1, 2 ** 31, 2 ** 32 + 5, 2 ** 40 + 3, 2 ** 53 - 1]).flat();
      expect(ns.map((n) => r.randbelow(n))).toEqual(expected[i]!.below);
    });
  });

  it.skipIf(why !== null)('scalegrid-random equals sorted(random.Random(seed + s).sample(range(T), k)) in both CPython branches', () => {
    const seeds = [0, 1, 42, 2024, -7, 2 ** 40];
    const totals = [2, 3, 7, 16, 30, 85, 86, 100, 181, 277, 278, 1000, 1045, 1046, 3600, 1_000_000];
    const ns = [2, 3, 5, 6, 7, 8, 16, 32, 64, 128, 256, 1000];
    const ids = ['', 'fFjv93ACGo8', 'abc', '日本語のビデオ', '😀x', 'a-b_c 01'];
    const cases: { seed: number; total: number; n: number; videoId: string }[] = [];
    let c = 0;
    for (const seed of seeds)
      for (const total of totals)
        for (const n of ns) {
          cases.push({ seed, total, n, videoId: ids[c++ % ids.length]! });
        }
    const script = `
import json, sys, random
def sg(seed, T, n, vid):
    if n >= T: return list(range(T))
    if n == 1: return [0]
    s = sum((i + 1) * ord(ch) for i, ch in enumerate(vid))
    return sorted(random.Random(seed + s).sample(range(T), min(n, T)))
print(json.dumps([sg(c['seed'], c['total'], c['n'], c['videoId']) for c in json.load(sys.stdin)]))`;
    const expected = runPython<number[][]>(script, cases);
    let mismatches = 0;
    cases.forEach((cs, i) => {
      const got = sampleFrames('scalegrid-random', cs);
      if (JSON.stringify(got) !== JSON.stringify(expected[i])) mismatches++;
      expect(got, JSON.stringify(cs)).toEqual(expected[i]);
    });
    expect(mismatches).toBe(0);
    console.log(`scalegrid-random: ${cases.length} cases equal CPython's random.sample`);
  });

  it.skipIf(why !== null)('uniform policies equal the plain Python formulas (int, round, floor)', () => {
    const cases: { total: number; n: number }[] = [];
    for (const total of [1, 2, 3, 5, 10, 12, 25, 97, 100, 181, 750, 1799, 3600, 54321, 1_000_000]) {
      for (const n of [1, 2, 3, 4, 7, 8, 16, 32, 64, 100, 128, 256, 1000]) cases.push({ total, n });
    }
    const script = `
import json, sys, math
def lin(T, n): return [0] if n == 1 else [int(j * (T - 1) / (n - 1)) for j in range(n)]
def linr(T, n): return [0] if n == 1 else [round(j * (T - 1) / (n - 1)) for j in range(n)]
def cen(T, n): return [math.floor((j + 0.5) * T / n) for j in range(n)]
def sgu(T, n):
    if n >= T: return list(range(T))
    if n == 1: return [0]
    return sorted(set(min(T - 1, round(j * (T - 1) / (n - 1))) for j in range(n)))
def sgd(T, n):
    if n >= T: return list(range(T))
    if n == 1: return [0]
    e = max(n - 1, (T - 1) // 3)
    return sorted(set(min(e, round(j * e / (n - 1))) for j in range(n)))
print(json.dumps([[lin(c['total'], c['n']), linr(c['total'], c['n']), cen(c['total'], c['n']), sgu(c['total'], c['n']), sgd(c['total'], c['n'])] for c in json.load(sys.stdin)]))`;
    const expected = runPython<number[][][]>(script, cases);
    const policies: SamplingPolicy[] = ['uniform-linspace', 'uniform-linspace-round', 'uniform-center', 'scalegrid-uniform', 'scalegrid-dense-start'];
    cases.forEach((cs, i) => {
      policies.forEach((p, k) => expect(sampleFrames(p, cs), `${p} ${JSON.stringify(cs)}`).toEqual(expected[i]![k]));
    });
  });
});

describe('numpy linspace vs the docs/metrics.md formula', () => {
  const why = pythonAvailable('numpy');
  if (why) console.log(`skipped numpy comparison: ${why}`);
  it.skipIf(why !== null)('numpyLinspaceInt reproduces np.linspace(0, T-1, n, dtype=int); the spec formula differs on some (T, n)', () => {
    const cases: [number, number][] = [];
    for (let total = 1; total <= 700; total += 3) for (const n of [2, 8, 16, 32, 64, 128, 256]) if (n <= total) cases.push([total, n]);
    const script = `
import json, sys, numpy as np
print(json.dumps([np.linspace(0, T - 1, n, dtype=int).tolist() for T, n in json.load(sys.stdin)]))`;
    const expected = runPython<number[][]>(script, cases);
    let differ = 0;
    cases.forEach(([total, n], i) => {
      expect(numpyLinspaceInt(total, n), `T=${total} n=${n}`).toEqual(expected[i]);
      if (JSON.stringify(sampleFrames('uniform-linspace', { total, n })) !== JSON.stringify(expected[i])) differ++;
    });
    console.log(`numpy float linspace differs from docs/metrics.md's exact trunc formula on ${differ} of ${cases.length} (T, n) pairs`);
  });
});
