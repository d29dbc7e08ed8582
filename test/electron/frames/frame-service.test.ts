import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFrameService, type FrameService, type FrameServiceOptions } from '../../../electron/frames/frame-service';
import { packRuns, planDecodeRuns, selectExpression } from '../../../electron/frames/extraction-plan';
import type { JobEvent } from '../../../electron/threads/job-runner';
import { MediaError } from '../../../electron/media/media-error';
import { probeVideo } from '../../../electron/media/probe';
import { processAlive } from '../../../electron/store/process-alive';
import { tempDir } from '../store/helpers';
import { barcodeVideo, readBarcodes } from './barcode-video';

const services: FrameService[] = [];

/** A frame service closed after its test, so a failing test leaves no decoder (or hung wrapper) running. */
function frameService(options: FrameServiceOptions): FrameService {
  const svc = createFrameService(options);
  services.push(svc);
  return svc;
}

afterEach(() => {
  for (const svc of services.splice(0)) svc.close();
});

const video = (): string => barcodeVideo({ name: 'bars-b3-offset.mkv', frames: 300, gop: 50, bframes: 3, startOffsetS: 2.5 });

describe('decode planning', () => {
  it('groups by keyframe interval, merges close intervals, keeps select lists short', async () => {
    const m = await probeVideo(video());
    expect(planDecodeRuns(m, [5, 7, 60, 61, 290], { mergeGapFrames: 0 })).toEqual([
      { keyframe: 0, indices: [5, 7] },
      { keyframe: 50, indices: [60, 61] },
      { keyframe: 250, indices: [290] },
    ]);
    // 45 → next keyframe 50 is 5 frames away: cheaper to decode through than to start a process
    expect(planDecodeRuns(m, [45, 60], { mergeGapFrames: 10 })).toEqual([{ keyframe: 0, indices: [45, 60] }]);
    const odd = Array.from({ length: 25 }, (_, i) => 2 * i + 1);
    const runs = planDecodeRuns(m, odd, { maxTerms: 10 });
    expect(runs.every((r) => r.indices.length <= 10)).toBe(true);
    expect(runs.flatMap((r) => r.indices)).toEqual(odd);
    // minRuns splits a long run at an interval boundary so both cores work
    const split = planDecodeRuns(m, [10, 120, 220], { mergeGapFrames: 1000, minRuns: 2 });
    expect(split.length).toBe(2);
    expect(split.flatMap((r) => r.indices)).toEqual([10, 120, 220]);
    expect(() => planDecodeRuns(m, [300])).toThrow(/outside 0…299/);
    expect(selectExpression(m, [3, 4, 5, 9]).split('between').length - 1).toBe(2);
  });

  it('packs runs into process batches: bounded size, order kept, every core busy', () => {
    const runs = Array.from({ length: 10 }, (_, i) => ({ keyframe: i * 50, indices: [i * 50 + 10] }));
    const packed = packRuns(runs, { maxPerProcess: 3, minBatches: 2 });
    expect(packed.every((b) => b.length >= 1 && b.length <= 3)).toBe(true);
    expect(packed.flat()).toEqual(runs);
    expect(packed.length).toBe(4);
    expect(packRuns(runs, { maxPerProcess: 16, minBatches: 4 }).map((b) => b.length)).toEqual([3, 2, 3, 2]);
    expect(packRuns(runs.slice(0, 1), { maxPerProcess: 16, minBatches: 4 })).toEqual([runs.slice(0, 1)]);
  });
});

/**
 * An ffmpeg wrapper whose first run waits until open() is called (later runs go straight to
 * ffmpeg): a test can hold the only decode slot while it queues more work, instead of hoping
 * the first decode is still running (it was not, now and then, on a loaded machine). The wait
 * gives up after ~60 s, so a failing test leaves no script polling behind it.
 */
function gatedFfmpeg(dir: string): { path: string; open: () => void } {
  const path = join(dir, 'ffmpeg-gated.sh');
  writeFileSync(
    path,
    `#!/bin/sh\nif [ ! -e "${dir}/first" ]; then : > "${dir}/first"; n=0; while [ ! -e "${dir}/go" ] && [ $n -lt 3000 ]; do sleep 0.02; n=$((n+1)); done; fi\nexec ffmpeg "$@"\n`,
  );
  chmodSync(path, 0o755);
  return { path, open: () => writeFileSync(join(dir, 'go'), '') };
}

