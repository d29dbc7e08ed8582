/** Errors the store raises for project-level problems (as opposed to bad import data: ImportError). */

/** The project is open in another Flipbook process. */
export class ProjectLockedError extends Error {
  constructor(
    readonly file: string,
    readonly holder: { pid: number; hostname: string; since: string },
  ) {
    super(
      `${file} is open in another Flipbook (pid ${holder.pid} on ${holder.hostname}, since ${holder.since}); ` +
        'close it there, or open this project read-only',
    );
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
    super(`${file} was written by a newer Flipbook (schema ${fileVersion} > ${supportedVersion}); update Flipbook`);
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
