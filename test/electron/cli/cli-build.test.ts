// bin/flipbook.js runs the esbuild build of the CLI (scripts/build-cli.js) and makes it again
// when a source is newer than the build, so a developer's edit is never run stale.
//
// It runs on a copy of the CLI's sources in a temp folder: other test files run the CLI at the
// same time, and a build of theirs must not replace the one this test looks at.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

describe('the built CLI', () => {
  it('is built on first use, runs from dist/ and lists every command without loading any', () => {
    expect(fs.existsSync(manifestPath)).toBe(false);
    const r = cli('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: flipbook <command>/);
    const m = manifest();
    expect(fs.existsSync(path.join(root, 'dist', m.dir, 'main.js'))).toBe(true);
    // Command code lives in chunks of its own: the entry holds none of it.
    const entry = fs.readFileSync(path.join(root, 'dist', m.dir, 'main.js'), 'utf8');
    expect(entry).not.toMatch(/exportRelease|openProject/);
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
    const r = cli('sample-frames', '--policy', 'scalegrid-random', '--total', '300', '--n', '8', '--seed', '3', '--video-id', 'v1');
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
});
