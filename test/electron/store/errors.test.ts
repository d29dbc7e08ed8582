/**
 * The store's project-level errors (electron/store/errors.ts): each one's name and message as a
 * user reads it, which codes are failures of the disk rather than of the data, and how a
 * storage failure is named by project file and step.
 */
import { describe, expect, it } from 'vitest';
import {
  namingStorage,
  ProjectForeignError,
  ProjectLockedError,
  ProjectNotWritableError,
  ProjectOpenError,
  ProjectReadOnlyError,
  ProjectStorageError,
  ProjectVersionError,
  storageFailure,
} from '../../../electron/store/errors';

const coded = (code: unknown, message = 'boom') => Object.assign(new Error(message), { code });

describe('project errors', () => {
  it('each has its name, and a message that says what to do', () => {
    const cases: [Error, string, string][] = [
      [
        new ProjectLockedError('p.flipbook', { pid: 42, hostname: 'lab-1', since: '2026-12-06T10:00:00Z' }),
        'ProjectLockedError',
        'p.flipbook is open in another Flipbook (pid 42 on lab-1, since 2026-12-06T10:00:00Z); close it there, or open this project read-only',
      ],
      [
        new ProjectVersionError('p.flipbook', 99, 12),
        'ProjectVersionError',
        'p.flipbook was written by a newer Flipbook (schema 99; this one knows up to 12): update Flipbook to open it; nothing was written to it',
      ],
      [new ProjectReadOnlyError('p.flipbook'), 'ProjectReadOnlyError', 'p.flipbook is open read-only'],
      [new ProjectOpenError('p.flipbook', 'no such project file'), 'ProjectOpenError', 'p.flipbook: no such project file'],
      [new ProjectNotWritableError('p.flipbook', 'the file is not writable'), 'ProjectNotWritableError', 'p.flipbook: the file is not writable; open it read-only'],
      [
        new ProjectForeignError('o.db', 'it has tables of its own'),
        'ProjectForeignError',
        'o.db: not a Flipbook project: it has tables of its own; nothing was written to it — give --project a Flipbook project, or a new file name to create one',
      ],
      [
        new ProjectStorageError('p.flipbook', 'the import of a.csv', 'the disk is full', 'SQLITE_FULL'),
        'ProjectStorageError',
        'p.flipbook: the import of a.csv failed: the disk is full (SQLITE_FULL); it was rolled back: the project is as it was before',
      ],
    ];
    for (const [err, name, message] of cases) expect([err.name, err.message]).toEqual([name, message]);
    expect(new ProjectForeignError('o.db', 'x')).toBeInstanceOf(ProjectOpenError);
  });
});

describe('storage failures', () => {
  it("SQLite's and the system's codes for a full disk, a quota, I/O, damage and a read-only file system", () => {
    const failures: [string, string][] = [
      ['SQLITE_FULL', 'the disk is full'],
      ['ENOSPC', 'the disk is full'],
      ['EDQUOT', 'the disk quota is exceeded'],
      ['SQLITE_IOERR', 'the disk reported an input/output error'],
      ['SQLITE_IOERR_WRITE', 'the disk reported an input/output error'],
      ['EIO', 'the disk reported an input/output error'],
      ['SQLITE_CORRUPT', 'the project file is damaged'],
      ['SQLITE_CORRUPT_VTAB', 'the project file is damaged'],
      ['SQLITE_NOTADB', 'the project file is damaged'],
      ['SQLITE_READONLY', 'the file system is read-only'],
      ['SQLITE_READONLY_DBMOVED', 'the file system is read-only'],
      ['EROFS', 'the file system is read-only'],
    ];
    for (const [code, failure] of failures) expect(storageFailure(coded(code))).toEqual({ failure, code });
  });

  it('any other code, a code that only contains one, no code, or no error: not a storage failure', () => {
    for (const code of ['SQLITE_CONSTRAINT', 'SQLITE_FULLER', 'XENOSPC', 'EIO2', 'MY_SQLITE_NOTADB', 'EROFS ', 42, undefined]) expect(storageFailure(coded(code))).toBeNull();
    expect(storageFailure(null)).toBeNull();
    expect(storageFailure('SQLITE_FULL')).toBeNull();
  });

  it('a storage error is its own failure', () => {
    expect(storageFailure(new ProjectStorageError('p', 'op', 'the disk is full', 'ENOSPC'))).toEqual({ failure: 'the disk is full', code: 'ENOSPC' });
  });
});

describe('naming a storage failure by project and step', () => {
  it('passes a result through, and any other error unchanged', () => {
    expect(namingStorage('p.flipbook', 'the import', () => 7)).toBe(7);
    const other = coded('SQLITE_CONSTRAINT');
    expect(() =>
      namingStorage('p.flipbook', 'the import', () => {
        throw other;
      }),
    ).toThrow(other);
  });

  it('a storage failure names the project, the step and the outcome given (rolled back by default)', () => {
    const fail = (outcome?: string) => () =>
      namingStorage(
        'p.flipbook',
        'the import of a.csv',
        () => {
          throw coded('SQLITE_FULL');
        },
        outcome,
      );
    expect(fail()).toThrow(new ProjectStorageError('p.flipbook', 'the import of a.csv', 'the disk is full', 'SQLITE_FULL'));
    expect(fail()).toThrow('p.flipbook: the import of a.csv failed: the disk is full (SQLITE_FULL); it was rolled back: the project is as it was before');
    expect(fail('nothing was created')).toThrow('p.flipbook: the import of a.csv failed: the disk is full (SQLITE_FULL); nothing was created');
  });

  it("an inner step's failure keeps its name: the same project's as is, another file's within this step", () => {
    const inner = new ProjectStorageError('p.flipbook', 'the annotations', 'the disk is full', 'ENOSPC');
    const rethrow = (file: string) => () =>
      namingStorage(file, 'creating the project', () => {
        throw inner;
      });
    let same: unknown;
    try {
      rethrow('p.flipbook')();
    } catch (e) {
      same = e;
    }
    expect(same).toBe(inner);
    expect(rethrow('new.flipbook')).toThrow(
      'new.flipbook: creating the project (the annotations) failed: the disk is full (ENOSPC); it was rolled back: the project is as it was before',
    );
  });
});
