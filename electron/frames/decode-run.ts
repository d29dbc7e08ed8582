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

/**
 * Decode one run in one ffmpeg process and hand over each needed frame as it comes out.
 * Exactness: -copyts keeps the file's own timestamps, the select filter keeps only the
 * presentation times of the wanted indices (B-frame reordering and non-zero start times are
 * therefore irrelevant), -noaccurate_seek lets every decoded frame reach the filter, and
 * -fps_mode passthrough stops ffmpeg from duplicating or dropping frames.
 */
export async function decodeRun(meta: VideoMeta, run: DecodeRun, spec: ImageSpec, opts: DecodeRunOptions): Promise<void> {
  const { filters, codec } = encodeArgs(spec);
  const vf = [`select='${selectExpression(meta, run.indices)}'`, ...filters].join(',');
  // -ss is relative to the file's start time; aim half a frame past the keyframe so float
  // rounding cannot land the seek on the previous keyframe's interval end.
  const kfT = timeOfIndex(meta, run.keyframe) - meta.startTimeS;
  const frameDur = meta.frameCount > 1 ? meta.durationS / meta.frameCount : 0;
  const seek = run.keyframe === 0 ? [] : ['-ss', Math.max(0, kfT + frameDur / 2).toFixed(6)];
  const args = [
    '-hide_banner', '-nostdin', '-v', 'error',
    '-copyts', '-noaccurate_seek', ...seek,
    ...(opts.threads ? ['-threads', String(opts.threads)] : []),
    '-i', meta.path,
    '-map', '0:v:0', '-an', '-sn', '-dn',
    '-vf', vf,
    '-fps_mode', 'passthrough',
    '-frames:v', String(run.indices.length),
    ...codec,
    '-f', 'image2pipe', 'pipe:1',
  ];
  const splitter = createImageStreamSplitter(spec.format);
  let got = 0;
  let parseError: Error | null = null;
  const r = await runProcess(opts.ffmpeg, args, {
    ...(opts.signal ? { signal: opts.signal } : {}),
    onStdout: (chunk) => {
      if (parseError) return;
      try {
        for (const img of splitter.push(chunk)) {
          const index = run.indices[got++];
          if (index !== undefined) opts.onFrame(index, img);
        }
      } catch (e) {
        parseError = e instanceof Error ? e : new Error(String(e));
      }
    },
  });
  if (parseError) throw new MediaError('ffmpeg-failed', meta.path, (parseError as Error).message);
  if (r.code !== 0) throw new MediaError('ffmpeg-failed', meta.path, `ffmpeg could not decode frames ${run.indices[0]}…${run.indices.at(-1)}: ${lastErrorLine(r.stderr)}`);
  if (got !== run.indices.length)
    throw new MediaError(
      'ffmpeg-failed',
      meta.path,
      `expected ${run.indices.length} frames from the interval at keyframe ${run.keyframe}, ffmpeg delivered ${got} (file damaged or timestamps inconsistent)`,
    );
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
    '-hide_banner', '-nostdin', '-v', 'error',
    '-discard', 'nokey', '-skip_frame', 'nokey', // -discard alone is ignored by the Matroska demuxer
    '-i', path,
    '-map', '0:v:0', '-an', '-sn', '-dn',
    ...(filters.length ? ['-vf', filters.join(',')] : []),
    '-fps_mode', 'passthrough',
    ...codec,
    '-f', 'image2pipe', 'pipe:1',
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
