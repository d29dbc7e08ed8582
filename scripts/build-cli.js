#!/usr/bin/env node
// Builds the CLI (electron/cli/main.ts) into plain JavaScript with esbuild, so that a CLI
// call does not compile ~140 TypeScript modules first (docs/architecture.md, "CLI start-up").
//
// - The CLI is ONE CommonJS file, `main.cjs`: bin/flipbook.js compiles it with a V8 code cache
//   kept per command beside it, which a CommonJS script can use on Node 20 and an ES module
//   cannot. Each command's modules are wrapped by esbuild to be evaluated only when that
//   command is loaded (the commands' `import()`), and exceljs / hyparquet (npm packages, left
//   external like every package but BUNDLED) only when a file needs them (with require()).
// - The worker threads' entries are ES modules beside it (`job-worker.js`, …), where the code
//   that starts them looks for them (electron/threads/worker-thread.ts).
// - Output goes to a new folder `dist/cli-<id>/`, two levels below the repository like the
//   sources' `electron/<dir>/`, so paths the sources resolve from `import.meta.url`
//   (`../../assets`, `../../dist/renderer`, `./migrations`) still hold.
// - `dist/cli.json` names the current folder and every source file with its mtime; it is
//   replaced by a rename, so a CLI started during a rebuild sees the old build or the new one,
//   never half of one. bin/flipbook.js rebuilds when a source is newer than its build.
//
// Run by `npm ci` (the `prepare` script) and by bin/flipbook.js when the build is stale.
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
export const MANIFEST = path.join(dist, 'cli.json');

/**
 * npm packages bundled into the build, so that a CLI call does not resolve, read and compile
 * them as many small modules without a code cache (zod alone is ~95 files; that was most of an
 * import's start-up): the plain-JavaScript ones, and better-sqlite3's JavaScript part (~6 ms
 * of every call as ten CommonJS files), whose native addon stays in node_modules and is named
 * by electron/store/sqlite-binding.ts. Every other package stays external: big ones are loaded
 * only where a file needs them (exceljs, hyparquet).
 */
const BUNDLED = new Set(['zod', 'fflate', 'better-sqlite3']);

