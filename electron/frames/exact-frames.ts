/**
 * Exact frames: ffmpeg batches of decode runs, queued by priority (frame-request.ts), run on the
 * engine's work queue, and requeued with their undelivered frames when better-priority work
 * stops them (docs/performance.md). Each frame is written to the cache and given to every
 * request waiting on it.
 */
import { MediaError } from '../media/media-error';
import { decodeRuns } from './decode-run';
import { defaultMaxRunsPerProcess, packRuns, planDecodeRuns } from './extraction-plan';
import { exactFramePath, writeFileAtomic } from './frame-cache';
import { frameKey, type Engine, type Task } from './frame-engine';
import type { RequestState } from './frame-request';

/** Put a stopped batch back on the queue with only its undelivered frames (same requesters and waiters). */
function requeue(e: Engine, task: Task): void {
  const left = (index: number) => e.inflight.get(frameKey(task.meta.hash, task.spec, index))?.task === task;
  task.runs = task.runs.map((r) => ({ keyframe: r.keyframe, indices: r.indices.filter(left) })).filter((r) => r.indices.length > 0);
  task.keys = task.runs.flatMap((r) => r.indices.map((k) => frameKey(task.meta.hash, task.spec, k)));
  task.controller = new AbortController();
  task.preempted = false;
  if (task.keys.length) e.work.push(task);
  else task.state = 'done';
}

/** Runs one batch: one ffmpeg process for its runs (and one each for runs it left undone). */
export async function executeExact(e: Engine, task: Task): Promise<void> {
  const writes: Promise<void>[] = [];
  const onFrame = (index: number, image: Buffer): void => {
    const key = frameKey(task.meta.hash, task.spec, index);
    const file = exactFramePath(e.cacheDir, task.meta.hash, index, task.spec);
    writes.push(
      writeFileAtomic(file, image).then(
        () => {
          e.inflight.get(key)?.resolve(file);
          e.inflight.delete(key);
        },
        (err: unknown) => {
          e.inflight.get(key)?.reject(err);
          e.inflight.delete(key);
        },
      ),
    );
  };
  const rejectKeys = (indices: readonly number[], err: unknown): void => {
    for (const index of indices) {
      const key = frameKey(task.meta.hash, task.spec, index);
      const p = e.inflight.get(key);
      if (p?.task === task) {
        p.reject(err);
        e.inflight.delete(key);
      }
    }
  };
  const decodeOpts = {
    ffmpeg: e.ffmpeg,
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
    if (task.preempted && !e.closed && [...task.requesters].some((r) => r.alive)) {
      requeue(e, task);
      requeued = true;
    } else
      rejectKeys(
        task.runs.flatMap((r) => r.indices),
        err,
      );
  } finally {
    if (!requeued) {
      // Frames the process should have produced but did not (cannot happen when decodeRun resolved; defensive).
      for (const key of task.keys) {
        const p = e.inflight.get(key);
        if (p?.task === task) {
          p.reject(new MediaError('ffmpeg-failed', task.meta.path, 'frame not delivered'));
          e.inflight.delete(key);
        }
      }
    }
  }
}

/**
 * Step 3 of a request (frame-request.ts): frames nobody decodes yet, planned into runs, packed
 * into ffmpeg batches and queued at the request's priority. Each frame gets a pending entry that
 * later requests share; `waitFor` is given each frame's promise.
 */
export function queueDecodes(e: Engine, request: RequestState, frames: readonly number[], waitFor: (index: number, file: Promise<string>) => void): void {
  const { meta, spec, requester, attached } = request;
  const runs = planDecodeRuns(meta, frames, { minRuns: e.parallelism, ...e.options.plan });
  const batches = packRuns(runs, {
    maxPerProcess: e.options.plan?.maxRunsPerProcess ?? defaultMaxRunsPerProcess(meta),
    minBatches: 2 * e.parallelism,
  });
  for (const batch of batches) {
    const indices = batch.flatMap((r) => r.indices);
    const task: Task = {
      kind: 'exact',
      seq: e.work.nextSeq(),
      meta,
      runs: batch,
      spec,
      threads: e.options.decodeThreads ?? (batches.length >= e.parallelism ? 1 : undefined),
      requesters: new Set([requester]),
      controller: new AbortController(),
      state: 'queued',
      keys: indices.map((k) => frameKey(meta.hash, spec, k)),
      preemptible: true,
      preempted: false,
    };
    for (const k of indices) {
      let resolve!: (f: string) => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<string>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => {}); // observed through waitFor; avoids unhandled rejections for shared waits
      e.inflight.set(frameKey(meta.hash, spec, k), { task, promise, resolve, reject });
      waitFor(k, promise);
    }
    attached.push(task);
    e.work.push(task);
  }
}
