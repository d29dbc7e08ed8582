/**
 * One writer per project file across processes (docs/security.md "The writer lock"). SQLite's
 * own locking only serialises transactions; two Flipbook windows on one project would
 * interleave undo stacks and imports, so the second is refused.
 *
 * The lock itself is a lock the operating system holds for us: the writer keeps a write
 * transaction (`BEGIN IMMEDIATE`) open on a small SQLite file beside the project,
 * `<project>.lock.db`. Taking it is atomic (two processes starting together cannot both get
 * it), and the OS drops it when its process dies in any way (crash, kill -9, power loss of
 * the process), so there is no stale lock to detect or take over. `<project>.lock` holds
 * `{pid, hostname, since}` of the holder, written once it has the lock, only to name it in
 * messages. A `.lock` without `"v": 2` comes from an older Flipbook, which locked with that
 * file alone: it is respected while its process lives (a zombie does not).
 */
import fs from 'node:fs';
import os from 'node:os';
import Database from 'better-sqlite3';
import * as z from 'zod';
import { ProjectLockedError } from './errors';
import { processAlive } from './process-alive';
import { sqliteBinding } from './sqlite-binding';

const lockInfoSchema = z.object({ pid: z.number().int(), hostname: z.string(), since: z.string(), v: z.number().optional() });
export type LockInfo = z.infer<typeof lockInfoSchema>;

export interface ProjectLock {
  readonly path: string;
  release(): void;
}

export function lockPathFor(projectPath: string): string {
  return `${projectPath}.lock`;
}

/** The file whose open write transaction is the lock (never deleted: see acquireLock). */
function mutexPathFor(projectPath: string): string {
  return `${projectPath}.lock.db`;
}

function readLock(lockPath: string): LockInfo | null {
  try {
    const parsed = lockInfoSchema.safeParse(JSON.parse(fs.readFileSync(lockPath, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A `.lock` of an older Flipbook whose process still runs (it holds the project without the mutex). */
function legacyHolder(lockPath: string): LockInfo | null {
  const info = readLock(lockPath);
  if (!info || info.v === 2) return null;
  if (info.hostname === os.hostname() && (info.pid === process.pid || !processAlive(info.pid))) return null;
  return info;
}

/** Opens the mutex and tries to take it; the open connection when taken, null when another holds it. */
function takeMutex(projectPath: string): Database.Database | null {
  const db = new Database(mutexPathFor(projectPath), { timeout: 0, ...sqliteBinding() });
  try {
    db.exec('BEGIN IMMEDIATE');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw err;
  }
}

const unknownHolder = { pid: -1, hostname: 'unknown host', since: 'just now' };

/** Who holds the project's writer lock, or null when nobody does. */
export function lockHolder(projectPath: string): LockInfo | null {
  let db: Database.Database | null;
  try {
    db = takeMutex(projectPath);
  } catch {
    // The mutex cannot even be opened (a folder this user cannot write): no writer of ours holds it.
    return legacyHolder(lockPathFor(projectPath));
  }
  if (db === null) return readLock(lockPathFor(projectPath)) ?? unknownHolder;
  try {
    return legacyHolder(lockPathFor(projectPath));
  } finally {
    db.exec('ROLLBACK');
    db.close();
  }
}

export function acquireLock(projectPath: string): ProjectLock {
  const lockPath = lockPathFor(projectPath);
  const db = takeMutex(projectPath);
  if (db === null) throw new ProjectLockedError(projectPath, readLock(lockPath) ?? unknownHolder);
  const legacy = legacyHolder(lockPath);
  if (legacy) {
    db.exec('ROLLBACK');
    db.close();
    throw new ProjectLockedError(projectPath, legacy);
  }
  const mine: LockInfo = { pid: process.pid, hostname: os.hostname(), since: new Date().toISOString(), v: 2 };
  // Written whole under a temp name and renamed: a reader never sees half of it.
  const tmp = `${lockPath}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(mine));
  fs.renameSync(tmp, lockPath);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.off('exit', release);
    const current = readLock(lockPath);
    if (current && current.pid === mine.pid && current.since === mine.since) fs.rmSync(lockPath, { force: true });
    // The mutex file stays: deleting it would let a process that opened the old file and one
    // that creates a new one both hold "the" lock.
    try {
      db.exec('ROLLBACK');
    } catch {
      /* already closed */
    }
    db.close();
  };
  process.on('exit', release);
  return { path: lockPath, release };
}
