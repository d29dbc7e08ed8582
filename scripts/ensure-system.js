#!/usr/bin/env node
// Installs the system tools Flipbook needs when they are missing (ffmpeg/ffprobe for frames
// and the sample project, chromium + xvfb for the browser tests, PostgreSQL for the team-sync
// tests, which start their own server with initdb + pg_ctl), so that the README's two
// commands work on a fresh machine. Uses apt-get where it exists and we are root; elsewhere
// it prints what to install and exits non-zero.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Debian keeps initdb/pg_ctl in /usr/lib/postgresql/<major>/bin, off PATH (test/electron/sync/pg-server.ts looks there). */
function hasPostgres() {
  if (process.env.FLIPBOOK_PG_BIN) return existsSync(path.join(process.env.FLIPBOOK_PG_BIN, 'initdb'));
  try {
    return readdirSync('/usr/lib/postgresql').some((v) => existsSync(path.join('/usr/lib/postgresql', v, 'bin', 'initdb')));
  } catch {
    return false;
  }
}

const needed = [
  { bin: 'ffmpeg', pkg: 'ffmpeg', why: 'frame extraction and the sample project', env: 'FLIPBOOK_FFMPEG' },
  { bin: 'ffprobe', pkg: 'ffmpeg', why: 'video metadata', env: 'FLIPBOOK_FFPROBE' },
  { bin: 'chromium', pkg: 'chromium', why: 'the browser (end-to-end) tests and the web mode' },
  { bin: 'Xvfb', pkg: 'xvfb', why: 'a virtual display for Electron tests' },
  { bin: 'initdb', pkg: 'postgresql', why: 'the team-sync tests (a real PostgreSQL server)', check: hasPostgres, env: 'FLIPBOOK_PG_BIN' },
];
const only = process.argv.slice(2);
const has = (bin) => spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status === 0;
// A binary named by its environment variable (electron/media/ffmpeg-path.ts) counts as present.
const present = (n) => (n.check ? n.check() : (n.env && process.env[n.env] && existsSync(process.env[n.env])) || has(n.bin));
const missing = needed.filter((n) => (only.length === 0 || only.includes(n.bin)) && !present(n));
if (missing.length === 0) process.exit(0);

const pkgs = [...new Set(missing.map((m) => m.pkg))];
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (has('apt-get') && isRoot) {
  console.error(`[flipbook] installing ${pkgs.join(', ')} with apt-get (needed for ${missing.map((m) => m.why).join('; ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const upd = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const inst = upd.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', ...pkgs], { stdio: 'inherit', env });
  if (inst && inst.status === 0 && missing.every((m) => present(m))) process.exit(0);
  console.error('[flipbook] apt-get could not install: ' + pkgs.join(' '));
  process.exit(1);
}
console.error(`[flipbook] missing system tools: ${missing.map((m) => `${m.bin} (${m.why})`).join(', ')}.`);
console.error(`[flipbook] install them, e.g. on Debian/Ubuntu: sudo apt-get install -y ${pkgs.join(' ')}`);
console.error('[flipbook] or point FLIPBOOK_FFMPEG / FLIPBOOK_FFPROBE at your binaries (FLIPBOOK_PG_BIN at the folder holding initdb and pg_ctl).');
process.exit(1);
