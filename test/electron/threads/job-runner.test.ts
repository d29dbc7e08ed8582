import { describe, expect, it } from 'vitest';
import { createJobRunner, type JobEvent } from '../../../electron/threads/job-runner';
import { runProcess } from '../../../electron/media/run-process';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('job runner', () => {
  it('runs work and returns ok Results with the value; progress is reported', async () => {
    const runner = createJobRunner({ throttleMs: 0 });
    const events: JobEvent[] = [];
    runner.subscribe((e) => events.push(e));
    const h = runner.start(
      'import',
      async (ctx) => {
        ctx.progress({ total: 4, done: 1 });
        ctx.progress({ done: 4, message: 'done' });
        return 42;
      },
      { label: 'x.csv' },
    );
    expect(await h.result).toEqual({ ok: true, value: 42 });
    const progress = events.filter((e) => e.type === 'progress').map((e) => e.job.fraction);
    expect(progress).toContain(0.25);
    expect(progress).toContain(1);
    const fin = events.find((e) => e.type === 'finished');
    expect(fin?.job).toMatchObject({ id: h.id, kind: 'import', label: 'x.csv', state: 'done', fraction: 1 });
    expect(runner.get(h.id)?.state).toBe('done');
  });

  it('errors become failed Results with a code, never throws', async () => {
    const runner = createJobRunner();
    const err = Object.assign(new Error('bad line 3'), { code: 'import-error' });
    const h = runner.start('import', async () => {
      throw err;
    });
    expect(await h.result).toEqual({ ok: false, error: { code: 'import-error', message: 'bad line 3' } });
    const h2 = runner.start('x', async () => {
      throw 'plain string';
    });
    expect(await h2.result).toEqual({ ok: false, error: { code: 'failed', message: 'plain string' } });
  });

  it('progress events are throttled, and the last update is not lost', async () => {
    const runner = createJobRunner({ throttleMs: 50 });
    const seen: (number | null)[] = [];
    runner.subscribe((e) => {
      if (e.type === 'progress') seen.push(e.job.done);
    });
    const gate = deferred();
    const h = runner.start('x', async (ctx) => {
      for (let i = 1; i <= 1000; i++) ctx.progress({ done: i, total: 1000 });
      // The job stays running until the trailing update arrives from the throttle's timer
      // (not from the job's end), with a deadline.
      const deadline = Date.now() + 5000;
      while (!seen.includes(1000)) {
        if (Date.now() > deadline) throw new Error('the trailing progress update never arrived');
        await new Promise((r) => setTimeout(r, 5));
      }
      gate.resolve();
      return null;
    });
    await gate.promise;
    await h.result;
    // 1000 calls within one period: the start event, at most a couple of throttled ones, and the trailing 1000
    expect(seen.length).toBeLessThan(6);
    expect(seen).toContain(1000);
  });

  it('cancel kills the child process and yields a cancelled Result', async () => {
    const runner = createJobRunner();
    const started = deferred();
    const h = runner.start('extract', async (ctx) => {
      // sleep 1000 would outlive the test timeout: the job can only finish if the child is killed
      // (runProcess settles on the child's exit, not on the abort itself).
      const p = runProcess('sleep', ['1000'], { signal: ctx.signal });
      started.resolve();
      await p;
      return 'finished';
    });
    await started.promise;
    expect(runner.cancel(h.id)).toBe(true);
    expect(await h.result).toEqual({ ok: false, error: { code: 'cancelled', message: 'cancelled' } });
    expect(runner.get(h.id)?.state).toBe('cancelled');
    expect(runner.cancel(h.id)).toBe(false);
  });

  it('concurrency limit queues jobs; a queued job cancelled never starts; an outside signal cancels', async () => {
    const runner = createJobRunner({ concurrency: 1 });
    const gate = deferred();
    const order: string[] = [];
    const a = runner.start('a', async () => {
      order.push('a');
      await gate.promise;
      return 'a';
    });
    const b = runner.start('b', async () => {
      order.push('b');
      return 'b';
    });
    const outside = new AbortController();
    const c = runner.start(
      'c',
      async () => {
        order.push('c');
        return 'c';
      },
      { signal: outside.signal },
    );
    expect(runner.get(b.id)?.state).toBe('queued');
    b.cancel();
    outside.abort();
    gate.resolve();
    expect(await a.result).toEqual({ ok: true, value: 'a' });
    expect((await b.result).ok).toBe(false);
    expect((await c.result).ok).toBe(false);
    expect(order).toEqual(['a']);
    expect(
      runner
        .list()
        .map((j) => j.state)
        .sort(),
    ).toEqual(['cancelled', 'cancelled', 'done']);
  });

  it('a throwing listener does not break the job', async () => {
    const runner = createJobRunner({ throttleMs: 0 });
    runner.subscribe(() => {
      throw new Error('listener bug');
    });
    const unsubscribe = runner.subscribe(() => {});
    unsubscribe();
    expect(await runner.start('x', async (ctx) => (ctx.progress({ fraction: 0.5 }), 1)).result).toEqual({ ok: true, value: 1 });
  });
});
