/**
 * The approximate first fill: every keyframe of a video decoded once per (video, spec) as
 * thumbnails, started as early as possible (before ffprobe finishes) and shared by every
 * request; a tile not exact yet shows its nearest keyframe. Scheduled like exact work, at its
 * requesters' best priority, and never stopped for other work (~0.3 s: waiting is cheaper).
 */
import { fileIdentity } from '../media/file-identity';
import { MediaError } from '../media/media-error';
import type { VideoMeta } from '../media/video-meta';
import { decodeKeyframes, DEFAULT_THUMB, type ImageSpec } from './decode-run';
import { keyframeManifestPath, keyframeThumbPath, readJsonIfExists, writeFileAtomic } from './frame-cache';
import { ManifestSchema, specKey, type Engine, type KeyframeWork } from './frame-engine';
import type { PrefetchOptions } from './frame-service';
import type { Requester } from './work-queue';

/** Runs a keyframe pass's ffmpeg (the work queue calls it). */
export async function executeKeyframes(e: Engine, w: KeyframeWork): Promise<void> {
  try {
    const images: Buffer[] = [];
    await decodeKeyframes(w.path, w.spec, { ffmpeg: e.ffmpeg, signal: w.controller.signal, onFrame: (_ord, img) => images.push(img) });
    w.resolve(images);
  } catch (err) {
    w.reject(err);
  }
}

/** Decoded keyframe images of a file, started as early as possible (before ffprobe finishes), shared by every requester. */
function keyframeImages(e: Engine, path: string, hash: string, spec: ImageSpec, requesters: Iterable<Requester>): Promise<Buffer[]> {
  const k = `${hash}|${specKey(spec)}`;
  let entry = e.keyframeDecodes.get(k);
  if (!entry) {
    let resolve!: (images: Buffer[]) => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<Buffer[]>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const kw: KeyframeWork = {
      kind: 'keyframes',
      seq: e.work.nextSeq(),
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
    const mine = entry;
    promise.catch(() => {
      if (e.keyframeDecodes.get(k) === mine) e.keyframeDecodes.delete(k);
    });
    e.keyframeDecodes.set(k, entry);
    for (const r of requesters) kw.requesters.add(r);
    if ([...kw.requesters].some((r) => r.alive)) {
      e.work.push(kw);
      e.work.pump();
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
export async function prefetchKeyframes(e: Engine, path: string, spec: ImageSpec = DEFAULT_THUMB, opts: PrefetchOptions = {}): Promise<void> {
  const requester: Requester = { priority: opts.priority ?? 0, alive: !opts.signal?.aborted };
  if (!requester.alive) return;
  let kw: KeyframeWork | undefined;
  const onAbort = (): void => {
    requester.alive = false;
    if (kw) e.work.drop(kw, requester);
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const id = await fileIdentity(path);
    if (!requester.alive) return;
    if (ManifestSchema.safeParse(await readJsonIfExists(keyframeManifestPath(e.cacheDir, id.headTailHash, spec))).success) return;
    if (!requester.alive) return;
    const images = keyframeImages(e, path, id.headTailHash, spec, [requester]);
    kw = e.keyframeDecodes.get(`${id.headTailHash}|${specKey(spec)}`)?.work;
    await images;
  } catch {
    // the probe reports what is wrong with the file; the prefetch stays silent
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** All keyframe thumbnails of a video, once per (video, spec); null when they cannot be mapped safely. */
export function keyframeThumbs(e: Engine, meta: VideoMeta, spec: ImageSpec, requester: Requester): Promise<Map<number, string> | null> {
  const k = `${meta.hash}|${specKey(spec)}`;
  let entry = e.keyframePasses.get(k);
  if (entry) {
    entry.requesters.add(requester);
    e.keyframeDecodes.get(k)?.work.requesters.add(requester);
  } else {
    const requesters = new Set([requester]);
    const p = (async () => {
      const manifestFile = keyframeManifestPath(e.cacheDir, meta.hash, spec);
      const manifest = ManifestSchema.safeParse(await readJsonIfExists(manifestFile));
      if (manifest.success) return new Map(manifest.data.keyframes.map((i) => [i, keyframeThumbPath(e.cacheDir, meta.hash, i, spec)]));
      const images = await keyframeImages(e, meta.path, meta.hash, spec, requesters);
      e.keyframeDecodes.delete(k);
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
          const file = keyframeThumbPath(e.cacheDir, meta.hash, idx, spec);
          await writeFileAtomic(file, img);
          map.set(idx, file);
        }),
      );
      await writeFileAtomic(manifestFile, JSON.stringify({ keyframes: kfs }));
      return map;
    })().catch(() => {
      if (e.keyframePasses.get(k) === entry) e.keyframePasses.delete(k);
      return null;
    });
    entry = { promise: p, requesters };
    e.keyframePasses.set(k, entry);
  }
  return entry.promise;
}
