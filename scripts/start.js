#!/usr/bin/env node
// `npm start`: the app on the embedded sample project. Makes the sample project when missing
// (flipbook sample-project), builds the renderer when it is missing or older than its
// sources, then runs Electron when its binary exists — otherwise the web mode on loopback,
// saying why and printing the URL to open.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const cli = path.join(root, 'bin/flipbook.js');
const sampleDir = process.env.FLIPBOOK_SAMPLE_DIR ?? path.join(root, '.cache/sample');
const project = path.join(sampleDir, 'sample.flipbook');
const run = (args, what) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`[flipbook] ${what} failed (exit ${r.status})`);
    process.exit(r.status ?? 1);
  }
};

// ffmpeg/ffprobe are needed for the sample videos and the frames; install them when missing
// (apt-get as root), as the README promises for both commands.
run([path.join(root, 'scripts/ensure-system.js'), 'ffmpeg', 'ffprobe'], 'installing system tools');

if (!fs.existsSync(project)) {
  console.error(`[flipbook] making the sample project in ${sampleDir} …`);
  run([cli, 'sample-project', '--out', sampleDir], 'sample-project');
}

function newestMtime(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}
const built = path.join(root, 'dist/renderer/index.html');
if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < Math.max(newestMtime(path.join(root, 'renderer')), newestMtime(path.join(root, 'shared/api')))) {
  console.error('[flipbook] building the renderer …');
  run([path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], 'vite build');
}

function electronBinary() {
  try {
    // The electron package exports the binary's path, and throws when its download failed.
    const p = require('electron');
    return typeof p === 'string' && fs.existsSync(p) ? p : null;
  } catch {
    return null;
  }
}

// The Electron-ABI build of better-sqlite3 lives apart from node_modules (scripts/rebuild-native.js),
// so that `npm test` keeps loading the Node build after `npm start`.
function electronSqliteBinding(electronPath) {
  const version = spawnSync(electronPath, ['--version'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } })
    .stdout?.trim()
    .replace(/^v/, '');
  if (!version) return null;
  const file = path.join(root, '.cache/electron-native', `electron-v${version}-${process.platform}-${process.arch}`, 'better_sqlite3.node');
  if (!fs.existsSync(file)) {
    console.error('[flipbook] building better-sqlite3 for Electron (once) …');
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/rebuild-native.js')], { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) return null;
  }
  return fs.existsSync(file) ? file : null;
}

const electronFound = electronBinary();
const binding = electronFound ? electronSqliteBinding(electronFound) : null;
if (electronFound && !binding) console.error('[flipbook] no Electron build of better-sqlite3 could be made; using the web mode instead.');
const electron = binding ? electronFound : null;
if (electron) {
  run([path.join(root, 'scripts/build-electron.js')], 'electron build');
  const child = spawn(electron, [root], { cwd: root, stdio: 'inherit', env: { ...process.env, FLIPBOOK_PROJECT: project, FLIPBOOK_SQLITE_BINDING: binding } });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  console.error('[flipbook] no Electron binary on this machine (it could not be downloaded): starting the web mode instead.');
  console.error('[flipbook] open the URL below in Chromium or any modern browser; Ctrl+C stops the server.');
  // Without PORT, serve reuses the sample project's last port and token, so an open tab survives a restart.
  const port = process.env.PORT ? ['--port', process.env.PORT] : [];
  const child = spawn(process.execPath, [cli, 'serve', '--project', project, ...port], { cwd: root, stdio: 'inherit' });
  const forward = (sig) => child.kill(sig);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('exit', (code) => process.exit(code ?? 0));
}
