/**
 * Shared e2e plumbing: build the renderer, make the sample project, start/stop `flipbook serve`
 * as a child process (`node bin/flipbook.js`, never npx) and launch Debian's Chromium.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const resultsDir = path.join(repoRoot, 'test-results');
export const CHROMIUM = process.env.FLIPBOOK_CHROMIUM ?? '/usr/bin/chromium';

export function buildRenderer(): void {
  const vite = path.join(repoRoot, 'node_modules/vite/bin/vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vite build failed:\n${r.stdout}\n${r.stderr}`);
}

export function makeSampleProject(): { dir: string; project: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flipbook-e2e-'));
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'sample-project', '--out', dir], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`sample-project failed:\n${r.stdout}\n${r.stderr}`);
  return { dir, project: path.join(dir, 'sample.flipbook') };
}

export interface Served {
  child: ChildProcess;
  url: string;
  base: string;
  token: string;
  port: number;
  stderr: () => string;
}

/** Starts the web mode and resolves when it printed its URL (readiness, not a sleep). */
export function serve(project: string, port = 0): Promise<Served> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'serve', '--project', project, '--port', String(port)], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${err}`)));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /(http:\/\/127\.0\.0\.1:(\d+))\/\?token=([A-Za-z0-9_-]+)/.exec(out);
      if (m) {
        child.removeAllListeners('exit');
        resolve({ child, url: m[0], base: m[1] as string, port: Number(m[2]), token: m[3] as string, stderr: () => err });
      }
    });
  });
}

export async function stop(s: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  s.child.kill(signal);
  await exited;
}

export async function api<T = unknown>(s: Served, op: string, body: unknown): Promise<T> {
  const res = await fetch(`${s.base}/api/op/${op}`, { method: 'POST', headers: { 'x-flipbook-token': s.token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const r = (await res.json()) as { ok: boolean; value?: T; error?: { message: string } };
  if (!r.ok) throw new Error(`${op}: ${r.error?.message}`);
  return r.value as T;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--autoplay-policy=no-user-gesture-required'],
  });
}

export function chromiumMissingReason(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install the chromium package or set FLIPBOOK_CHROMIUM)`;
}
