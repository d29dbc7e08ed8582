import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockHolder, openProject, ProjectLockedError, ProjectReadOnlyError } from '../../../electron/store/index';
import { tempDir } from './helpers';

/** The pid of a process that has exited (so it is certainly not alive). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('project lock', () => {
  it('refuses a second writer with a message naming the holder, and allows read-only', () => {
    const file = path.join(tempDir(), 'p.flipbook');
    const first = openProject(file, { create: true });
    first.setSetting('mediaRoot', '/videos');
    let error: unknown;
    try {
      openProject(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ProjectLockedError);
    expect((error as Error).message).toContain(`pid ${process.pid} on ${os.hostname()}`);
    expect((error as Error).message).toMatch(/open this project read-only/);

    const reader = openProject(file, { readOnly: true });
    expect(reader.readOnly).toBe(true);
    expect(reader.getSetting('mediaRoot')).toBe('/videos');
    expect(() => reader.setSetting('mediaRoot', '/elsewhere')).toThrow(ProjectReadOnlyError);
    expect(() => reader.annotations.apply({ op: 'setNotes', model: 'm', split: 's', sampleId: '1', notes: 'x' }, 'ann')).toThrow(ProjectReadOnlyError);
    reader.close();

    first.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    const second = openProject(file);
    second.close();
  });

  it('takes over a stale lock left by a process that died', () => {
    const file = path.join(tempDir(), 'p.flipbook');
    openProject(file, { create: true }).close();
    const pid = deadPid();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid, hostname: os.hostname(), since: '2020-01-01T00:00:00.000Z' }));
    expect(lockHolder(file)).toBeNull();
    const p = openProject(file);
    expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
    p.close();
  });

  it('refuses a lock held on another host (it cannot be checked)', () => {
    const file = path.join(tempDir(), 'p.flipbook');
    openProject(file, { create: true }).close();
    fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: 1, hostname: `${os.hostname()}-elsewhere`, since: '2020-01-01T00:00:00.000Z' }));
    expect(() => openProject(file)).toThrow(/elsewhere/);
  });
});
