#!/usr/bin/env node
// The CLI runs from its esbuild build (scripts/build-cli.js, made by `npm ci`), so a call
// starts in about the time of bare `node` instead of compiling TypeScript first. When a
// source file is newer than the build (a developer edited it), the build is made again
// first (~1 s, once). Without esbuild (a production install) a stale or missing build falls
// back to running the TypeScript sources through tsx.
//
// This file is CommonJS (bin/package.json), unlike the rest of the package: Node starts a
// CommonJS entry ~10 ms sooner than an ES module one, whose loader it then never sets up
// (the build it runs is CommonJS too; docs/architecture.md "CLI start-up").
'use strict';
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const root = path.resolve(__dirname, '..');

/**
 * This process's lease on the build it runs (scripts/build-cli.js "leases"): a rebuild by
 * another process never removes a build a live process holds, since this one may still load
 * from it long after it started (a job's worker entry, the migrations). Taken before the
 * build is checked and used, and given back when the process exits. `running/` is made
 * without `recursive`: a build folder that was removed meanwhile is not made again.
 */
let lease = null;
function takeLease(dir) {
  const leases = `${root}/dist/${dir}/running`;
  try {
    fs.mkdirSync(leases);
  } catch (e) {
    if (!e || e.code !== 'EEXIST') return e && e.code === 'ENOENT' ? false : true; // gone; or a read-only install (nobody removes builds there)
  }
  const file = `${leases}/${process.pid}`;
  try {
    fs.writeFileSync(file, '');
  } catch (e) {
    return !(e && e.code === 'ENOENT');
  }
  lease = file;
  return true;
}
function giveBackLease() {
  if (lease === null) return;
  try {
    fs.unlinkSync(lease);
  } catch {
    // Already gone.
  }
  lease = null;
}
process.on('exit', giveBackLease);

/** The current build's manifest, or null when it is missing (or its folder is), or older than a source. */
function currentBuild() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist/cli.json'), 'utf8'));
    if (typeof manifest.dir !== 'string' || !/^cli-[a-z0-9-]+$/.test(manifest.dir) || !takeLease(manifest.dir)) return null;
    // Every CLI call runs this for ~180 inputs, before V8 has optimised anything: a plain
    // concatenation (the inputs are relative paths with '/', which every platform's fs takes)
    // instead of path.join, whose normalisation took ~15 ms of a call's start.
    const base = `${root}/`;
    for (const [file, mtime] of Object.entries(manifest.inputs)) {
      if (fs.statSync(base + file).mtimeMs > mtime) return (giveBackLease(), null);
    }
    if (!fs.existsSync(`${base}dist/${manifest.dir}/main.cjs`)) return (giveBackLease(), null);
  } catch {
    giveBackLease();
    return null;
  }
  return manifest;
}

async function buildOrNull() {
  try {
    const { buildCli } = await import('../scripts/build-cli.js');
    const built = await buildCli();
    // buildCli wrote this process's lease into the new build before naming it.
    lease = `${root}/dist/${built.dir}/running/${process.pid}`;
    return built;
  } catch (e) {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND') return null; // no esbuild here
    throw e;
  }
}

// `flipbook … | head`: once the reader has gone, a write fails with EPIPE. That is the reader's
// choice, not an error of ours: stop quietly instead of dying with an unhandled 'error' event.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err && err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}

const digest = (data) => createHash('sha256').update(data).digest();

/**
 * The V8 cache in a cache file (its SHA-256, then the cache), or undefined when the digest does
 * not match. V8 checks a cache's version, flags and length, but a release build does not
 * checksum its contents (--verify-snapshot-checksum is off): a damaged byte would be run as
 * code. Hashing ~1 MB costs ~2 ms.
 */
function checkedCache(file) {
  const data = file.subarray(32);
  return file.length > 32 && digest(data).equals(file.subarray(0, 32)) ? data : undefined;
}

