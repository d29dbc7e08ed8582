/**
 * The frame samplers of docs/metrics.md §8: which frame indices a config's model saw.
 * Pure and deterministic; every policy is defined on integers so two implementations
 * agree exactly (see exact-ratio.ts).
 */
import type { SamplingPolicy } from '../domain/types';
import { SAMPLING_POLICIES } from '../domain/types';
import { CPythonRandom } from './cpython-random';
import { floorMulDiv, roundHalfEvenMulDiv } from './exact-ratio';
import { mulberry32Uint32 } from '../engine/prng';

export { CPythonRandom } from './cpython-random';
export { mulberry32Uint32 } from '../engine/prng';

export interface SampleFramesOptions {
  /** T: number of frames in the sampling domain (native frames or the fps=r cache frames). */
  total: number;
  /** n: requested frames. */
  n: number;
  /** Seed of `scalegrid-random` and `random`; defaults to 0. */
  seed?: number;
  /** Benchmark video id; required by `scalegrid-random` (its seed offset). */
  videoId?: string;
  /** Recorded frame indices; required by `explicit`. */
  explicit?: number[];
}

export class SamplerError extends Error {
  override name = 'SamplerError';
}

/**
 * The frame indices policy `policy` picks out of `total` frames for `n` requested frames.
 * `scalegrid-*` return a sorted set; the other policies keep duplicates (the model saw the
 * frame twice) and return indices in sampling order, which for the uniform policies is
 * ascending. `n = 0` gives [].
 */
export function sampleFrames(policy: SamplingPolicy, opts: SampleFramesOptions): number[] {
  if (!(SAMPLING_POLICIES as readonly string[]).includes(policy)) {
    throw new SamplerError(`unknown sampling policy '${String(policy)}' (expected one of ${SAMPLING_POLICIES.join(', ')})`);
  }
  const { total: T, n } = opts;
  if (!Number.isSafeInteger(T) || T < 1) throw new SamplerError(`total must be an integer ≥ 1 (frames in the video), got ${String(T)}`);
  if (!Number.isSafeInteger(n) || n < 0) throw new SamplerError(`n must be an integer ≥ 0 (requested frames), got ${String(n)}`);
  const seed = opts.seed ?? 0;
  if (!Number.isSafeInteger(seed)) throw new SamplerError(`seed must be an integer, got ${String(seed)}`);

  if (policy === 'explicit') return explicitFrames(opts.explicit, T);
  if (n === 0) return [];

  switch (policy) {
    case 'uniform-linspace':
      return n === 1 ? [0] : range(n, (j) => floorMulDiv(j, T - 1, n - 1));
    case 'uniform-linspace-round':
      return n === 1 ? [0] : range(n, (j) => roundHalfEvenMulDiv(j, T - 1, n - 1));
    case 'uniform-center':
      // floor((j + 0.5) × T / n) = floor((2j + 1) × T / 2n), exact in integers.
      return range(n, (j) => floorMulDiv(2 * j + 1, T, 2 * n));
    case 'scalegrid-uniform':
      // The release clamps with min(T − 1, …); for j ≤ n − 1 the rounded value never exceeds T − 1.
      return scalegridSmall(T, n) ?? distinct(range(n, (j) => roundHalfEvenMulDiv(j, T - 1, n - 1)));
    case 'scalegrid-dense-start': {
      const small = scalegridSmall(T, n);
      if (small) return small;
      const e = Math.max(n - 1, Math.floor((T - 1) / 3));
      return distinct(range(n, (j) => roundHalfEvenMulDiv(j, e, n - 1)));
    }
    case 'scalegrid-random': {
      const small = scalegridSmall(T, n);
      if (small) return small;
      if (opts.videoId === undefined) throw new SamplerError('scalegrid-random needs the video id (its seed is seed + Σ (i+1)×codepoint(video_id[i]))');
      const rng = new CPythonRandom(BigInt(seed) + BigInt(scalegridSeedOffset(opts.videoId)));
      return rng.sampleRange(T, Math.min(n, T)).sort((a, b) => a - b);
    }
    case 'random':
      return mulberryFisherYates(T, n, seed);
    // No default: the policy was checked above, and the compiler proves the switch exhaustive.
  }
}

