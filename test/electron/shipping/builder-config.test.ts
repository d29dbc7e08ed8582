/**
 * electron-builder.config.cjs, checked for what it means rather than restated: electron-builder's
 * own schema accepts it; the names it gives the app agree with the rest of Flipbook; after a
 * build every pattern it packs matches real files, the package's main entry among them; the
 * migrations land where the bundled store looks; every native file of the shipped modules is
 * unpacked from the asar; the bundle loads no package it does not ship; and the icons are real
 * images of the sizes they claim. (test/electron/shipping/pack-layout.test.ts packs for real.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Configuration, FileSet } from 'electron-builder';
import { defaultUserDataDir } from '../../../electron/settings/user-settings';
import { isPng, readPngHeader, repoRoot, requireFromRepo } from './shipping-helpers';

const configFile = path.join(repoRoot, 'electron-builder.config.cjs');
const loadedModule = requireFromRepo(configFile) as Configuration;
const runtimeModules = requireFromRepo(path.join(repoRoot, 'build/runtime-modules.cjs')) as string[];
const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  main: string;
  bin: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};
// electron-builder's loader normalises the (shared, require-cached) object in place, so the
// checks read a snapshot taken before it runs.
const config = JSON.parse(JSON.stringify(loadedModule)) as Configuration;
// The matcher electron-builder itself uses for `files` and `asarUnpack` (app-builder-lib's
// fileMatcher: minimatch with dot files).
const { minimatch } = requireFromRepo('minimatch') as { minimatch: (p: string, pattern: string, o?: { dot?: boolean }) => boolean };
const matches = (rel: string, pattern: string) => minimatch(rel, pattern, { dot: true });

const stringPatterns = (config.files as (string | FileSet)[]).filter((f): f is string => typeof f === 'string');
/** Whether `files` packs `rel` (a path relative to the app folder): the last pattern that matches decides. */
function packed(rel: string): boolean {
  let inside = false;
  for (const p of stringPatterns) {
    if (p.startsWith('!')) {
      if (matches(rel, p.slice(1))) inside = false;
    } else if (matches(rel, p)) inside = true;
  }
  return inside;
}

function walk(dir: string, rel = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name), path.posix.join(rel, d.name)) : d.isFile() ? [path.posix.join(rel, d.name)] : []));
}

