import { MediaError } from '../media/media-error';
import { lastErrorLine, runProcess } from '../media/run-process';
import { timeOfIndex, type VideoMeta } from '../media/video-meta';
import type { DecodeRun } from './extraction-plan';
import { selectExpression } from './extraction-plan';
import { createImageStreamSplitter, type ImageFormat } from './image-stream';

/** Size and encoding of extracted images. width null = full size. */
export interface ImageSpec {
  width: number | null;
  format: ImageFormat;
}

export const DEFAULT_THUMB: ImageSpec = { width: 320, format: 'jpeg' };

/** Output options: scale (even height keeps the aspect ratio) then encode. */
export function encodeArgs(spec: ImageSpec): { filters: string[]; codec: string[] } {
  const filters: string[] = [];
  if (spec.width !== null) filters.push(`scale=${spec.width}:-2:flags=bicubic`);
  if (spec.format === 'jpeg') {
    // mjpeg wants full-range YUV; converting explicitly avoids ffmpeg's "non full-range" refusal.
    filters.push('format=yuvj420p');
    return { filters, codec: ['-c:v', 'mjpeg', '-q:v', '3'] };
  }
  return { filters, codec: ['-c:v', 'libwebp', '-quality', '80'] };
}

export interface DecodeRunOptions {
  ffmpeg: string;
  /** Decoder threads per process (ffmpeg's -threads as an input option); undefined = ffmpeg's choice. */
  threads?: number;
  signal?: AbortSignal;
  onFrame: (index: number, image: Buffer) => void;
}

/** What one ffmpeg process left undone: runs (with their missing indices) and why. */
export interface DecodeRunsOutcome {
  incomplete: DecodeRun[];
  error: string | null;
}

function seekArgs(meta: VideoMeta, keyframe: number): string[] {
  if (keyframe === 0) return [];
  // -ss is relative to the file's start time; aim half a frame past the keyframe so float
  // rounding cannot land the seek on the previous keyframe's interval end.
  const kfT = timeOfIndex(meta, keyframe) - meta.startTimeS;
  const frameDur = meta.frameCount > 1 ? meta.durationS / meta.frameCount : 0;
  return ['-ss', Math.max(0, kfT + frameDur / 2).toFixed(6)];
}

/**
 * How long (seconds of presentation time from the keyframe) an input of a multi-run process
 * may be read. -frames:v already ends each output at its run's last frame, but ffmpeg 5.1
 * with several seeking inputs sometimes keeps decoding a finished output's input towards the
 * end of the file (measured: 4 runs of an hour-long 360p file took 58 s of CPU instead of
 * 0.4 s). The limit (ffmpeg counts it from the first decoded frame) has a generous margin; a
 * run it cut short comes back incomplete and is retried in its own process.
 */
function readLimitS(meta: VideoMeta, run: DecodeRun): number {
  const last = run.indices.at(-1) ?? run.keyframe;
  const frameDur = meta.frameCount > 1 ? meta.durationS / meta.frameCount : 0.04;
  return timeOfIndex(meta, last) - timeOfIndex(meta, run.keyframe) + Math.max(1, 16 * frameDur);
}

/**
 * Decode several runs in ONE ffmpeg process: one seeking input and one output per run.
 * A process start costs about as much as decoding 100 frames of 360p, so on long
 * low-resolution videos — a needed frame in nearly every keyframe interval — packing runs
 * into one process saves a third of the CPU (measured in test/bench/frames.ts).
 *
 * Exactness: -copyts keeps the file's own timestamps, each output's select filter keeps only
 * the presentation times of its run's indices (B-frame reordering and non-zero start times
 * are therefore irrelevant), -noaccurate_seek lets every decoded frame reach the filter,
 * -fps_mode passthrough stops ffmpeg from duplicating or dropping frames, and -frames:v stops
 * each input's decoding at its run's last needed frame. Every output writes to its own pipe
 * (fd 3 + run number), so images are labelled per run, in presentation order: a run that
 * comes up short can only lack its last frames and never shifts another run's labels.
 */
