// bin/flipbook.js runs the esbuild build of the CLI (scripts/build-cli.js) and makes it again
// when a source is newer than the build, so a developer's edit is never run stale.
//
// It runs on a copy of the CLI's sources in a temp folder: other test files run the CLI at the
// same time, and a build of theirs must not replace the one this test looks at.
import { isAscii } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import ExcelJS from 'exceljs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../temp-dir';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const root = tempDir('flipbook-cli-build-');
for (const dir of ['bin', 'scripts', 'electron', 'shared', 'assets']) fs.cpSync(path.join(repo, dir), path.join(root, dir), { recursive: true });
fs.copyFileSync(path.join(repo, 'package.json'), path.join(root, 'package.json'));
fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'), 'dir');

const bin = path.join(root, 'bin/flipbook.js');
const manifestPath = path.join(root, 'dist/cli.json');

interface Manifest {
  dir: string;
  inputs: Record<string, number>;
}
const manifest = (): Manifest => JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Manifest;
const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root });
const SAMPLE_FRAMES = ['sample-frames', '--policy', 'scalegrid-random', '--total', '300', '--n', '8', '--seed', '3', '--video-id', 'v1'];

/** Runs the CLI and lists the npm packages it loaded (Node's module cache, read as the process exits). */
function packagesLoaded(...args: string[]): { status: number | null; packages: string[]; files: string[] } {
  const hook = path.join(root, 'list-packages.cjs');
  fs.writeFileSync(hook, "process.on('exit', () => require('fs').writeSync(2, '\\nPACKAGES ' + JSON.stringify(Object.keys(require('module')._cache)) + '\\n'));");
  const r = spawnSync(process.execPath, ['--require', hook, bin, ...args], { encoding: 'utf8', cwd: root });
  const line = r.stderr.split('\n').find((l) => l.startsWith('PACKAGES '));
  if (!line) throw new Error(`no module list: ${r.stderr}`);
  const files = JSON.parse(line.slice('PACKAGES '.length)) as string[];
  const packages = new Set(files.flatMap((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1] ?? []));
  return { status: r.status, packages: [...packages].sort(), files };
}

