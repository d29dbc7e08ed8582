/**
 * Whether a process runs, and the leftovers of those that do not (electron/store/process-alive.ts,
 * docs/security.md "Leftovers"): this process and its parent run, an exited one does not, nor
 * does a pid that cannot be one; stale temps are removed by their owner's pid, a live
 * owner's and this process's kept, other names left alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { processAlive, removeStaleTemps } from '../../../electron/store/process-alive';
import { deadPid, tempDir } from './helpers';

describe('a process alive', () => {
  it('this one, its parent and init run; an exited one and impossible pids do not', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(process.ppid)).toBe(true);
    // pid 1 runs as another user for an unprivileged test run (EPERM): still alive.
    expect(processAlive(1)).toBe(true);
    expect(processAlive(deadPid())).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(processAlive(pid)).toBe(false);
  });
  // A zombie: lock.test.ts, 'a zombie holder of an old-style lock is not alive'.
});

describe('stale temps', () => {
  it("removes a dead owner's files and folders, keeps this process's and a live one's, and leaves other names", () => {
    const dir = tempDir('flipbook-temps-');
    const dead = deadPid();
    const names = [
      `.p.flipbook.tmp-${dead}`,
      `.p.flipbook.tmp-${dead}-2`,
      `.p.flipbook.tmp-${process.pid}`,
      `.p.flipbook.tmp-${process.ppid}x`,
      '.p.flipbook.tmp-abc',
      'p.flipbook',
      `other.tmp-${dead}`,
    ];
    for (const n of names) fs.writeFileSync(path.join(dir, n), 'x');
    fs.mkdirSync(path.join(dir, `.p.flipbook.tmp-${dead}.d`));
    fs.writeFileSync(path.join(dir, `.p.flipbook.tmp-${dead}.d`, 'inside'), 'x');
    const removed = removeStaleTemps(dir, '.p.flipbook.tmp-');
    expect(removed.sort()).toEqual([`.p.flipbook.tmp-${dead}`, `.p.flipbook.tmp-${dead}-2`, `.p.flipbook.tmp-${dead}.d`].sort());
    expect(fs.readdirSync(dir).sort()).toEqual(
      [`.p.flipbook.tmp-${process.pid}`, `.p.flipbook.tmp-${process.ppid}x`, '.p.flipbook.tmp-abc', 'p.flipbook', `other.tmp-${dead}`].sort(),
    );
  });

  it('a folder that cannot be read has nothing to remove', () => {
    expect(removeStaleTemps(path.join(tempDir('flipbook-temps-'), 'absent'), 'x')).toEqual([]);
  });
});
