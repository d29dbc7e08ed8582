/**
 * Where the two builds of better-sqlite3's native addon live, and the short, reversible swap
 * that puts the Electron-ABI build into node_modules only while electron-builder packs the app.
 *
 * WHY a swap at all: electron-builder copies node_modules/better-sqlite3 into the app as it is,
 * and `bindings` loads build/Release/better_sqlite3.node — so that file must be the Electron
 * build at pack time. Everything else (plain-Node `npm test`, the CLI, web mode) needs the Node
 * build there. The Electron build is therefore made elsewhere (scripts/rebuild-native.js →
 * .cache/electron-native/), copied in by `beforePack`, and the Node build is copied back by
 * `afterPack` and again, idempotently, by scripts/dist.js whatever happens. A state file makes a
 * swap interrupted by a crash or kill recoverable: the next dist/rebuild run restores first.
 *
 * CommonJS because electron-builder loads the config (and its hooks) with require().
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const crypto = require('node:crypto');

const ROOT = path.resolve(__dirname, '..');
const ADDON = 'better_sqlite3.node';

/** The Node-ABI build that npm installed and that `npm test` loads. */
function nodeBindingPath(root = ROOT) {
  return path.join(root, 'node_modules', 'better-sqlite3', 'build', 'Release', ADDON);
}

function nativeCacheDir(root = ROOT) {
  return path.join(root, '.cache', 'electron-native');
}

/** The Electron-ABI build made by scripts/rebuild-native.js for one Electron version/platform/arch. */
function electronBindingPath({ electronVersion, platform = process.platform, arch = process.arch }, root = ROOT) {
  return path.join(nativeCacheDir(root), `electron-v${electronVersion}-${platform}-${arch}`, ADDON);
}

function statePath(root = ROOT) {
  return path.join(nativeCacheDir(root), 'swap-state.json');
}

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

function copyAtomic(from, to) {
  const tmp = `${to}.tmp-${process.pid}`;
  fs.copyFileSync(from, tmp);
  fs.renameSync(tmp, to);
}

/**
 * Backs up the Node build and puts the Electron build in its place. Throws an Error with a
 * human message (no swap happens) when the Electron build for that target does not exist.
 */
function installElectronBinding(target, root = ROOT) {
  const electron = electronBindingPath(target, root);
  const node = nodeBindingPath(root);
  if (!fs.existsSync(electron)) {
    throw new Error(
      `No Electron build of better-sqlite3 for Electron ${target.electronVersion} on ${target.platform}-${target.arch} ` +
        `(expected ${path.relative(root, electron)}). Native addons cannot be cross-compiled: run ` +
        '`npm run rebuild:electron` (or `npm run dist`) on that platform.',
    );
  }
  // A leftover swap means the file in node_modules is not the Node build: put that back first.
  restoreNodeBinding(root);
  if (!fs.existsSync(node)) throw new Error(`The Node build of better-sqlite3 is missing (${path.relative(root, node)}); run \`npm rebuild better-sqlite3\`.`);
  const backup = path.join(nativeCacheDir(root), 'node-backup', ADDON);
  fs.mkdirSync(path.dirname(backup), { recursive: true });
  copyAtomic(node, backup);
  const state = { backup, sha256: sha256(backup), target, at: new Date().toISOString() };
  // The state file is written BEFORE node_modules changes, so every crash point is recoverable.
  fs.writeFileSync(statePath(root), JSON.stringify(state, null, 2));
  copyAtomic(electron, node);
}

/**
 * Puts the Node build back when a swap is recorded; a no-op otherwise. Returns true when it
 * restored something. Checks the restored bytes against the backup's hash.
 */
function restoreNodeBinding(root = ROOT) {
  const file = statePath(root);
  if (!fs.existsSync(file)) return false;
  const state = JSON.parse(fs.readFileSync(file, 'utf8'));
  const node = nodeBindingPath(root);
  copyAtomic(state.backup, node);
  if (sha256(node) !== state.sha256) throw new Error(`Restoring the Node build of better-sqlite3 failed: ${node} does not match its backup.`);
  fs.rmSync(file);
  return true;
}

module.exports = { ROOT, nodeBindingPath, electronBindingPath, nativeCacheDir, statePath, installElectronBinding, restoreNodeBinding };