describe('the built CLI', () => {
  it('is built on first use, runs from dist/ and lists every command without loading any', () => {
    expect(fs.existsSync(manifestPath)).toBe(false);
    const r = cli('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: flipbook <command>/);
    const m = manifest();
    // ASCII, so bin/flipbook.js reads it as a one-byte string (docs/architecture.md "CLI start-up").
    expect(isAscii(fs.readFileSync(path.join(root, 'dist', m.dir, 'main.cjs')))).toBe(true);
    expect(Object.keys(m.inputs)).toContain('electron/cli/main.ts');
    expect(Object.keys(m.inputs)).toContain('electron/store/migrations/0010-initial.sql');
  });

  it('is built again when a source is newer than the build, and then runs the new build', () => {
    cli('--help');
    const before = manifest();
    // A developer edits a source after the build.
    const edited = path.join(root, 'electron/cli/main.ts');
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(edited, later, later);
    const r = cli(...SAMPLE_FRAMES);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('[20,52,146,168,173,174,223,270]');
    const after = manifest();
    expect(after.dir).not.toBe(before.dir);
    expect(after.inputs['electron/cli/main.ts']).toBe(fs.statSync(edited).mtimeMs);
    // A current build is used as it is.
    cli('--help');
    expect(manifest().dir).toBe(after.dir);
  });

  it('is built again when the build script changed or the build folder is gone', () => {
    cli('--help');
    const first = manifest();
    expect(first.inputs['scripts/build-cli.js']).toBeDefined();
    // Another entry or option in the build script makes another build from the same sources.
    const script = path.join(root, 'scripts/build-cli.js');
    const later = new Date(Date.now() + 10_000);
    fs.utimesSync(script, later, later);
    expect(cli('--help').status).toBe(0);
    const second = manifest();
    expect(second.dir).not.toBe(first.dir);
    // The manifest names a build whose folder was deleted: built again rather than failing.
    fs.rmSync(path.join(root, 'dist', second.dir), { recursive: true, force: true });
    const r = cli('--help');
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: flipbook <command>/);
    expect(manifest().dir).not.toBe(second.dir);
  });

  it('refuses a build that is not ASCII, naming its line, and keeps the build before it', () => {
    expect(cli('--help').status).toBe(0);
    const before = manifest();
    const builds = () =>
      fs
        .readdirSync(path.join(root, 'dist'))
        .filter((d) => d.startsWith('cli-'))
        .sort();
    const folders = builds();
    // A regex literal keeps its characters as written (esbuild escapes strings, not these).
    const edited = path.join(root, 'electron/cli/main.ts');
    const source = fs.readFileSync(edited, 'utf8');
    try {
      fs.writeFileSync(edited, `${source}\nif (/caf\u00e9/.test(process.env.FLIPBOOK_NO_SUCH_VARIABLE ?? '')) console.log('');\n`);
      const later = new Date(Date.now() + 20_000);
      fs.utimesSync(edited, later, later);
      const r = cli('--help');
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/the CLI build is not ASCII: .*main\.cjs line \d+ has byte 0xc3/);
      expect(manifest()).toEqual(before);
      expect(builds()).toEqual(folders);
    } finally {
      fs.writeFileSync(edited, source);
      const later = new Date(Date.now() + 30_000);
      fs.utimesSync(edited, later, later);
    }
    expect(cli('--help').status).toBe(0);
  });

  it('loads a command and its packages only when that command runs, exceljs only for its files, hyparquet on its own thread', async () => {
    const help = packagesLoaded('--help');
    expect(help).toMatchObject({ status: 0, packages: [] });
    // The entry runs as CommonJS (in require's cache; an ES module entry is not), which starts
    // sooner (docs/architecture.md "CLI start-up").
    expect(help.files).toContain(bin);
    const dir = fs.mkdtempSync(path.join(root, 'lazy-'));
    const csv = path.join(dir, 'per_item.csv');
    fs.writeFileSync(
      csv,
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence\n' +
        'q1,m1,S,16f_151k,16,150528,A,A,1,t,,0.9\n',
    );
    const fromCsv = packagesLoaded('import', csv, '--project', path.join(dir, 'a.flipbook'));
    expect(fromCsv.status).toBe(0);
    // better-sqlite3's JavaScript is in the build; only its native addon comes from node_modules.
    expect(fromCsv.files.filter((f) => f.includes('node_modules/better-sqlite3/')).map((f) => path.basename(f))).toEqual(['better_sqlite3.node']);
    expect(fromCsv.packages).not.toContain('exceljs');
    // A VLMEvalKit xlsx and Video-MME's parquet: exceljs (CommonJS) is loaded where the sources import() it.
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow(['index', 'video', 'duration', 'question_id', 'task_type', 'question', 'options', 'answer', 'prediction']);
    ws.addRow([0, 'vidA', 'short', '001-1', 'Counting', 'How many?', "['A. 1', 'B. 2', 'C. 3', 'D. 4']", 'C', 'C. 3']);
    const xlsx = path.join(dir, 'Qwen2.5-VL-7B_Video-MME_64frame.xlsx');
    await wb.xlsx.writeFile(xlsx);
    const fromXlsx = packagesLoaded('import', xlsx, '--project', path.join(dir, 'b.flipbook'));
    expect(fromXlsx.status).toBe(0);
    expect(fromXlsx.packages).toContain('exceljs');
    expect(fromXlsx.packages).not.toContain('hyparquet');
    const column = (name: string, data: string[]) => ({ name, data, type: 'STRING' as const });
    const parquet = path.join(dir, 'test-00000-of-00001.parquet');
    fs.writeFileSync(
      parquet,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: [
            column('video_id', ['001']),
            column('duration', ['short']),
            column('domain', ['Knowledge']),
            column('sub_category', ['History']),
            column('videoID', ['yt0']),
            column('question_id', ['001-1']),
            column('task_type', ['Counting Problem']),
            column('question', ['How many?']),
            { name: 'options', data: [['A. one', 'B. two', 'C. three', 'D. four']] },
            column('answer', ['C']),
          ],
        }),
      ),
    );
    const fromParquet = packagesLoaded('import', parquet, '--project', path.join(dir, 'c.flipbook'), '--split', 'V1_{duration}');
    expect(fromParquet.status).toBe(0);
    // The table is decoded on a thread of its own (electron/importers/parquet-rows.ts), whose
    // modules this thread's cache does not list: the import worked, and hyparquet is not here.
    expect(fromParquet.packages).not.toContain('hyparquet');
    expect(fromParquet.packages).not.toContain('exceljs');
    const imported = new Database(path.join(dir, 'c.flipbook'), { readonly: true });
    try {
      expect(imported.prepare('SELECT count(*) AS n FROM items').get()).toEqual({ n: 1 });
    } finally {
      imported.close();
    }
  });

  it('keeps a V8 code cache per command in its build, made by a successful run and replaced when V8 refuses it', () => {
    expect(cli('--help').status).toBe(0);
    const cacheDir = path.join(root, 'dist', manifest().dir, 'v8-cache');
    const cache = path.join(cacheDir, 'sample-frames.bin');
    fs.rmSync(cache, { force: true });
    // A failed run or a command's --help leaves none: either would hold only part of the command's code.
    expect(cli('sample-frames', '--policy', 'no-such-policy').status).not.toBe(0);
    expect(cli('sample-frames', '--help').status).toBe(0);
    expect(fs.existsSync(cache)).toBe(false);
    const expected = '[20,52,146,168,173,174,223,270]';
    expect(cli(...SAMPLE_FRAMES).stdout.trim()).toBe(expected);
    const made = fs.statSync(cache);
    expect(made.size).toBeGreaterThan(1000);
    // Used as it is: not written again.
    expect(cli(...SAMPLE_FRAMES).stdout.trim()).toBe(expected);
    expect(fs.statSync(cache).mtimeMs).toBe(made.mtimeMs);
    // Cut short (a disk that filled up): V8 refuses it, the command runs compiled afresh, and a whole cache replaces it.
    fs.truncateSync(cache, Math.floor(made.size / 2));
    const r = cli(...SAMPLE_FRAMES);
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(expected);
    expect(fs.statSync(cache).size).toBeGreaterThan(made.size * 0.9);
    // One byte changed (a damaged disk block): V8 itself would not notice; the file's digest does.
    const whole = fs.readFileSync(cache);
    const mtime = fs.statSync(cache).mtimeMs;
    const mid = Math.floor(whole.length / 2);
    whole[mid] = whole[mid]! ^ 0xff;
    fs.writeFileSync(cache, whole);
    fs.utimesSync(cache, new Date(mtime - 10_000), new Date(mtime - 10_000));
    const again = cli(...SAMPLE_FRAMES);
    expect(again.stderr).toBe('');
    expect(again.stdout.trim()).toBe(expected);
    expect(fs.statSync(cache).mtimeMs).toBeGreaterThan(mtime - 10_000);
    expect(fs.readFileSync(cache).equals(whole)).toBe(false);
    // No temp file is left (a cache is written to one, then renamed).
    expect(fs.readdirSync(cacheDir).filter((f) => !f.endsWith('.bin'))).toEqual([]);
  });
});

