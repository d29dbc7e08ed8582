/**
 * electron-builder.config.cjs, checked statically: electron-builder's own schema accepts it, and
 * it says what shipping needs (app id, targets, asarUnpack, fuses, no implicit rebuild,
 * icons from build/ that are real images of the right sizes, the migrations the store reads).
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Configuration, FileSet } from 'electron-builder';
import { isPng, readPngHeader, repoRoot, requireFromRepo } from './shipping-helpers';

const configFile = path.join(repoRoot, 'electron-builder.config.cjs');
const loadedModule = requireFromRepo(configFile) as Configuration;
const runtimeModules = requireFromRepo(path.join(repoRoot, 'build/runtime-modules.cjs')) as string[];
// electron-builder's loader normalises the (shared, require-cached) object in place, so the
// static checks read a snapshot taken before it runs; JSON drops the hooks, kept aside.
const config = JSON.parse(JSON.stringify(loadedModule)) as Configuration;
const hooks = { beforePack: loadedModule.beforePack, afterPack: loadedModule.afterPack };

function targetNames(t: unknown): string[] {
  const list = Array.isArray(t) ? t : [t];
  return list.map((x) => (typeof x === 'string' ? x : (x as { target: string }).target));
}

describe('electron-builder configuration', () => {
  it('is accepted by electron-builder’s own loader and schema', async () => {
    const { getConfig, validateConfiguration } = requireFromRepo('app-builder-lib/out/util/config/config') as {
      getConfig(projectDir: string, configPath: string, fromOptions: null): Promise<Configuration>;
      validateConfiguration(c: Configuration, logger: unknown): Promise<void>;
    };
    const { DebugLogger } = requireFromRepo('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
    const loaded = await getConfig(repoRoot, configFile, null);
    await expect(validateConfiguration(loaded, new DebugLogger(false))).resolves.toBeUndefined();
    expect(loaded.appId).toBe('org.flipbook.app');
  });

  it('names the app and declares AppImage + deb, dmg and nsis', () => {
    expect(config.appId).toBe('org.flipbook.app');
    expect(config.productName).toBe('Flipbook');
    expect(targetNames(config.linux?.target).sort()).toEqual(['AppImage', 'deb']);
    expect(targetNames(config.mac?.target)).toEqual(['dmg']);
    expect(targetNames(config.win?.target)).toEqual(['nsis']);
    // The packaged Electron is the one the native addon is rebuilt for.
    expect(config.electronVersion).toBe((requireFromRepo('electron/package.json') as { version: string }).version);
  });

  it('packs into asar and unpacks the native addon and ffmpeg-static', () => {
    expect(config.asar).toBe(true);
    const unpack = config.asarUnpack as string[];
    expect(unpack).toContain('**/node_modules/better-sqlite3/**');
    expect(unpack).toContain('**/node_modules/ffmpeg-static/**');
  });

  it('leaves the native rebuild to scripts/rebuild-native.js (no implicit rebuild for Node’s ABI)', () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.nodeGypRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
    expect(typeof hooks.beforePack).toBe('function');
    expect(typeof hooks.afterPack).toBe('function');
  });

  it('sets the Electron fuses', () => {
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('ships the migrations where the bundled store looks for them', () => {
    const files = config.files as (string | FileSet)[];
    const sets = files.filter((f): f is FileSet => typeof f === 'object');
    const migrations = sets.find((s) => s.from === 'electron/store/migrations');
    // migrate.ts resolves `<dir of the running module>/migrations`; bundled, that module is dist/electron/main.js.
    expect(migrations?.to).toBe('dist/electron/migrations');
    const migrate = fs.readFileSync(path.join(repoRoot, 'electron/store/migrate.ts'), 'utf8');
    expect(migrate).toMatch(/path\.dirname\(fileURLToPath\(import\.meta\.url\)\), 'migrations'\)/);
    expect(fs.readdirSync(path.join(repoRoot, 'electron/store/migrations')).filter((f) => f.endsWith('.sql')).length).toBeGreaterThan(0);
    expect(files).toEqual(expect.arrayContaining(['dist/electron/**', 'dist/renderer/**', 'assets/**']));
  });

  it('ships every package the bundled main process loads from node_modules, and only those', () => {
    const main = path.join(repoRoot, 'dist/electron/main.js');
    if (!fs.existsSync(main)) {
      console.log('[shipping] dist/electron/main.js missing: bundling it with scripts/build-electron.js');
      const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build-electron.js')], { cwd: repoRoot, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
    }
    const src = fs.readFileSync(main, 'utf8');
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
    for (const p of packages) expect(runtimeModules, `main.js loads ${p}`).toContain(p);
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
    for (let o = 8; o < icns.length; ) {
      const len = icns.readUInt32BE(o + 4);
      expect(len).toBeGreaterThan(8);
      chunks.set(icns.toString('latin1', o, o + 4), icns.subarray(o + 8, o + len));
      o += len;
    }
    // ic08/ic09/ic10 = 256/512/1024 px PNG (or JPEG 2000) images.
    for (const [type, size] of [['ic08', 256], ['ic09', 512], ['ic10', 1024]] as const) {
      const body = chunks.get(type);
      expect(body, type).toBeDefined();
      if (body && isPng(body)) expect(readPngHeader(body).width).toBe(size);
    }
  });
});