/** A one-slot frame service whose first ffmpeg run waits for the gate (see gatedFfmpeg). */
function gatedService(prefix: string, maxRunsPerProcess: number): { svc: FrameService; gate: { open: () => void } } {
  const dir = tempDir(prefix);
  const gate = gatedFfmpeg(dir);
  const svc = frameService({ cacheDir: join(dir, 'cache'), ffmpeg: gate.path, parallelism: 1, plan: { mergeGapFrames: 0, maxRunsPerProcess } });
  return { svc, gate };
}

/** Poll until `cond` holds (the scheduler's state changes between awaits); fails after `ms`. */
async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms: ${cond.toString()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * The pid a wrapper script recorded with `echo $$ >> file`, once it is there and running. The
 * shell creates the file before it writes the line, so a poll can find the file empty (seen
 * under load) — and Number('') is 0, for which process.kill(0, 0) asks about the whole
 * process group: "alive" for ever, so a wait for the decoder's death timed out after 20 s.
 * Only a complete first line counts. Deaths are checked with processAlive, which also counts
 * a killed decoder that Node has not reaped yet (a zombie, which answers signal 0) as dead.
 */
async function recordedPid(file: string): Promise<number> {
  let pid = 0;
  await until(() => {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false; // not created yet
    }
    const line = /^(\d+)\n/.exec(text);
    pid = Number(line?.[1] ?? 0);
    return line !== null;
  });
  expect(pid).toBeGreaterThan(0);
  expect(processAlive(pid)).toBe(true);
  return pid;
}

