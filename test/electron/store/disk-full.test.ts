/**
 * A disk that really fills up mid-import and mid-export (docs/security.md "The project file",
 * "Export"): each case runs the CLI inside a private mount namespace (`unshare`) on a small
 * tmpfs that the test fills until only a little room is left — less than the import or export
 * needs, more than opening the project needs — so the write fails with ENOSPC / SQLITE_FULL
 * part-way. The message must name the project (or the export folder) and the step, and the
 * project must open at its last committed state; a new project or an export folder must not be
 * left half-made. The namespace keeps the mount private to the child and ends with it: nothing
 * to unmount, nothing left mounted if the test dies. Where no mount namespace can be made (not
 * root and no user namespaces), the test is skipped and says why.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { flipbook, repoRoot, writePerItem } from '../cli/cli-helpers';
import { tempDir } from './helpers';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
/** `unshare` options for a private mount namespace: as root, or as a user through a user namespace. */
const UNSHARE = isRoot ? ['--mount'] : ['--user', '--map-root-user', '--mount'];

function namespaceMissing(): string | null {
  const probe = tempDir('flipbook-ns-probe-');
  const r = spawnSync('unshare', [...UNSHARE, 'sh', '-c', `mount -t tmpfs -o size=64k tmpfs '${probe}'`], { encoding: 'utf8' });
  if (r.error) return `no unshare (${r.error.message})`;
  return r.status === 0 ? null : `cannot mount a tmpfs in a private mount namespace here: ${r.stderr.trim() || `exit ${r.status}`}`;
}
const skipReason = namespaceMissing();
if (skipReason) console.log(`[disk-full] skipped: ${skipReason}`);

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const node = (args: string[]): string => [process.execPath, path.join(repoRoot, 'bin/flipbook.js'), ...args].map(q).join(' ');

/**
 * Runs `steps` (shell) on a fresh `mb` MiB tmpfs at `mnt`, private to the child. `$FILL` fills
 * it to leave `$1` bytes free; `$OUT` is a host folder that outlives the mount.
 */
