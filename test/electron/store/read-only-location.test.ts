/**
 * docs/security.md "Read-only locations" and "The project file": a project in a folder this
 * user cannot write opens read-only, without a lock file, for metrics, export and serve, and
 * says so; a new project appears complete or not at all. Real CLI processes: as root the
 * commands run as `nobody` (root writes anywhere), otherwise the folder is made read-only.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { flipbook, repoRoot, writePerItem } from '../cli/cli-helpers';
import { tempDir } from '../../temp-dir';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
/**
 * As root the CLI runs as `nobody`, which must be able to reach the checkout: a clone inside a
 * private folder (e.g. `mktemp -d`, mode 0700) is out of its reach. There the tests skip with
 * the reason; under CI (CI=true) that is a failure, as a missing real fixture is.
 */
function nobodyReachesCheckout(): boolean {
  if (!asRoot) return true;
  const bin = path.join(repoRoot, 'bin/flipbook.js');
  const r = spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(bin)}, require('fs').constants.R_OK)`], { uid: NOBODY, gid: NOBODY });
  if (r.status === 0) return true;
  const reason = `read-only location tests: user nobody (who runs the CLI here, as root writes anywhere) cannot read ${bin}; give the checkout's folders o+rx`;
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: this fails the run)`);
  console.warn(`[skipped] ${reason}`);
  return false;
}
const supported = process.platform !== 'win32' && nobodyReachesCheckout();

let tmp = '';
let dir = '';
let project = '';
let outDir = '';
beforeAll(() => {
  if (!supported) return;
  tmp = tempDir('flipbook-readonly-');
  fs.chmodSync(tmp, 0o755);
  dir = path.join(tmp, 'ro');
  fs.mkdirSync(dir);
  const csv = path.join(dir, 'per_item.csv');
  writePerItem(csv, 'M', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['B', 0.5] }, q2: { textonly: ['B', 0.5], '16f_151k': ['A', 0.5] } });
  project = path.join(dir, 'p.flipbook');
  // As this user (root included): also makes sure the CLI build is current before `nobody` runs it.
  const r = flipbook('import', csv, '--project', project);
  if (r.code !== 0) throw new Error(r.stderr);
  outDir = path.join(tmp, 'out');
  fs.mkdirSync(outDir);
  fs.chmodSync(outDir, 0o777);
  if (!asRoot) fs.chmodSync(dir, 0o555);
});
// Writable again, so that tempDir's removal (after this hook) can empty it.
afterAll(() => {
  if (tmp) fs.chmodSync(dir, 0o755);
});

/** The CLI as a user who cannot write `dir`. */
function cliReadOnly(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    ...(asRoot ? { uid: NOBODY, gid: NOBODY, env: { ...process.env, HOME: tmp, XDG_CACHE_HOME: path.join(outDir, 'cache') } } : {}),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const sideFiles = (): string[] => fs.readdirSync(dir).filter((f) => f !== 'p.flipbook' && f !== 'per_item.csv');

describe.skipIf(!supported)('a project in a read-only folder', () => {
  it('metrics reads it (no lock file, nothing written)', () => {
    const r = cliReadOnly('metrics', '--project', project, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))).grids).toHaveLength(1);
    expect(sideFiles()).toEqual([]);
  });

  it('export writes the release from a read-only connection and says so', () => {
    const out = path.join(outDir, 'rel');
    const r = cliReadOnly('export', '--project', project, '--out', out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/not writable.*exporting from a read-only connection/);
    expect(fs.readFileSync(path.join(out, 'labels', 'per_item.csv'), 'utf8')).toContain('q1,M,S,16f_151k');
    expect(sideFiles()).toEqual([]);
  });

  it('serve opens it read-only and says so', async () => {
    // A stand-in renderer (the API is what is tested) and a home this user can write its settings to.
    const renderer = path.join(outDir, 'renderer');
    fs.mkdirSync(renderer, { recursive: true });
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>t</title>');
    const home = path.join(outDir, 'home');
    fs.mkdirSync(home, { recursive: true });
    fs.chmodSync(home, 0o777);
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'serve', '--project', project, '--renderer', renderer], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') },
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    try {
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve printed no URL in 60 s: ${stderr}`)), 60_000);
        readline.createInterface({ input: child.stdout }).on('line', (l) => {
          if (l.startsWith('Flipbook web mode: ')) (clearTimeout(timer), resolve(l));
        });
        child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      expect(url).toMatch(/http:\/\/127\.0\.0\.1:\d+/);
      expect(stderr).toMatch(/cannot be written by this user .*serving it read-only/);
      expect(sideFiles()).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});

describe('creating a project', () => {
  it('a rejected import into a new project leaves no file; a killed creation leaves only a temp the next run removes', () => {
    const d = tempDir('flipbook-create-');
    const file = path.join(d, 'new.flipbook');
    const bad = path.join(d, 'bad.csv');
    fs.writeFileSync(
      bad,
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\nq1,M,S,textonly,0,0,A,B,1,t,\n',
    );
    const r = flipbook('import', bad, '--project', file);
    expect(r.code).toBe(1);
    expect(fs.readdirSync(d).sort()).toEqual(['bad.csv']);
    // What a creation killed mid-way leaves: a temp of a dead process (and its side files).
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    for (const s of ['', '-wal', '.lock.db']) fs.writeFileSync(path.join(d, `.new.flipbook.tmp-${dead}${s}`), '');
    const p = openProject(file, { create: true });
    p.close();
    expect(fs.readdirSync(d).sort()).toEqual(['bad.csv', 'new.flipbook', 'new.flipbook.lock.db']);
  });

  it('an empty project file (an older Flipbook killed while creating it) is named as such, and opening it read-write initialises it', () => {
    const d = tempDir('flipbook-create-');
    const file = path.join(d, 'empty.flipbook');
    fs.writeFileSync(file, '');
    expect(() => openProject(file, { readOnly: true })).toThrow(`${file}: an empty project file (schema 0: its creation was interrupted)`);
    openProject(file).close();
    const p = openProject(file, { readOnly: true });
    expect(p.listModels()).toEqual([]);
    p.close();
  });
});