function ensureBuilt(rel: string, args: string[]): void {
  if (fs.existsSync(path.join(repoRoot, rel))) return;
  console.log(`[shipping] ${rel} missing: building it (${args.join(' ')})`);
  const r = spawnSync(process.execPath, args, { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`building ${rel} failed:\n${r.stderr}`);
}

/** Native code: a Node addon, or an executable in ELF, Mach-O or PE format. */
function isNative(file: string): boolean {
  if (file.endsWith('.node')) return true;
  const fd = fs.openSync(file, 'r');
  try {
    const b = Buffer.alloc(4);
    fs.readSync(fd, b, 0, 4, 0);
    const m = b.readUInt32BE(0);
    return m === 0x7f454c46 || m === 0xcffaedfe || m === 0xcefaedfe || m === 0xcafebabe || b.toString('latin1', 0, 2) === 'MZ';
  } finally {
    fs.closeSync(fd);
  }
}

/** The app folder's files after a build, as paths relative to it. */
let appFiles: string[] = [];

beforeAll(() => {
  ensureBuilt('dist/electron/main.js', [path.join(repoRoot, 'scripts/build-electron.js')]);
  ensureBuilt('dist/renderer/index.html', [path.join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
  appFiles = [
    'package.json',
    ...walk(path.join(repoRoot, 'dist'), 'dist'),
    ...walk(path.join(repoRoot, 'assets'), 'assets'),
    ...runtimeModules.flatMap((m) => walk(path.join(repoRoot, 'node_modules', m), `node_modules/${m}`)),
  ];
}, 300_000);

describe('electron-builder configuration', () => {
  it('is accepted by electron-builder’s own loader and schema', async () => {
    const { getConfig, validateConfiguration } = requireFromRepo('app-builder-lib/out/util/config/config') as {
      getConfig(projectDir: string, configPath: string, fromOptions: null): Promise<Configuration>;
      validateConfiguration(c: Configuration, logger: unknown): Promise<void>;
    };
    const { DebugLogger } = requireFromRepo('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const loaded = await getConfig(repoRoot, configFile, null);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
  });

  it('names the app as the rest of Flipbook does', () => {
    // The Linux command is the CLI's command and the package's name.
    expect(Object.keys(pkg.bin)).toEqual([pkg.name]);
    expect(config.linux?.executableName).toBe(pkg.name);
    // The product name is the settings folder the app and the CLI share (~/.config/Flipbook).
    expect(config.productName).toBe(path.basename(defaultUserDataDir({})));
    // A reverse-DNS id (a macOS bundle id) that names the package.
    expect(config.appId).toMatch(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/);
    expect(config.appId?.split('.')).toContain(pkg.name);
    // The packaged Electron is the one the native addon is rebuilt for.
    expect(config.electronVersion).toBe((requireFromRepo('electron/package.json') as { version: string }).version);
  });

  it("after a build, every pattern it packs matches files, the package's main entry among them", () => {
    for (const p of stringPatterns.filter((x) => !x.startsWith('!'))) {
      expect(appFiles.filter((f) => matches(f, p)).length, `files pattern ${p} matches nothing`).toBeGreaterThan(0);
    }
    expect(packed(pkg.main), pkg.main).toBe(true);
    expect(packed('dist/electron/preload.cjs')).toBe(true);
    expect(packed('dist/renderer/index.html')).toBe(true);
    expect(packed('assets/codebook.json')).toBe(true);
    // Source maps and the addon's C sources stay out.
    expect(appFiles.filter((f) => f.endsWith('.map') && packed(f))).toEqual([]);
    expect(appFiles.filter((f) => f.startsWith('node_modules/better-sqlite3/src/') && packed(f))).toEqual([]);
    // Every runtime module is installed unless it is optional.
    for (const m of runtimeModules) {
      if (pkg.optionalDependencies?.[m]) continue;
      expect(
        appFiles.some((f) => f.startsWith(`node_modules/${m}/`) && packed(f)),
        `${m} is shipped`,
      ).toBe(true);
    }
  });

  it('ships the migrations beside the bundled main module, where the store looks for them', () => {
    const sets = (config.files as (string | FileSet)[]).filter((f): f is FileSet => typeof f === 'object');
    const migrations = sets.find((s) => s.from === 'electron/store/migrations');
    // electron/store/migrate.ts reads `<dir of the running module>/migrations`; bundled, that
    // module is the package's main entry.
    expect(migrations?.to).toBe(path.posix.join(path.posix.dirname(pkg.main), 'migrations'));
    const sql = fs.readdirSync(path.join(repoRoot, migrations!.from!)).filter((f) => (migrations!.filter as string[]).some((p) => matches(f, p)));
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.every((f) => f.endsWith('.sql'))).toBe(true);
  });

  it('unpacks from the asar every native file of the modules it ships', () => {
    const native = appFiles.filter((f) => f.startsWith('node_modules/') && packed(f) && isNative(path.join(repoRoot, f)));
    // At least better-sqlite3's addon — else the scan is broken.
    expect(native).toContain('node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    const unpack = config.asarUnpack as string[];
    for (const f of native)
      expect(
        unpack.some((p) => matches(f, p)),
        `${f} is not unpacked (native code cannot load from app.asar)`,
      ).toBe(true);
  });

  it('ships every package the bundled main process loads from node_modules, and only those', () => {
    // main.js and the thread entries beside it (the backend thread, the job workers) are all shipped code.
    const dir = path.dirname(path.join(repoRoot, pkg.main));
    const src = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    const specifiers = new Set<string>();
    for (const m of src.matchAll(/\brequire\(\s*["']([^"'./][^"']*)["']\s*\)|\bfrom\s*["']([^"'./][^"']*)["']|\bimport\(\s*["']([^"'./][^"']*)["']\s*\)/g)) {
      specifiers.add(m[1] ?? m[2] ?? m[3] ?? '');
    }
    const builtins = new Set(builtinModules);
    const packages = [...specifiers]
      .filter((s) => /^[@a-z]/.test(s) && !s.startsWith('node:') && !builtins.has(s.split('/')[0] ?? s))
      .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s)))
      .filter((s) => s !== 'electron');
    expect(packages.length).toBeGreaterThan(0); // at least better-sqlite3 — else the scan is broken
    for (const p of packages) expect(runtimeModules, `dist/electron loads ${p}`).toContain(p);
    expect(config.files).toContain(`node_modules/{${runtimeModules.join(',')}}/**`);
  });
});

describe('icons in build/', () => {
  it('has a 1024×1024 master and the Linux set, every file a real PNG of the size in its name', () => {
    const master = readPngHeader(fs.readFileSync(path.join(repoRoot, 'build/icon.png')));
    expect(master).toMatchObject({ width: 1024, height: 1024, bitDepth: 8, colorType: 6 });
    const dir = path.join(repoRoot, config.linux?.icon ?? '');
    const names = fs.readdirSync(dir);
    expect(names).toEqual(expect.arrayContaining(['512x512.png', '1024x1024.png', '256x256.png', '16x16.png']));
    for (const name of names) {
      const m = /^(\d+)x(\d+)\.png$/.exec(name);
      expect(m, name).not.toBeNull();
      const info = readPngHeader(fs.readFileSync(path.join(dir, name)));
      expect([info.width, info.height], name).toEqual([Number(m?.[1]), Number(m?.[2])]);
      expect(info.colorType, `${name} has alpha`).toBe(6);
    }
  });

  it('has a Windows .ico with 16–256 px images', () => {
    const ico = fs.readFileSync(path.join(repoRoot, config.win?.icon ?? ''));
    expect(ico.readUInt16LE(0)).toBe(0);
    expect(ico.readUInt16LE(2)).toBe(1); // 1 = icon
    const count = ico.readUInt16LE(4);
    const sizes: number[] = [];
    for (let i = 0; i < count; i++) {
      const e = 6 + 16 * i;
      const w = ico.readUInt8(e) || 256;
      const bytes = ico.readUInt32LE(e + 8);
      const offset = ico.readUInt32LE(e + 12);
      expect(offset + bytes).toBeLessThanOrEqual(ico.length);
      const payload = ico.subarray(offset, offset + bytes);
      // Each image is a PNG or a BMP DIB (BITMAPINFOHEADER, 40 bytes, height doubled for the mask).
      if (isPng(payload)) expect(readPngHeader(payload).width).toBe(w);
      else expect([payload.readUInt32LE(0), payload.readInt32LE(4), payload.readInt32LE(8)]).toEqual([40, w, 2 * w]);
      sizes.push(w);
    }
    expect(sizes).toEqual(expect.arrayContaining([16, 32, 48, 256]));
  });

  it('has a macOS .icns whose chunks cover the retina sizes', () => {
    const icns = fs.readFileSync(path.join(repoRoot, config.mac?.icon ?? ''));
    expect(icns.toString('latin1', 0, 4)).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const chunks = new Map<string, Buffer>();
    for (let o = 8; o < icns.length;) {
      const len = icns.readUInt32BE(o + 4);
      expect(len).toBeGreaterThan(8);
      chunks.set(icns.toString('latin1', o, o + 4), icns.subarray(o + 8, o + len));
      o += len;
    }
    // ic08/ic09/ic10 = 256/512/1024 px PNG (or JPEG 2000) images.
    for (const [type, size] of [
      ['ic08', 256],
      ['ic09', 512],
      ['ic10', 1024],
    ] as const) {
      const body = chunks.get(type);
      expect(body, type).toBeDefined();
      if (body && isPng(body)) expect(readPngHeader(body).width).toBe(size);
    }
  });
});