describe('a rebuild while the CLI serves', () => {
  it('keeps every build a running process may still load from, and removes it once that process has ended', async () => {
    expect(cli('--help').status).toBe(0);
    const first = manifest().dir;
    const dir = fs.mkdtempSync(path.join(root, 'serving-'));
    const project = path.join(dir, 'p.flipbook');
    const csv = path.join(dir, 'per_item.csv');
    fs.writeFileSync(
      csv,
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence\n' +
        'q1,m1,S,16f_151k,16,150528,A,A,1,t,,0.9\nq1,m1,S,32f_151k,32,150528,B,A,0,t,,0.8\n',
    );
    // No renderer in this copy of the sources: the server answers the API alone (what this test needs).
    const child = spawn(process.execPath, [bin, 'serve', '--project', project, '--create', '--port', '0', '--renderer', path.join(dir, 'no-renderer')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, FLIPBOOK_USER_DATA: path.join(dir, 'user-data') },
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let out = '';
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(out);
          if (m) resolve(new URL(m[0]));
        });
      });
      // The build the server runs is more than an hour old (as after a night), and a source is
      // newer than it (a `git pull`): the next CLI call from another process builds again.
      const old = new Date(Date.now() - 2 * 3600_000);
      fs.utimesSync(path.join(root, 'dist', first), old, old);
      const later = new Date(Date.now() + 40_000);
      fs.utimesSync(path.join(root, 'electron/cli/main.ts'), later, later);
      expect(cli('--help').status).toBe(0);
      expect(manifest().dir).not.toBe(first);
      // The server still starts its import's worker from the build it runs.
      const res = await fetch(new URL('/api/op/import:run', url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-flipbook-token': url.searchParams.get('token') ?? '' },
        body: JSON.stringify({ jobId: 'after-rebuild', paths: [csv] }),
      });
      const result = (await res.json()) as { ok: boolean; error?: { message: string }; value?: { summary: { responsesAdded: number } } };
      expect(result.error?.message).toBeUndefined();
      expect(result.value?.summary.responsesAdded).toBe(2);
      expect(fs.existsSync(path.join(root, 'dist', first, 'main.cjs'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    // Once no process runs it, the old build goes with the next build.
    fs.utimesSync(path.join(root, 'electron/cli/main.ts'), new Date(Date.now() + 50_000), new Date(Date.now() + 50_000));
    expect(cli('--help').status).toBe(0);
    expect(fs.existsSync(path.join(root, 'dist', first))).toBe(false);
  });
});

describe('CLIs started together on a stale build', () => {
  it('all run, whichever of them builds and whichever removes the builds before', async () => {
    // Each rebuild's cleanup moves earlier builds aside before it reads their leases again;
    // a process that had just checked one of them must still load it (or build its own).
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const c = spawn(process.execPath, [bin, ...SAMPLE_FRAMES], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        c.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        c.once('exit', (code) => resolve({ code, stderr }));
      });
    for (let round = 1; round <= 3; round++) {
      const later = new Date(Date.now() + round * 600_000);
      fs.utimesSync(path.join(root, 'electron/cli/main.ts'), later, later);
      const results = await Promise.all([run(), run(), run()]);
      for (const r of results) expect(r.code, `round ${round}: ${r.stderr}`).toBe(0);
    }
  }, 120_000);
});
