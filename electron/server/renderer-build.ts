/**
 * The built renderer for the web mode. A fresh checkout (`npm ci` only) has none: `serve`
 * builds it on demand with Vite when Vite is installed (a development checkout), saying so,
 * rather than serving a page that cannot load.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '../..');
/** dist/renderer of the checkout; FLIPBOOK_RENDERER_DIR for bundled builds (as in Electron's main). */
export const DEFAULT_RENDERER_DIR = process.env.FLIPBOOK_RENDERER_DIR ? path.resolve(process.env.FLIPBOOK_RENDERER_DIR) : path.resolve(REPO_ROOT, 'dist/renderer');

export const rendererBuilt = (dir: string): boolean => fs.existsSync(path.join(dir, 'index.html'));

function viteBin(): string | null {
  try {
    const pkg = createRequire(path.join(REPO_ROOT, 'package.json')).resolve('vite/package.json');
    const bin = path.join(path.dirname(pkg), 'bin/vite.js');
    return fs.existsSync(bin) && fs.existsSync(path.join(REPO_ROOT, 'renderer/index.html')) ? bin : null;
  } catch {
    return null;
  }
}

/**
 * Makes sure `dir` holds a renderer build: builds it (output to stderr, `say` reports the
 * step) when missing. Returns null when it is there, else why it could not be built.
 */
export function ensureRendererBuilt(dir: string, say: (line: string) => void): string | null {
  if (rendererBuilt(dir)) return null;
  const vite = viteBin();
  if (vite === null) return `no renderer build in ${dir}, and Vite is not installed to build one (run \`npx vite build\` in a development checkout)`;
  say(`building the renderer into ${dir} (first run; takes a little while) …`);
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', dir, '--emptyOutDir'], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0 || !rendererBuilt(dir)) return `building the renderer failed (vite exit ${r.status ?? r.signal})`;
  say('renderer built');
  return null;
}