describe('frame service scheduling', () => {
  it('shares frames between concurrent requests and decodes each once', async () => {
    const cacheDir = tempDir('flipbook-share-');
    const svc = frameService({ cacheDir, parallelism: 1 });
    const [a, b] = await Promise.all([
      svc.requestFrames({ video: video(), indices: [10, 20, 30], approximate: false }),
      svc.requestFrames({ video: video(), indices: [20, 30, 40], approximate: false }),
    ]);
    expect(readBarcodes([...a.files.keys()].sort((x, y) => x - y).map((k) => a.files.get(k) ?? ''))).toEqual([10, 20, 30]);
    expect(readBarcodes([20, 30, 40].map((k) => b.files.get(k) ?? ''))).toEqual([20, 30, 40]);
    expect(a.decoded + b.decoded).toBe(6); // per request "delivered by decoding", shared ones count in both
    const files = readdirSync(join(cacheDir, a.meta.hash.slice(0, 2), a.meta.hash)).filter((f) => /^\d+-w320\.jpg$/.test(f));
    expect(files.sort()).toEqual(['10-w320.jpg', '20-w320.jpg', '30-w320.jpg', '40-w320.jpg']);
  });

  it('the current view is served before queued prefetch work', async () => {
    const { svc, gate } = gatedService('flipbook-prio-', 1);
    const order: string[] = [];
    // The blocker's ffmpeg holds the only slot until the gate opens, so the prefetch runs and
    // then the view's run are all queued behind it, whatever the machine's speed.
    const blocker = svc.requestFrames({ video: video(), indices: [5], approximate: false });
    // Wait until the blocker's decode holds the slot: requested together, the prefetch's
    // directory listing could finish first and its run take the gated first ffmpeg instead.
    await until(() => svc.stats().running >= 1);
    const prefetch = svc.requestFrames({ video: video(), indices: [60, 110, 160], priority: 5, approximate: false, onTile: () => order.push('prefetch') });
    const meta = await svc.probe(video());
    await until(() => svc.stats().queued >= 3);
    const view = svc.requestFrames({ video: meta, indices: [260], priority: 0, approximate: false, onTile: () => order.push('view') });
    await until(() => svc.stats().queued >= 4); // 3 prefetch runs + the view's
    gate.open();
    await Promise.all([blocker, prefetch, view]);
    expect(order.indexOf('view')).toBeLessThan(order.lastIndexOf('prefetch'));
    expect(order[0]).toBe('view');
  });

  it('a running prefetch batch gives its slot to the view on screen, then finishes its frames', async () => {
    const { svc, gate } = gatedService('flipbook-preempt-', 4);
    const meta = await svc.probe(video());
    const order: string[] = [];
    // The prefetch's ffmpeg is the gated one: it holds the only slot until the gate opens,
    // which only a late timer does — so the view is served first only if the slot is taken back.
    const prefetch = svc.requestFrames({ video: meta, indices: [10, 60, 110, 160], priority: 1, approximate: false, onTile: (t) => order.push(`prefetch ${t.index}`) });
    await until(() => svc.stats().running >= 1);
    const late = setTimeout(gate.open, 15_000);
    const view = await svc.requestFrames({ video: meta, indices: [260], priority: 0, approximate: false, onTile: () => order.push('view') });
    const p = await prefetch;
    clearTimeout(late);
    expect(order[0]).toBe('view');
    expect(svc.stats().preempted).toBe(1);
    expect(readBarcodes([view.files.get(260) ?? ''])).toEqual([260]);
    // Requeued, the prefetch still delivers every frame, each exactly once.
    expect(readBarcodes([10, 60, 110, 160].map((k) => p.files.get(k) ?? ''))).toEqual([10, 60, 110, 160]);
    expect(order.filter((o) => o.startsWith('prefetch')).sort()).toEqual(['prefetch 10', 'prefetch 110', 'prefetch 160', 'prefetch 60']);
    expect(p.failures).toEqual([]);
    // (a batch finishes its bookkeeping just after it has delivered)
    await until(() => svc.stats().running === 0);
    expect(svc.stats()).toMatchObject({ queued: 0, preempted: 1 });
  });

  it('work of equal or better priority is never stopped', async () => {
    const { svc, gate } = gatedService('flipbook-nopreempt-', 4);
    const meta = await svc.probe(video());
    const order: string[] = [];
    const first = svc.requestFrames({ video: meta, indices: [10], priority: 0, approximate: false, onTile: () => order.push('first') });
    await until(() => svc.stats().running >= 1);
    const second = svc.requestFrames({ video: meta, indices: [260], priority: 0, approximate: false, onTile: () => order.push('second') });
    await until(() => svc.stats().queued >= 1);
    // Preemption is decided synchronously when work is queued (work-queue.ts pump()), so the
    // state right after the second request was queued is the decision: nothing was stopped.
    expect(svc.stats()).toMatchObject({ running: 1, queued: 1, preempted: 0 });
    gate.open();
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'second']);
    expect(svc.stats().preempted).toBe(0);
  });

  it('cancelling a request drops its queued work and rejects with cancelled; shared work survives', async () => {
    const svc = frameService({ cacheDir: tempDir('flipbook-cancel-'), parallelism: 1, plan: { mergeGapFrames: 0, maxRunsPerProcess: 1 } });
    const meta = await svc.probe(video());
    const leave = new AbortController();
    const left = svc.requestFrames({ video: meta, indices: [10, 60, 110, 160, 210], signal: leave.signal, approximate: false });
    const stay = svc.requestFrames({ video: meta, indices: [160], approximate: false });
    await until(() => svc.stats().queued + svc.stats().running >= 5);
    leave.abort();
    const err = await left.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MediaError);
    expect((err as MediaError).code).toBe('cancelled');
    const s = await stay;
    expect(readBarcodes([s.files.get(160) ?? ''])).toEqual([160]);
    // the shared run finishes its bookkeeping just after delivering; nothing else is left queued
    expect(svc.stats().queued).toBe(0);
    await until(() => svc.stats().running === 0);
  });
});

