#!/usr/bin/env node
// The CLI runs from its esbuild build (scripts/build-cli.js, made by `npm ci`), so a call
// starts in about the time of bare `node` instead of compiling TypeScript first. When a
// source file is newer than the build (a developer edited it), the build is made again
// first (~1 s, once). Without esbuild (a production install) a stale or missing build falls
// back to running the TypeScript sources through tsx.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The current build's manifest, or null when it is missing (or its folder is), or older than a source. */
function currentBuild() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'dist/cli.json'), 'utf8'));
    // Every CLI call runs this for ~180 inputs, before V8 has optimised anything: a plain
    // concatenation (the inputs are relative paths with '/', which every platform's fs takes)
    // instead of path.join, whose normalisation took ~15 ms of a call's start.
    const base = `${root}/`;
    for (const [file, mtime] of Object.entries(manifest.inputs)) {
      if (fs.statSync(base + file).mtimeMs > mtime) return null;
    }
    if (!fs.existsSync(`${base}dist/${manifest.dir}/main.js`)) return null;
  } catch {
    return null;
  }
  return manifest;
}

async function buildOrNull() {
  try {
    const { buildCli } = await import('../scripts/build-cli.js');
    return await buildCli();
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

const build = currentBuild() ?? (await buildOrNull());
let main;
if (build) {
  ({ main } = await import(pathToFileURL(path.join(root, 'dist', build.dir, 'main.js')).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../electron/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
