import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import * as z from 'zod';
import { createJobRunner, type JobHandle, type JobRunner } from '../threads/job-runner';
import { resolveFfmpeg, resolveFfprobe } from '../media/ffmpeg-path';
import { fileIdentity } from '../media/file-identity';
import { MediaError } from '../media/media-error';
import type { MetadataCache } from '../media/metadata-cache';
import { probeVideo } from '../media/probe';
import { nearestKeyframe, type VideoMeta } from '../media/video-meta';
import { decodeKeyframes, decodeRuns, DEFAULT_THUMB, type ImageSpec } from './decode-run';
import { defaultMaxRunsPerProcess, packRuns, planDecodeRuns, type DecodeRun, type PlanOptions } from './extraction-plan';
import { exactFramePath, keyframeManifestPath, keyframeThumbPath, readJsonIfExists, videoCacheDir, writeFileAtomic } from './frame-cache';
import { createWorkQueue, type Requester, type Work as QueuedWork } from './work-queue';

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

/** Exact frames: one ffmpeg process decoding a batch of runs. */
interface Task extends QueuedWork {
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
interface KeyframeWork extends QueuedWork {
  kind: 'keyframes';
  path: string;
  spec: ImageSpec;
  resolve: (images: Buffer[]) => void;
  reject: (err: unknown) => void;
}

type Work = Task | KeyframeWork;

interface Pending {
  task: Task;
  promise: Promise<string>;
  resolve: (file: string) => void;
  reject: (err: unknown) => void;
}

const ManifestSchema = z.object({ keyframes: z.array(z.number().int().nonnegative()) });

function specKey(spec: ImageSpec): string {
  return `${spec.width ?? 'full'}.${spec.format}`;
}

export function createFrameService(options: FrameServiceOptions): FrameService {
  const ffmpeg = options.ffmpeg ?? resolveFfmpeg();
  const ffprobe = options.ffprobe ?? resolveFfprobe();
  const parallelism = Math.max(1, options.parallelism ?? availableParallelism());
  const cacheDir = options.cacheDir;
  const inflight = new Map<string, Pending>();
  const keyframePasses = new Map<string, { promise: Promise<Map<number, string> | null>; requesters: Set<Requester> }>();
  const keyframeDecodes = new Map<string, { work: KeyframeWork; promise: Promise<Buffer[]> }>();
  const probes = new Map<string, Promise<VideoMeta>>();
  let closed = false;

  const frameKey = (hash: string, spec: ImageSpec, index: number): string => `${hash}|${specKey(spec)}|${index}`;

  /**
   * Exact batches can hold a core for seconds (up to 16 keyframe intervals), so they may be
   * stopped for better-priority work and requeued with the frames they have not delivered yet
   * (those they have are in the cache already). The keyframe pass (~0.3 s) is never stopped:
   * waiting for it is cheaper.
   */
  const work = createWorkQueue<Work>({
    parallelism,
    preempt: options.preempt ?? true,
    execute: (w) => (w.kind === 'exact' ? execute(w) : executeKeyframes(w)),
    cancelled(task) {
      const err = new MediaError('cancelled', null, 'cancelled');
      if (task.kind === 'keyframes') {
        task.reject(err);
        return;
      }
      for (const key of task.keys) {
        const p = inflight.get(key);
        if (p?.task === task) {
          p.reject(err);
          inflight.delete(key);
        }
      }
    },
  });
  const pump = (): void => work.pump();
  const dropRequester = (task: Work, r: Requester): void => work.drop(task, r);

  /** Put a stopped batch back on the queue with only its undelivered frames (same requesters and waiters). */
  function requeue(task: Task): void {
    const left = (index: number) => inflight.get(frameKey(task.meta.hash, task.spec, index))?.task === task;
    task.runs = task.runs.map((r) => ({ keyframe: r.keyframe, indices: r.indices.filter(left) })).filter((r) => r.indices.length > 0);
    task.keys = task.runs.flatMap((r) => r.indices.map((k) => frameKey(task.meta.hash, task.spec, k)));
    task.controller = new AbortController();
    task.preempted = false;
    if (task.keys.length) work.push(task);
    else task.state = 'done';
  }

  async function executeKeyframes(w: KeyframeWork): Promise<void> {
    try {
      const images: Buffer[] = [];
      await decodeKeyframes(w.path, w.spec, { ffmpeg, signal: w.controller.signal, onFrame: (_ord, img) => images.push(img) });
      w.resolve(images);
    } catch (err) {
      w.reject(err);
    }
  }

  async function execute(task: Task): Promise<void> {
    const writes: Promise<void>[] = [];
    const onFrame = (index: number, image: Buffer): void => {
      const key = frameKey(task.meta.hash, task.spec, index);
      const file = exactFramePath(cacheDir, task.meta.hash, index, task.spec);
      writes.push(
        writeFileAtomic(file, image).then(
          () => {
            inflight.get(key)?.resolve(file);
            inflight.delete(key);
          },
          (err: unknown) => {
            inflight.get(key)?.reject(err);
            inflight.delete(key);
          },
        ),
      );
    };
    const rejectKeys = (indices: readonly number[], err: unknown): void => {
      for (const index of indices) {
        const key = frameKey(task.meta.hash, task.spec, index);
        const p = inflight.get(key);
        if (p?.task === task) {
          p.reject(err);
          inflight.delete(key);
        }
      }
    };
    const decodeOpts = {
      ffmpeg,
      ...(task.threads ? { threads: task.threads } : {}),
      signal: task.controller.signal,
      onFrame,
    };
    let requeued = false;
    try {
      const out = await decodeRuns(task.meta, task.runs, task.spec, decodeOpts);
      // A shared process that left runs undone (one damaged interval, an input ffmpeg refused)
      // retries them one process each, so one bad interval cannot fail its neighbours' frames.
      const retry = task.runs.length > 1 ? out.incomplete : [];
      if (task.runs.length === 1 && out.error) for (const r of out.incomplete) rejectKeys(r.indices, new MediaError('ffmpeg-failed', task.meta.path, out.error));
      for (const run of retry) {
        const again = await decodeRuns(task.meta, [run], task.spec, decodeOpts);
        if (again.error) for (const r of again.incomplete) rejectKeys(r.indices, new MediaError('ffmpeg-failed', task.meta.path, again.error));
      }
      await Promise.all(writes);
    } catch (err) {
      await Promise.allSettled(writes);
      if (task.preempted && !closed && [...task.requesters].some((r) => r.alive)) {
        requeue(task);
        requeued = true;
      } else rejectKeys(task.runs.flatMap((r) => r.indices), err);
    } finally {
      if (!requeued) {
        // Frames the process should have produced but did not (cannot happen when decodeRun resolved; defensive).
        for (const key of task.keys) {
          const p = inflight.get(key);
          if (p?.task === task) {
            p.reject(new MediaError('ffmpeg-failed', task.meta.path, 'frame not delivered'));
            inflight.delete(key);
          }
        }
      }
    }
  }

  function probe(path: string, signal?: AbortSignal): Promise<VideoMeta> {
    // Concurrent requests for one video share one ffprobe.
    let p = probes.get(path);
    if (!p) {
      p = probeVideo(path, {
        ffprobe,
        ...(options.metadataCache ? { cache: options.metadataCache } : {}),
        ...(signal ? { signal } : {}),
      }).finally(() => probes.delete(path));
      probes.set(path, p);
    }
    return p;
  }

  /** Decoded keyframe images of a file, started as early as possible (before ffprobe finishes), shared by every requester. */
  function keyframeImages(path: string, hash: string, spec: ImageSpec, requesters: Iterable<Requester>): Promise<Buffer[]> {
    const k = `${hash}|${specKey(spec)}`;
    let entry = keyframeDecodes.get(k);
    if (!entry) {
      let resolve!: (images: Buffer[]) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<Buffer[]>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      const kw: KeyframeWork = {
        kind: 'keyframes',
        seq: work.nextSeq(),
        path,
        spec,
        requesters: new Set(),
        controller: new AbortController(),
        state: 'queued',
        preemptible: false,
        preempted: false,
        resolve,
        reject,
      };
      entry = { work: kw, promise };
      const e = entry;
      promise.catch(() => {
        if (keyframeDecodes.get(k) === e) keyframeDecodes.delete(k);
      });
      keyframeDecodes.set(k, entry);
      for (const r of requesters) kw.requesters.add(r);
      if ([...kw.requesters].some((r) => r.alive)) {
        work.push(kw);
        pump();
      } else {
        kw.state = 'done';
        reject(new MediaError('cancelled', null, 'cancelled'));
      }
    } else for (const r of requesters) entry.work.requesters.add(r);
    return entry.promise;
  }

  /**
   * Start the keyframe pass for a video right away, in parallel with probing: both read the
   * whole file (~1.3 s each for an hour of 360p), and on two cores they overlap, which keeps
   * "every tile approximately filled" under 2 s on a cold open. A no-op when cached. It is
   * queued at `priority` and dropped (its ffmpeg killed) when `signal` aborts and no other
   * request wants the same pass.
   */
  async function prefetchKeyframes(path: string, spec: ImageSpec = DEFAULT_THUMB, opts: PrefetchOptions = {}): Promise<void> {
    const requester: Requester = { priority: opts.priority ?? 0, alive: !opts.signal?.aborted };
    if (!requester.alive) return;
    let kw: KeyframeWork | undefined;
    const onAbort = (): void => {
      requester.alive = false;
      if (kw) dropRequester(kw, requester);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const id = await fileIdentity(path);
      if (!requester.alive) return;
      if (ManifestSchema.safeParse(await readJsonIfExists(keyframeManifestPath(cacheDir, id.headTailHash, spec))).success) return;
      if (!requester.alive) return;
      const images = keyframeImages(path, id.headTailHash, spec, [requester]);
      kw = keyframeDecodes.get(`${id.headTailHash}|${specKey(spec)}`)?.work;
      await images;
    } catch {
      // the probe reports what is wrong with the file; the prefetch stays silent
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** All keyframe thumbnails of a video, once per (video, spec); null when they cannot be mapped safely. */
  function keyframeThumbs(meta: VideoMeta, spec: ImageSpec, requester: Requester): Promise<Map<number, string> | null> {
    const k = `${meta.hash}|${specKey(spec)}`;
    let entry = keyframePasses.get(k);
    if (entry) {
      entry.requesters.add(requester);
      keyframeDecodes.get(k)?.work.requesters.add(requester);
    } else {
      const requesters = new Set([requester]);
      const p = (async () => {
        const manifestFile = keyframeManifestPath(cacheDir, meta.hash, spec);
        const manifest = ManifestSchema.safeParse(await readJsonIfExists(manifestFile));
        if (manifest.success) return new Map(manifest.data.keyframes.map((i) => [i, keyframeThumbPath(cacheDir, meta.hash, i, spec)]));
        const images = await keyframeImages(meta.path, meta.hash, spec, requesters);
        keyframeDecodes.delete(k);
        // Decoded keyframes map to our keyframe list by order; if the counts disagree (a first
        // frame we treated as key without the flag, odd streams) we only trust an exact match.
        let kfs = meta.keyframes;
        if (images.length === kfs.length - 1) kfs = kfs.slice(1);
        if (images.length !== kfs.length) return null;
        const map = new Map<number, string>();
        await Promise.all(
          kfs.map(async (idx, ord) => {
            const img = images[ord];
            if (!img) return;
            const file = keyframeThumbPath(cacheDir, meta.hash, idx, spec);
            await writeFileAtomic(file, img);
            map.set(idx, file);
          }),
        );
        await writeFileAtomic(manifestFile, JSON.stringify({ keyframes: kfs }));
        return map;
      })().catch(() => {
        if (keyframePasses.get(k) === entry) keyframePasses.delete(k);
        return null;
      });
      entry = { promise: p, requesters };
      keyframePasses.set(k, entry);
    }
    return entry.promise;
  }

  async function requestFrames(req: FrameRequest): Promise<FrameBatchResult> {
    if (closed) throw new MediaError('cancelled', null, 'frame service closed');
    const t0 = performance.now();
    const spec = req.spec ?? DEFAULT_THUMB;
    const signal = req.signal;
    if (signal?.aborted) throw new MediaError('cancelled', null, 'cancelled');
    if (typeof req.video === 'string' && (req.approximate ?? true))
      void prefetchKeyframes(req.video, spec, { priority: req.priority ?? 0, ...(signal ? { signal } : {}) });
    const meta = typeof req.video === 'string' ? await probe(req.video, signal) : req.video;
    const unique = [...new Set(req.indices)].sort((a, b) => a - b);
    for (const k of unique) {
      if (!Number.isInteger(k) || k < 0 || k >= meta.frameCount)
        throw new MediaError('bad-request', meta.path, `frame index ${k} is outside 0…${meta.frameCount - 1} (${meta.frameCount} frames)`);
    }
    const requester: Requester = { priority: req.priority ?? 0, alive: true };
    const attached: Work[] = [];
    const kfKey = `${meta.hash}|${specKey(spec)}`;
    // From here on, leaving the item drops this request from every piece of work it waits on
    // (the keyframe pass included); work nobody else wants is dequeued or its ffmpeg killed.
    const onAbort = (): void => {
      requester.alive = false;
      for (const t of attached) dropRequester(t, requester);
      keyframePasses.get(kfKey)?.requesters.delete(requester);
      const kw = keyframeDecodes.get(kfKey)?.work;
      if (kw) dropRequester(kw, requester);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await deliver();
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }

    async function deliver(): Promise<FrameBatchResult> {
    const files = new Map<number, string>();
    const failures: { index: number; message: string }[] = [];
    const filled = new Set<number>();
    let approxFilledSeconds: number | null = null;
    const markFilled = (index: number): void => {
      filled.add(index);
      if (approxFilledSeconds === null && filled.size === unique.length) approxFilledSeconds = (performance.now() - t0) / 1000;
    };
    const emit = (tile: TileEvent): void => {
      if (!requester.alive) return;
      try {
        req.onTile?.(tile);
      } catch {
        // a UI callback error must not break extraction for other tiles
      }
    };
    const deliverExact = (index: number, file: string): void => {
      files.set(index, file);
      markFilled(index);
      emit({ videoHash: meta.hash, index, kind: 'exact', shownIndex: index, file });
    };

    const fail = (index: number, err: unknown): void => {
      failures.push({ index, message: err instanceof Error ? err.message : String(err) });
    };

    // 1. cache hits and frames another request is already decoding
    let cacheHits = 0;
    const waits: Promise<void>[] = [];
    const toDecode: number[] = [];
    // One directory listing instead of a stat per frame: a warm strip of ~500 tiles stays well under 100 ms.
    const present = new Set(await readdir(videoCacheDir(cacheDir, meta.hash)).catch(() => [] as string[]));
    const hitChecks = unique.map((k) => present.has(basename(exactFramePath(cacheDir, meta.hash, k, spec))));
    unique.forEach((k, i) => {
      const key = frameKey(meta.hash, spec, k);
      if (hitChecks[i]) {
        cacheHits++;
        deliverExact(k, exactFramePath(cacheDir, meta.hash, k, spec));
        return;
      }
      const p = inflight.get(key);
      if (p) {
        p.task.requesters.add(requester);
        attached.push(p.task);
        waits.push(p.promise.then((file) => deliverExact(k, file), (err: unknown) => fail(k, err)));
      } else toDecode.push(k);
    });

    // 2. the approximate first fill: nearest keyframe thumbnail for every tile not exact yet.
    // It runs before this request's exact decodes are queued: one quick pass (~0.3 s for ten
    // minutes of 720p) fills the whole strip, and the exact frames then replace tiles one by one.
    const approxWanted = (req.approximate ?? true) && toDecode.length > 0;
    if (approxWanted) {
      const thumbs = await keyframeThumbs(meta, spec, requester);
      if (thumbs && !signal?.aborted) {
        for (const k of unique) {
          if (files.has(k)) continue;
          const kf = nearestKeyframe(meta, k);
          const file = thumbs.get(kf);
          if (!file) continue;
          markFilled(k);
          emit({ videoHash: meta.hash, index: k, kind: 'approximate', shownIndex: kf, file });
        }
      }
    }
    if (signal?.aborted) {
      for (const t of attached) dropRequester(t, requester);
      throw new MediaError('cancelled', null, 'cancelled');
    }

    // 3. new decode runs, queued by priority (frames another request queued meanwhile are shared)
    const stillToDecode: number[] = [];
    for (const k of toDecode) {
      const p = inflight.get(frameKey(meta.hash, spec, k));
      if (p) {
        p.task.requesters.add(requester);
        attached.push(p.task);
        waits.push(p.promise.then((file) => deliverExact(k, file), (err: unknown) => fail(k, err)));
      } else stillToDecode.push(k);
    }
    if (stillToDecode.length) {
      const runs = planDecodeRuns(meta, stillToDecode, { minRuns: parallelism, ...options.plan });
      const batches = packRuns(runs, {
        maxPerProcess: options.plan?.maxRunsPerProcess ?? defaultMaxRunsPerProcess(meta),
        minBatches: 2 * parallelism,
      });
      for (const batch of batches) {
        const indices = batch.flatMap((r) => r.indices);
        const task: Task = {
          kind: 'exact',
          seq: work.nextSeq(),
          meta,
          runs: batch,
          spec,
          threads: options.decodeThreads ?? (batches.length >= parallelism ? 1 : undefined),
          requesters: new Set([requester]),
          controller: new AbortController(),
          state: 'queued',
          keys: indices.map((k) => frameKey(meta.hash, spec, k)),
          preemptible: true,
          preempted: false,
        };
        for (const k of indices) {
          let resolve!: (f: string) => void;
          let reject!: (e: unknown) => void;
          const promise = new Promise<string>((res, rej) => {
            resolve = res;
            reject = rej;
          });
          promise.catch(() => {}); // observed below; avoids unhandled rejections for shared waits
          inflight.set(frameKey(meta.hash, spec, k), { task, promise, resolve, reject });
          waits.push(promise.then((file) => deliverExact(k, file), (err: unknown) => fail(k, err)));
        }
        attached.push(task);
        work.push(task);
      }
    }
    pump();

    await Promise.all(waits);
    if (signal?.aborted) throw new MediaError('cancelled', null, 'cancelled');
    for (const t of attached) t.requesters.delete(requester);
    failures.sort((a, b) => a.index - b.index);
    return {
      meta,
      files,
      cacheHits,
      decoded: files.size - cacheHits,
      failures,
      seconds: (performance.now() - t0) / 1000,
      approxFilledSeconds,
    };
    }
  }

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
    probe,
    prefetchKeyframes,
    requestFrames,
    startExtraction,
    jobs,
    stats: () => work.stats(),
    close() {
      closed = true;
      work.close();
    },
  };
}
