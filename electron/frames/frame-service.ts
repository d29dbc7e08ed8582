import { readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { z } from 'zod';
import { resolveFfmpeg, resolveFfprobe } from '../media/ffmpeg-path';
import { fileIdentity } from '../media/file-identity';
import { MediaError } from '../media/media-error';
import type { MetadataCache } from '../media/metadata-cache';
import { probeVideo } from '../media/probe';
import { nearestKeyframe, type VideoMeta } from '../media/video-meta';
import { decodeKeyframes, decodeRun, DEFAULT_THUMB, type ImageSpec } from './decode-run';
import { planDecodeRuns, type DecodeRun, type PlanOptions } from './extraction-plan';
import { exactFramePath, keyframeManifestPath, keyframeThumbPath, readJsonIfExists, videoCacheDir, writeFileAtomic } from './frame-cache';

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
  /** Decoder threads per ffmpeg process (default: ffmpeg's choice). */
  decodeThreads?: number;
}

export interface FrameServiceStats {
  running: number;
  queued: number;
}

export interface FrameService {
  probe(path: string, signal?: AbortSignal): Promise<VideoMeta>;
  /** Start the approximate keyframe pass early (call before probe on a cold open); never rejects. */
  prefetchKeyframes(path: string, spec?: ImageSpec): Promise<void>;
  requestFrames(req: FrameRequest): Promise<FrameBatchResult>;
  stats(): FrameServiceStats;
  /** Cancel everything (app quit, project closed). */
  close(): void;
}

interface Requester {
  priority: number;
  alive: boolean;
}

