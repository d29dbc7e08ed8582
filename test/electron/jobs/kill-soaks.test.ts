/**
 * Crash consistency shown, not assumed (docs/security.md "The project file", "Export"): the
 * real CLI is killed with SIGKILL at seeded random moments during `merge`, `annotate --from-csv`,
 * `export` over a previous export, and `sync` pulling a two-page backlog from a real PostgreSQL.
 * After every kill the project opens read-write (the dead writer's lock is no obstacle, its
 * stale -wal is replayed), passes `PRAGMA integrity_check`, and holds exactly the old or the new
 * state (for a sync: whole pages); an export folder is absent (its predecessor whole, aside),
 * the old export byte for byte, or the new one byte for byte. Then the same command completes.
 *
 * The kill moments come from mulberry32(seed): every other trial a delay from the start over
 * 1.3× the command's own duration in this run (measured first: start-up, reading, writing), the
 * others a delay after the project's -wal first holds bytes (the write, the commit, just after).
 * The seed is printed; FLIPBOOK_SOAK_SEED repeats a run, FLIPBOOK_SOAK_TRIALS sets the trials.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../shared/engine/prng';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/index';
import { runSync } from '../../../electron/sync/sync';
import { flipbook, repoRoot, writePerItem } from '../cli/cli-helpers';
import { copies } from '../sync/helpers';
import { ADMIN, pgBinDir, startPgServer, type PgServer } from '../sync/pg-server';
import { tempDir } from '../store/helpers';

const SEED = process.env.FLIPBOOK_SOAK_SEED ? Number(process.env.FLIPBOOK_SOAK_SEED) : Date.now() % 0x100000000;
const TRIALS = Number(process.env.FLIPBOOK_SOAK_TRIALS ?? 8);
const rand = mulberry32(SEED);
console.log(`kill soaks: seed ${SEED}, ${TRIALS} trials per command (FLIPBOOK_SOAK_SEED=${SEED} repeats this run)`);

const CLI = path.join(repoRoot, 'bin/flipbook.js');
const ITEMS = 3000;

interface Run {
  killed: boolean;
  code: number | null;
  stderr: string;
  ms: number;
}

/**
 * When to kill: `delayMs` after the start, or — with `afterWalOf` — `delayMs` after the
 * project's -wal first holds bytes (the command has begun writing it: the kill lands in the
 * write, the commit or just after, which a delay from the start, mostly spent starting and
 * reading, seldom hits on a loaded machine).
 */
interface KillAt {
  delayMs: number;
  afterWalOf?: string;
}

/** Runs the CLI with `args`, killed with SIGKILL at `at` unless it ends first. */
function runAndKill(args: string[], at: KillAt | number, env: Record<string, string> = {}): Promise<Run> {
  const when: KillAt = typeof at === 'number' ? { delayMs: at } : at;
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    let killed = false;
    const kill = (): void => {
      if (child.exitCode === null && child.signalCode === null) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    let timer: ReturnType<typeof setTimeout> | undefined;
    let poll: ReturnType<typeof setInterval> | undefined;
    if (when.afterWalOf === undefined) timer = setTimeout(kill, when.delayMs);
    else {
      const wal = `${when.afterWalOf}-wal`;
      poll = setInterval(() => {
        if ((fs.statSync(wal, { throwIfNoEntry: false })?.size ?? 0) === 0) return;
        clearInterval(poll);
        timer = setTimeout(kill, when.delayMs);
      }, 2);
    }
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      resolve({ killed, code, stderr, ms: Date.now() - t0 });
    });
  });
}

/**
 * The command's duration when not killed (the kill window is measured, not guessed): `once`
 * runs it on a scratch copy first, so the CLI's build and code cache are warm as in the trials.
 */
async function reference(args: string[], env: Record<string, string> = {}, once?: () => string[]): Promise<number> {
  if (once) expect((await runAndKill(once(), 600_000, env)).code).toBe(0);
  const r = await runAndKill(args, 600_000, env);
  expect(r.code, r.stderr).toBe(0);
  return r.ms;
}

