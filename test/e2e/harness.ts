/**
 * Shared e2e plumbing: build the renderer, make the sample project, start/stop `flipbook serve`
 * as a child process (`node bin/flipbook.js`, never npx) and launch Debian's Chromium.
 *
 * Every page of a browser from launchBrowser() is watched: console errors, uncaught page
 * errors, failed requests and HTTP answers >= 400 are recorded, and test/e2e/setup.ts fails
 * the test that produced any (a test that provokes one on purpose says so with allowProblems).
 */
import { QUEUE_PAGE_MAX, type QueueRow } from '../../shared/api/contract';
import { EMPTY_FILTER } from '../../shared/api/queue-filter';
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { openProject } from '../../electron/store/project';
import { tempDir } from '../temp-dir';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const resultsDir = path.join(repoRoot, 'test-results');
export const CHROMIUM = process.env.FLIPBOOK_CHROMIUM ?? '/usr/bin/chromium';

/** Runs the CLI as a user does (`node bin/flipbook.js …` from the checkout), waiting for it to end. */
export function flipbookCli(...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], { cwd: repoRoot, encoding: 'utf8' });
}

/** Builds dist/renderer. The e2e run does it once (global-setup.ts); test files do not. */
export function buildRenderer(): void {
  const vite = path.join(repoRoot, 'node_modules/vite/bin/vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vite build failed:\n${r.stdout}\n${r.stderr}`);
}

/**
 * A fresh sample project of the caller's own: a copy of the one global-setup.ts made for
 * this run (project file and media), its media root pointed at the copy's media folder. In a
 * tempDir folder: removed after the test file, once the file's own afterAll stopped its servers.
 */
export function makeSampleProject(): { dir: string; project: string } {
  const dir = tempDir('flipbook-e2e-');
  fs.cpSync(inject('sampleTemplate'), dir, { recursive: true });
  const project = path.join(dir, 'sample.flipbook');
  const p = openProject(project);
  try {
    p.setSetting('mediaRoot', path.join(dir, 'media'));
  } finally {
    p.close();
  }
  return { dir, project };
}

export interface Served {
  child: ChildProcess;
  url: string;
  base: string;
  token: string;
  port: number;
  stderr: () => string;
}

export interface ServeOptions {
  /** Extra arguments after `serve --project P` (default `--port 0`). */
  args?: string[];
  /** Environment additions (e.g. FLIPBOOK_RENDERER_DIR). */
  env?: Record<string, string>;
}

/**
 * Flipbook's per-machine settings (annotator name, recent projects, last serve port/token)
 * for a test project: a folder beside it, so tests never read or write the real user's.
 */
export const userDataFor = (project: string): string => path.join(path.dirname(project), 'user-data');

/** Starts the web mode and resolves when it printed its URL (readiness, not a sleep). */
export function serve(project: string, port: number | ServeOptions = 0): Promise<Served> {
  const o: ServeOptions = typeof port === 'number' ? { args: ['--port', String(port)] } : port;
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'serve', '--project', project, ...(o.args ?? ['--port', '0'])], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FLIPBOOK_USER_DATA: userDataFor(project), ...o.env },
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
        const served: Served = { child, url: m[0], base: m[1] as string, port: Number(m[2]), token: m[3] as string, stderr: () => err };
        servers.set(served, 'running');
        // Kept after an exit it was not asked for: a server that died is what a report must say.
        child.once('exit', (code, signal) => servers.has(served) && servers.set(served, `exited (${signal ?? code})`));
        resolve(served);
      }
    });
  });
}