interface Task {
  seq: number;
  meta: VideoMeta;
  run: DecodeRun;
  spec: ImageSpec;
  requesters: Set<Requester>;
  controller: AbortController;
  state: 'queued' | 'running' | 'done';
  keys: string[];
}

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
  const queue: Task[] = [];
  const inflight = new Map<string, Pending>();
  const keyframePasses = new Map<string, Promise<Map<number, string> | null>>();
  const keyframeDecodes = new Map<string, Promise<Buffer[]>>();
  const probes = new Map<string, Promise<VideoMeta>>();
  let running = 0;
  let seq = 0;
  let closed = false;
  const closeController = new AbortController();

  const frameKey = (hash: string, spec: ImageSpec, index: number): string => `${hash}|${specKey(spec)}|${index}`;
  const taskPriority = (t: Task): number => Math.min(...[...t.requesters].filter((r) => r.alive).map((r) => r.priority), Infinity);

  function pump(): void {
    while (running < parallelism && queue.length) {
      let best = 0;
      for (let i = 1; i < queue.length; i++) {
        const a = queue[i];
        const b = queue[best];
        if (a && b && (taskPriority(a) < taskPriority(b) || (taskPriority(a) === taskPriority(b) && a.seq < b.seq))) best = i;
      }
      const [task] = queue.splice(best, 1);
      if (task) void execute(task);
    }
  }

  async function execute(task: Task): Promise<void> {
    running++;
    task.state = 'running';
    const writes: Promise<void>[] = [];
    try {
      await decodeRun(task.meta, task.run, task.spec, {
        ffmpeg,
        ...(options.decodeThreads ? { threads: options.decodeThreads } : {}),
        signal: task.controller.signal,
        onFrame: (index, image) => {
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
        },
      });
      await Promise.all(writes);
    } catch (err) {
      await Promise.allSettled(writes);
      for (const key of task.keys) {
        const p = inflight.get(key);
        if (p?.task === task) {
          p.reject(err);
          inflight.delete(key);
        }
      }
    } finally {
      // Frames the process should have produced but did not (cannot happen when decodeRun resolved; defensive).
      for (const key of task.keys) {
        const p = inflight.get(key);
        if (p?.task === task) {
          p.reject(new MediaError('ffmpeg-failed', task.meta.path, 'frame not delivered'));
          inflight.delete(key);
        }
      }
      task.state = 'done';
      running--;
      pump();
    }
  }

  function dropRequester(task: Task, r: Requester): void {
    task.requesters.delete(r);
    if ([...task.requesters].some((x) => x.alive)) return;
    if (task.state === 'queued') {
      const i = queue.indexOf(task);
      if (i >= 0) queue.splice(i, 1);
      const err = new MediaError('cancelled', null, 'cancelled');
      for (const key of task.keys) {
        const p = inflight.get(key);
        if (p?.task === task) {
          p.reject(err);
          inflight.delete(key);
        }
      }
    } else if (task.state === 'running') task.controller.abort();
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

  /** Decoded keyframe images of a file, started as early as possible (before ffprobe finishes). */
  function keyframeImages(path: string, hash: string, spec: ImageSpec): Promise<Buffer[]> {
    const k = `${hash}|${specKey(spec)}`;
    let p = keyframeDecodes.get(k);
    if (!p) {
      const images: Buffer[] = [];
      p = decodeKeyframes(path, spec, { ffmpeg, signal: closeController.signal, onFrame: (_ord, img) => images.push(img) }).then(() => images);
      p.catch(() => keyframeDecodes.delete(k));
      keyframeDecodes.set(k, p);
    }
    return p;
  }

  /**
   * Start the keyframe pass for a video right away, in parallel with probing: both read the
   * whole file (~1.3 s each for an hour of 360p), and on two cores they overlap, which keeps
   * "every tile approximately filled" under 2 s on a cold open. A no-op when cached.
   */
  async function prefetchKeyframes(path: string, spec: ImageSpec = DEFAULT_THUMB): Promise<void> {
    try {
      const id = await fileIdentity(path);
      if (ManifestSchema.safeParse(await readJsonIfExists(keyframeManifestPath(cacheDir, id.headTailHash, spec))).success) return;
      await keyframeImages(path, id.headTailHash, spec);
    } catch {
      // the probe reports what is wrong with the file; the prefetch stays silent
    }
  }

  /** All keyframe thumbnails of a video, once per (video, spec); null when they cannot be mapped safely. */
  function keyframeThumbs(meta: VideoMeta, spec: ImageSpec): Promise<Map<number, string> | null> {
    const k = `${meta.hash}|${specKey(spec)}`;
    let p = keyframePasses.get(k);
    if (!p) {
      p = (async () => {
        const manifestFile = keyframeManifestPath(cacheDir, meta.hash, spec);
        const manifest = ManifestSchema.safeParse(await readJsonIfExists(manifestFile));
        if (manifest.success) return new Map(manifest.data.keyframes.map((i) => [i, keyframeThumbPath(cacheDir, meta.hash, i, spec)]));
        const images = await keyframeImages(meta.path, meta.hash, spec);
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
        keyframePasses.delete(k);
        return null;
      });
      keyframePasses.set(k, p);
    }
    return p;
  }

  async function requestFrames(req: FrameRequest): Promise<FrameBatchResult> {
    if (closed) throw new MediaError('cancelled', null, 'frame service closed');
    const t0 = performance.now();
    const spec = req.spec ?? DEFAULT_THUMB;
    const signal = req.signal;
    if (signal?.aborted) throw new MediaError('cancelled', null, 'cancelled');
    if (typeof req.video === 'string' && (req.approximate ?? true)) void prefetchKeyframes(req.video, spec);
    const meta = typeof req.video === 'string' ? await probe(req.video, signal) : req.video;
    const unique = [...new Set(req.indices)].sort((a, b) => a - b);
    for (const k of unique) {
      if (!Number.isInteger(k) || k < 0 || k >= meta.frameCount)
        throw new MediaError('bad-request', meta.path, `frame index ${k} is outside 0…${meta.frameCount - 1} (${meta.frameCount} frames)`);
    }
    const requester: Requester = { priority: req.priority ?? 0, alive: true };
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
    const attached: Task[] = [];
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
      const thumbs = await keyframeThumbs(meta, spec);
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
      for (const run of runs) {
        const task: Task = {
          seq: seq++,
          meta,
          run,
          spec,
          requesters: new Set([requester]),
          controller: new AbortController(),
          state: 'queued',
          keys: run.indices.map((k) => frameKey(meta.hash, spec, k)),
        };
        for (const k of run.indices) {
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
        queue.push(task);
      }
    }
    pump();

    const onAbort = (): void => {
      requester.alive = false;
      for (const t of attached) dropRequester(t, requester);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    await Promise.all(waits);
    signal?.removeEventListener('abort', onAbort);
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

  return {
    probe,
    prefetchKeyframes,
    requestFrames,
    stats: () => ({ running, queued: queue.length }),
    close() {
      closed = true;
      closeController.abort();
      for (const t of [...queue]) {
        for (const r of t.requesters) r.alive = false;
        dropRequester(t, { priority: 0, alive: false });
      }
      queue.length = 0;
      for (const p of inflight.values()) {
        if (p.task.state === 'running') p.task.controller.abort();
      }
    },
  };
}
