import { keyframeAtOrBefore, timeOfIndex, type VideoMeta } from '../media/video-meta';

/**
 * One ffmpeg process's work: seek to `keyframe`, decode forward, keep exactly `indices`
 * (sorted), stop after the last one. Grouping by keyframe interval is what makes extraction
 * fast: a seek lands on a keyframe anyway, so frames of one interval cost one decode pass.
 */
export interface DecodeRun {
  keyframe: number;
  indices: number[];
}

export interface PlanOptions {
  /**
   * Merge the next interval into the current run when the frames decoded in between (from the
   * run's last needed frame to the next keyframe) are fewer than this: decoding them is cheaper
   * than starting a process. Default: a process start (~0.1 s) ≈ 50 decoded 720p frames on the
   * reference machine, scaled by pixel count (decode cost is roughly proportional to it), so
   * 360p merges across ~200 frames and 4K across ~12.
   */
  mergeGapFrames?: number;
  /** At most this many select terms per process: longer ffmpeg expressions fail to parse (~128+). */
  maxTerms?: number;
  /** Keep at least this many runs when there is enough work, so all cores decode. */
  minRuns?: number;
  /** At most this many runs share one ffmpeg process (see packRuns). */
  maxRunsPerProcess?: number;
}

/** Consecutive indices collapse into one select range. */
export function toRanges(sorted: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const k of sorted) {
    const last = out.at(-1);
    if (last && k === last[1] + 1) last[1] = k;
    else out.push([k, k]);
  }
  return out;
}

export function defaultMergeGap(meta: VideoMeta): number {
  const pixels = Math.max(1, meta.width * meta.height);
  return Math.min(500, Math.max(8, Math.round((50 * 1280 * 720) / pixels)));
}

export function planDecodeRuns(meta: VideoMeta, indices: readonly number[], opts: PlanOptions = {}): DecodeRun[] {
  const mergeGap = opts.mergeGapFrames ?? defaultMergeGap(meta);
  const maxTerms = opts.maxTerms ?? 60;
  const minRuns = opts.minRuns ?? 1;
  const unique = [...new Set(indices)].sort((a, b) => a - b);
  for (const k of unique) {
    if (!Number.isInteger(k) || k < 0 || k >= meta.frameCount) throw new RangeError(`frame index ${k} is outside 0…${meta.frameCount - 1} (${meta.frameCount} frames)`);
  }
  // 1. one group per keyframe interval
  const groups: DecodeRun[] = [];
  for (const k of unique) {
    const kf = keyframeAtOrBefore(meta, k);
    const g = groups.at(-1);
    if (g && g.keyframe === kf) g.indices.push(k);
    else groups.push({ keyframe: kf, indices: [k] });
  }
  // 2. split groups whose select expression would be too long
  const bounded: DecodeRun[] = [];
  for (const g of groups) {
    let cur: number[] = [];
    for (const k of g.indices) {
      const next = [...cur, k];
      if (cur.length && toRanges(next).length > maxTerms) {
        bounded.push({ keyframe: g.keyframe, indices: cur });
        cur = [k];
      } else cur = next;
    }
    if (cur.length) bounded.push({ keyframe: g.keyframe, indices: cur });
  }
  // 3. merge neighbouring groups when the decode gap between them is small
  const runs: DecodeRun[] = [];
  for (const g of bounded) {
    const r = runs.at(-1);
    const lastNeeded = r?.indices.at(-1);
    if (r && lastNeeded !== undefined && g.keyframe > lastNeeded && g.keyframe - lastNeeded <= mergeGap && toRanges([...r.indices, ...g.indices]).length <= maxTerms)
      r.indices.push(...g.indices);
    else runs.push({ keyframe: g.keyframe, indices: [...g.indices] });
  }
  // 4. with few long runs, split them at interval boundaries so every core has work
  while (runs.length < minRuns) {
    let bestI = -1;
    let bestSpan = 0;
    runs.forEach((r, i) => {
      const span = (r.indices.at(-1) ?? 0) - r.keyframe;
      if (span > bestSpan && keyframeAtOrBefore(meta, r.indices.at(-1) ?? 0) !== r.keyframe) {
        bestSpan = span;
        bestI = i;
      }
    });
    const r = runs[bestI];
    if (!r) break;
    const mid = r.keyframe + bestSpan / 2;
    const cutKf = keyframeAtOrBefore(meta, Math.ceil(mid));
    const splitKf = cutKf > r.keyframe ? cutKf : keyframeAtOrBefore(meta, r.indices.at(-1) ?? 0);
    const left = r.indices.filter((k) => k < splitKf);
    const right = r.indices.filter((k) => k >= splitKf);
    if (!left.length || !right.length) break;
    runs.splice(bestI, 1, { keyframe: r.keyframe, indices: left }, { keyframe: keyframeAtOrBefore(meta, right[0] ?? 0), indices: right });
  }
  return runs;
}

