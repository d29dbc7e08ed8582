/**
 * Frame-engine benchmark. `node --import tsx test/bench/frames.ts` prints the
 * JSON; test/bench/run.ts calls benchFrames(). Videos are generated once (a few minutes) and
 * cached in .cache/bench/ (gitignored).
 *
 * Measures, for the union of uniform-linspace-round budgets 8…256:
 *  - cold: fresh frame cache, approximate keyframe fill then exact frames (what the UI does);
 *  - naive: one ffmpeg process per frame per budget (accurate -ss, 320 px JPEG), measured on
 *    a sample of frames and extrapolated per frame (said so in the JSON);
 *  - decode floor: whole-file decode time ÷ keyframe intervals × intervals holding a needed frame;
 *  - warm: the same strip again with everything cached (fresh service, metadata cached);
 *  - approx: time until every tile shows at least its nearest-keyframe thumbnail.
 *  - preemption: the item on screen opened while a background prefetch (the next items'
 *    strips, priority 1) holds every core — time until its exact frames are all in, with the
 *    frame service's preemption and without it (the baseline), in the same run.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sampleFrames } from '../../shared/samplers/index';
import { createFrameService } from '../../electron/frames/frame-service';
import { resolveFfmpeg } from '../../electron/media/ffmpeg-path';
import { createMemoryMetadataCache } from '../../electron/media/metadata-cache';
import { keyframeAtOrBefore, timeOfIndex, type VideoMeta } from '../../electron/media/video-meta';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const BUDGETS = [8, 16, 32, 64, 128, 256];

export interface VideoCase {
  name: string;
  width: number;
  height: number;
  seconds: number;
}

const CASES: VideoCase[] = [
  { name: '10min-1280x720', width: 1280, height: 720, seconds: 600 },
  { name: '60min-640x360', width: 640, height: 360, seconds: 3600 },
];

/** The bench's H.264 test video for `c`, generated once into .cache/bench (shared with the workspace bench). */
export function ensureVideo(c: VideoCase): string {
  const dir = join(repoRoot, '.cache', 'bench');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `h264-${c.width}x${c.height}-30fps-${c.seconds}s-g250.mp4`);
  if (existsSync(file)) return file;
  process.stderr.write(`generating ${file} (once; a few minutes)…\n`);
  const tmp = `${file}.${process.pid}.tmp.mp4`;
  execFileSync(resolveFfmpeg(), [
    '-y',
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    `testsrc2=s=${c.width}x${c.height}:r=30:d=${c.seconds}`,
    // veryfast keeps B-frames and CABAC (like real files) while generating in minutes
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-g',
    '250',
    '-keyint_min',
    '250',
    '-sc_threshold',
    '0',
    '-pix_fmt',
    'yuv420p',
    tmp,
  ]);
  renameSync(tmp, file);
  return file;
}

function seconds(t0: number): number {
  return Math.round((performance.now() - t0) / 10) / 100;
}

function wholeDecodeSeconds(file: string): number {
  const t0 = performance.now();
  execFileSync(resolveFfmpeg(), ['-v', 'error', '-i', file, '-map', '0:v:0', '-f', 'null', '-']);
  return (performance.now() - t0) / 1000;
}

function naivePerFrameSeconds(meta: VideoMeta, sample: number[], outDir: string): number {
  const t0 = performance.now();
  for (const k of sample) {
    const t = timeOfIndex(meta, k) - meta.startTimeS;
    execFileSync(resolveFfmpeg(), ['-v', 'error', '-y', '-ss', t.toFixed(6), '-i', meta.path, '-frames:v', '1', '-vf', 'scale=320:-2', '-q:v', '3', join(outDir, `${k}.jpg`)]);
  }
  return (performance.now() - t0) / 1000 / sample.length;
}

