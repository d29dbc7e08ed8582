/**
 * Fault injection: real child processes (the CLI's import and export, and a store-API child
 * that annotates) are killed with SIGKILL at random points, and after each kill the project
 * must open (stale writer lock taken over, schema intact, `PRAGMA integrity_check` ok), be
 * exactly the old or the new state, and keep every edit that was reported committed
 * (docs/security.md). The kill points come from a seeded mulberry32 so a failure can be
 * replayed: the seed is printed; set FLIPBOOK_FI_SEED to rerun it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../shared/engine/prng';
import { latestVersion, openProject } from '../../../electron/store/index';
import { flipbook, repoRoot, writePerItem } from '../cli/cli-helpers';
import { tempDir } from './helpers';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SEED = process.env.FLIPBOOK_FI_SEED ? Number(process.env.FLIPBOOK_FI_SEED) : Date.now() % 0x100000000;
const rand = mulberry32(SEED);
console.log(`fault-injection seed ${SEED} (rerun with FLIPBOOK_FI_SEED=${SEED})`);
const ROUNDS = 6;

/** Spawns `args` under node, kills it with SIGKILL after `delayMs` (or when `killWhen` says so). */
function runAndKill(args: string[], delayMs: number, killWhen?: (stdout: string) => boolean): Promise<{ stdout: string; stderr: string; killed: boolean; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const kill = () => {
      if (!killed && child.exitCode === null) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(kill, delayMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (killWhen?.(stdout)) kill();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, killed, code });
    });
  });
}

/** Opens the project as a writer (the killed holder must not block it), then checks the file. */
function checkOpens(file: string): void {
  const p = openProject(file);
  p.close();
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
  } finally {
    db.close();
  }
}

/** Row counts of the tables an import writes, plus the stored response bytes. */
function fingerprint(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = ['models', 'splits', 'configs', 'items', 'runs', 'response_columns', 'grid_configs'];
    const counts = tables.map((t) => `${t}=${(db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n}`);
    return counts.join(' ');
  } finally {
    db.close();
  }
}

function timed<T>(f: () => T): [T, number] {
  const t = Date.now();
  const r = f();
  return [r, Date.now() - t];
}

