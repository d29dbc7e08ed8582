/**
 * The writer lock as this process sees it (electron/store/lock.ts, docs/security.md "The writer
 * lock"): who holds it, taken and released (once, and its exit hook with it), a holder whose
 * name file cannot be read, and the `.lock` of an older Flipbook — respected while its process
 * lives elsewhere, not when it names this process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProjectLockedError } from '../../../electron/store/errors';
import { acquireLock, lockHolder } from '../../../electron/store/lock';
import { tempDir } from './helpers';

const project = () => path.join(tempDir('flipbook-lock-'), 'p.flipbook');
function lockedBy(file: string): ProjectLockedError {
  try {
    acquireLock(file).release();
  } catch (e) {
    if (e instanceof ProjectLockedError) return e;
    throw e;
  }
  throw new Error('not locked');
}
/** The mutex taken by another connection (as another process's writer holds it). */
function holdMutex(file: string): () => void {
  const db = new Database(`${file}.lock.db`, { timeout: 0 });
  db.exec('BEGIN IMMEDIATE');
  return () => (db.exec('ROLLBACK'), db.close());
}

describe('the writer lock, in this process', () => {
  it('nobody, then this process, then nobody again; released once, its exit hook with it', () => {
    const file = project();
    expect(lockHolder(file)).toBeNull();
    const exitHooks = process.listenerCount('exit');
    const lock = acquireLock(file);
    expect(lock.path).toBe(`${file}.lock`);
    expect(process.listenerCount('exit')).toBe(exitHooks + 1);
    expect(lockHolder(file)).toMatchObject({ pid: process.pid, hostname: os.hostname(), v: 2 });
    const since = lockHolder(file)!.since;
    expect(Date.parse(since)).not.toBeNaN();
    lock.release();
    expect(process.listenerCount('exit')).toBe(exitHooks);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    expect(lockHolder(file)).toBeNull();
    // A second release does nothing: not even to a lock taken since.
    const again = acquireLock(file);
    lock.release();
    expect(lockHolder(file)).toMatchObject({ pid: process.pid });
    again.release();
    // The mutex file stays (docs/security.md: deleting it would let two processes hold it).
    expect(fs.existsSync(`${file}.lock.db`)).toBe(true);
  });

  it('a holder whose name file is absent or unreadable is an unknown one', () => {
    const file = project();
    const release = holdMutex(file);
    try {
      expect(lockHolder(file)).toEqual({ pid: -1, hostname: 'unknown host', since: 'just now' });
      fs.writeFileSync(`${file}.lock`, '{ half written');
      expect(lockHolder(file)).toEqual({ pid: -1, hostname: 'unknown host', since: 'just now' });
      expect(lockedBy(file).message).toBe(`${file} is open in another Flipbook (pid -1 on unknown host, since just now); close it there, or open this project read-only`);
      fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 7, hostname: 'lab-2', since: 'then', v: 2 }));
      expect(lockedBy(file).holder).toEqual({ pid: 7, hostname: 'lab-2', since: 'then', v: 2 });
    } finally {
      release();
    }
    expect(lockHolder(file)).toBeNull();
  });

  it("an older Flipbook's .lock: respected for a live process of this host or any of another; not for this process", () => {
    const file = project();
    const legacy = (pid: number, hostname = os.hostname()) => fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid, hostname, since: '2020-01-01T00:00:00.000Z' }));
    // Our parent runs (the test runner's): a live writer of an older Flipbook.
    legacy(process.ppid);
    expect(lockHolder(file)).toMatchObject({ pid: process.ppid });
    expect(lockedBy(file).holder.pid).toBe(process.ppid);
    // The refused attempt left the mutex free.
    legacy(1, 'elsewhere');
    expect(lockHolder(file)).toMatchObject({ hostname: 'elsewhere' });
    // A .lock naming this very process is left over by it: not a holder.
    legacy(process.pid);
    expect(lockHolder(file)).toBeNull();
    const lock = acquireLock(file);
    expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8'))).toMatchObject({ pid: process.pid, v: 2 });
    lock.release();
  });
});
