import { availableParallelism } from 'node:os';
import { createJobRunner, type JobHandle, type JobRunner } from '../threads/job-runner';
import { resolveFfmpeg, resolveFfprobe } from '../media/ffmpeg-path';
import type { MetadataCache } from '../media/metadata-cache';
import type { VideoMeta } from '../media/video-meta';
import type { ImageSpec } from './decode-run';
import { executeExact } from './exact-frames';
import type { PlanOptions } from './extraction-plan';
import { cancelWork, probe, type Engine, type Work } from './frame-engine';
import { requestFrames as requestFramesOf } from './frame-request';
import { executeKeyframes, prefetchKeyframes } from './keyframe-pass';
import { createWorkQueue } from './work-queue';
/** One tile update. `approximate` tiles show `shownIndex` (the nearest keyframe), never the frame the model saw. */
export interface TileEvent {
  videoHash: string;
  index: number;
  kind: 'approximate' | 'exact';
  shownIndex: number;
  file: string;
}

export interface FrameRequest {
  /** Path of the video, or metadata already probed. */
  video: string | VideoMeta;
  indices: readonly number[];
  spec?: ImageSpec;
  /** Lower runs first: 0 = the view on screen, larger = prefetch. */
  priority?: number;
  /** Abort when the user leaves the item: queued work is dropped, running ffmpeg killed (unless another request shares it). */
  signal?: AbortSignal;
  /** Fill with nearest-keyframe thumbnails first (default true). */
  approximate?: boolean;
  onTile?: (tile: TileEvent) => void;
}

export interface FrameBatchResult {
  meta: VideoMeta;
  /** index → cached image file, for every index that was delivered exactly. */
  files: Map<number, string>;
  cacheHits: number;
  decoded: number;
  failures: { index: number; message: string }[];
  seconds: number;
  /** Seconds until every index had at least an approximate or exact tile (null if some never did). */
  approxFilledSeconds: number | null;
}

export interface FrameServiceOptions {
  cacheDir: string;
  metadataCache?: MetadataCache;
  ffmpeg?: string;
  ffprobe?: string;
  /** Concurrent ffmpeg decodes (default os.availableParallelism()). */
  parallelism?: number;
  plan?: PlanOptions;
  /** Runner for startExtraction jobs (default: a runner of its own). */
  jobs?: JobRunner;
  /**
   * Decoder threads per ffmpeg input. Default: 1 when a request fills every worker with its
   * own process (parallelism then comes from the processes, and frame threading only adds
   * overhead: measured 13–35 % less CPU and faster on both bench videos), else ffmpeg's choice
   * (one lone frame decodes faster with frame threads).
   */
  decodeThreads?: number;
  /** Stop background batches for better-priority work (default true; false is the bench's baseline). */
  preempt?: boolean;
}

export interface FrameServiceStats {
  running: number;
  queued: number;
  /** Decode batches stopped to give their slot to better-priority work, and requeued. */
  preempted: number;
}

export interface PrefetchOptions {
  /** Queue priority of the keyframe pass (0 = the view on screen). */
  priority?: number;
  /** Leaving the item: the pass is dropped, or its ffmpeg killed, unless another request wants it. */
  signal?: AbortSignal;
}

export interface FrameService {
  probe(path: string, signal?: AbortSignal): Promise<VideoMeta>;
  /** Start the approximate keyframe pass early (call before probe on a cold open); never rejects. */
  prefetchKeyframes(path: string, spec?: ImageSpec, opts?: PrefetchOptions): Promise<void>;
  requestFrames(req: FrameRequest): Promise<FrameBatchResult>;
  /**
   * requestFrames as a job (docs/architecture.md "Long work is a job"): an id, progress events on
   * `jobs` (done = exact frames delivered, total = distinct frames requested), cancel through
   * the handle, `jobs.cancel(id)` or req.signal — which drops queued work and kills ffmpeg.
   */
  startExtraction(req: FrameRequest, opts?: { label?: string }): JobHandle<FrameBatchResult>;
  /** The runner extraction jobs run on (subscribe for progress, list, cancel by id). */
  readonly jobs: JobRunner;
  stats(): FrameServiceStats;
  /** Cancel everything (app quit, project closed). */
  close(): void;
}

/**
 * The frame engine. Its parts, by job: frame-engine.ts (the shared state), frame-request.ts (a
 * request, step by step), exact-frames.ts (ffmpeg batches of exact frames), keyframe-pass.ts
 * (the approximate fill). This wires them to one work queue and one job runner.
 */
export function createFrameService(options: FrameServiceOptions): FrameService {
  const parallelism = Math.max(1, options.parallelism ?? availableParallelism());
  const e: Engine = {
    ffmpeg: options.ffmpeg ?? resolveFfmpeg(),
    ffprobe: options.ffprobe ?? resolveFfprobe(),
    parallelism,
    cacheDir: options.cacheDir,
    options,
    inflight: new Map(),
    keyframePasses: new Map(),
    keyframeDecodes: new Map(),
    probes: new Map(),
    /**
     * Exact batches can hold a core for seconds (up to 16 keyframe intervals), so they may be
     * stopped for better-priority work and requeued with the frames they have not delivered yet
     * (those they have are in the cache already). The keyframe pass (~0.3 s) is never stopped:
     * waiting for it is cheaper.
     */
    work: createWorkQueue<Work>({
      parallelism,
      preempt: options.preempt ?? true,
      execute: (w) => (w.kind === 'exact' ? executeExact(e, w) : executeKeyframes(e, w)),
      cancelled: (task) => cancelWork(e, task),
    }),
    closed: false,
  };
  const requestFrames = (req: FrameRequest): Promise<FrameBatchResult> => requestFramesOf(e, req);
  const jobs = options.jobs ?? createJobRunner();

  function startExtraction(req: FrameRequest, opts: { label?: string } = {}): JobHandle<FrameBatchResult> {
    return jobs.start(
      'frames',
      async (ctx) => {
        const total = new Set(req.indices).size;
        let done = 0;
        ctx.progress({ done, total });
        return requestFrames({
          ...req,
          signal: ctx.signal,
          onTile: (tile) => {
            if (tile.kind === 'exact') ctx.progress({ done: ++done, total });
            req.onTile?.(tile);
          },
        });
      },
      { ...(opts.label !== undefined ? { label: opts.label } : {}), ...(req.signal ? { signal: req.signal } : {}) },
    );
  }

  return {
    probe: (path, signal) => probe(e, path, signal),
    prefetchKeyframes: (path, spec, opts) => prefetchKeyframes(e, path, spec, opts),
    requestFrames,
    startExtraction,
    jobs,
    stats: () => e.work.stats(),
    close() {
      e.closed = true;
      e.work.close();
    },
  };
}
