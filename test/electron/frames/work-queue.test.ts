// The frame service's scheduling (priority order, preemption, dropping unwanted work) on
// plain promises: no ffmpeg, no timers — each piece of work runs until the test settles it.
import { describe, expect, it } from 'vitest';
import { createWorkQueue, type Requester, type Work } from '../../../electron/frames/work-queue';

interface TestWork extends Work {
  name: string;
  finish: () => void;
}

function harness(parallelism: number, preempt = true) {
  const started: string[] = [];
  const cancelled: string[] = [];
  const aborted: string[] = [];
  const q = createWorkQueue<TestWork>({
    parallelism,
    preempt,
    execute: (w) =>
      new Promise<void>((resolve) => {
        started.push(w.name);
        w.finish = resolve;
        w.controller.signal.addEventListener('abort', () => {
          aborted.push(w.name);
          resolve();
        });
      }),
    cancelled: (w) => cancelled.push(w.name),
  });
  const add = (name: string, priority: number, preemptible = true): { w: TestWork; r: Requester } => {
    const r: Requester = { priority, alive: true };
    const w: TestWork = {
      name,
      seq: q.nextSeq(),
      requesters: new Set([r]),
      controller: new AbortController(),
      state: 'queued',
      preemptible,
      preempted: false,
      finish: () => {},
    };
    q.push(w);
    return { w, r };
  };
  /** Lets the queue's then() callbacks run. */
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
  return { q, add, started, cancelled, aborted, settle };
}

describe('work queue', () => {
  it('runs the best priority first and equal priorities in submission order', async () => {
    const h = harness(1, false);
    const works = [h.add('a', 5), h.add('b', 1), h.add('c', 1), h.add('d', 3)];
    h.q.pump();
    expect(h.q.stats()).toEqual({ running: 1, queued: 3, preempted: 0 });
    for (let i = 0; i < works.length; i++) {
      const last = h.started[h.started.length - 1]!;
      works.find((x) => x.w.name === last)!.w.finish();
      await h.settle();
    }
    expect(h.started).toEqual(['b', 'c', 'd', 'a']);
    expect(h.q.stats()).toEqual({ running: 0, queued: 0, preempted: 0 });
  });

  it('preempts the worst running preemptible work when better work waits, never non-preemptible work', async () => {
    const h = harness(2);
    const bg1 = h.add('bg1', 10);
    const kf = h.add('keyframes', 10, false);
    h.q.pump();
    expect(h.started).toEqual(['bg1', 'keyframes']);
    h.add('screen', 0);
    h.q.pump();
    expect(h.aborted).toEqual(['bg1']);
    expect(bg1.w.preempted).toBe(true);
    await h.settle();
    expect(h.started).toEqual(['bg1', 'keyframes', 'screen']);
    expect(bg1.w.state).toBe('done');
    expect(kf.w.state).toBe('running');
    expect(h.q.stats().preempted).toBe(1);
  });

  it('does not preempt when preemption is off', async () => {
    const h = harness(1, false);
    h.add('bg', 10);
    h.q.pump();
    h.add('screen', 0);
    h.q.pump();
    expect(h.aborted).toEqual([]);
    expect(h.q.stats()).toEqual({ running: 1, queued: 1, preempted: 0 });
  });

  it('drops queued work no live requester wants, and aborts running work nobody wants', async () => {
    const h = harness(1);
    const run = h.add('run', 0);
    const wait = h.add('wait', 1);
    h.q.pump();
    h.q.drop(wait.w, wait.r);
    expect(h.cancelled).toEqual(['wait']);
    expect(wait.w.state).toBe('done');
    // A second requester keeps work alive until it too leaves.
    const other: Requester = { priority: 2, alive: true };
    run.w.requesters.add(other);
    h.q.drop(run.w, run.r);
    expect(h.aborted).toEqual([]);
    h.q.drop(run.w, other);
    expect(h.aborted).toEqual(['run']);
    await h.settle();
    expect(h.q.stats()).toEqual({ running: 0, queued: 0, preempted: 0 });
  });

  it('a finished slot starts the next queued work; close cancels the queue and aborts the running', async () => {
    const h = harness(1);
    const first = h.add('first', 0);
    h.add('second', 1);
    h.add('third', 2);
    h.q.pump();
    first.w.finish();
    await h.settle();
    expect(h.started).toEqual(['first', 'second']);
    h.q.close();
    expect(h.cancelled).toEqual(['third']);
    expect(h.aborted).toEqual(['second']);
  });
});
