#!/usr/bin/env node
// `npm run dist`: installers for the host platform with electron-builder
// (electron-builder.config.cjs: AppImage + deb on Linux, dmg on macOS, NSIS on Windows).
//   1. preflight — Electron binary, Electron headers, Electron's release zip, electron-builder's
//      tools; when any is missing (no internet) it stops here with a message saying what, why
//      and how, exit code 2, and nothing built or changed;
//   2. renderer (vite build) and main/preload (scripts/build-electron.js);
//   3. better-sqlite3 for Electron's ABI (scripts/rebuild-native.js, into .cache/, verified);
//   4. electron-builder, whose packing hooks swap that build in and the Node build back;
//   5. always: the Node build of better-sqlite3 restored and checked to load under plain Node.
// Extra arguments go to electron-builder (e.g. `npm run dist -- --dir` for an unpacked app).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, preflight, describeProblems } from './dist-preflight.js';
import { ensureNodeBuild, rebuildForElectron, ShippingError } from './rebuild-native.js';

const require = createRequire(path.join(ROOT, 'package.json'));
const log = (msg) => console.error(`[dist] ${msg}`);

function step(what, args) {
  log(what);
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new ShippingError(`${what} failed (exit ${r.status ?? r.signal})`);
}

async function main(extraArgs) {
  // Undo a swap left by an interrupted run before anything else reads node_modules.
  ensureNodeBuild();
  const checks = await preflight({ packaging: true });
  if (checks.some((c) => !c.ok)) {
    console.error(describeProblems('npm run dist', checks));
    return 2;
  }
  for (const c of checks) log(`ok: ${c.name} — ${c.detail}`);

  // Restore the Node build on Ctrl+C too; electron-builder (same process group) stops by itself.
  const onSignal = (sig) => {
    try {
      ensureNodeBuild();
    } finally {
      process.exit(sig === 'SIGINT' ? 130 : 143);
    }
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    step('building the renderer (vite)', [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn']);
    step('bundling main and preload (esbuild)', [path.join(ROOT, 'scripts/build-electron.js')]);
    await rebuildForElectron();
    step('packaging with electron-builder', [
      require.resolve('electron-builder/cli.js'),
      '--config',
      path.join(ROOT, 'electron-builder.config.cjs'),
      '--publish',
      'never',
      ...extraArgs,
    ]);
  } finally {
    ensureNodeBuild();
  }
  log(`installers in ${path.join(ROOT, 'release-build')}`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(`[dist] ${e instanceof Error ? e.message : String(e)}`);
    if (process.env.FLIPBOOK_DEBUG && e instanceof Error) console.error(e.stack);
    process.exit(1);
  },
);
