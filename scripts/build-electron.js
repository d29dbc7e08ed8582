#!/usr/bin/env node
// Bundles the Electron main process (ESM) and the preload (CommonJS: a sandboxed preload
// cannot load ES modules) with esbuild into dist/electron/. better-sqlite3 and electron stay
// external (native module / provided by the runtime).
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'dist/electron');
const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: true, logLevel: 'info', absWorkingDir: root };

await build({
  ...common,
  entryPoints: ['electron/shell/main.ts'],
  outfile: path.join(out, 'main.js'),
  format: 'esm',
  external: ['electron', 'better-sqlite3'],
  // ESM bundles of CJS dependencies need require/__dirname.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
// The backend runs in a worker thread (electron/host/backend-host.ts), import, export and
// merge in worker threads of their own, and a large per_item.csv's scan in one more
// (electron/threads/worker-thread.ts): their entries must sit beside main.js, where the bundled
// code looks for them.
for (const [name, entry] of [
  ['backend-host', 'electron/host/backend-host.ts'],
  ['job-worker', 'electron/jobs/job-worker.ts'],
  ['per-item-scan-worker', 'electron/importers/per-item-scan-worker.ts'],
  ['parquet-rows-worker', 'electron/importers/parquet-rows-worker.ts'],
]) {
  await build({
    ...common,
    entryPoints: [entry],
    outfile: path.join(out, `${name}.js`),
    format: 'esm',
    external: ['electron', 'better-sqlite3'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
}
await build({
  ...common,
  entryPoints: ['electron/shell/preload.ts'],
  outfile: path.join(out, 'preload.cjs'),
  format: 'cjs',
  external: ['electron'],
});