export async function stop(s: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  servers.delete(s);
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

/**
 * Every queue row of the served project in (model, split, sample id) order, paged through
 * queue:page as the app pages (the backend has no whole-queue operation).
 */
export async function queueRows<T = QueueRow>(s: Served, annotator?: string): Promise<T[]> {
  const out: T[] = [];
  for (;;) {
    const filter = { ...EMPTY_FILTER, preset: 'all' };
    const page = await api<{ rows: T[]; total: number }>(s, 'queue:page', {
      filter,
      sort: { key: 'model', desc: false },
      offset: out.length,
      limit: QUEUE_PAGE_MAX,
      ...(annotator !== undefined && { annotator }),
    });
    out.push(...page.rows);
    if (page.rows.length === 0 || out.length >= page.total) return out;
  }
}

/** What went wrong on a page: console errors, page errors, failed requests, HTTP >= 400. */
export interface PageProblem {
  kind: 'console' | 'pageerror' | 'requestfailed' | 'http';
  url: string;
  text: string;
}
let problems: PageProblem[] = [];
let allowed: RegExp[] = [];
/** Watched pages while open, and servers not stopped by stop(), for what a failed test prints (failureReport). */
const openPages = new Set<Page>();
const servers = new Map<Served, string>();

function watch(page: Page): void {
  if (openPages.has(page)) return;
  openPages.add(page);
  page.once('close', () => openPages.delete(page));
  const add = (p: PageProblem) => {
    if (!allowed.some((re) => re.test(`${p.kind} ${p.url} ${p.text}`))) problems.push(p);
  };
  page.on('console', (m) => {
    if (m.type() === 'error') add({ kind: 'console', url: m.location().url, text: m.text() });
  });
  page.on('pageerror', (e) => add({ kind: 'pageerror', url: page.url(), text: e.message }));
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    // A request the page itself abandoned (a video range it no longer needs, leaving an item) is not a failure.
    if (why === 'net::ERR_ABORTED') return;
    add({ kind: 'requestfailed', url: r.url(), text: why });
  });
  page.on('response', (r) => {
    if (r.status() >= 400) add({ kind: 'http', url: r.url(), text: String(r.status()) });
  });
}

/** Problems recorded since the last call (and forgets them). */
export function takeProblems(): PageProblem[] {
  const p = problems;
  problems = [];
  allowed = [];
  return p;
}

/** The current test provokes these on purpose (matched against `kind url text`). */
export function allowProblems(...res: RegExp[]): void {
  allowed.push(...res);
}

/**
 * What a failed test leaves in the log (test/e2e/setup.ts): each open page's address and
 * visible text, and each server's state (running, or exited unasked) and stderr, so that a failure seen once on CI can be
 * read afterwards (a screenshot on the CI machine is gone with it).
 */
export async function failureReport(): Promise<string> {
  const out: string[] = [];
  for (const page of openPages) {
    let text: string;
    try {
      text = await page.locator('body').innerText({ timeout: 2_000 });
    } catch (e) {
      text = `(no text: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`;
    }
    out.push(`--- page ${page.url()}\n${text.slice(0, 4_000)}`);
  }
  for (const [s, state] of servers) out.push(`--- server ${s.base}, ${state}; stderr:\n${s.stderr().slice(-4_000) || '(empty)'}`);
  return out.join('\n');
}

/** The assertion every e2e test ends with (test/e2e/setup.ts). */
export function expectNoPageProblems(): void {
  const p = takeProblems();
  expect(
    p.map((x) => `${x.kind} ${x.url}: ${x.text}`),
    'console errors / failed requests on the page',
  ).toEqual([]);
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--autoplay-policy=no-user-gesture-required',
    ],
  });
  // Every page of every context is watched, however the test makes it.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const ctx: BrowserContext = await newContext(options);
    ctx.on('page', watch);
    for (const p of ctx.pages()) watch(p);
    return ctx;
  };
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (options) => {
    const page = await newPage(options);
    watch(page);
    page.context().on('page', watch);
    return page;
  };
  return browser;
}

/**
 * Becomes `name` in the web app: answers the first-run prompt, or (the name being remembered
 * on this machine) changes it from the header when another name is current.
 */
export async function signIn(page: Page, name: string): Promise<void> {
  const prompt = page.getByLabel('Your name');
  const current = page.getByLabel('Current annotator');
  await expect
    .poll(async () => (await prompt.isVisible()) || ((await current.count()) > 0 && ((await current.first().textContent()) ?? '') !== ''), { timeout: 30_000 })
    .toBe(true);
  if (!(await prompt.isVisible())) {
    if (((await current.first().textContent()) ?? '') === name) return;
    await page.getByRole('button', { name: 'Change annotator' }).click();
  }
  await prompt.fill(name);
  await page.getByRole('button', { name: 'Save name' }).click();
  await expect.poll(() => current.first().textContent()).toBe(name);
}

export function chromiumMissingReason(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (install the chromium package or set FLIPBOOK_CHROMIUM)`;
}
