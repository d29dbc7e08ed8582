import { randomUUID } from 'node:crypto';

/**
 * Long work (import, export, frame extraction, proxy transcoding) runs as a job: an id,
 * throttled progress events, cancel via AbortController (the work passes `signal` to
 * runProcess, which kills the child), and a final Result — errors never escape as throws,
 * so the IPC/HTTP layer can forward the Result as is (docs/architecture.md "Long work is a job").
 */
export type JobResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface JobInfo {
  id: string;
  kind: string;
  label: string | null;
  state: JobState;
  /** 0…1 when known. */
  fraction: number | null;
  done: number | null;
  total: number | null;
  message: string | null;
}

export interface JobProgressUpdate {
  done?: number;
  total?: number;
  fraction?: number;
  message?: string;
}

export interface JobContext {
  id: string;
  signal: AbortSignal;
  /** Cheap to call often: listeners see at most one update per throttle period (plus the last). */
  progress(update: JobProgressUpdate): void;
}

export interface JobHandle<T> {
  id: string;
  result: Promise<JobResult<T>>;
  cancel(): void;
}

export interface StartOptions {
  /** The job's id (default a random UUID); a renderer names its jobs to follow and cancel them. */
  id?: string;
  label?: string;
  /** Cancelling this signal cancels the job too (e.g. the window that asked for it closed). */
  signal?: AbortSignal;
}

export type JobEvent = { type: 'progress'; job: JobInfo } | { type: 'finished'; job: JobInfo; result: JobResult<unknown> };

export interface JobRunner {
  start<T>(kind: string, work: (ctx: JobContext) => Promise<T>, opts?: StartOptions): JobHandle<T>;
  cancel(id: string): boolean;
  get(id: string): JobInfo | null;
  list(): JobInfo[];
  /** Returns the unsubscribe function. */
  subscribe(listener: (e: JobEvent) => void): () => void;
}

export interface JobRunnerOptions {
  /** Minimum interval between progress events of one job (default 100 ms). */
  throttleMs?: number;
  /** At most this many jobs run at once; the rest wait in order (default unlimited). */
  concurrency?: number;
  /** Maps a thrown error to the Result's error; default uses err.code when it is a string. */
  describeError?: (err: unknown) => { code: string; message: string };
  /** Finished jobs kept for get()/list() (default 50). */
  keepFinished?: number;
}

function defaultDescribe(err: unknown): { code: string; message: string } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { code: typeof code === 'string' ? code : 'failed', message: err.message };
  }
  return { code: 'failed', message: String(err) };
}

interface Entry {
  info: JobInfo;
  controller: AbortController;
  begin: () => void;
  lastEmit: number;
  timer: ReturnType<typeof setTimeout> | null;
}

export function createJobRunner(options: JobRunnerOptions = {}): JobRunner {
  const throttleMs = options.throttleMs ?? 100;
  const concurrency = options.concurrency ?? Infinity;
  const describe = options.describeError ?? defaultDescribe;
  const keep = options.keepFinished ?? 50;
  const jobs = new Map<string, Entry>();
  const waiting: Entry[] = [];
  const finishedOrder: string[] = [];
  const listeners = new Set<(e: JobEvent) => void>();
  let running = 0;

  const snapshot = (e: Entry): JobInfo => ({ ...e.info });
  function emit(ev: JobEvent): void {
    for (const l of [...listeners]) {
      try {
        l(ev);
      } catch {
        // a faulty listener must not break the job or other listeners
      }
    }
  }
  function emitProgress(e: Entry): void {
    if (e.timer) {
      clearTimeout(e.timer);
      e.timer = null;
    }
    e.lastEmit = Date.now();
    emit({ type: 'progress', job: snapshot(e) });
  }
  function pump(): void {
    while (running < concurrency && waiting.length) {
      const next = waiting.shift();
      if (next && next.info.state === 'queued') next.begin();
    }
  }

  return {
    start<T>(kind: string, work: (ctx: JobContext) => Promise<T>, opts: StartOptions = {}): JobHandle<T> {
      const id = opts.id ?? randomUUID();
      const controller = new AbortController();
      if (opts.signal) {
        if (opts.signal.aborted) controller.abort();
        else opts.signal.addEventListener('abort', () => controller.abort(), { once: true });
      }
      let resolveResult!: (r: JobResult<T>) => void;
      const result = new Promise<JobResult<T>>((res) => (resolveResult = res));
      const entry: Entry = {
        info: { id, kind, label: opts.label ?? null, state: 'queued', fraction: null, done: null, total: null, message: null },
        controller,
        lastEmit: 0,
        timer: null,
        begin: () => {},
      };
      const finish = (r: JobResult<T>, state: JobState): void => {
        if (entry.timer) clearTimeout(entry.timer);
        entry.timer = null;
        entry.info.state = state;
        if (state === 'done') entry.info.fraction = 1;
        finishedOrder.push(id);
        while (finishedOrder.length > keep) {
          const old = finishedOrder.shift();
          if (old) jobs.delete(old);
        }
        emit({ type: 'finished', job: snapshot(entry), result: r });
        resolveResult(r);
      };
      entry.begin = () => {
        if (controller.signal.aborted) {
          finish({ ok: false, error: { code: 'cancelled', message: 'cancelled' } }, 'cancelled');
          return;
        }
        running++;
        entry.info.state = 'running';
        emitProgress(entry);
        const ctx: JobContext = {
          id,
          signal: controller.signal,
          progress(u) {
            if (entry.info.state !== 'running') return;
            if (u.total !== undefined) entry.info.total = u.total;
            if (u.done !== undefined) entry.info.done = u.done;
            if (u.message !== undefined) entry.info.message = u.message;
            if (u.fraction !== undefined) entry.info.fraction = Math.min(1, Math.max(0, u.fraction));
            else if (entry.info.total && entry.info.done !== null) entry.info.fraction = Math.min(1, entry.info.done / entry.info.total);
            const wait = entry.lastEmit + throttleMs - Date.now();
            if (wait <= 0) emitProgress(entry);
            else if (!entry.timer) entry.timer = setTimeout(() => emitProgress(entry), wait);
          },
        };
        Promise.resolve()
          .then(() => work(ctx))
          .then(
            (value) => {
              if (controller.signal.aborted) finish({ ok: false, error: { code: 'cancelled', message: 'cancelled' } }, 'cancelled');
              else finish({ ok: true, value }, 'done');
            },
            (err: unknown) => {
              if (controller.signal.aborted) finish({ ok: false, error: { code: 'cancelled', message: 'cancelled' } }, 'cancelled');
              else finish({ ok: false, error: describe(err) }, 'failed');
            },
          )
          .finally(() => {
            running--;
            pump();
          });
      };
      jobs.set(id, entry);
      controller.signal.addEventListener('abort', () => {
        // A queued job never starts; a running one finishes as cancelled when its work settles.
        if (entry.info.state === 'queued') finish({ ok: false, error: { code: 'cancelled', message: 'cancelled' } }, 'cancelled');
      });
      waiting.push(entry);
      pump();
      return { id, result, cancel: () => controller.abort() };
    },
    cancel(id) {
      const e = jobs.get(id);
      if (!e || (e.info.state !== 'running' && e.info.state !== 'queued')) return false;
      e.controller.abort();
      return true;
    },
    get: (id) => {
      const e = jobs.get(id);
      return e ? snapshot(e) : null;
    },
    list: () => [...jobs.values()].map(snapshot),
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}
