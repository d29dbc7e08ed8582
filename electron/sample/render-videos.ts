/**
 * Renders the sample project's videos with ffmpeg (lavfi colour source + one drawbox per
 * event, enabled exactly on the event's frames) and caches them by a hash of the schedule and
 * the generator version: a second run copies files (or does nothing) instead of encoding.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveFfmpeg } from '../media/ffmpeg-path';
import { lastErrorLine, runProcess } from '../media/run-process';
import { eventFrames, type Schedule, type SampleVideo } from './schedule';

/** Bump whenever the ffmpeg arguments or drawing change: it invalidates every cached video. */
export const MEDIA_GENERATOR_VERSION = 1;
const MARKER = '.flipbook-sample-media.json';

export interface SampleMediaOptions {
  /** ffmpeg binary; default as DEVELOPERS.md (FLIPBOOK_FFMPEG → ffmpeg-static → PATH). */
  ffmpeg?: string;
  /** Shared cache folder; default $FLIPBOOK_SAMPLE_CACHE or <user cache>/flipbook/sample-media. */
  cacheDir?: string;
  /** Concurrent ffmpeg processes; default os.availableParallelism(). */
  parallelism?: number;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface SampleMediaResult {
  hash: string;
  files: string[];
  /** 'marker': DIR/media was already up to date; 'cache': copied from the shared cache; 'encoded': rendered now. */
  source: 'marker' | 'cache' | 'encoded';
}

export function sampleMediaHash(schedule: Schedule): string {
  return createHash('sha256')
    .update(`flipbook-sample-media v${MEDIA_GENERATOR_VERSION}\n${JSON.stringify(schedule)}`)
    .digest('hex')
    .slice(0, 24);
}

export function defaultSampleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLIPBOOK_SAMPLE_CACHE) return env.FLIPBOOK_SAMPLE_CACHE;
  const base = env.XDG_CACHE_HOME || (process.platform === 'darwin' ? path.join(os.homedir(), 'Library', 'Caches') : path.join(os.homedir(), '.cache'));
  return path.join(base, 'flipbook', 'sample-media');
}

export function videoFileName(video: SampleVideo): string {
  return `${video.id}.mp4`;
}

/**
 * The ffmpeg arguments of one video. Each event's box is enabled from half a frame before its
 * first frame to half a frame before its end frame, so frame k (at t = k/fps) shows the event
 * exactly when round(start×fps) ≤ k < round(end×fps) — float error in t cannot move a boundary.
 * A thin bar along the bottom grows by one tick per second, a clock without needing fonts.
 */
export function ffmpegArgs(schedule: Schedule, video: SampleVideo, outFile: string): string[] {
  const { fps, width, height } = schedule;
  const filters: string[] = [];
  for (const e of video.events) {
    const [a, b] = eventFrames(e, fps);
    const size = schedule.shapes[e.shape];
    const color = schedule.palette[e.color];
    filters.push(`drawbox=x=${e.x}:y=${e.y}:w=${size.w}:h=${size.h}:color=${color}:t=fill:enable='between(t,${(a - 0.5) / fps},${(b - 0.5) / fps})'`);
  }
  const tick = width / video.durationS;
  for (let s = 0; s < video.durationS; s++) {
    const x = Math.round(s * tick);
    const w = Math.max(1, Math.round((s + 1) * tick) - x - 1);
    filters.push(`drawbox=x=${x}:y=${height - 3}:w=${w}:h=3:color=0x90A4AE:t=fill:enable='gte(t,${s - 0.5 / fps})'`);
  }
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `color=c=${schedule.background}:s=${width}x${height}:r=${fps}:d=${video.durationS}`,
    '-vf',
    filters.join(','),
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-crf',
    '28',
    '-pix_fmt',
    'yuv420p',
    '-g',
    String(schedule.gop),
    '-keyint_min',
    String(schedule.gop),
    '-sc_threshold',
    '0',
    '-movflags',
    '+faststart',
    '-an',
    '-map_metadata',
    '-1',
    '-fflags',
    '+bitexact',
    outFile,
  ];
}

async function pool<T>(inputs: readonly T[], limit: number, work: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.max(1, Math.min(limit, inputs.length)) }, async () => {
    while (next < inputs.length) {
      const x = inputs[next++]!;
      await work(x);
    }
  });
  await Promise.all(runners);
}

async function encodeAll(schedule: Schedule, dir: string, opts: SampleMediaOptions): Promise<void> {
  const ffmpeg = opts.ffmpeg ?? resolveFfmpeg();
  // One failure stops the other encodes at once instead of letting them finish for nothing.
  const stop = new AbortController();
  const onAbort = (): void => stop.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  let done = 0;
  try {
    await pool(schedule.videos, opts.parallelism ?? os.availableParallelism(), async (video) => {
      const out = path.join(dir, videoFileName(video));
      try {
        const r = await runProcess(ffmpeg, ffmpegArgs(schedule, video, out), { signal: stop.signal });
        if (r.code !== 0) throw new Error(`ffmpeg failed on sample video ${video.id}: ${lastErrorLine(r.stderr)}`);
      } catch (err) {
        stop.abort();
        throw err;
      }
      opts.onProgress?.(++done, schedule.videos.length);
    });
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

function markerMatches(mediaDir: string, hash: string, files: string[]): boolean {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(mediaDir, MARKER), 'utf8')) as { hash?: unknown };
    return m.hash === hash && files.every((f) => fs.statSync(path.join(mediaDir, f)).size > 0);
  } catch {
    return false;
  }
}

/** Makes `mediaDir` hold every sample video of the schedule, encoding only when no cache has them. */
export async function ensureSampleMedia(schedule: Schedule, mediaDir: string, opts: SampleMediaOptions = {}): Promise<SampleMediaResult> {
  const hash = sampleMediaHash(schedule);
  const files = schedule.videos.map(videoFileName);
  if (markerMatches(mediaDir, hash, files)) return { hash, files, source: 'marker' };

  const cacheRoot = opts.cacheDir ?? defaultSampleCacheDir();
  const cached = path.join(cacheRoot, hash);
  let source: SampleMediaResult['source'] = 'cache';
  if (!files.every((f) => fs.existsSync(path.join(cached, f)))) {
    source = 'encoded';
    fs.mkdirSync(cacheRoot, { recursive: true });
    // Encode into a private folder and rename it into place, so a concurrent run or a crash
    // never leaves a half-written cache entry that looks complete.
    const tmp = path.join(cacheRoot, `${hash}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    fs.mkdirSync(tmp);
    try {
      await encodeAll(schedule, tmp, opts);
      try {
        fs.renameSync(tmp, cached);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM') throw err;
        // Another process finished first: its entry is equivalent, keep it.
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  fs.mkdirSync(mediaDir, { recursive: true });
  for (const f of files) fs.copyFileSync(path.join(cached, f), path.join(mediaDir, f), fs.constants.COPYFILE_FICLONE);
  fs.writeFileSync(path.join(mediaDir, MARKER), `${JSON.stringify({ hash, generatorVersion: MEDIA_GENERATOR_VERSION, files }, null, 2)}\n`);
  return { hash, files, source };
}
