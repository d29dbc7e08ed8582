/**
 * Runs one job in a worker thread (docs/architecture.md "Long work is a job"): the thread that
 * serves the UI only posts the input and receives messages, so it keeps answering requests
 * while the job reads, parses and writes. Cancel = terminate the thread: whatever it had not
 * committed is rolled back by SQLite, nothing half-done remains.
 *
 * The entry is a module beside the caller: `<name>.js` in a build (the CLI's and Electron's
 * esbuild bundles emit it next to their chunks) or `<name>.ts` in development, which a small
 * boot module loads through tsx (a worker does not inherit the parent's loader).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as z from 'zod';

/**
 * An error as a worker thread posts it (electron/importers/error-data.ts makes and rebuilds
 * one): name, code, message, and an ImportError's parts so it is rebuilt as one.
 */
export interface ErrorData {
  name: string;
  message: string;
  code: string | null;
  importError: { file: string; line: number; field: string; reason: string } | null;
}

/** An error a worker thread posts, as the receiving side parses it. */
export const WorkerError: z.ZodType<ErrorData> = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().nullable(),
  importError: z.object({ file: z.string(), line: z.number().int(), field: z.string(), reason: z.string() }).nullable(),
});

/** The worker entry `name` beside the module at `callerUrl` (its import.meta.url). */
export function workerEntry(callerUrl: string, name: string): URL {
  const ts = /\.ts$/.test(new URL(callerUrl).pathname);
  const entry = new URL(`./${name}.${ts ? 'ts' : 'js'}`, callerUrl);
  if (!existsSync(fileURLToPath(entry))) throw new Error(`the worker entry ${fileURLToPath(entry)} is missing (the build must include it)`);
  return entry;
}

export interface WorkerThreadHandlers {
  /** Every message the worker posts, unparsed: the caller parses it with its schema. */
  message(data: unknown): void;
  /** The thread ended (normally, by an uncaught error, or terminated); `error` when it threw. */
  exit(code: number, error: Error | null): void;
}

export interface WorkerThread {
  /** Sends a message to the thread (structured clone). */
  post(message: unknown): void;
  terminate(): void;
}

export function startWorkerThread(entry: URL, data: unknown, on: WorkerThreadHandlers): WorkerThread {
  const dev = entry.pathname.endsWith('.ts');
  const worker = dev ? new Worker(new URL('./tsx-worker-boot.mjs', import.meta.url), { workerData: { entry: entry.href, data } }) : new Worker(entry, { workerData: { data } });
  let error: Error | null = null;
  worker.on('message', (m: unknown) => on.message(m));
  worker.on('error', (e) => (error = e));
  worker.on('exit', (code) => on.exit(code, error));
  return { post: (m) => worker.postMessage(m), terminate: () => void worker.terminate() };
}
