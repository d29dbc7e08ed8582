#!/usr/bin/env node
// `npm run rebuild:electron`: compiles better-sqlite3 for Electron's ABI into
// .cache/electron-native/electron-v<version>-<platform>-<arch>/better_sqlite3.node, from a
// staged COPY of the package, so node_modules/better-sqlite3 (the Node build that `npm test`,
// the CLI and the web mode load) is never written to. @electron/rebuild deletes a module's
// build when it fails; on the copy that costs nothing. The result is loaded once under the
// Electron binary (ELECTRON_RUN_AS_NODE) before it is accepted, and the Node build is checked
// to still load under plain Node at the end — restored with `npm rebuild better-sqlite3` if not.
// electron-builder's packing hooks (build/native-binding.cjs) put the result into the app.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import nativeBinding from '../build/native-binding.cjs';
import { ROOT, ELECTRON_VERSION, HEADERS_URL, electronBinary, preflight, describeProblems } from './dist-preflight.js';

const require = createRequire(path.join(ROOT, 'package.json'));
const log = (msg) => console.error(`[rebuild-native] ${msg}`);

export class ShippingError extends Error {}

/** Opens an in-memory database with the Node build under plain Node, in a child process. */
export function nodeBuildLoads() {
  const code = "const D=require('better-sqlite3');const db=new D(':memory:');db.prepare('select 1 as x').get();db.close()";
  const r = spawnSync(process.execPath, ['-e', code], { cwd: ROOT, encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/** Makes sure plain Node can load better-sqlite3, rebuilding it for Node when it cannot. */
export function ensureNodeBuild() {
  if (nativeBinding.restoreNodeBinding()) log('restored the Node build of better-sqlite3 left swapped out by an interrupted packing run');
  if (nodeBuildLoads().ok) return;
  log('the Node build of better-sqlite3 does not load: running `npm rebuild better-sqlite3`');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  spawnSync(npm, ['rebuild', 'better-sqlite3'], { cwd: ROOT, stdio: 'inherit' });
  const again = nodeBuildLoads();
  if (!again.ok) throw new ShippingError(`better-sqlite3 does not load under Node even after \`npm rebuild better-sqlite3\`:\n${again.output}`);
}

function stage(stageDir) {
  const src = path.dirname(require.resolve('better-sqlite3/package.json'));
  const pkg = JSON.parse(fs.readFileSync(path.join(src, 'package.json'), 'utf8'));
  fs.rmSync(stageDir, { recursive: true, force: true });
  const dest = path.join(stageDir, 'node_modules', 'better-sqlite3');
  // Sources only: the copy's build/ must come from the Electron compile, never from Node's.
  fs.cpSync(src, dest, { recursive: true, filter: (p) => path.relative(src, p).split(path.sep)[0] !== 'build' });
  fs.writeFileSync(
    path.join(stageDir, 'package.json'),
    JSON.stringify({ name: 'flipbook-electron-native', private: true, dependencies: { 'better-sqlite3': pkg.version } }, null, 2),
  );
  return dest;
}

/** Loads the compiled addon under the Electron binary as Node (the dev binary has no fuses). */
function loadsInElectron(electron, addon) {
  const code =
    `const D=require(${JSON.stringify(require.resolve('better-sqlite3'))});` +
    `const db=new D(':memory:',{nativeBinding:${JSON.stringify(addon)}});db.prepare('select 1 as x').get();db.close()`;
  const r = spawnSync(electron, ['-e', code], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

/**
 * Compiles better-sqlite3 for Electron and returns the path of the verified addon.
 * Throws ShippingError with a human message on any failure; node_modules is left untouched.
 */
export async function rebuildForElectron({ electronVersion = ELECTRON_VERSION, arch = process.arch } = {}) {
  const electron = electronBinary();
  if (!electron) throw new ShippingError('no Electron binary to check the rebuilt module with (run the preflight first)');
  const stageDir = path.join(nativeBinding.nativeCacheDir(), 'stage');
  const moduleDir = stage(stageDir);
  const rebuildUrl = pathToFileURL(createRequire(require.resolve('app-builder-lib/package.json')).resolve('@electron/rebuild')).href;
  const { rebuild } = await import(rebuildUrl);
  log(`compiling better-sqlite3 for Electron ${electronVersion} (${process.platform}-${arch}) in ${path.relative(ROOT, stageDir)}`);
  try {
    await rebuild({ buildPath: stageDir, electronVersion, arch, onlyModules: ['better-sqlite3'], force: true, headerURL: HEADERS_URL, projectRootPath: stageDir });
  } catch (e) {
    throw new ShippingError(`@electron/rebuild failed for better-sqlite3: ${e instanceof Error ? e.message : String(e)}`);
  }
  const built = path.join(moduleDir, 'build', 'Release', 'better_sqlite3.node');
  if (!fs.existsSync(built)) throw new ShippingError(`@electron/rebuild reported success but produced no ${path.relative(ROOT, built)}`);
  const check = loadsInElectron(electron, built);
  // electron-builder's own rebuild quietly produces a Node-ABI addon when headers are missing; refuse one here.
  if (!check.ok) throw new ShippingError(`the rebuilt better-sqlite3 does not load in Electron ${electronVersion}:\n${check.output}`);
  const out = nativeBinding.electronBindingPath({ electronVersion, platform: process.platform, arch });
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.copyFileSync(built, out);
  fs.writeFileSync(
    path.join(path.dirname(out), 'build-info.json'),
    JSON.stringify({ electronVersion, platform: process.platform, arch, builtAt: new Date().toISOString() }, null, 2),
  );
  log(`Electron build ready: ${path.relative(ROOT, out)}`);
  return out;
}

async function main() {
  ensureNodeBuild();
  const checks = await preflight({ packaging: false });
  if (checks.some((c) => !c.ok)) {
    console.error(describeProblems('npm run rebuild:electron', checks));
    return 2;
  }
  try {
    await rebuildForElectron();
  } finally {
    ensureNodeBuild();
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      // Expected failures are explained; anything else is still reported without a stack trace
      // unless FLIPBOOK_DEBUG asks for one.
      console.error(`[rebuild-native] ${e instanceof Error ? e.message : String(e)}`);
      if (process.env.FLIPBOOK_DEBUG && e instanceof Error) console.error(e.stack);
      process.exit(1);
    },
  );
}