async function benchCase(c: VideoCase, naiveSampleSize: number): Promise<Record<string, unknown>> {
  const file = ensureVideo(c);
  const load0 = Math.round((loadavg()[0] ?? 0) * 100) / 100;
  const work = mkdtempSync(join(tmpdir(), 'flipbook-bench-'));
  try {
    const metaCache = createMemoryMetadataCache();
    const cold = createFrameService({ cacheDir: join(work, 'cache'), metadataCache: metaCache });
    // As the item view does on a cold open: the keyframe pass starts alongside the probe.
    let t0 = performance.now();
    void cold.prefetchKeyframes(file);
    const meta = await cold.probe(file);
    const probeS = seconds(t0);
    const perBudget = BUDGETS.map((n) => sampleFrames('uniform-linspace-round', { total: meta.frameCount, n }));
    const union = [...new Set(perBudget.flat())].sort((a, b) => a - b);
    const totalRequested = perBudget.reduce((s, l) => s + l.length, 0);

    let tiles = 0;
    t0 = performance.now();
    const res = await cold.requestFrames({ video: meta, indices: union, onTile: () => tiles++ });
    const coldS = seconds(t0);
    if (res.failures.length) throw new Error(`bench extraction failed: ${res.failures[0]?.message}`);

    const warmSvc = createFrameService({ cacheDir: join(work, 'cache'), metadataCache: metaCache });
    t0 = performance.now();
    const warm = await warmSvc.requestFrames({ video: file, indices: union });
    const warmS = (performance.now() - t0) / 1000;

    const intervals = meta.keyframes.length;
    const neededIntervals = new Set(union.map((k) => keyframeAtOrBefore(meta, k))).size;
    const wholeS = wholeDecodeSeconds(file);
    const floorS = (wholeS / intervals) * neededIntervals;

    // Naive: sample frames spread over the budgets' lists (the costly part is the seek+decode
    // within an interval, which varies with the frame's position — so spread evenly).
    const all = perBudget.flat();
    const step = Math.max(1, Math.floor(all.length / naiveSampleSize));
    const sample = all.filter((_, i) => i % step === 0).slice(0, naiveSampleSize);
    const naiveDir = join(work, 'naive');
    mkdirSync(naiveDir);
    const naivePerFrame = naivePerFrameSeconds(meta, sample, naiveDir);
    const naiveS = naivePerFrame * totalRequested;

    const preemption = await benchPreemption(file, metaCache, perBudget, union, work);

    return {
      video: {
        file: file.replace(repoRoot + '/', ''),
        width: meta.width,
        height: meta.height,
        fps: meta.avgFrameRate,
        frames: meta.frameCount,
        keyframeIntervals: intervals,
        codec: meta.codec,
      },
      budgets: BUDGETS,
      policy: 'uniform-linspace-round',
      framesRequestedOverBudgets: totalRequested,
      unionFrames: union.length,
      intervalsWithNeededFrames: neededIntervals,
      parallelism: availableParallelism(),
      // other work on the machine skews every timing: recorded so a noisy run can be recognised
      loadAverage1mAtStart: load0,
      probeSeconds: probeS,
      coldSeconds: coldS,
      approxAllTilesSeconds: res.approxFilledSeconds,
      approxAllTilesIncludingProbeSeconds: res.approxFilledSeconds === null ? null : Math.round((probeS + res.approxFilledSeconds) * 100) / 100,
      warmSeconds: Math.round(warmS * 1000) / 1000,
      warmCacheHits: warm.cacheHits,
      naive: {
        seconds: Math.round(naiveS * 10) / 10,
        method: `one ffmpeg process per frame per budget (accurate -ss, 320 px JPEG), sequential; measured on ${sample.length} of ${totalRequested} frames (${Math.round(naivePerFrame * 1000)} ms each) and extrapolated`,
      },
      decodeFloor: { seconds: Math.round(floorS * 100) / 100, wholeFileDecodeSeconds: Math.round(wholeS * 100) / 100 },
      ratios: {
        naiveOverCold: Math.round((naiveS / coldS) * 100) / 100,
        coldOverDecodeFloor: Math.round((coldS / floorS) * 100) / 100,
      },
      targets: {
        naiveOverColdAtLeast3: naiveS / coldS >= 3,
        coldWithin1_3xOfFloor: coldS / floorS <= 1.3,
        // judged on a cold open: ffprobe + keyframe pass, as the user experiences it
        approxUnder2s: probeS + (res.approxFilledSeconds ?? Infinity) < 2,
        warmUnder100ms: warmS < 0.1,
      },
      tileEvents: tiles,
      preemption,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The view's frames (one 64-frame budget of a differently placed sampler, none shared with the
 * background work) requested while the background decodes the whole union of budgets; fresh
 * frame caches for each measurement, the background cancelled once the view is served.
 */
async function benchPreemption(
  file: string,
  metaCache: ReturnType<typeof createMemoryMetadataCache>,
  perBudget: number[][],
  union: number[],
  work: string,
): Promise<Record<string, unknown>> {
  const taken = new Set(union);
  const meta0 = await createFrameService({ cacheDir: join(work, 'probe'), metadataCache: metaCache }).probe(file);
  const view = sampleFrames('uniform-center', { total: meta0.frameCount, n: 64 }).filter((k) => !taken.has(k));
  const measure = async (preempt: boolean, run: number): Promise<number> => {
    const svc = createFrameService({ cacheDir: join(work, `preempt-${preempt}-${run}`), metadataCache: metaCache, preempt });
    const meta = await svc.probe(file);
    const leave = new AbortController();
    const background = svc.requestFrames({ video: meta, indices: union, priority: 1, approximate: false, signal: leave.signal }).catch(() => null);
    // Let the background's first batches start on every core, as when the user opens an item mid-prefetch.
    while (svc.stats().running < Math.min(availableParallelism(), 2)) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 150));
    const t0 = performance.now();
    const res = await svc.requestFrames({ video: meta, indices: view, priority: 0, approximate: false });
    const s = (performance.now() - t0) / 1000;
    if (res.failures.length) throw new Error(`bench extraction failed: ${res.failures[0]?.message}`);
    leave.abort();
    await background;
    return s;
  };
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const withRuns: number[] = [];
  const withoutRuns: number[] = [];
  for (let run = 0; run < 3; run++) {
    withoutRuns.push(await measure(false, run));
    withRuns.push(await measure(true, run));
  }
  const withS = median(withRuns);
  const withoutS = median(withoutRuns);
  return {
    viewFrames: view.length,
    backgroundFrames: union.length,
    budgetsInBackground: perBudget.length,
    viewExactSecondsWithPreemption: Math.round(withS * 1000) / 1000,
    viewExactSecondsWithoutPreemption: Math.round(withoutS * 1000) / 1000,
    runsWith: withRuns.map((x) => Math.round(x * 1000) / 1000),
    runsWithout: withoutRuns.map((x) => Math.round(x * 1000) / 1000),
    ratioWithOverWithout: Math.round((withS / withoutS) * 100) / 100,
  };
}

export async function benchFrames(): Promise<object> {
  const naiveSample = Number(process.env.FLIPBOOK_BENCH_NAIVE_SAMPLE ?? 24);
  const out: Record<string, unknown> = { bench: 'frames', date: new Date().toISOString() };
  const only = process.env.FLIPBOOK_BENCH_CASES?.split(',');
  for (const c of CASES) if (!only || only.includes(c.name)) out[c.name] = await benchCase(c, naiveSample);
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchFrames(), null, 2));
}
