/**
 * One writer per project file across processes: a lock file `<project>.lock` holding the
 * owner's pid and hostname. SQLite's own locking only serialises transactions; two Flipbook
 * windows on one project would interleave undo stacks and imports, so we refuse the second.
 * A lock whose process is gone (crash, kill -9) is stale and is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import { z } from 'zod';
import { ProjectLockedError } from './errors';

const lockInfoSchema = z.object({ pid: z.number().int(), hostname: z.string(), since: z.string() });
export type LockInfo = z.infer<typeof lockInfoSchema>;

export interface ProjectLock {
  readonly path: string;
  release(): void;
}

export function lockPathFor(projectPath: string): string {
  return `${projectPath}.lock`;
}

function readLock(lockPath: string): LockInfo | null {
  try {
    const parsed = lockInfoSchema.safeParse(JSON.parse(fs.readFileSync(lockPath, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else — still alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is the lock held by a live process (as far as this host can tell)? */
export function lockHolder(projectPath: string): LockInfo | null {
  const info = readLock(lockPathFor(projectPath));
  if (!info) return null;
  if (info.hostname === os.hostname() && !processAlive(info.pid)) return null;
  return info;
}

export function acquireLock(projectPath: string): ProjectLock {
  const lockPath = lockPathFor(projectPath);
  const mine: LockInfo = { pid: process.pid, hostname: os.hostname(), since: new Date().toISOString() };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // 'wx' fails when the file exists: creation is the atomic test-and-set.
      fs.writeFileSync(lockPath, JSON.stringify(mine), { flag: 'wx' });
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        process.off('exit', release);
        const current = readLock(lockPath);
        if (current && current.pid === mine.pid && current.since === mine.since) fs.rmSync(lockPath, { force: true });
      };
      process.on('exit', release);
      return { path: lockPath, release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(lockPath);
    if (holder === null) {
      // Unreadable or half-written lock: only treat as stale if it is not brand new (another
      // process may be between create and write).
      const stat = fs.statSync(lockPath, { throwIfNoEntry: false });
      if (!stat) continue;
      if (Date.now() - stat.mtimeMs < 2000) throw new ProjectLockedError(projectPath, { pid: -1, hostname: 'unknown', since: 'just now' });
      fs.rmSync(lockPath, { force: true });
      continue;
    }
    // A lock from another host cannot be checked: refuse (the message says who holds it).
    if (holder.hostname !== os.hostname() || processAlive(holder.pid)) throw new ProjectLockedError(projectPath, holder);
    // Stale: the owner died without releasing (crash, kill -9). Take it over.
    fs.rmSync(lockPath, { force: true });
  }
  const holder = readLock(lockPath) ?? { pid: -1, hostname: 'unknown', since: 'unknown' };
  throw new ProjectLockedError(projectPath, holder);
}