function onSmallDisk(mnt: string, out: string, mb: number, steps: string): { code: number; stdout: string; stderr: string } {
  const script = [
    'set -u',
    `mount -t tmpfs -o size=${mb}m tmpfs ${q(mnt)} || exit 90`,
    // Fill to the brim, then give back exactly the room asked for.
    `fill() { dd if=/dev/zero of=${q(mnt)}/filler bs=64k 2>/dev/null; truncate -s -"$1" ${q(mnt)}/filler; sync; }`,
    `OUT=${q(out)}`,
    steps,
  ].join('\n');
  const r = spawnSync('unshare', [...UNSHARE, 'sh', '-c', script], { encoding: 'utf8', cwd: repoRoot, timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function bigCsv(dir: string, n = 4000): string {
  const cells: Record<string, Record<string, [string, number]>> = {};
  for (let i = 0; i < n; i++) cells[`q${i}`] = { textonly: ['A', 0.5], '16f_151k': [i % 3 ? 'A' : 'B', 0.7], '32f_151k': [i % 5 ? 'A' : 'C', 0.8] };
  const csv = path.join(dir, 'big.csv');
  writePerItem(csv, 'm2', 'S', cells);
  return csv;
}

function fingerprint(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return ['models', 'splits', 'configs', 'items', 'runs', 'response_columns']
      .map((t) => `${t}=${(db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n}`)
      .join(' ');
  } finally {
    db.close();
  }
}

describe.skipIf(skipReason !== null)('a full disk (a real tmpfs filled up, in a private mount namespace)', () => {
  it('mid-import into a project: names the project and the import; the project opens at its last committed state', () => {
    const dir = tempDir('flipbook-full-');
    const base = path.join(dir, 'base.flipbook');
    const small = path.join(dir, 'small.csv');
    writePerItem(small, 'm1', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.4] } });
    expect(flipbook('import', small, '--project', base).code).toBe(0);
    const before = fingerprint(base);
    const csv = bigCsv(dir);
    // How much the import writes when it has room: the free space left is a fraction of it.
    const ref = path.join(dir, 'ref.flipbook');
    fs.copyFileSync(base, ref);
    expect(flipbook('import', csv, '--project', ref).code).toBe(0);
    const grows = fs.statSync(ref).size - fs.statSync(base).size;
    const free = Math.max(96 * 1024, Math.floor(grows / 4));
    const mnt = path.join(dir, 'mnt');
    const out = path.join(dir, 'out');
    fs.mkdirSync(mnt);
    fs.mkdirSync(out);
    const onDisk = path.join(mnt, 'p.flipbook');
    const r = onSmallDisk(
      mnt,
      out,
      8,
      [
        `cp ${q(base)} ${q(onDisk)}`,
        `fill ${free}`,
        `df -k ${q(mnt)} | tail -1`,
        `${node(['import', csv, '--project', onDisk])}; echo "exit $?"`,
        `df -k ${q(mnt)} | tail -1`,
        `rm -f ${q(mnt)}/filler`,
        // The project as the full disk left it (its -wal too), for the checks below; and then
        // opened again on the same disk, now with room.
        `cp -a ${q(mnt)}/. "$OUT"/`,
        `${node(['metrics', '--project', onDisk, '--json'])} > "$OUT/metrics.json"; echo "metrics $?"`,
      ].join('\n'),
    );
    console.log(`disk-full import: the import writes ${grows} bytes; ${free} were left free.\n${r.stdout}${r.stderr}`);
    expect(r.stdout).toMatch(/^exit 1$/m);
    expect(r.stdout).toMatch(/^metrics 0$/m);
    expect(r.stderr).toContain(`flipbook import: ${onDisk}: the import of big.csv failed: the disk is full (SQLITE_FULL); it was rolled back: the project is as it was before`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // Really full: the second df line shows (almost) nothing available.
    const avail = [...r.stdout.matchAll(/^\S+\s+\d+\s+\d+\s+(\d+)\s/gm)].map((m) => Number(m[1]));
    expect(avail[0]).toBeGreaterThan(0);
    const copy = path.join(out, 'p.flipbook');
    expect(fingerprint(copy)).toBe(before);
    const p = openProject(copy, { readOnly: true });
    try {
      expect(p.listModels()).toEqual(['m1']);
    } finally {
      p.close();
    }
  });

  it('mid-import into a new project: names it, and leaves no project and no temp behind', () => {
    const dir = tempDir('flipbook-full-');
    const csv = bigCsv(dir);
    const mnt = path.join(dir, 'mnt');
    const out = path.join(dir, 'out');
    fs.mkdirSync(mnt);
    fs.mkdirSync(out);
    // Room to make the empty project (its schema passes through the WAL: twice its size, and the
    // -shm) and a third of what the import adds to it: the schema is made, the import fails part-way.
    const empty = path.join(dir, 'empty.flipbook');
    openProject(empty, { create: true }).close();
    const ref = path.join(dir, 'ref.flipbook');
    expect(flipbook('import', csv, '--project', ref).code).toBe(0);
    const free = 2 * fs.statSync(empty).size + 64 * 1024 + Math.floor((fs.statSync(ref).size - fs.statSync(empty).size) / 3);
    const onDisk = path.join(mnt, 'new.flipbook');
    const r = onSmallDisk(mnt, out, 8, [`fill ${free}`, `${node(['import', csv, '--project', onDisk])}; echo "exit $?"`, `ls -A ${q(mnt)}`].join('\n'));
    console.log(
      `disk-full new project: ${free} bytes left free (the empty project is ${fs.statSync(empty).size}, the imported one ${fs.statSync(ref).size}).\n${r.stdout}${r.stderr}`,
    );
    expect(r.stdout).toMatch(/^exit 1$/m);
    expect(r.stderr).toMatch(
      new RegExp(
        `flipbook import: ${onDisk.replace(/[.]/g, '\\.')}: creating the project \\(the import of big\\.csv\\) failed: the disk is full \\((SQLITE_FULL|ENOSPC)\\); nothing was created`,
      ),
    );
    // Only the filler is left on the disk.
    expect(r.stdout.trim().split('\n').slice(1)).toEqual(['filler']);
  });

  it('mid-export: names the export folder; no half-written release, and a previous export is kept whole', () => {
    const dir = tempDir('flipbook-full-');
    const project = path.join(dir, 'p.flipbook');
    expect(flipbook('import', bigCsv(dir), '--project', project).code).toBe(0);
    const small = path.join(dir, 'small.flipbook');
    const smallCsv = path.join(dir, 'small.csv');
    writePerItem(smallCsv, 'm1', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.4] } });
    expect(flipbook('import', smallCsv, '--project', small).code).toBe(0);
    const mnt = path.join(dir, 'mnt');
    const out = path.join(dir, 'out');
    fs.mkdirSync(mnt);
    fs.mkdirSync(out);
    const fresh = path.join(mnt, 'release');
    const previous = path.join(mnt, 'previous');
    const r = onSmallDisk(
      mnt,
      out,
      8,
      [
        `${node(['export', '--project', small, '--out', previous])} >/dev/null; echo "small $?"`,
        `(cd ${q(previous)} && find . -type f | sort | xargs sha256sum) > "$OUT/previous.sha"`,
        `fill ${128 * 1024}`,
        `${node(['export', '--project', project, '--out', fresh])}; echo "new $?"`,
        `${node(['export', '--project', project, '--out', previous])}; echo "replace $?"`,
        `ls -A ${q(mnt)}`,
        `(cd ${q(previous)} && find . -type f | sort | xargs sha256sum) > "$OUT/previous-after.sha"`,
      ].join('\n'),
    );
    console.log(`disk-full export:\n${r.stdout}${r.stderr}`);
    expect(r.stdout).toMatch(/^small 0$/m);
    expect(r.stdout).toMatch(/^new 1$/m);
    expect(r.stdout).toMatch(/^replace 1$/m);
    expect(r.stderr).toMatch(
      new RegExp(`flipbook export: export to ${fresh.replace(/[.]/g, '\\.')} failed: the disk is full \\(ENOSPC\\) while writing \\S+; nothing was left there`),
    );
    expect(r.stderr).toMatch(
      new RegExp(`export to ${previous.replace(/[.]/g, '\\.')} failed: the disk is full \\(ENOSPC\\) while writing \\S+; the previous export there is kept as it was`),
    );
    expect(r.stderr).not.toMatch(/^\s+at /m);
    // No release folder for the new export, no temps; the previous export byte for byte.
    expect(r.stdout.trim().split('\n').slice(3).sort()).toEqual(['filler', 'previous']);
    expect(fs.readFileSync(path.join(out, 'previous-after.sha'), 'utf8')).toBe(fs.readFileSync(path.join(out, 'previous.sha'), 'utf8'));
    expect(fs.readFileSync(path.join(out, 'previous.sha'), 'utf8')).toMatch(/labels\/per_item\.csv/);
    // The project was only read.
    expect(fingerprint(project)).toMatch(/items=4000/);
  });
});
