// bin/flipbook.js runs the esbuild build of the CLI (scripts/build-cli.js) and makes it again
// when a source is newer than the build, so a developer's edit is never run stale.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const bin = path.join(root, 'bin/flipbook.js');
const manifestPath = path.join(root, 'dist/cli.json');

interface Manifest {
  dir: string;
  inputs: Record<string, number>;
}
const manifest = (): Manifest => JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as Manifest;
const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root });

describe('the built CLI', () => {
  it('runs from dist/ and lists every command without loading any', () => {
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
    // Pretend the build predates electron/cli/main.ts's current contents.
    fs.writeFileSync(manifestPath, JSON.stringify({ ...before, inputs: { ...before.inputs, 'electron/cli/main.ts': 0 } }));
    const r = cli('sample-frames', '--policy', 'scalegrid-random', '--total', '300', '--n', '8', '--seed', '3', '--video-id', 'v1');
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('[20,52,146,168,173,174,223,270]');
    const after = manifest();
    expect(after.dir).not.toBe(before.dir);
    expect(after.inputs['electron/cli/main.ts']).toBe(fs.statSync(path.join(root, 'electron/cli/main.ts')).mtimeMs);
    // A current build is used as it is.
    cli('--help');
    expect(manifest().dir).toBe(after.dir);
  });
});
