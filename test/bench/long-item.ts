/**
 * The item view's time to exact strips on a cold long item: `flipbook serve` of the tree at
 * `root` (its own CLI and the renderer built into `renderer`) on a fresh copy of the long
 * project of test/long-video-fixture.ts, and Chromium (playwright-core, headless, 1280×720)
 * opening the item. The clock is the page's own (performance.now(), from navigation start):
 * the first animation frame at which every tile of every strip is exact and its image loaded.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { LONG_ITEM, longProject } from '../long-video-fixture';

const CHROMIUM = process.env.FLIPBOOK_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Runs in the page, as source text: tsx's transform would give a function passed to
 * page.evaluate helper calls (`__name`) the page does not have.
 */
const WAIT_FOR_EXACT = `new Promise((resolve, reject) => {
  let anyMs = -1;
  const deadline = performance.now() + 180000;
  function tick() {
    const strips = Array.from(document.querySelectorAll('.strip[data-frames]'));
    const want = strips.reduce((n, s) => n + Number(s.getAttribute('data-frames')), 0);
    const tiles = Array.from(document.querySelectorAll('.strip .tile'));
    const imgs = tiles.map((t) => t.querySelector('img'));
    const shown = want > 0 && tiles.length === want && imgs.every((i) => i !== null && i.complete && i.naturalWidth > 0);
    if (shown && anyMs < 0) anyMs = performance.now();
    if (shown && tiles.every((t) => t.dataset.approximate === 'false')) return resolve({ tiles: want, anyMs, exactMs: performance.now() });
    if (performance.now() > deadline) return reject(new Error('strips not exact after 180 s: ' + tiles.length + ' of ' + want + ' tiles'));
    requestAnimationFrame(tick);
  }
  tick();
})`;

export interface StripsRun {
  item: string;
  tiles: number;
  /** ms from navigation start until every tile shows something (approximate or exact). */
  anyMs: number;
  exactMs: number;
}

function serveTree(root: string, project: string, renderer: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(root, 'bin/flipbook.js'), 'serve', '--project', project, '--port', '0', '--renderer', renderer], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, FLIPBOOK_USER_DATA: path.join(path.dirname(project), 'user-data') },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve (${root}) exited with ${code}:\n${err}`)));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+/.exec(out);
      if (!m) return;
      child.removeAllListeners('exit');
      resolve({
        url: m[0],
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

export async function timeToExactStrips(root: string, renderer: string, dir: string): Promise<StripsRun> {
  const { project } = longProject(dir);
  const server = await serveTree(root, project, renderer);
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    // The annotator's name first (asked once per machine), so that the timed load is the item's alone.
    await page.goto(server.url);
    await page.getByLabel('Your name').fill('Bench');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByLabel('Current annotator').waitFor();
    const hash = `#/item/${[LONG_ITEM.model, LONG_ITEM.split, LONG_ITEM.sampleId].map(encodeURIComponent).join('/')}`;
    await page.goto('about:blank');
    await page.goto(`${server.url}${hash}`);
    const r = (await page.evaluate(WAIT_FOR_EXACT)) as { tiles: number; anyMs: number; exactMs: number };
    return { item: `${LONG_ITEM.split}/${LONG_ITEM.sampleId}`, tiles: r.tiles, anyMs: Math.round(r.anyMs), exactMs: Math.round(r.exactMs) };
  } finally {
    await browser.close();
    await server.stop();
  }
}
