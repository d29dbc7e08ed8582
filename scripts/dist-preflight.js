// What `npm run dist` and `npm run rebuild:electron` need from outside the repository, checked
// BEFORE anything is built or changed: the Electron binary, Electron's headers (to compile
// better-sqlite3 for Electron's ABI), and — for packaging — Electron's release zip and
// electron-builder's tools (AppImage runtime, fpm for .deb, NSIS). Each is found in a local
// cache or, failing that, its download host must answer within a few seconds. The result is a
// list of human-readable problems; callers print them and exit non-zero, never a stack trace.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'package.json'));

export const ELECTRON_VERSION = require('electron/package.json').version;
export const HEADERS_URL = process.env.FLIPBOOK_ELECTRON_HEADERS_URL ?? 'https://www.electronjs.org/headers';
const PROBE_TIMEOUT_MS = Number(process.env.FLIPBOOK_PROBE_TIMEOUT_MS ?? 5000);

/** @typedef {{ name: string, ok: boolean, detail: string, fix?: string }} Check */

/** The Electron binary's path, or null (the electron package throws when its download was skipped). */
export function electronBinary() {
  try {
    const p = require('electron');
    return typeof p === 'string' && fs.existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

/** HEAD (then GET) a URL with a short timeout; resolves to a one-line outcome, never throws. */
export async function probe(url) {
  try {
    const res = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { ok: res.status < 400, detail: `HTTP ${res.status}` };
  } catch (e) {
    // undici wraps the reason: cause.code (ENOTFOUND, ECONNREFUSED…) or cause.message ("bad port").
    const c = e && typeof e === 'object' && 'cause' in e && e.cause && typeof e.cause === 'object' ? e.cause : null;
    const cause = c ? ('code' in c && c.code ? String(c.code) : 'message' in c ? String(c.message) : null) : null;
    const why = e instanceof Error && e.name === 'TimeoutError' ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s` : (cause ?? (e instanceof Error ? e.message : String(e)));
    return { ok: false, detail: why };
  }
}

function findFile(dir, name, depth) {
  if (depth < 0 || !fs.existsSync(dir)) return null;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      const hit = findFile(p, name, depth - 1);
      if (hit) return hit;
    }
  }
  return null;
}

function userCache(app) {
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', app);
  if (process.platform === 'win32') return path.join(process.env.LOCALAPPDATA ?? os.tmpdir(), app, 'Cache');
  return path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), app);
}

/** @returns {Check} */
export function checkElectronBinary() {
  const bin = electronBinary();
  if (bin) return { name: `Electron ${ELECTRON_VERSION} binary`, ok: true, detail: bin };
  return {
    name: `Electron ${ELECTRON_VERSION} binary`,
    ok: false,
    detail:
      'not installed — node_modules/electron has no dist/ (its postinstall download is disabled by "allowScripts" or failed). ' +
      'It is needed to check the rebuilt better-sqlite3 loads in Electron, and by `npm start`.',
    fix: 'node node_modules/electron/install.js   (downloads from GitHub, or from ELECTRON_MIRROR if set)',
  };
}

/** @returns {Promise<Check>} */
export async function checkElectronHeaders(version = ELECTRON_VERSION) {
  const name = `Electron ${version} headers (to compile better-sqlite3 for Electron's ABI)`;
  const nodedir = process.env.npm_config_nodedir;
  const local = [nodedir, path.join(os.homedir(), '.electron-gyp', version)].filter(Boolean);
  for (const dir of local) {
    if (fs.existsSync(path.join(dir, 'include', 'node', 'node_version.h'))) return { name, ok: true, detail: `cached in ${dir}` };
  }
  const url = `${HEADERS_URL}/v${version}/SHASUMS256.txt`;
  const r = await probe(url);
  if (r.ok) return { name, ok: true, detail: `downloadable from ${HEADERS_URL}` };
  return {
    name,
    ok: false,
    detail: `not cached in ${local.join(' or ')} and ${HEADERS_URL} cannot be reached (${r.detail}).`,
    fix:
      'run on a machine or CI runner with internet access, or point FLIPBOOK_ELECTRON_HEADERS_URL at a mirror of electronjs.org/headers, ' +
      `or unpack node-v${version}-headers.tar.gz into ~/.electron-gyp/${version}/`,
  };
}

/** @returns {Promise<Check>} */
export async function checkElectronZip(version = ELECTRON_VERSION, platform = process.platform, arch = process.arch) {
  const file = `electron-v${version}-${platform}-${arch}.zip`;
  const name = `Electron ${version} release for ${platform}-${arch} (packaged into the installer)`;
  const caches = [process.env.ELECTRON_CACHE, userCache('electron'), process.env.ELECTRON_BUILDER_CACHE, userCache('electron-builder')].filter(Boolean);
  for (const c of caches) {
    const hit = findFile(c, file, 4);
    if (hit) return { name, ok: true, detail: `cached: ${hit}` };
  }
  const mirror = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/download/';
  const dir = process.env.ELECTRON_CUSTOM_DIR ?? `v${version}`;
  const r = await probe(`${mirror.replace(/\/?$/, '/')}${dir}/SHASUMS256.txt`);
  if (r.ok) return { name, ok: true, detail: `downloadable from ${mirror}` };
  return {
    name,
    ok: false,
    detail: `${file} is not in the Electron caches (${caches.join(', ')}) and ${mirror} cannot be reached (${r.detail}).`,
    fix: 'run with internet access, or set ELECTRON_MIRROR to a reachable mirror of the Electron releases',
  };
}

/** electron-builder's packaging tools for the host's targets (AppImage + deb on Linux, NSIS on Windows). */
export async function checkBuilderTools(platform = process.platform) {
  const tools = platform === 'linux' ? ['appimage', 'fpm'] : platform === 'win32' ? ['nsis'] : [];
  const name = `electron-builder packaging tools (${tools.join(', ') || 'none extra for ' + platform})`;
  if (tools.length === 0) return { name, ok: true, detail: 'the dmg is made with the system hdiutil' };
  const cache = process.env.ELECTRON_BUILDER_CACHE ?? userCache('electron-builder');
  const entries = fs.existsSync(cache) ? fs.readdirSync(cache).concat(fs.existsSync(path.join(cache, 'downloads')) ? fs.readdirSync(path.join(cache, 'downloads')) : []) : [];
  const missing = tools.filter((t) => !entries.some((e) => e.toLowerCase().includes(t)));
  if (missing.length === 0) return { name, ok: true, detail: `cached in ${cache}` };
  const mirror = process.env.ELECTRON_BUILDER_BINARIES_MIRROR ?? 'https://github.com/electron-userland/electron-builder-binaries/releases/download/';
  const r = await probe(mirror);
  // Any HTTP answer from the mirror's host means it is reachable (the bare prefix may be a 404).
  if (r.ok || /^HTTP /.test(r.detail)) return { name, ok: true, detail: `downloadable from ${mirror}` };
  return {
    name,
    ok: false,
    detail: `${missing.join(', ')} not cached in ${cache} and ${mirror} cannot be reached (${r.detail}).`,
    fix: 'run with internet access, or set ELECTRON_BUILDER_BINARIES_MIRROR / ELECTRON_BUILDER_CACHE to a mirror or a primed cache',
  };
}

/** All checks for `npm run dist` (packaging: true) or `npm run rebuild:electron` (packaging: false). */
export async function preflight({ packaging }) {
  const checks = [checkElectronBinary(), checkElectronHeaders()];
  if (packaging) checks.push(checkElectronZip(), checkBuilderTools());
  return Promise.all(checks);
}

/** The message printed when something is missing: what, why, and how to get it. */
export function describeProblems(command, checks) {
  const lines = [`${command} cannot run on this machine — nothing was built or changed.`, ''];
  for (const c of checks) {
    lines.push(`  ${c.ok ? 'ok     ' : 'MISSING'}  ${c.name}`);
    lines.push(`           ${c.detail}`);
    if (!c.ok && c.fix) lines.push(`           how: ${c.fix}`);
  }
  lines.push(
    '',
    'Installers need Electron and its build tools, which are downloaded from GitHub and electronjs.org.',
    'On a machine or CI runner with internet access:',
    '  npm ci',
    '  node node_modules/electron/install.js',
    `  ${command}`,
    '`npm test`, the CLI and the web mode (`npm start` without Electron) do not need any of this.',
  );
  return lines.join('\n');
}
