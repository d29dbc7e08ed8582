/** Errors the store raises for project-level problems (as opposed to bad import data: ImportError). */

/** The project is open in another Flipbook process. */
export class ProjectLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: { pid: number; hostname: string; since: string },
  ) {
    super(`${file} is open in another Flipbook (pid ${holder.pid} on ${holder.hostname}, since ${holder.since}); ` + 'close it there, or open this project read-only');
    this.name = 'ProjectLockedError';
  }
}

/** The file was written by a newer Flipbook than this one. */
export class ProjectVersionError extends Error {
  constructor(
    readonly file: string,
    readonly fileVersion: number,
    readonly supportedVersion: number,
  ) {
    super(`${file} was written by a newer Flipbook (schema ${fileVersion}; this one knows up to ${supportedVersion}): ` + 'update Flipbook to open it; nothing was written to it');
    this.name = 'ProjectVersionError';
  }
}

/** A write was attempted on a project opened read-only. */
export class ProjectReadOnlyError extends Error {
  constructor(readonly file: string) {
    super(`${file} is open read-only`);
    this.name = 'ProjectReadOnlyError';
  }
}

/** The path is not a project this Flipbook can open (missing without create, not SQLite, …). */
export class ProjectOpenError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'ProjectOpenError';
  }
}

/**
 * This process cannot write the project (its folder or file is read-only): open it read-only
 * instead (docs/security.md "Read-only locations").
 */
export class ProjectNotWritableError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}; open it read-only`);
    this.name = 'ProjectNotWritableError';
  }
}

/**
 * The file is an SQLite database of another application (tables of its own, no Flipbook
 * schema, or another `application_id`): refused before anything is written to it or beside it
 * (docs/security.md "The project file").
 */
export class ProjectForeignError extends ProjectOpenError {
  constructor(file: string, why: string) {
    super(file, `not a Flipbook project: ${why}; nothing was written to it — give --project a Flipbook project, or a new file name to create one`);
    this.name = 'ProjectForeignError';
  }
}

/** What a storage failure is, in words, by SQLite's or the operating system's code. */
const STORAGE_FAILURES: [RegExp, string][] = [
  [/^(SQLITE_FULL|ENOSPC)$/, 'the disk is full'],
  [/^EDQUOT$/, 'the disk quota is exceeded'],
  [/^(SQLITE_IOERR.*|EIO)$/, 'the disk reported an input/output error'],
  [/^(SQLITE_CORRUPT.*|SQLITE_NOTADB)$/, 'the project file is damaged'],
  [/^(SQLITE_READONLY.*|EROFS)$/, 'the file system is read-only'],
];

/**
 * A write failed for a reason of the disk, not of the data: the message names the project
 * file, the operation and what became of it (rolled back: the project is as it was before).
 */
export class ProjectStorageError extends Error {
  constructor(
    readonly file: string,
    readonly operation: string,
    readonly failure: string,
    readonly code: string,
    outcome = 'it was rolled back: the project is as it was before',
  ) {
    super(`${file}: ${operation} failed: ${failure} (${code}); ${outcome}`);
    this.name = 'ProjectStorageError';
  }
}

/** The storage failure `err` is (disk full, I/O error, damaged file…), or null for any other error. */
export function storageFailure(err: unknown): { failure: string; code: string } | null {
  if (err instanceof ProjectStorageError) return { failure: err.failure, code: err.code };
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return null;
  for (const [re, failure] of STORAGE_FAILURES) if (re.test(code)) return { failure, code };
  return null;
}

/** Runs `f`; a storage failure it raises becomes a ProjectStorageError naming `file` and `operation`. */
export function namingStorage<T>(file: string, operation: string, f: () => T, outcome?: string): T {
  try {
    return f();
  } catch (err) {
    const s = storageFailure(err);
    if (s === null || (err instanceof ProjectStorageError && err.file === file)) throw err;
    // A failure inside a named step (an import into a project being made) keeps the step's name.
    const what = err instanceof ProjectStorageError ? `${operation} (${err.operation})` : operation;
    throw new ProjectStorageError(file, what, s.failure, s.code, outcome);
  }
}
