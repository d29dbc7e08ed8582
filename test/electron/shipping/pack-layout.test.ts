/**
 * A real electron-builder run (`--dir`, the unpacked app every installer is made from) with the
 * repo's configuration and packing hooks, on a scratch copy of the project so the shared
 * node_modules is never swapped. Two stand-ins, because this machine cannot download them: an
 * Electron distribution (a script named `electron`; fuses are therefore off — flipping them
 * needs the real binary's fuse wire) and the Electron-ABI addon (distinct bytes). Checked: the
 * asar holds what the app reads at run time and nothing it does not, the addon is unpacked and
 * is the Electron build, and the scratch project's Node build is back afterwards.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nodeAddon, repoRoot, requireFromRepo, sha256 } from './shipping-helpers';
import { tempDir } from '../../temp-dir';

const asar = requireFromRepo('@electron/asar') as { listPackage(file: string, opts?: object): string[]; statFile(file: string, p: string): { unpacked?: boolean } };
const runtimeModules = requireFromRepo(path.join(repoRoot, 'build/runtime-modules.cjs')) as string[];
const electronVersion = (requireFromRepo('electron/package.json') as { version: string }).version;

const work = tempDir('flipbook-pack-');
const project = path.join(work, 'project');
const output = path.join(work, 'out');
const standInElectron = path.join(work, 'electron-dist');

function copy(rel: string, to = rel) {
  fs.cpSync(path.join(repoRoot, rel), path.join(project, to), { recursive: true });
}

function ensureBuilt(rel: string, args: string[]) {
  if (fs.existsSync(path.join(repoRoot, rel))) return;
  console.log(`[shipping] ${rel} missing: building it (${args.join(' ')})`);
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building ${rel} failed:\n${r.stderr}`);
}

/** electron-builder in a child process (its loader mutates the config object it requires). */
function pack() {
  const script = `
    const { build, Platform } = require(${JSON.stringify(requireFromRepo.resolve('electron-builder'))});
    const cfg = require(${JSON.stringify(path.join(project, 'electron-builder.config.cjs'))});
    build({
      projectDir: ${JSON.stringify(project)},
      targets: Platform.LINUX.createTarget('dir'),
      publish: 'never',
      config: { ...cfg, electronDist: ${JSON.stringify(standInElectron)}, electronFuses: null, directories: { ...cfg.directories, output: ${JSON.stringify(output)} } },
    }).then(() => process.exit(0), (e) => { console.error('PACK FAILED: ' + e.message); process.exit(1); });`;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: project, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

const standInAddon = Buffer.from('stand-in for better_sqlite3.node compiled for Electron\n');
let repoAddonBefore = '';
let projectAddonBefore = '';

beforeAll(() => {
  repoAddonBefore = sha256(nodeAddon);
  ensureBuilt('dist/electron/main.js', [path.join(repoRoot, 'scripts/build-electron.js')]);
  ensureBuilt('dist/renderer/index.html', [path.join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
  fs.mkdirSync(project, { recursive: true });
  for (const rel of ['electron-builder.config.cjs', 'build', 'dist/electron', 'dist/renderer', 'assets', 'electron/store/migrations']) copy(rel);
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
  const sqliteVersion = (requireFromRepo('better-sqlite3/package.json') as { version: string }).version;
  // The scratch project depends on the runtime modules only (what the bundle leaves external).
  fs.writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify(
      {
        name: pkg.name,
        version: pkg.version,
        description: pkg.description,
        author: pkg.author,
        license: pkg.license,
        type: pkg.type,
        main: pkg.main,
        dependencies: { 'better-sqlite3': sqliteVersion },
      },
      null,
      2,
    ),
  );
  for (const m of ['better-sqlite3', 'bindings', 'file-uri-to-path']) copy(path.join('node_modules', m));
  fs.mkdirSync(path.join(project, 'node_modules/electron'), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, 'node_modules/electron/package.json'), path.join(project, 'node_modules/electron/package.json'));
  projectAddonBefore = sha256(path.join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'));

  fs.mkdirSync(path.join(standInElectron, 'resources'), { recursive: true });
  fs.writeFileSync(path.join(standInElectron, 'electron'), '#!/bin/sh\necho stand-in electron\n', { mode: 0o755 });
  fs.writeFileSync(path.join(standInElectron, 'version'), `v${electronVersion}`);
});

describe('electron-builder --dir with the repo configuration', () => {
  it('refuses to pack without an Electron build of better-sqlite3, leaving the Node build in place', () => {
    const r = pack();
    expect(r.status, r.output).toBe(1);
    expect(r.output).toMatch(/No Electron build of better-sqlite3 for Electron [\d.]+ on linux-/);
    expect(sha256(path.join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(projectAddonBefore);
  });

  it('packs the app with the Electron build unpacked and restores the Node build', () => {
    const arch = process.arch;
    const electronBuild = path.join(project, `.cache/electron-native/electron-v${electronVersion}-linux-${arch}/better_sqlite3.node`);
    fs.mkdirSync(path.dirname(electronBuild), { recursive: true });
    fs.writeFileSync(electronBuild, standInAddon);

    const r = pack();
    expect(r.status, r.output).toBe(0);

    const resources = path.join(output, 'linux-unpacked', 'resources');
    const archive = path.join(resources, 'app.asar');
    const files = asar.listPackage(archive, { isPack: false }).map((f) => f.replace(/\\/g, '/'));
    const migrations = fs.readdirSync(path.join(repoRoot, 'electron/store/migrations')).filter((f) => f.endsWith('.sql'));
    for (const f of [
      '/package.json',
      '/dist/electron/main.js',
      '/dist/electron/preload.cjs',
      '/dist/renderer/index.html',
      '/assets/codebook.json',
      ...migrations.map((m) => `/dist/electron/migrations/${m}`),
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const modules = new Set(files.filter((f) => f.startsWith('/node_modules/')).map((f) => f.split('/')[2]));
    for (const m of modules) expect(runtimeModules).toContain(m);
    expect(files.filter((f) => /better-sqlite3\/(deps|src)\//.test(f) || /\/obj(\.target)?\//.test(f))).toEqual([]);

    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')) as { main: string };
    expect(files).toContain(`/${pkg.main}`);

    const addonInAsar = 'node_modules/better-sqlite3/build/Release/better_sqlite3.node';
    expect(asar.statFile(archive, addonInAsar).unpacked).toBe(true);
    const unpacked = path.join(resources, 'app.asar.unpacked', addonInAsar);
    expect(fs.readFileSync(unpacked).equals(standInAddon)).toBe(true);

    // afterPack put the scratch project's Node build back; the shared node_modules was never touched.
    expect(sha256(path.join(project, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(projectAddonBefore);
    expect(fs.existsSync(path.join(project, '.cache/electron-native/swap-state.json'))).toBe(false);
    expect(sha256(nodeAddon)).toBe(repoAddonBefore);
  });
});