/**
 * ffmpeg select expression matching exactly the frames of `indices` by presentation time.
 * With -copyts, `t` is the stream's own timestamp, so the margin only has to absorb float
 * rounding: it is 40 % of the gap to the neighbouring frame, so no other frame can match.
 */
export function selectExpression(meta: VideoMeta, indices: number[]): string {
  const terms: string[] = [];
  for (const [a, b] of toRanges(indices)) {
    const ta = timeOfIndex(meta, a);
    const tb = timeOfIndex(meta, b);
    const before = a > 0 ? ta - timeOfIndex(meta, a - 1) : Infinity;
    const after = b + 1 < meta.frameCount ? timeOfIndex(meta, b + 1) - tb : Infinity;
    const firstGap = a < b ? timeOfIndex(meta, a + 1) - ta : after;
    const lastGap = a < b ? tb - timeOfIndex(meta, b - 1) : before;
    const lo = ta - 0.4 * Math.min(before, firstGap);
    const hi = tb + 0.4 * Math.min(after, lastGap);
    const fmt = (x: number): string => (Number.isFinite(x) ? x.toFixed(9) : '1e12');
    terms.push(`between(t,${a === 0 ? '-1e12' : fmt(lo)},${b === meta.frameCount - 1 ? '1e12' : fmt(hi)})`);
  }
  return terms.join('+');
}

/** Frames one run decodes (keyframe through its last needed frame). */
export function runDecodeFrames(run: DecodeRun): number {
  return (run.indices.at(-1) ?? run.keyframe) - run.keyframe + 1;
}

/**
 * Default runs per process: decoders of all of a process's inputs are open at once, so the
 * count shrinks with the picture size (16 at 720p and below, 4 at 4K).
 */
export function defaultMaxRunsPerProcess(meta: VideoMeta): number {
  const pixels = Math.max(1, meta.width * meta.height);
  return Math.min(16, Math.max(1, Math.floor((16 * 1280 * 720) / pixels)));
}

/**
 * Pack consecutive runs into process batches of at most `maxPerProcess` runs, with at least
 * `minBatches` batches when there are enough runs (so every core has work and a cancelled or
 * outranked request never holds a core for long), balanced by estimated work: the frames each
 * run decodes plus `overheadFrames` for opening its input.
 */
export function packRuns(runs: readonly DecodeRun[], opts: { maxPerProcess: number; minBatches: number; overheadFrames?: number }): DecodeRun[][] {
  if (!runs.length) return [];
  const maxPer = Math.max(1, opts.maxPerProcess);
  const batches = Math.min(runs.length, Math.max(opts.minBatches, Math.ceil(runs.length / maxPer)));
  const overhead = opts.overheadFrames ?? 30;
  const work = runs.map((r) => runDecodeFrames(r) + overhead);
  let remaining = work.reduce((a, b) => a + b, 0);
  const out: DecodeRun[][] = [];
  let cur: DecodeRun[] = [];
  let curWork = 0;
  runs.forEach((run, i) => {
    const w = work[i] ?? 0;
    const left = Math.max(1, batches - out.length); // batches still to fill, this one included
    const target = remaining / left;
    const runsLeft = runs.length - i;
    // close the batch when it is full, or when adding this run overshoots the even share by more than leaving it out undershoots
    if (cur.length && (cur.length >= maxPer || (left > 1 && (curWork + w / 2 > target || runsLeft < left)))) {
      out.push(cur);
      remaining -= curWork;
      cur = [];
      curWork = 0;
    }
    cur.push(run);
    curWork += w;
  });
  if (cur.length) out.push(cur);
  return out;
}