export async function decodeRuns(meta: VideoMeta, runs: readonly DecodeRun[], spec: ImageSpec, opts: DecodeRunOptions): Promise<DecodeRunsOutcome> {
  const { filters, codec } = encodeArgs(spec);
  const args = ['-hide_banner', '-nostdin', '-v', 'error', '-copyts'];
  for (const run of runs) {
    args.push(
      '-noaccurate_seek',
      ...seekArgs(meta, run.keyframe),
      ...(runs.length > 1 ? ['-t', readLimitS(meta, run).toFixed(6)] : []),
      ...(opts.threads ? ['-threads', String(opts.threads)] : []),
      '-i',
      meta.path,
    );
  }
  runs.forEach((run, i) => {
    const vf = [`select='${selectExpression(meta, run.indices)}'`, ...filters].join(',');
    args.push(
      '-map',
      `${i}:v:0`,
      '-an',
      '-sn',
      '-dn',
      '-vf',
      vf,
      '-fps_mode',
      'passthrough',
      '-frames:v',
      String(run.indices.length),
      ...codec,
      '-f',
      'image2pipe',
      `pipe:${3 + i}`,
    );
  });
  const splitters = runs.map(() => createImageStreamSplitter(spec.format));
  const got = runs.map(() => 0);
  let parseError: string | null = null;
  const r = await runProcess(opts.ffmpeg, args, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    extraPipes: runs.length,
    onPipe: (i, chunk) => {
      const run = runs[i];
      const splitter = splitters[i];
      if (parseError || !run || !splitter) return;
      try {
        for (const img of splitter.push(chunk)) {
          const n = got[i] ?? 0;
          got[i] = n + 1;
          const index = run.indices[n];
          if (index !== undefined) opts.onFrame(index, img);
        }
      } catch (e) {
        parseError = e instanceof Error ? e.message : String(e);
      }
    },
  });
  const incomplete: DecodeRun[] = [];
  runs.forEach((run, i) => {
    const rest = run.indices.slice(got[i] ?? 0);
    if (rest.length) incomplete.push({ keyframe: run.keyframe, indices: rest });
  });
  let error: string | null = null;
  if (parseError) error = parseError;
  else if (r.code !== 0) error = `ffmpeg could not decode frames ${runs[0]?.indices[0]}…${runs.at(-1)?.indices.at(-1)}: ${lastErrorLine(r.stderr)}`;
  else if (incomplete.length) {
    const first = incomplete[0];
    error = `expected frames ${first?.indices.join(',')} from the interval at keyframe ${first?.keyframe}, ffmpeg did not deliver them (file damaged or timestamps inconsistent)`;
  }
  return { incomplete, error };
}

/**
 * The approximate first fill: every keyframe, decoded without touching any other packet
 * (-discard nokey drops them in the demuxer, so this is ~0.3 s for 10 minutes of 720p).
 * Returns the number of images, delivered in keyframe order. Needs only the path, so it can
 * run while ffprobe is still scanning the packets (see FrameService.prefetchKeyframes).
 */
export async function decodeKeyframes(
  path: string,
  spec: ImageSpec,
  opts: { ffmpeg: string; signal?: AbortSignal; onFrame: (ordinal: number, image: Buffer) => void },
): Promise<number> {
  const { filters, codec } = encodeArgs(spec);
  const args = [
    '-hide_banner',
    '-nostdin',
    '-v',
    'error',
    '-discard',
    'nokey',
    '-skip_frame',
    'nokey', // -discard alone is ignored by the Matroska demuxer
    '-i',
    path,
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    ...(filters.length ? ['-vf', filters.join(',')] : []),
    '-fps_mode',
    'passthrough',
    ...codec,
    '-f',
    'image2pipe',
    'pipe:1',
  ];
  const splitter = createImageStreamSplitter(spec.format);
  let got = 0;
  const r = await runProcess(opts.ffmpeg, args, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    onStdout: (chunk) => {
      for (const img of splitter.push(chunk)) opts.onFrame(got++, img);
    },
  });
  if (r.code !== 0) throw new MediaError('ffmpeg-failed', path, `ffmpeg could not decode keyframes: ${lastErrorLine(r.stderr)}`);
  return got;
}