describe('fault injection (SIGKILL at random points)', () => {
  it('a killed import leaves the project at the old or the new state, and it opens', async () => {
    const dir = tempDir('flipbook-fi-');
    const baseCsv = path.join(dir, 'base.csv');
    writePerItem(baseCsv, 'm1', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.4] } });
    const bigCells: Record<string, Record<string, [string, number]>> = {};
    for (let i = 0; i < 3000; i++) bigCells[`q${i}`] = { textonly: ['A', 0.5], '16f_151k': [i % 3 ? 'A' : 'B', 0.7] };
    const bigCsv = path.join(dir, 'big.csv');
    writePerItem(bigCsv, 'm2', 'S', bigCells);

    const base = path.join(dir, 'base.flipbook');
    expect(flipbook('import', baseCsv, '--project', base).code).toBe(0);
    checkOpens(base);
    const before = fingerprint(base);
    const ref = path.join(dir, 'ref.flipbook');
    fs.copyFileSync(base, ref);
    const [r, refMs] = timed(() => flipbook('import', bigCsv, '--project', ref));
    expect(r.code, r.stderr).toBe(0);
    checkOpens(ref);
    const after = fingerprint(ref);
    expect(after).not.toBe(before);

    const seen = { old: 0, new: 0, finished: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const file = path.join(dir, `r${round}.flipbook`);
      fs.copyFileSync(base, file);
      // Most of an import's time is reading and checking before its one transaction commits,
      // so the kill window runs past the reference duration to also land near the commit.
      const delay = Math.floor((0.3 + rand() * 1.3) * refMs);
      const run = await runAndKill([path.join(repoRoot, 'bin/flipbook.js'), 'import', bigCsv, '--project', file], delay);
      if (!run.killed) expect(run.code, run.stderr).toBe(0);
      checkOpens(file);
      const state = fingerprint(file);
      expect([before, after], `round ${round} (kill at ${delay} ms)`).toContain(state);
      seen[!run.killed ? 'finished' : state === before ? 'old' : 'new']++;
      // The next import over a killed one succeeds and reaches the new state.
      if (state === before && round % 2 === 0) {
        const again = flipbook('import', bigCsv, '--project', file);
        expect(again.code, again.stderr).toBe(0);
        expect(fingerprint(file)).toBe(after);
      }
    }
    console.log(`import: reference ${refMs} ms; killed ${seen.old + seen.new} times: ${seen.old} old, ${seen.new} new state; ${seen.finished} finished first`);
  }, 55_000);

  it('a killed export leaves the folder absent or a complete export, and the next run cleans up', async () => {
    const dir = tempDir('flipbook-fi-');
    const cells: Record<string, Record<string, [string, number]>> = {};
    for (let i = 0; i < 3000; i++) cells[`q${i}`] = { textonly: ['A', 0.5], '16f_151k': [i % 3 ? 'A' : 'B', 0.7] };
    const csv = path.join(dir, 'a.csv');
    writePerItem(csv, 'm1', 'S', cells);
    const project = path.join(dir, 'p.flipbook');
    expect(flipbook('import', csv, '--project', project).code).toBe(0);
    const refOut = path.join(dir, 'ref-out');
    const [r, refMs] = timed(() => flipbook('export', '--project', project, '--out', refOut));
    expect(r.code, r.stderr).toBe(0);
    const refPerItem = fs.readFileSync(path.join(refOut, 'labels/per_item.csv'), 'utf8');

    /** The folder is a complete export: README, the per-item labels (as the reference), a manifest. */
    const expectComplete = (out: string, why: string) => {
      expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8'), why).toMatch(/\S/);
      expect(fs.readFileSync(path.join(out, 'labels/per_item.csv'), 'utf8'), why).toBe(refPerItem);
      const manifest: unknown = JSON.parse(fs.readFileSync(path.join(out, 'labels/aggregated/release_manifest.json'), 'utf8'));
      expect(manifest, why).toBeTypeOf('object');
    };
    const leftovers = (out: string) => fs.readdirSync(path.dirname(out)).filter((n) => n.startsWith(`${path.basename(out)}.tmp-`));

    const seen = { absent: 0, complete: 0, finished: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      // Even rounds write a new folder; odd rounds replace the export the even round left.
      const out = path.join(dir, `out${Math.floor(round / 2)}`);
      const delay = Math.floor(rand() * refMs * 1.2);
      const why = `round ${round} (kill at ${delay} ms)`;
      const run = await runAndKill([path.join(repoRoot, 'bin/flipbook.js'), 'export', '--project', project, '--out', out], delay);
      if (!run.killed) expect(run.code, run.stderr).toBe(0);
      if (!run.killed) {
        expectComplete(out, why);
        seen.finished++;
      } else if (fs.existsSync(out)) {
        expectComplete(out, why);
        seen.complete++;
      } else {
        // A folder cannot be swapped atomically: killed between the two renames, the previous
        // export must still be whole, moved aside under a name the next run cleans.
        if (round % 2 === 1) {
          const aside = leftovers(out).find((n) => n.endsWith('-old'));
          expect(aside, `${why}: previous export lost`).toBeDefined();
          expectComplete(path.join(dir, aside!), why);
        }
        seen.absent++;
      }
      checkOpens(project);
      const again = flipbook('export', '--project', project, '--out', out);
      expect(again.code, `${why}: ${again.stderr}`).toBe(0);
      expectComplete(out, why);
      expect(leftovers(out), why).toEqual([]);
    }
    console.log(`export: reference ${refMs} ms; killed ${seen.absent + seen.complete} times: ${seen.absent} absent, ${seen.complete} complete; ${seen.finished} finished first`);
  }, 55_000);

  it('a killed annotator loses no edit it reported committed, and the project opens', async () => {
    const dir = tempDir('flipbook-fi-');
    const count = 120;
    let total = 0;
    let extra = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const file = path.join(dir, `a${round}.flipbook`);
      openProject(file, { create: true }).close();
      // Kill once a random number of edits is reported: the child keeps writing meanwhile, so
      // the kill lands at a random point of a later edit. (A delay from spawn mostly lands in
      // tsx's start-up.) The long timer only bounds a child that stops reporting.
      const killAt = Math.floor(rand() * count);
      const run = await runAndKill(
        ['--import', 'tsx', path.join(HERE, 'annotate-child.ts'), file, String(count)],
        30_000,
        (out) => (out.match(/^saved \d+$/gm)?.length ?? 0) > killAt,
      );
      expect(run.killed, run.stderr).toBe(true);
      const saved = run.stdout.match(/^saved (\d+)$/gm)?.map((l) => Number(l.slice(6))) ?? [];
      const reported = saved.length ? saved[saved.length - 1]! : 0;
      checkOpens(file);
      const p = openProject(file);
      let events = 0;
      try {
        const all = p.annotations.exportEvents({ annotator: 'crash' });
        events = all.length;
        // Every reported edit is there; at most the one being committed when killed is extra.
        expect(events, `round ${round}: reported ${reported}`).toBeGreaterThanOrEqual(reported);
        expect(events).toBeLessThanOrEqual(Math.min(count, reported + 1));
        const states = p.annotations.listStates({ annotator: 'crash' });
        for (let i = 0; i < reported; i++) {
          const s = states.find((x) => x.sampleId === `item-${i % 4}`);
          expect(s, `round ${round}: edit ${i}`).toBeDefined();
          if (i % 3 === 2) expect(s!.spans.map((x) => x.id)).toContain(`span-${i}`);
        }
      } finally {
        p.close();
      }
      total += reported;
      extra += events - reported;
    }
    console.log(`annotation: ${total} reported edits over ${ROUNDS} kills (${extra} more committed than reported), all present`);
  }, 55_000);
});
