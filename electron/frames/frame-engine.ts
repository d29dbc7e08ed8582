/**
 * The frame engine's shared state (frame-service.ts wires it): ffmpeg and its cache, the work
 * queue both kinds of work run on, the frames being decoded (each shared by every request that
 * wants it), the keyframe passes and the probes under way. The engine's jobs take it
 * explicitly: exact-frames.ts, keyframe-pass.ts and frame-request.ts.
 */
import * as z from 'zod';
import { MediaError } from '../media/media-error';
import { probeVideo } from '../media/probe';
import type { VideoMeta } from '../media/video-meta';
import type { ImageSpec } from './decode-run';
import type { DecodeRun } from './extraction-plan';
import type { FrameServiceOptions } from './frame-service';
import type { Requester, Work as QueuedWork, WorkQueue } from './work-queue';

/** Exact frames: one ffmpeg process decoding a batch of runs. */
export interface Task extends QueuedWork {
  kind: 'exact';
  meta: VideoMeta;
  /** Runs decoded by one ffmpeg process (one input and output each). */
  runs: DecodeRun[];
  spec: ImageSpec;
  threads: number | undefined;
  keys: string[];
}

/**
 * The approximate fill (every keyframe of a video) is scheduled like exact work: at its
 * requesters' best priority, so a prefetch's pass cannot delay the view on screen, and
 * killed when every requester has gone.
 */
export interface KeyframeWork extends QueuedWork {
  kind: 'keyframes';
  path: string;
  spec: ImageSpec;
  resolve: (images: Buffer[]) => void;
  reject: (err: unknown) => void;
}

export type Work = Task | KeyframeWork;

export interface Pending {
  task: Task;
  promise: Promise<string>;
  resolve: (file: string) => void;
  reject: (err: unknown) => void;
}

export interface Engine {
  readonly ffmpeg: string;
  readonly ffprobe: string;
  /** Concurrent ffmpeg decodes. */
  readonly parallelism: number;
  readonly cacheDir: string;
  readonly options: FrameServiceOptions;
  /** Exact frames being decoded, by frameKey: each shared by every request that wants it. */
  readonly inflight: Map<string, Pending>;
  /** The keyframe thumbnails of a (video, spec), once per pair. */
  readonly keyframePasses: Map<string, { promise: Promise<Map<number, string> | null>; requesters: Set<Requester> }>;
  /** The keyframe decodes under way, by (video, spec). */
  readonly keyframeDecodes: Map<string, { work: KeyframeWork; promise: Promise<Buffer[]> }>;
  /** ffprobe runs under way, by path. */
  readonly probes: Map<string, Promise<VideoMeta>>;
  readonly work: WorkQueue<Work>;
  /** Set by close(): no new request is taken, and a stopped batch is not requeued. */
  closed: boolean;
}

export const ManifestSchema = z.object({ keyframes: z.array(z.number().int().nonnegative()) });

export function specKey(spec: ImageSpec): string {
  return `${spec.width ?? 'full'}.${spec.format}`;
}

export const frameKey = (hash: string, spec: ImageSpec, index: number): string => `${hash}|${specKey(spec)}|${index}`;

/** The work queue dropped `task` (nobody wants it any more, or the engine closed): its waiters are told. */
export function cancelWork(e: Engine, task: Work): void {
  const err = new MediaError('cancelled', null, 'cancelled');
  if (task.kind === 'keyframes') {
    task.reject(err);
    return;
  }
  for (const key of task.keys) {
    const p = e.inflight.get(key);
    if (p?.task === task) {
      p.reject(err);
      e.inflight.delete(key);
    }
  }
}

/** The video's metadata. */
export function probe(e: Engine, path: string, signal?: AbortSignal): Promise<VideoMeta> {
  // Concurrent requests for one video share one ffprobe.
  let p = e.probes.get(path);
  if (!p) {
    p = probeVideo(path, {
      ffprobe: e.ffprobe,
      ...(e.options.metadataCache ? { cache: e.options.metadataCache } : {}),
      ...(signal ? { signal } : {}),
    }).finally(() => e.probes.delete(path));
    e.probes.set(path, p);
  }
  return p;
}