describe('the keyframe (approximate) pass is scheduled work', () => {
  it('a prefetch pass waits behind the current view, and cancelling it kills its ffmpeg', async () => {
    const dir = tempDir('flipbook-kfsched-');
    // An ffmpeg wrapper that records the pid of every keyframe pass (the only command with
    // -skip_frame nokey) and then hangs in it, so the pass is surely running when it is cancelled.
    const wrapper = join(dir, 'ffmpeg.sh');
    // Its first exact decode (the blocker's) also waits for a gate, so the view's runs surely
    // queue while the blocker holds the only slot.
    writeFileSync(
      wrapper,
      `#!/bin/sh\ncase "$*" in *nokey*) echo $$ >> "${dir}/kf.pids"; exec sleep 600;; esac\n` +
        `if [ ! -e "${dir}/first" ]; then : > "${dir}/first"; n=0; while [ ! -e "${dir}/go" ] && [ $n -lt 3000 ]; do sleep 0.02; n=$((n+1)); done; fi\nexec ffmpeg "$@"\n`,
    );
    chmodSync(wrapper, 0o755);
    const svc = frameService({ cacheDir: join(dir, 'cache'), ffmpeg: wrapper, parallelism: 1, plan: { maxRunsPerProcess: 1 } });
    const viewVideo = video();
    const prefetchVideo = barcodeVideo({ name: 'bars-prefetch.mp4', frames: 120, gop: 30, bframes: 2 });
    const [viewMeta, prefetchMeta] = await Promise.all([svc.probe(viewVideo), svc.probe(prefetchVideo)]);
    const order: string[] = [];
    // The only slot is busy with exact work, so both later requests queue.
    const blocker = svc.requestFrames({ video: viewMeta, indices: [5], approximate: false });
    // (requested together, the prefetch's keyframe pass could take the slot first, and hang in it)
    await until(() => svc.stats().running >= 1);
    const leave = new AbortController();
    const prefetch = svc.requestFrames({ video: prefetchMeta, indices: [10, 70], priority: 5, signal: leave.signal, onTile: (t) => order.push(`prefetch-${t.kind}`) });
    await until(() => svc.stats().queued >= 1);
    const queuedBefore = svc.stats().queued;
    const view = svc.requestFrames({ video: viewMeta, indices: [120, 260], priority: 0, approximate: false, onTile: (t) => order.push(`view-${t.kind}`) });
    await until(() => svc.stats().queued > queuedBefore);
    writeFileSync(join(dir, 'go'), '');
    await blocker;
    const v = await view;
    expect(readBarcodes([120, 260].map((k) => v.files.get(k) ?? ''))).toEqual([120, 260]);
    // the view's exact tiles came before any tile of the prefetch (whose keyframe pass hangs)
    expect(order.slice(0, 2)).toEqual(['view-exact', 'view-exact']);
    // now the prefetch's keyframe pass runs (and hangs); leaving the item must kill it
    const pid = await recordedPid(join(dir, 'kf.pids'));
    leave.abort();
    const err = await prefetch.then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as MediaError).code).toBe('cancelled');
    await until(() => !processAlive(pid));
    await until(() => svc.stats().running + svc.stats().queued === 0);
    expect(order.some((o) => o.startsWith('prefetch'))).toBe(false);
  });
});

describe('extraction as a job', () => {
  it('reports progress and the result under a job id', async () => {
    const svc = frameService({ cacheDir: tempDir('flipbook-job-') });
    const events: JobEvent[] = [];
    svc.jobs.subscribe((e) => events.push(e));
    const job = svc.startExtraction({ video: video(), indices: [3, 77, 150, 299], approximate: false }, { label: 'item a' });
    const r = await job.result;
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(readBarcodes([3, 77, 150, 299].map((k) => r.value.files.get(k) ?? ''))).toEqual([3, 77, 150, 299]);
    const mine = events.filter((e) => e.job.id === job.id);
    expect(mine.some((e) => e.type === 'progress' && e.job.total === 4)).toBe(true);
    const fin = mine.at(-1);
    expect(fin?.type).toBe('finished');
    expect(fin?.job).toMatchObject({ kind: 'frames', label: 'item a', state: 'done', done: 4, total: 4, fraction: 1 });
  });

  it('cancelling the job by id stops its ffmpeg and finishes it as cancelled', async () => {
    const dir = tempDir('flipbook-jobcancel-');
    // every exact decode hangs (pid recorded), so the job is surely mid-decode when cancelled
    const wrapper = join(dir, 'ffmpeg.sh');
    writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *select*) echo $$ >> "${dir}/dec.pids"; exec sleep 600;; esac\nexec ffmpeg "$@"\n`);
    chmodSync(wrapper, 0o755);
    const svc = frameService({ cacheDir: join(dir, 'cache'), ffmpeg: wrapper, parallelism: 1 });
    const job = svc.startExtraction({ video: video(), indices: [3, 77], approximate: false });
    const pid = await recordedPid(join(dir, 'dec.pids'));
    expect(svc.jobs.get(job.id)?.state).toBe('running');
    expect(svc.jobs.cancel(job.id)).toBe(true);
    const r = await job.result;
    expect(r).toEqual({ ok: false, error: { code: 'cancelled', message: 'cancelled' } });
    expect(svc.jobs.get(job.id)?.state).toBe('cancelled');
    await until(() => !processAlive(pid));
    await until(() => svc.stats().running + svc.stats().queued === 0);
  });
});