/** s = Σ (i+1) × codepoint(video_id[i]) over Unicode code points (Python's str iteration). */
export function scalegridSeedOffset(videoId: string): number {
  let s = 0;
  let i = 0;
  for (const ch of videoId) {
    s += (i + 1) * (ch.codePointAt(0) ?? 0);
    i++;
  }
  return s;
}

/** Timestamps (seconds) of frame indices in a domain of `fps` frames per second: index / fps. */
export function frameTimestamps(indices: readonly number[], opts: { fps: number }): number[] {
  if (!(Number.isFinite(opts.fps) && opts.fps > 0)) throw new SamplerError(`fps must be a positive number, got ${String(opts.fps)}`);
  return indices.map((x) => x / opts.fps);
}

/**
 * The toolkit default of docs/metrics.md §8 for a model name. LLaVA is tested first because
 * LLaVA checkpoints often carry their language model's name (LLaVA-NeXT-Video-7B-Qwen2)
 * but sample with lmms-eval's numpy linspace. `toolkit` is accepted for callers that know it;
 * today every toolkit other than the model family's own falls back to uniform-linspace.
 */
export function defaultPolicyForModel(model: string, toolkit?: string | null): SamplingPolicy {
  const m = model.toLowerCase();
  if (m.includes('llava')) return 'uniform-linspace';
  if (m.includes('internvl')) return 'uniform-center';
  if (m.includes('qwen')) return 'uniform-linspace-round';
  void toolkit;
  return 'uniform-linspace';
}

/**
 * numpy's `linspace(0, T−1, n, dtype=int)` evaluated the way numpy evaluates it in float64
 * (j × step, step = (T−1)/(n−1), last element set to T−1, then floor). It differs from the
 * exact formula of docs/metrics.md §8 by one frame for about 1% of (T, n) pairs; exported so
 * the difference stays measurable (see the tests) — not used by sampleFrames.
 */
export function numpyLinspaceInt(total: number, n: number): number[] {
  if (n === 1) return [0];
  const step = (total - 1) / (n - 1);
  return range(n, (j) => (j === n - 1 ? total - 1 : Math.floor(j * step)));
}

function scalegridSmall(T: number, n: number): number[] | null {
  if (n >= T) return range(T, (j) => j);
  if (n === 1) return [0];
  return null;
}

function range(count: number, f: (j: number) => number): number[] {
  return Array.from({ length: count }, (_, j) => f(j));
}

/** The distinct values of a non-decreasing list, in order (so already the release's sorted set). */
function distinct(values: number[]): number[] {
  return [...new Set(values)];
}

function mulberryFisherYates(T: number, n: number, seed: number): number[] {
  const k = Math.min(n, T);
  const next = mulberry32Uint32(seed);
  // Sparse array: positions not in the map still hold their own index, so T = 10^7 costs O(k).
  const moved = new Map<number, number>();
  const at = (p: number): number => moved.get(p) ?? p;
  const out: number[] = [];
  for (let j = 0; j < k; j++) {
    const u = next() / 4294967296;
    const r = j + Math.floor(u * (T - j));
    const vj = at(j);
    const vr = at(r);
    moved.set(j, vr);
    moved.set(r, vj);
    out.push(vr);
  }
  return out.sort((a, b) => a - b);
}

function explicitFrames(explicit: number[] | undefined, T: number): number[] {
  if (!explicit) throw new SamplerError('explicit needs the recorded frame indices');
  explicit.forEach((x, i) => {
    if (!Number.isSafeInteger(x) || x < 0 || x >= T) {
      throw new SamplerError(`explicit frame index #${i} = ${String(x)} is not an integer in [0, ${T - 1}]`);
    }
  });
  return [...explicit];
}
