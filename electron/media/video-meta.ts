import * as z from 'zod';

/**
 * What Flipbook knows about one video. Cached per (path, size, mtime,
 * head/tail hash) so ffprobe runs once per video. Validated with zod whenever it is read
 * back from a cache file or the project database.
 */
export const VideoMetaSchema = z.object({
  version: z.literal(1),
  path: z.string(),
  size: z.number().int().nonnegative(),
  mtimeMs: z.number(),
  /** sha256 of size + first MiB + last MiB: the content address of the frame cache. */
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  container: z.string(),
  codec: z.string(),
  /** True when Chromium can play the stream as is; otherwise the player uses an H.264 proxy. */
  playable: z.boolean(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** Display rotation in degrees (0, 90, 180, 270) from the display matrix or the rotate tag. */
  rotation: z.number().int(),
  durationS: z.number().nonnegative(),
  /** Presentation time of the first frame in seconds (streams need not start at 0). */
  startTimeS: z.number(),
  timeBase: z.tuple([z.number().int().positive(), z.number().int().positive()]),
  avgFrameRate: z.number().nonnegative(),
  realFrameRate: z.number().nonnegative(),
  frameCount: z.number().int().nonnegative(),
  /** Frame count as the container states it (null = it does not say). */
  containerFrameCount: z.number().int().nonnegative().nullable(),
  variableFrameRate: z.boolean(),
  /**
   * Presentation timestamps of every frame, in time-base ticks, sorted (= presentation order).
   * Stored as {first, step} when the stream is exactly regular, else as the full list.
   */
  pts: z.union([
    z.object({ kind: z.literal('regular'), first: z.number().int(), step: z.number().int().positive() }),
    z.object({ kind: z.literal('list'), values: z.array(z.number().int()) }),
  ]),
  /** Indices (presentation order) of the keyframes, sorted; always contains the first frame. */
  keyframes: z.array(z.number().int().nonnegative()),
});
export type VideoMeta = z.infer<typeof VideoMetaSchema>;

/** Presentation timestamp (ticks) of frame k. */
export function ptsOfIndex(meta: VideoMeta, k: number): number {
  if (meta.pts.kind === 'regular') return meta.pts.first + k * meta.pts.step;
  const v = meta.pts.values[k];
  if (v === undefined) throw new RangeError(`frame ${k} is outside 0…${meta.frameCount - 1}`);
  return v;
}

/** Presentation time (seconds, absolute as in the file) of frame k. */
export function timeOfIndex(meta: VideoMeta, k: number): number {
  return (ptsOfIndex(meta, k) * meta.timeBase[0]) / meta.timeBase[1];
}

/** Time of frame k relative to the first frame (what a player's currentTime shows, minus nothing). */
export function relativeTimeOfIndex(meta: VideoMeta, k: number): number {
  return timeOfIndex(meta, k) - timeOfIndex(meta, 0);
}

/** Index of the keyframe at or before frame k (binary search). */
export function keyframeAtOrBefore(meta: VideoMeta, k: number): number {
  const kf = meta.keyframes;
  let lo = 0;
  let hi = kf.length - 1;
  let best = kf[0] ?? 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = kf[mid] ?? 0;
    if (v <= k) {
      best = v;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best;
}

/** The keyframe nearest in time to frame k (what an approximate tile shows). */
export function nearestKeyframe(meta: VideoMeta, k: number): number {
  const before = keyframeAtOrBefore(meta, k);
  const pos = meta.keyframes.indexOf(before);
  const after = meta.keyframes[pos + 1];
  if (after === undefined) return before;
  return after - k < k - before ? after : before;
}
