/**
 * `npm run dist` and `npm run rebuild:electron` where Electron's downloads are unreachable:
 * they stop before building anything, exit non-zero, say what is missing and how to get it,
 * print no stack trace — and the Node build of better-sqlite3 is untouched and still loads.
 * Run twice: as this machine is, and with every download host pointed at a closed local port
 * and empty caches (so the refusal is exercised even on a machine with internet).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { betterSqliteLoadsInNode, electronBinary, nodeAddon, repoRoot, sha256 } from './shipping-helpers';
import { tempDir } from '../../temp-dir';

const emptyHome = tempDir('flipbook-dist-home-');

// A loopback port that was free a moment ago: connections to it are refused at once, with no
// DNS and no internet involved.
const closedPort = await new Promise<number>((resolve, reject) => {
  const srv = net.createServer().listen(0, '127.0.0.1', () => {
    const addr = srv.address();
    srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
  });
});
const dead = `http://127.0.0.1:${closedPort}`;

const unreachable = {
  HOME: emptyHome,
  XDG_CACHE_HOME: path.join(emptyHome, 'cache'),
  ELECTRON_CACHE: path.join(emptyHome, 'electron-cache'),
  ELECTRON_BUILDER_CACHE: path.join(emptyHome, 'builder-cache'),
  FLIPBOOK_ELECTRON_HEADERS_URL: `${dead}/headers`,
  ELECTRON_MIRROR: `${dead}/electron/`,
  ELECTRON_BUILDER_BINARIES_MIRROR: `${dead}/builder/`,
  npm_config_nodedir: '',
};

function run(script: string, env: Record<string, string> = {}) {
  const before = sha256(nodeAddon);
  const r = spawnSync(process.execPath, [path.join(repoRoot, script)], { cwd: repoRoot, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}`, addonUnchanged: sha256(nodeAddon) === before };
}

function expectCleanRefusal(r: ReturnType<typeof run>, command: string, missing: RegExp[]) {
  expect(r.status, r.output).not.toBe(0);
  expect(r.status, r.output).not.toBeNull(); // exited, not killed by the timeout
  expect(r.output).toContain(`${command} cannot run on this machine`);
  for (const m of missing) expect(r.output).toMatch(m);
  expect(r.output).toMatch(/how: /);
  expect(r.output).not.toMatch(/^\s+at /m); // no stack frames
  expect(r.output).not.toMatch(/\b(TypeError|ReferenceError|SyntaxError)\b/);
  expect(r.addonUnchanged).toBe(true);
  const load = betterSqliteLoadsInNode();
  expect(load.ok, load.output).toBe(true);
}

describe('npm run dist without Electron’s downloads', () => {
  it('stops with a clear message on this machine as it is', (ctx) => {
    if (electronBinary()) {
      console.log('[shipping] an Electron binary is installed here, so a plain `npm run dist` may really build; only the forced-offline case runs');
      ctx.skip();
    }
    const r = run('scripts/dist.js');
    expectCleanRefusal(r, 'npm run dist', [/MISSING\s+Electron [\d.]+ binary/, /node node_modules\/electron\/install\.js/]);
    // Nothing was built: the refusal comes before vite/esbuild/electron-builder.
    expect(r.output).not.toMatch(/\[dist\] (building|bundling|packaging)/);
  });

  it('stops with a clear message when every download host is unreachable and the caches are empty', () => {
    const r = run('scripts/dist.js', unreachable);
    expectCleanRefusal(r, 'npm run dist', [
      /MISSING\s+Electron [\d.]+ headers/,
      /MISSING\s+Electron [\d.]+ release for/,
      /MISSING\s+electron-builder packaging tools/,
      new RegExp(`${dead.replace(/\./g, '\\.')}/headers cannot be reached \\(ECONNREFUSED\\)`),
    ]);
  });
});

describe('npm run rebuild:electron without Electron’s downloads', () => {
  it('stops with a clear message and never touches the Node build', () => {
    const r = run('scripts/rebuild-native.js', unreachable);
    expectCleanRefusal(r, 'npm run rebuild:electron', [/MISSING\s+Electron [\d.]+ headers/]);
  });
});

describe('package.json', () => {
  it('runs the two shipping scripts', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.dist).toBe('node scripts/dist.js');
    expect(pkg.scripts['rebuild:electron']).toBe('node scripts/rebuild-native.js');
  });
});
