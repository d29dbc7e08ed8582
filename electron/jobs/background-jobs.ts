/**
 * The backend's heavy jobs — import, export, merge — each in its own worker thread, driven by
 * the job runner (electron/threads/job-runner.ts): ids the renderer chooses, throttled progress
 * as `job:progress`, cancel (`job:cancel`) by terminating the thread, so an uncommitted
 * import changes nothing (docs/architecture.md "Long work is a job"). The thread that serves
 * the UI only starts the job, relays its messages and, once it ended, refreshes its caches.
 *
 * Writes queue one at a time (an import or merge waits for the one before). While a worker
 * holds its write transaction, writesIdle() lets the UI thread's own writes (annotation edits,
 * settings) wait without blocking: they would otherwise sit in SQLite's busy handler, which
 * stops the event loop.
 */
import type * as z from 'zod';
import { ERROR_CODES, type ErrorCode, type EventPayload } from '../../shared/api/contract';
import { createJobRunner, type JobRunner } from '../threads/job-runner';
import { startWorkerThread, workerEntry } from '../threads/worker-thread';
import { errorFromData } from '../importers/error-data';
import { WorkerMessage, type WorkerJobInput, type WorkerJobKind } from './job-protocol';
import { ServiceError, toApiErrorWhole } from '../../shared/api/service-error';

export interface BackgroundJobs {
  /** Runs `input` in a worker; resolves with its value parsed by `response`, or throws its error (ServiceError). */
  run<T>(jobId: string, input: WorkerJobInput, response: z.ZodType<T>): Promise<T>;
  /** Cancels a queued or running job; false when no such job runs. */
  cancel(jobId: string): boolean;
  /** Resolves at once, or when no worker holds a write transaction any more. */
  writesIdle(): Promise<void>;
  /** Whether a worker holds (or is about to open) its write transaction now. */
  writing(): boolean;
  /** Cancels every job (closing the project). */
  cancelAll(): void;
}

export interface BackgroundJobsOptions {
  progress(p: EventPayload<'job:progress'>): void;
}

const WRITES: ReadonlySet<WorkerJobKind> = new Set(['import', 'merge']);

export function createBackgroundJobs(opts: BackgroundJobsOptions): BackgroundJobs {
  const describeError = (e: unknown) => toApiErrorWhole(e);
  // One writer at a time (the writer lock is the process's; two transactions would only wait on each other).
  const writers = createJobRunner({ concurrency: 1, describeError });
  const readers = createJobRunner({ concurrency: 2, describeError });
  let writing = 0;
  let idleWaiters: (() => void)[] = [];
  const setWriting = (delta: number) => {
    writing = Math.max(0, writing + delta);
    if (writing === 0) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const r of w) r();
    }
  };
  const entry = (): URL => workerEntry(import.meta.url, 'job-worker');

  for (const runner of [writers, readers]) {
    runner.subscribe((e) => {
      const j = e.job;
      if (e.type !== 'progress' || j.state !== 'running' || j.done === null || j.total === null) return;
      if (j.kind !== 'import' && j.kind !== 'export' && j.kind !== 'merge') return;
      opts.progress({ jobId: j.id, kind: j.kind, done: j.done, total: j.total, message: j.message });
    });
  }

  // Jobs whose transaction is committed: a cancel would stop only what derives from it, and say 'cancelled' of a change that happened.
  const committed = new Set<string>();
  const runnerOf = (kind: WorkerJobKind): JobRunner => (WRITES.has(kind) ? writers : readers);

  return {
    async run<T>(jobId: string, input: WorkerJobInput, response: z.ZodType<T>): Promise<T> {
      const runner = runnerOf(input.kind);
      const existing = writers.get(jobId) ?? readers.get(jobId);
      if (existing && (existing.state === 'queued' || existing.state === 'running')) throw new ServiceError('bad-request', `job ${jobId} is already running`);
      const handle = runner.start<T>(
        input.kind,
        (ctx) =>
          new Promise<T>((resolve, reject) => {
            let settled = false;
            let holdsWrite = false;
            const hold = (active: boolean) => {
              if (active !== holdsWrite) setWriting(active ? 1 : -1);
              holdsWrite = active;
            };
            const settle = (f: () => void) => {
              if (settled) return;
              settled = true;
              f();
            };
            const thread = startWorkerThread(entry(), input, {
              message(raw) {
                const m = WorkerMessage.safeParse(raw);
                if (!m.success) {
                  thread.terminate();
                  return settle(() => reject(new Error(`a job's worker sent an unexpected message: ${m.error.issues[0]?.message ?? 'invalid'}`)));
                }
                const msg = m.data;
                if (msg.type === 'progress') ctx.progress({ done: msg.done, total: msg.total, ...(msg.message !== null && { message: msg.message }) });
                else if (msg.type === 'writing') hold(msg.active);
                else if (msg.type === 'committed') committed.add(jobId);
                else if (msg.type === 'failed') settle(() => reject(errorFromData(msg.error)));
                else {
                  const v = response.safeParse(msg.value);
                  settle(() => (v.success ? resolve(v.data) : reject(new Error(`a job's answer does not match its schema: ${v.error.issues[0]?.message ?? 'invalid'}`))));
                }
              },
              exit(code, error) {
                // The thread is gone (and with it its connection: an open transaction rolled back).
                hold(false);
                settle(() => reject(ctx.signal.aborted ? new ServiceError('cancelled', 'cancelled') : (error ?? new Error(`a job's worker stopped (exit code ${code})`))));
              },
            });
            ctx.signal.addEventListener('abort', () => thread.terminate(), { once: true });
          }),
        { id: jobId, label: input.kind },
      );
      const r = await handle.result.finally(() => committed.delete(jobId));
      if (r.ok) return r.value;
      const code = r.error.code;
      throw new ServiceError(isErrorCode(code) ? code : 'internal', r.error.message);
    },
    cancel: (jobId) => !committed.has(jobId) && (writers.cancel(jobId) || readers.cancel(jobId)),
    writing: () => writing > 0,
    writesIdle: () => (writing === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    cancelAll() {
      for (const runner of [writers, readers]) for (const j of runner.list()) runner.cancel(j.id);
    },
  };
}

function isErrorCode(c: string): c is ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(c);
}