/** An esbuild plugin: bare imports stay external unless their package is in `bundled`. */
function bundleOnly(bundled) {
  return {
    name: 'bundle-only',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return bundled.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/** Builds, points dist/cli.json at the new build, and returns that manifest. */
export async function buildCli() {
  const { build } = await import('esbuild');
  fs.mkdirSync(dist, { recursive: true });
  const id = `cli-${Date.now().toString(36)}-${process.pid}`;
  // Built under a name no cleanup looks at (removeOldBuilds takes `cli-*` folders without a
  // live lease), then renamed to `cli-<id>` whole, with this process's lease already in it:
  // a concurrent build's cleanup would otherwise remove a build still being written.
  const outdir = path.join(dist, `.building-${id}`);
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    plugins: [bundleOnly(BUNDLED)],
    outdir,
    metafile: true,
    logLevel: 'warning',
  };
  const cli = await build({
    ...common,
    entryPoints: { main: 'electron/cli/main.ts' },
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // Without comments the file is ASCII (esbuild escapes non-ASCII characters in strings,
    // templates and names; regex literals in the sources write them as escapes, and the
    // check below refuses a build that is not), which bin/flipbook.js reads as a one-byte string:
    // decoding ~1.5 MB of UTF-8 into a two-byte string cost ~10 ms of every call. Names stay
    // as written, so a stack trace still reads; short lines keep its positions usable.
    minifyWhitespace: true,
    lineLimit: 160,
    // The sources resolve files from their module's URL; in the one file that is main.cjs's.
    define: { 'import.meta.url': '__flipbookModuleUrl' },
    // exceljs and hyparquet are loaded with require() where the sources import() them: code
    // compiled from a V8 code cache cannot call import() (it loses the callback Node needs),
    // and Node 20 requires an ES module like hyparquet as it imports it.
    supported: { 'dynamic-import': false },
    // The file is one function expression with CommonJS's parameters, which bin/flipbook.js
    // compiles as it is: wrapped there instead (Module.wrap), its ~1.3 MB would be copied once
    // more into the string V8 compiles, at every call.
    banner: { js: "(function (exports, require, module, __filename, __dirname) {\nvar __flipbookModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    footer: { js: '})' },
  });
  // bin/flipbook.js reads main.cjs as Latin-1, a one-byte string; a non-ASCII byte would be
  // read as the wrong character, so such a build is refused here (docs/architecture.md).
  const mainFile = path.join(outdir, 'main.cjs');
  const bytes = fs.readFileSync(mainFile);
  if (!isAscii(bytes)) {
    const at = bytes.findIndex((b) => b > 0x7f);
    const line = bytes.subarray(0, at).toString('latin1').split('\n').length;
    fs.rmSync(outdir, { recursive: true, force: true });
    throw new Error(`the CLI build is not ASCII: ${mainFile} line ${line} has byte 0x${bytes[at].toString(16)} (write the character as an escape in its source)`);
  }
  // The worker threads' entries — the job worker (import/export/merge off the UI thread) and
  // a large per_item.csv's scan thread, and a parquet table's decoding thread.
  const workers = await build({
    ...common,
    entryPoints: {
      'job-worker': 'electron/jobs/job-worker.ts',
      'per-item-scan-worker': 'electron/importers/per-item-scan-worker.ts',
      'parquet-rows-worker': 'electron/importers/parquet-rows-worker.ts',
    },
    splitting: true,
    format: 'esm',
    // CJS dependencies bundled as ESM need require(); none are bundled (packages are
    // external), but node:module's createRequire keeps the few local requires working.
    banner: { js: "import { createRequire as __flipbookRequire } from 'node:module'; const require = __flipbookRequire(import.meta.url);" },
  });
  // electron/store/migrate.ts reads its .sql files beside the running module.
  const migrations = path.join(root, 'electron/store/migrations');
  fs.mkdirSync(path.join(outdir, 'migrations'));
  for (const f of fs.readdirSync(migrations)) if (f.endsWith('.sql')) fs.copyFileSync(path.join(migrations, f), path.join(outdir, 'migrations', f));

  const inputs = {};
  for (const f of [...Object.keys(cli.metafile.inputs), ...Object.keys(workers.metafile.inputs)]) {
    // A bundled package counts as its package.json (an upgrade rewrites it), not as each file.
    const pkg = /^(.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    const rel = pkg ? `${pkg[1] ?? ''}node_modules/${pkg[2]}/package.json` : f;
    inputs[rel] ??= fs.statSync(path.join(root, rel)).mtimeMs;
  }
  for (const f of fs.readdirSync(migrations)) {
    const rel = `electron/store/migrations/${f}`;
    inputs[rel] = fs.statSync(path.join(root, rel)).mtimeMs;
  }
  // This script too: a changed entry list or option makes another build from the same sources.
  inputs['scripts/build-cli.js'] = fs.statSync(fileURLToPath(import.meta.url)).mtimeMs;
  const manifest = { dir: id, inputs };
  // The process that built it runs it next (bin/flipbook.js): its lease is in place before the
  // build takes its `cli-*` name, so a concurrent build's cleanup cannot take it first.
  fs.mkdirSync(path.join(outdir, LEASES));
  fs.writeFileSync(path.join(outdir, LEASES, String(process.pid)), '');
  fs.renameSync(outdir, path.join(dist, id));
  const tmp = `${MANIFEST}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, JSON.stringify(manifest));
  fs.renameSync(tmp, MANIFEST);
  removeOldBuilds(id);
  return manifest;
}

/**
 * A process running a build keeps a lease in it, `running/<pid>` (bin/flipbook.js writes it
 * before it uses the build and removes it when it exits): a long-running `serve` starts each
 * job's worker (`job-worker.js` and its chunks) and reads the migrations from its build folder
 * long after it started, so no build a live process names is ever removed.
 */
export const LEASES = 'running';

/** Whether a process runs (EPERM: it does, as another user's). */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return Boolean(e && e.code === 'EPERM');
  }
}

/** A lease's process is alive; a dead one's lease is removed. */
function liveLease(dir) {
  let names;
  try {
    names = fs.readdirSync(path.join(dir, LEASES));
  } catch {
    return false;
  }
  let live = false;
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (alive(pid)) live = true;
    else fs.rmSync(path.join(dir, LEASES, name), { force: true });
  }
  return live;
}

/**
 * Earlier builds are removed when no live process holds a lease in them. A build is first
 * renamed out of `cli-*` and its leases read again: a process that wrote its lease between the
 * first look and the rename has it in the renamed folder, and the build is put back (such a
 * process then finds no main.cjs where it looked and builds again, without using it); after
 * the rename no new lease can be written into it (bin/flipbook.js makes `running/` without
 * `recursive`, so a folder that has gone stays gone). A killed process's lease names a dead
 * pid and does not count. (A pid the system reused keeps a build until that process ends.)
 */
function removeOldBuilds(keep) {
  for (const e of fs.readdirSync(dist, { withFileTypes: true })) {
    // A build its process never finished (killed mid-build) is named by that process's pid.
    const building = /^\.building-cli-[a-z0-9]+-(\d+)$/.exec(e.name);
    if (e.isDirectory() && building && !alive(Number(building[1]))) fs.rmSync(path.join(dist, e.name), { recursive: true, force: true });
    if (!e.isDirectory() || !e.name.startsWith('cli-') || e.name === keep) continue;
    const p = path.join(dist, e.name);
    if (liveLease(p)) continue;
    const trash = path.join(dist, `.removing-${e.name}-${process.pid}`);
    try {
      fs.renameSync(p, trash);
    } catch {
      continue; // Another process removed it first.
    }
    if (liveLease(trash)) fs.renameSync(trash, p);
    else fs.rmSync(trash, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const m = await buildCli();
  console.error(`[flipbook] CLI built into dist/${m.dir} (${Object.keys(m.inputs).length} sources)`);
}
