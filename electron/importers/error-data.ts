/**
 * An error as data, for what a worker thread posts (postMessage keeps only a plain Error's
 * message): its name and code, which the transports map to an error code, its message whole,
 * and an ImportError's `file:line: field: reason` so it is rebuilt as one on the other side.
 * No zod here: the per_item.csv scan thread posts these and does not load zod
 * (per-item-scan-protocol.ts); the receiving side parses them with `WorkerError`
 * (electron/threads/worker-thread.ts, which defines the shape).
 */
import type { ErrorData } from '../threads/worker-thread';
import { ImportError } from './errors';

export function errorData(e: unknown): ErrorData {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e), code: null, importError: null };
  const code = (e as { code?: unknown }).code;
  const importError = e instanceof ImportError ? { file: e.file, line: e.line, field: e.field, reason: e.reason } : null;
  return { name: e.name, message: e.message, code: typeof code === 'string' ? code : null, importError };
}

/** The error again on this side: an ImportError as one, anything else with its name, code and message. */
export function errorFromData(w: ErrorData): Error {
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
