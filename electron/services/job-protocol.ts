/**
 * What crosses the boundary between the thread that serves the UI and a job's worker thread
 * (docs/architecture.md "Long work is a job"): the job's input, then progress, and one final
 * message (its value, or its error as plain data). Both sides parse what they receive with
 * these schemas: a worker is another module instance, and nothing it sends is trusted to have
 * the right shape.
 */
import { z } from 'zod';
import { ImportOptionValues } from '../../shared/api/import-options';
import { ImportError } from '../importers/errors';

export const WorkerJobInput = z.discriminatedUnion('kind', [
  /** Read files and apply them in one transaction (import-files.ts), under this process's writer lock. */
  z.object({ kind: z.literal('import'), project: z.string().min(1), paths: z.array(z.string().min(1)).min(1), options: ImportOptionValues }),
  /** Write the release layout from a read-only connection. */
  z.object({ kind: z.literal('export'), project: z.string().min(1), outDir: z.string().min(1), includeText: z.boolean(), zip: z.boolean() }),
  /** Merge another annotator's bundle (events by uuid) under this process's writer lock. */
  z.object({ kind: z.literal('merge'), project: z.string().min(1), path: z.string().min(1) }),
]);
export type WorkerJobInput = z.infer<typeof WorkerJobInput>;
export type WorkerJobKind = WorkerJobInput['kind'];

/** An error as data: the name and code the transports map to an error code, the message whole. */
export const WorkerError = z.object({
  name: z.string(),
  message: z.string(),
  code: z.string().nullable(),
  /** Set for an ImportError: rebuilt as one on the other side, so its `file:line: field: reason` survives. */
  importError: z.object({ file: z.string(), line: z.number().int(), field: z.string(), reason: z.string() }).nullable(),
});
export type WorkerError = z.infer<typeof WorkerError>;

export const WorkerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), done: z.number(), total: z.number(), message: z.string().nullable() }),
  /** The write transaction is about to begin / has ended (the UI thread holds its own writes meanwhile). */
  z.object({ type: z.literal('writing'), active: z.boolean() }),
  /** The job's transaction is committed: cancelling it now would only hide that it happened. */
  z.object({ type: z.literal('committed') }),
  z.object({ type: z.literal('done'), value: z.unknown() }),
  z.object({ type: z.literal('failed'), error: WorkerError }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;

/** An error as data, for postMessage (which would keep only a plain Error's message). */
export function errorData(e: unknown): WorkerError {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), code: null, importError: null };
  const code = (e as { code?: unknown }).code;
  const importError = e instanceof ImportError ? { file: e.file, line: e.line, field: e.field, reason: e.reason } : null;
  return { name: e.name, message: e.message, code: typeof code === 'string' ? code : null, importError };
}

/** The error again on this side: an ImportError as one, anything else with its name, code and message. */
export function errorFromData(w: WorkerError): Error {
  if (w.importError) {
    const e = new ImportError(w.importError.file, w.importError.line, w.importError.field, w.importError.reason);
    // The message is the worker's, whole (clipping happened there once).
    e.message = w.message;
    return e;
  }
  const e = new Error(w.message) as Error & { code?: string };
  e.name = w.name;
  if (w.code !== null) e.code = w.code;
  return e;
}
