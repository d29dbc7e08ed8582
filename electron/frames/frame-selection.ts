import type { ConfigSpec, SamplingPolicy, VideoCache } from '../../shared/domain/types';
import { defaultPolicyForModel, sampleFrames } from '../../shared/samplers/index';
import { relativeTimeOfIndex, timeOfIndex, type VideoMeta } from '../media/video-meta';

/**
 * Which frames one config of one item saw (docs/metrics.md §8).
 *
 * Precedence: the response's recorded frame_indices → a per-project override of the
 * config's policy → the policy in the config's provenance → the model family's default.
 * Cached pipelines sample in the domain of ffmpeg's fps=r output frames; their indices are
 * mapped to the native frame that fps=r would have emitted, so the strip shows the true image.
 */
export interface SamplingOverride {
  policy?: SamplingPolicy;
  seed?: number;
  fps?: number | null;
}

export interface ConfigFrames {
  configKey: string;
  policy: SamplingPolicy;
  /** Where the policy came from, shown in the strip's legend. */
  source: 'recorded' | 'override' | 'provenance' | 'model-default';
  /** 'cache' = indices are over the fps=r frames; 'native' = over the video's own frames. */
  domain: 'native' | 'cache';
  cacheFps: number | null;
  /** Whether a recorded cache (its frame count and timestamps) defined the domain, not the video's duration. */
  cacheMetadata: boolean;
  /** T of the sampling domain. */
  total: number;
  /** Indices in the sampling domain, as the sampler (or the record) gave them — duplicates kept. */
  sampled: number[];
  /** Native frame index of each sampled entry (same order and length as `sampled`). */
  frames: number[];
  /** Seconds from the first frame, per entry: the shared time axis of the strips. */
  timestampsS: number[];
}

export interface SelectFramesInput {
  meta: VideoMeta;
  config: ConfigSpec;
  model: string;
  recorded?: readonly number[] | null;
  override?: SamplingOverride | null;
  videoId?: string | null;
  /**
   * The video's frame caches (a cached pipeline's metadata, e.g. cache_frames.py): the one at
   * the config's rate r gives the sampling domain's size and each cache frame's time, so the
   * strip shows the frames the pipeline really read.
   */
  caches?: readonly VideoCache[] | null;
}

/** ffmpeg's fps filter rounds timestamps half away from zero (AV_ROUND_NEAR_INF). */
function roundHalfUp(x: number): number {
  return Math.floor(x + 0.5 + 1e-9);
}

/** T of the fps=r domain: the frames ffmpeg's fps filter yields for the whole video (eof_action=round). */
export function cacheFrameCount(meta: VideoMeta, r: number): number {
  return Math.max(1, roundHalfUp(meta.durationS * r));
}

/**
 * Native frame behind cache frame x: fps=r emits, for output tick x, the last input frame
 * whose time (from the first frame, as the ffmpeg CLI shifts it) rounds to ≤ x ticks.
 * Verified against ffmpeg's own fps=1 output in test/electron/frames/exactness.test.ts.
 */
export function nativeIndexForCacheFrame(meta: VideoMeta, r: number, x: number): number {
  let lo = 0;
  let hi = meta.frameCount - 1;
  let best = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (roundHalfUp(relativeTimeOfIndex(meta, mid) * r) <= x + 1e-9) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

export function selectFramesForConfig(input: SelectFramesInput): ConfigFrames {
  const { meta, config } = input;
  const o = input.override ?? null;
  const rate = o && o.fps !== undefined ? o.fps : config.sampling.fps;
  const r = rate !== null && rate > 0 ? rate : null;
  // A recorded cache at this rate is the domain the pipeline sampled: its frames, its times.
  const cache = r !== null ? (input.caches?.find((c) => Math.abs(c.fps - r) <= 1e-9) ?? null) : null;
  const total = cache !== null ? cache.frameCount : r !== null ? cacheFrameCount(meta, r) : meta.frameCount;

  let policy: SamplingPolicy;
  let source: ConfigFrames['source'];
  let sampled: number[];
  if (input.recorded && input.recorded.length) {
    policy = 'explicit';
    source = 'recorded';
    sampled = sampleFrames('explicit', { total, n: input.recorded.length, explicit: [...input.recorded] });
  } else {
    if (o?.policy) {
      policy = o.policy;
      source = 'override';
    } else if (config.sampling.policy && config.sampling.policy !== 'explicit') {
      policy = config.sampling.policy;
      source = 'provenance';
    } else {
      policy = defaultPolicyForModel(input.model, config.toolkit);
      source = 'model-default';
    }
    const seed = o?.seed ?? config.sampling.seed ?? undefined;
    sampled = sampleFrames(policy, {
      total,
      n: config.frames,
      ...(seed !== undefined ? { seed } : {}),
      ...(input.videoId ? { videoId: input.videoId } : {}),
    });
  }
  // The cache frame's time (as run_inference.py reads it: the last timestamp for an index past
  // the end), and the native frame fps=r shows at that time.
  const cacheTime = (x: number): number => (cache !== null ? cache.timestampsS[Math.min(x, cache.timestampsS.length - 1)]! : x / r!);
  const frames = sampled.map((x) => (r !== null ? nativeIndexForCacheFrame(meta, r, cacheTime(x) * r) : x));
  const t0 = timeOfIndex(meta, 0);
  const timestampsS = sampled.map((x, i) => (r !== null ? cacheTime(x) : timeOfIndex(meta, frames[i] ?? 0) - t0));
  return { configKey: config.key, policy, source, domain: r !== null ? 'cache' : 'native', cacheFps: r, cacheMetadata: cache !== null, total, sampled, frames, timestampsS };
}

/** The union of native frames over configs: what gets extracted, each frame once. */
export function unionOfFrames(configs: readonly ConfigFrames[]): number[] {
  const s = new Set<number>();
  for (const c of configs) for (const f of c.frames) s.add(f);
  return [...s].sort((a, b) => a - b);
}
