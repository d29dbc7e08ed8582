/**
 * One request for frames (FrameService.requestFrames): its indices checked, then
 * (1) cache hits and frames another request is already decoding, (2) the approximate first fill
 * from the keyframe pass, (3) new decode runs (exact-frames.ts), each tile emitted as it arrives.
 * Leaving the item (the request's signal) drops it from every piece of work it waits on.
 */
import { readdir } from 'node:fs/promises';
import { basename } from 'node:path';
import { MediaError } from '../media/media-error';
import { nearestKeyframe, type VideoMeta } from '../media/video-meta';
import { DEFAULT_THUMB, type ImageSpec } from './decode-run';
import { queueDecodes } from './exact-frames';
import { exactFramePath, videoCacheDir } from './frame-cache';
import { frameKey, probe, specKey, type Engine, type Pending, type Work } from './frame-engine';
import type { FrameBatchResult, FrameRequest, TileEvent } from './frame-service';
import { keyframeThumbs, prefetchKeyframes } from './keyframe-pass';
import type { Requester } from './work-queue';

/** A request under way: what its steps share. */
export interface RequestState {
  req: FrameRequest;
  /** When it started (performance.now()). */
  t0: number;
  spec: ImageSpec;
  signal: AbortSignal | undefined;
  meta: VideoMeta;
  /** The distinct indices asked for, ascending. */
  unique: number[];
  requester: Requester;
  /** The work it waits on (dropped from when it is left). */
  attached: Work[];
}

export async function requestFrames(e: Engine, req: FrameRequest): Promise<FrameBatchResult> {
  if (e.closed) throw new MediaError('cancelled', null, 'frame service closed');
  const t0 = performance.now();
  const spec = req.spec ?? DEFAULT_THUMB;
  const signal = req.signal;
  if (signal?.aborted) throw new MediaError('cancelled', null, 'cancelled');
  if (typeof req.video === 'string' && (req.approximate ?? true)) void prefetchKeyframes(e, req.video, spec, { priority: req.priority ?? 0, ...(signal ? { signal } : {}) });
  const meta = typeof req.video === 'string' ? await probe(e, req.video, signal) : req.video;
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
    for (const t of attached) e.work.drop(t, requester);
    e.keyframePasses.get(kfKey)?.requesters.delete(requester);
    const kw = e.keyframeDecodes.get(kfKey)?.work;
    if (kw) e.work.drop(kw, requester);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await deliver(e, { req, t0, spec, signal, meta, unique, requester, attached });
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Steps 1–3 of a request, then its frames as they arrive (requestFrames has checked it). */
async function deliver(e: Engine, r: RequestState): Promise<FrameBatchResult> {
  const { req, t0, spec, signal, meta, unique, requester, attached } = r;
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
  /** Frame `k` is being decoded for another request: this one waits for it too. */
  const joinDecode = (p: Pending, k: number): void => {
    p.task.requesters.add(requester);
    attached.push(p.task);
    waits.push(
      p.promise.then(
        (file) => deliverExact(k, file),
        (err: unknown) => fail(k, err),
      ),
    );
  };
  const toDecode: number[] = [];
  // One directory listing instead of a stat per frame: a warm strip of ~500 tiles stays well under 100 ms.
  const present = new Set(await readdir(videoCacheDir(e.cacheDir, meta.hash)).catch(() => [] as string[]));
  const hitChecks = unique.map((k) => present.has(basename(exactFramePath(e.cacheDir, meta.hash, k, spec))));
  unique.forEach((k, i) => {
    const key = frameKey(meta.hash, spec, k);
    if (hitChecks[i]) {
      cacheHits++;
      deliverExact(k, exactFramePath(e.cacheDir, meta.hash, k, spec));
      return;
    }
    const p = e.inflight.get(key);
    if (p) joinDecode(p, k);
    else toDecode.push(k);
  });

  // 2. the approximate first fill: nearest keyframe thumbnail for every tile not exact yet.
  // It runs before this request's exact decodes are queued: one quick pass (~0.3 s for ten
  // minutes of 720p) fills the whole strip, and the exact frames then replace tiles one by one.
  const approxWanted = (req.approximate ?? true) && toDecode.length > 0;
  if (approxWanted) {
    const thumbs = await keyframeThumbs(e, meta, spec, requester);
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
    for (const t of attached) e.work.drop(t, requester);
    throw new MediaError('cancelled', null, 'cancelled');
  }

  // 3. new decode runs, queued by priority (frames another request queued meanwhile are shared)
  const stillToDecode: number[] = [];
  for (const k of toDecode) {
    const p = e.inflight.get(frameKey(meta.hash, spec, k));
    if (p) joinDecode(p, k);
    else stillToDecode.push(k);
  }
  if (stillToDecode.length)
    queueDecodes(e, r, stillToDecode, (k, promise) =>
      waits.push(
        promise.then(
          (file) => deliverExact(k, file),
          (err: unknown) => fail(k, err),
        ),
      ),
    );
  e.work.pump();

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
