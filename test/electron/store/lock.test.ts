import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockHolder, openProject, ProjectLockedError, ProjectReadOnlyError } from '../../../electron/store/index';
import { deadPid, tempDir } from './helpers';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** A child running lock-child.ts, its output lines queued for `next()`. */
interface Child {
  proc: ChildProcessWithoutNullStreams;
  next(): Promise<string>;
}

function startChild(): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'lock-child.ts')], { stdio: 'pipe' });
  const lines: string[] = [];
  const waiting: ((l: string) => void)[] = [];
  readline.createInterface({ input: proc.stdout }).on('line', (l) => {
    const w = waiting.shift();
    if (w) w(l);
    else lines.push(l);
  });
  return {
    proc,
    next: () => {
      const l = lines.shift();
      if (l !== undefined) return Promise.resolve(l);
      return new Promise((resolve, reject) => {
        // One exit listener per wait, removed when the line comes: a child asked for many
        // lines otherwise collects them (Node warns past ten).
        const exited = (code: number | null): void => reject(new Error(`lock child exited (${code})`));
        proc.once('exit', exited);
        waiting.push((l) => {
          proc.off('exit', exited);
          resolve(l);
        });
      });
    },
  };
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

  it('release removes the .lock only while it still names this holder', () => {
    // The .lock is written by whoever took the project last; closing must never delete a
    // record another holder (another process, or this process opened again later) wrote.
    const file = path.join(tempDir(), 'p.flipbook');
    openProject(file, { create: true }).close();
    type Info = { pid: number; hostname: string; since: string; v: number };
    const others: ((mine: Info) => Info)[] = [
      (mine) => ({ ...mine, pid: mine.pid + 1 }), // another process, same moment
      (mine) => ({ ...mine, since: '2020-01-01T00:00:00.000Z' }), // this process, another opening
    ];
    for (const otherOf of others) {
      const p = openProject(file);
      const other = otherOf(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')) as Info);
      fs.writeFileSync(`${file}.lock`, JSON.stringify(other));
      p.close();
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')), JSON.stringify(other)).toEqual(other);
    }
    const p = openProject(file);
    p.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
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

  it('a zombie holder of an old-style lock is not alive: its lock is taken over', async () => {
    const file = path.join(tempDir(), 'p.flipbook');
    openProject(file, { create: true }).close();
    // sh starts a short child, then becomes `sleep 30` in place: that child exits unreaped. The
    // child lives a second, so that sh has become `sleep 30` (which reaps nothing) before it
    // exits: a child that ended while sh still ran was sometimes reaped by sh on a busy machine.
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number((await new Promise<string>((resolve) => readline.createInterface({ input: parent.stdout }).once('line', resolve))).trim());
      const deadline = Date.now() + 10_000;
      const state = (): string => {
        const st = fs.readFileSync(`/proc/${zombie}/stat`, 'utf8');
        return st.slice(st.lastIndexOf(')') + 2, st.lastIndexOf(')') + 3);
      };
      while (state() !== 'Z') {
        if (Date.now() > deadline) throw new Error(`pid ${zombie} never became a zombie`);
        await new Promise((r) => setImmediate(r));
      }
      fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: zombie, hostname: os.hostname(), since: '2020-01-01T00:00:00.000Z' }));
      const p = openProject(file);
      expect(JSON.parse(fs.readFileSync(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
      p.close();
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('race harness: 100 simultaneous starts over a stale lock, exactly one writer each time', async () => {
    // 10 processes × 10 rounds. Each round every process is told to start at once, on a fresh
    // project whose lock file was left by a process that died (what a crash leaves).
    const children = Array.from({ length: 10 }, startChild);
    try {
      await Promise.all(children.map(async (c) => expect(await c.next()).toBe('ready')));
      const dir = tempDir();
      const dead = deadPid();
      const winners: number[] = [];
      for (let round = 0; round < 10; round++) {
        const file = path.join(dir, `r${round}.flipbook`);
        fs.writeFileSync(`${file}.lock`, JSON.stringify({ pid: dead, hostname: os.hostname(), since: '2020-01-01T00:00:00.000Z' }));
        for (const c of children) c.proc.stdin.write(`go ${file}\n`);
        const answers = await Promise.all(children.map((c) => c.next()));
        const won = answers.flatMap((a, i) => (a === 'won' ? [i] : []));
        expect(
          answers.filter((a) => a !== 'won').every((a) => a === 'lost ProjectLockedError'),
          answers.join(', '),
        ).toBe(true);
        winners.push(won.length);
        for (const i of won) {
          children[i]!.proc.stdin.write('release\n');
          expect(await children[i]!.next()).toBe('released');
        }
      }
      expect(winners).toEqual(Array(10).fill(1));
    } finally {
      for (const c of children) c.proc.kill('SIGKILL');
    }
  }, 120_000);

  it('a writer killed with -9 leaves no lock behind', async () => {
    const file = path.join(tempDir(), 'p.flipbook');
    const c = startChild();
    try {
      expect(await c.next()).toBe('ready');
      c.proc.stdin.write(`go ${file}\n`);
      expect(await c.next()).toBe('won');
      expect(() => openProject(file, { create: true })).toThrow(ProjectLockedError);
      const exited = new Promise((r) => c.proc.once('exit', r));
      c.proc.kill('SIGKILL');
      await exited;
      const p = openProject(file, { create: true });
      p.close();
    } finally {
      c.proc.kill('SIGKILL');
    }
  }, 60_000);
});
