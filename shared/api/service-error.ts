/**
 * The contract's errors as the backend raises them (docs/architecture.md "One contract, two
 * transports"): a ServiceError carries the code the renderer will see; any other error is
 * given its code here. Every room of the backend that answers for the contract (handlers,
 * the app's background jobs, the backend thread) uses these, so they sit below all of them.
 */
import type { ApiError, ErrorCode } from './contract';

/** An error a service throws on purpose, with the code the renderer will see. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The code and whole message a thrown error crosses a transport with (before clipping). */
export function toApiErrorWhole(e: unknown): ApiError {
  if (e instanceof ServiceError) return { code: e.code, message: e.message };
  if (e instanceof Error) {
    // ImportError (electron/importers/errors.ts) names file:line:field; keep its message whole.
    if (e.name === 'ImportError') return { code: 'import-error', message: e.message };
    // An edit made on a stale view (electron/store/annotations.ts EditConflictError).
    if (e.name === 'EditConflict') return { code: 'conflict', message: e.message };
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return { code: 'locked', message: e.message };
    if (code === 'SQLITE_READONLY') return { code: 'read-only', message: e.message };
    return { code: 'internal', message: e.message };
  }
  return { code: 'internal', message: String(e) };
}