/** A fresh copy of the base project (a scratch run's, or a trial's). */
function copyOfBase(name: string): string {
  const file = path.join(dir, name);
  fs.copyFileSync(base, file);
  return file;
}

/** Opens the project as a writer after a kill, then checks the file; its annotation event count. */
function opensAndCounts(file: string): { events: number; hadWal: boolean } {
  const hadWal = fs.existsSync(`${file}-wal`) && fs.statSync(`${file}-wal`).size > 0;
  const p = openProject(file);
  let events: number;
  try {
    events = p.annotations.eventCount();
  } finally {
    p.close();
  }
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  } finally {
    db.close();
  }
  return { events, hadWal };
}

/** Every file under `dir`, relative path → sha256, or null when `dir` is absent. */
function tree(dir: string): Record<string, string> | null {
  if (!fs.existsSync(dir)) return null;
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const delayWithin = (refMs: number): number => Math.floor(rand() * 1.3 * refMs);

/** Even trials: a delay from the start over 1.3× the reference; odd ones: up to 0.3× it after writing began. */
const killAt = (t: number, refMs: number, file: string): KillAt =>
  t % 2 === 0 ? { delayMs: delayWithin(refMs) } : { delayMs: Math.floor(rand() * 0.3 * refMs), afterWalOf: file };
const describeKill = (k: KillAt): string => (k.afterWalOf ? `${k.delayMs} ms after writing began` : `${k.delayMs} ms`);

let dir: string;
let base: string;

beforeAll(() => {
  dir = tempDir('flipbook-soak-');
  const cells: Record<string, Record<string, [string, number]>> = {};
  for (let i = 0; i < ITEMS; i++) cells[`q${i}`] = { textonly: ['A', 0.5], '16f_151k': [i % 3 ? 'A' : 'B', 0.7], '32f_151k': ['A', 0.9] };
  const csv = path.join(dir, 'per_item.csv');
  writePerItem(csv, 'm1', 'S', cells);
  base = path.join(dir, 'base.flipbook');
  const r = flipbook('import', csv, '--project', base);
  if (r.code !== 0) throw new Error(r.stderr);
}, 120_000);

/** `n` events of `annotator` over the base project's items, stamped in the past. */
function events(n: number, annotator: string): unknown[] {
  const t0 = Date.parse('2026-02-01T00:00:00.000Z');
  return Array.from({ length: n }, (_, i) => ({
    uuid: randomUUID(),
    at: new Date(t0 + i).toISOString(),
    annotator,
    model: 'm1',
    split: 'S',
    sampleId: `q${i % ITEMS}`,
    kind: i % 2 ? 'setNotes' : 'setStatus',
    payload: i % 2 ? { notes: `note ${i}` } : { status: 'done' },
    codebookVersion: 1,
    targetUuid: null,
  }));
}

describe('kill -9 soaks (seeded)', () => {
  it('merge: the project holds none or all of the bundle', async () => {
    const N = 10_000;
    const src = path.join(dir, 'kim.flipbook');
    fs.copyFileSync(base, src);
    const k = openProject(src);
    try {
      k.annotations.importEvents(events(N, 'kim'));
      await exportRelease(k, path.join(dir, 'kim-release'));
    } finally {
      k.close();
    }
    const bundle = path.join(dir, 'kim-release', 'annotations');
    const refFile = path.join(dir, 'merge-ref.flipbook');
    fs.copyFileSync(base, refFile);
    const refMs = await reference(['merge', bundle, '--project', refFile], {}, () => ['merge', bundle, '--project', copyOfBase('merge-warm.flipbook')]);
    expect(opensAndCounts(refFile).events).toBe(N);
    const seen = { old: 0, new: 0, finished: 0, wal: 0 };
    for (let t = 0; t < TRIALS; t++) {
      const file = path.join(dir, `merge-${t}.flipbook`);
      fs.copyFileSync(base, file);
      const at = killAt(t, refMs, file);
      const run = await runAndKill(['merge', bundle, '--project', file], at);
      if (!run.killed) expect(run.code, run.stderr).toBe(0);
      const { events: n, hadWal } = opensAndCounts(file);
      expect([0, N], `trial ${t} (kill at ${describeKill(at)})`).toContain(n);
      seen[!run.killed ? 'finished' : n === 0 ? 'old' : 'new']++;
      if (hadWal) seen.wal++;
      if (n === 0) {
        const again = flipbook('merge', bundle, '--project', file);
        expect(again.code, again.stderr).toBe(0);
        expect(opensAndCounts(file).events).toBe(N);
      }
    }
    console.log(`merge soak: ${TRIALS} trials (reference ${refMs} ms): ${seen.old} old, ${seen.new} new, ${seen.finished} finished first; ${seen.wal} left a -wal`);
  }, 600_000);

  it('annotate --from-csv: the project holds none or all of the rows', async () => {
    const rows = ['model,split,item,status,note'];
    for (let i = 0; i < ITEMS; i++) rows.push(`m1,S,q${i},${i % 2 ? 'done' : 'in_progress'},"row ${i}, checked"`);
    const csv = path.join(dir, 'labels.csv');
    fs.writeFileSync(csv, `${rows.join('\n')}\n`);
    const N = 2 * ITEMS;
    const args = (file: string): string[] => ['annotate', '--project', file, '--annotator', 'ann', '--from-csv', csv];
    const refFile = path.join(dir, 'annotate-ref.flipbook');
    fs.copyFileSync(base, refFile);
    const refMs = await reference(args(refFile), {}, () => args(copyOfBase('annotate-warm.flipbook')));
    expect(opensAndCounts(refFile).events).toBe(N);
    const seen = { old: 0, new: 0, finished: 0, wal: 0 };
    for (let t = 0; t < TRIALS; t++) {
      const file = path.join(dir, `annotate-${t}.flipbook`);
      fs.copyFileSync(base, file);
      const at = killAt(t, refMs, file);
      const run = await runAndKill(args(file), at);
      if (!run.killed) expect(run.code, run.stderr).toBe(0);
      const { events: n, hadWal } = opensAndCounts(file);
      expect([0, N], `trial ${t} (kill at ${describeKill(at)})`).toContain(n);
      seen[!run.killed ? 'finished' : n === 0 ? 'old' : 'new']++;
      if (hadWal) seen.wal++;
    }
    console.log(`annotate --from-csv soak: ${TRIALS} trials (reference ${refMs} ms): ${seen.old} old, ${seen.new} new, ${seen.finished} finished first; ${seen.wal} left a -wal`);
  }, 600_000);

  it('export over a previous export: the folder is the old export, the new one, or absent with the old one whole beside it', async () => {
    const project = path.join(dir, 'export.flipbook');
    fs.copyFileSync(base, project);
    const previous = path.join(dir, 'previous');
    expect(flipbook('export', '--project', project, '--out', previous).code).toBe(0);
    const oldTree = tree(previous)!;
    // The new state: annotations the old export lacks.
    const p = openProject(project);
    try {
      p.annotations.importEvents(events(4000, 'ann'));
    } finally {
      p.close();
    }
    const refOut = path.join(dir, 'export-ref');
    const refMs = await reference(['export', '--project', project, '--out', refOut], {}, () => ['export', '--project', project, '--out', path.join(dir, 'export-warm')]);
    const newTree = tree(refOut)!;
    expect(newTree).not.toEqual(oldTree);
    const seen = { old: 0, new: 0, absent: 0, finished: 0 };
    for (let t = 0; t < TRIALS; t++) {
      const out = path.join(dir, `out-${t}`);
      fs.cpSync(previous, out, { recursive: true });
      const delay = delayWithin(refMs);
      const why = `trial ${t} (kill at ${delay} ms)`;
      const run = await runAndKill(['export', '--project', project, '--out', out], delay);
      if (!run.killed) expect(run.code, run.stderr).toBe(0);
      const now = tree(out);
      const aside = fs.readdirSync(dir).filter((n) => n.startsWith(`out-${t}.tmp-`) && n.endsWith('-old'));
      if (now === null) {
        // Between the two renames: the old export moved aside, whole.
        expect(aside, why).toHaveLength(1);
        expect(tree(path.join(dir, aside[0]!)), why).toEqual(oldTree);
        seen.absent++;
      } else if (JSON.stringify(now) === JSON.stringify(oldTree)) seen.old++;
      else {
        expect(now, why).toEqual(newTree);
        seen[run.killed ? 'new' : 'finished']++;
      }
      // The project was only read; the next export completes and cleans what the kill left.
      expect(opensAndCounts(project).events).toBe(4000);
      const again = flipbook('export', '--project', project, '--out', out);
      expect(again.code, `${why}: ${again.stderr}`).toBe(0);
      expect(tree(out), why).toEqual(newTree);
      expect(
        fs.readdirSync(dir).filter((n) => n.startsWith(`out-${t}.tmp-`)),
        why,
      ).toEqual([]);
    }
    console.log(`export soak: ${TRIALS} trials over 1.3 × ${refMs} ms: ${seen.old} old, ${seen.new} new, ${seen.absent} absent (old aside), ${seen.finished} finished first`);
  }, 600_000);

  describe.skipIf(pgBinDir() === null)('sync pull (a real PostgreSQL 15)', () => {
    let server: PgServer;
    afterAll(() => server?.stop());

    it('a killed pull holds whole pages only, and the next sync completes it', async () => {
      server = await startPgServer();
      await server.createRole('kim', 'annotator');
      await server.createRole('lou', 'annotator');
      const files = copies(base, ['lead', 'kim', 'lou']);
      const owner = openProject(files.lead!);
      try {
        await runSync(owner, { server: server.url(ADMIN), space: 'soak', password: server.password });
      } finally {
        owner.close();
      }
      // A backlog of one full page (20,000 events) and a part of the next.
      const N = 22_000;
      const k = openProject(files.kim!);
      try {
        k.annotations.importEvents(events(N, 'kim'));
        expect(await runSync(k, { server: server.url('kim'), space: 'soak', password: server.password })).toMatchObject({ pushed: N });
      } finally {
        k.close();
      }
      const env = { PGPASSWORD: server.password };
      const args = (file: string): string[] => ['sync', '--project', file, '--server', server.url('lou'), '--space', 'soak'];
      const refFile = path.join(dir, 'sync-ref.flipbook');
      fs.copyFileSync(base, refFile);
      const refMs = await reference(args(refFile), env, () => args(copyOfBase('sync-warm.flipbook')));
      expect(opensAndCounts(refFile).events).toBe(N);
      const counts: number[] = [];
      const resumed = new Set<number>();
      let wal = 0;
      // Fewer trials: each pulls 22,000 events, seconds apiece.
      const trials = Math.max(2, Math.ceil((TRIALS * 3) / 4));
      for (let t = 0; t < trials; t++) {
        const file = path.join(dir, `sync-${t}.flipbook`);
        fs.copyFileSync(base, file);
        const at = killAt(t, refMs, file);
        const run = await runAndKill(args(file), at, env);
        if (!run.killed) expect(run.code, run.stderr).toBe(0);
        const { events: n, hadWal } = opensAndCounts(file);
        expect([0, 20_000, N], `trial ${t} (kill at ${describeKill(at)})`).toContain(n);
        counts.push(n);
        if (hadWal) wal++;
        // The next sync completes what was left (once per outcome: a pull costs seconds here).
        if (resumed.has(n)) continue;
        resumed.add(n);
        const p = openProject(file);
        try {
          const r = await runSync(p, { server: server.url('lou'), space: 'soak', password: server.password });
          expect(r.pulled, `trial ${t}`).toBe(N - n);
          expect(p.annotations.eventCount()).toBe(N);
        } finally {
          p.close();
        }
      }
      console.log(`sync pull soak: ${trials} trials (reference ${refMs} ms); events after each kill: ${counts.join(', ')}; ${wal} left a -wal`);
    }, 600_000);
  });
});