/**
 * The build's main.cjs, compiled with V8's code cache for this command (docs/architecture.md
 * "CLI start-up"). Without it, every call parsed and compiled the CLI's code again: ~80 ms of
 * an import's or export's start. The cache is made once, after the first successful run of a
 * command (so it holds every function that run compiled), and kept as
 * `dist/<build>/v8-cache/<command>.bin` behind its SHA-256 (checkedCache), written by a
 * rename. V8 refuses a cache made by another V8 version or with other flags (it is then made
 * again); it checks a script only by its length, so a cache must never outlive its script:
 * each build is a new folder, and its caches live and go with it. Where the folder is
 * read-only the CLI just runs uncached.
 */
function loadBuild(dir, argv) {
  const file = path.join(root, 'dist', dir, 'main.cjs');
  // A command's --help would make a cache of its help alone, kept in place of the command's.
  const command = argv[0] === undefined || argv[0].startsWith('-') ? 'help' : argv[0];
  const helpOnly = command !== 'help' && (argv.includes('--help') || argv.includes('-h'));
  const cacheFile = /^[a-z][a-z-]{0,40}$/.test(command) && !helpOnly ? path.join(root, 'dist', dir, 'v8-cache', `${command}.bin`) : null;
  let cached;
  try {
    if (cacheFile) cached = checkedCache(fs.readFileSync(cacheFile));
  } catch {
    // Not made yet.
  }
  // The build is ASCII (scripts/build-cli.js refuses one that is not): read as Latin-1 it
  // becomes a one-byte string, without decoding UTF-8 into a two-byte one (~10 ms of a call).
  // It is one function expression taking CommonJS's parameters (no Module.wrap, which would
  // copy the whole source once more), and has no import(): packages are loaded with require().
  const source = fs.readFileSync(file, 'latin1');
  const script = new vm.Script(source, { filename: file, cachedData: cached });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(file), module, file, path.dirname(file));
  const keepCache = (code) => {
    if (!cacheFile || code !== 0 || (cached && !script.cachedDataRejected)) return;
    if (command !== 'help' && !module.exports.commandNames.includes(command)) return;
    const tmp = `${cacheFile}.tmp-${process.pid}`;
    try {
      fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
      const data = script.createCachedData();
      fs.writeFileSync(tmp, Buffer.concat([digest(data), data]));
      fs.renameSync(tmp, cacheFile);
    } catch {
      // A read-only install (or a full disk): run without one.
      fs.rmSync(tmp, { force: true });
    }
  };
  return { main: module.exports.main, keepCache };
}

/**
 * Loads the current build, building it first when it is stale. A concurrent rebuild's cleanup
 * moves a build aside before it reads its leases again and puts it back when it finds one
 * (scripts/build-cli.js removeOldBuilds): a process that had checked the build just before can
 * find main.cjs gone for that moment. It then looks again, holding no lease meanwhile; each
 * look either finds a build it holds or makes its own, which no cleanup takes.
 */
async function loadCurrent(argv) {
  for (let attempt = 1; ; attempt++) {
    const build = currentBuild() ?? (await buildOrNull());
    if (!build) return null;
    const file = path.join(root, 'dist', build.dir, 'main.cjs');
    try {
      return loadBuild(build.dir, argv);
    } catch (e) {
      if (!e || e.code !== 'ENOENT' || e.path !== file || attempt === 5) throw e;
      giveBackLease();
    }
  }
}

async function run() {
  const argv = process.argv.slice(2);
  const loaded = await loadCurrent(argv);
  if (loaded) {
    const { main, keepCache } = loaded;
    process.exitCode = await main(argv);
    keepCache(process.exitCode);
  } else {
    const { register } = await import('tsx/esm/api');
    register();
    const { main } = await import('../electron/cli/main.ts');
    process.exitCode = await main(argv);
  }
  // The command has finished: once nothing is left to run, the process exits without Node's
  // teardown of its heap and handles, ~5-10 ms of every call that a user waits for and that
  // changes nothing on disk (every project is closed by then; an unclosed one would be left
  // as a crash leaves it, which SQLite recovers). Registered last, so other 'exit' listeners
  // still run first.
  process.once('beforeExit', () => process.once('exit', (code) => process.exit(code)));
}

// An error is thrown as uncaught, as from the ES module this file was: Node prints it and exits 1.
run().catch((err) => {
  process.nextTick(() => {
    throw err;
  });
});
