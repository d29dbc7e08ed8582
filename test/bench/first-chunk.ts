/**
 * The renderer's first chunk: the script index.html loads before anything shows (what every
 * window downloads, parses and runs first; docs/performance.md "The renderer's first chunk").
 * Read from a built dist/renderer, never from a bundler's report.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

export interface FirstChunk {
  file: string;
  bytes: number;
  gzip_bytes: number;
}

export function firstChunk(rendererDir: string): FirstChunk {
  const html = readFileSync(path.join(rendererDir, 'index.html'), 'utf8');
  const m = /<script type="module"[^>]*\ssrc="([^"]+)"/.exec(html);
  if (!m) throw new Error(`${rendererDir}/index.html loads no module script`);
  const file = path.join(rendererDir, m[1] as string);
  const bytes = readFileSync(file);
  return { file: path.relative(rendererDir, file), bytes: bytes.length, gzip_bytes: gzipSync(bytes).length };
}

/**
 * Builds the renderer of the tree at `root` into `outDir` as a release build does
 * (NODE_ENV=production: a test runner's NODE_ENV=test would make React's development build).
 */
export function buildRendererInto(root: string, outDir: string): void {
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'error', '--outDir', outDir, '--emptyOutDir'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error(`vite build in ${root} failed:\n${r.stdout}\n${r.stderr}`);
}
