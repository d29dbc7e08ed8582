/**
 * The audit workspace end to end: the real renderer (vite build) against the real
 * backend (`flipbook serve` on the generated sample project) in Debian's Chromium.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { routeHash } from '../../renderer/route';
import { allowProblems, api, chromiumMissingReason, launchBrowser, makeSampleProject, resultsDir, serve, type Served, signIn, stop, queueRows } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

interface QueueRowLite {
  model: string;
  split: string;
  sampleId: string;
  flags: { terminalRegression: boolean };
}
interface DetailLite {
  frames: { config: string; indices: number[] }[];
  video: { fps: number } | null;
}

function rawGet(s: Served, rawPath: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: s.port, path: rawPath, headers: { 'x-flipbook-token': s.token, ...headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(skipReason !== null)('web mode in Chromium', () => {
  let sample: { dir: string; project: string };
  let server: Served;
  let browser: Browser;
  let page: Page;
  const annotator = 'Ada E2E';
  const shot = (name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    sample = makeSampleProject();
    server = await serve(sample.project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('refuses requests without the token, unknown media ids and path traversal', async () => {
    expect((await fetch(`${server.base}/`)).status).toBe(401);
    expect((await fetch(`${server.base}/?token=wrong${server.token}`)).status).toBe(401);
    expect((await fetch(`${server.base}/api/op/project:info`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${server.base}/api/events`)).status).toBe(401);
    const auth = { 'x-flipbook-token': server.token };
    expect((await fetch(`${server.base}/media/AAAAAAAAAAAAAAAAAAAAAA`, { headers: auth })).status).toBe(404);
    expect([400, 404]).toContain((await fetch(`${server.base}/media/..%2F..%2Fetc%2Fpasswd`, { headers: auth })).status);
    const videoPath = encodeURIComponent(path.join(sample.dir, 'media', 'v01-red-squares.mp4'));
    expect((await fetch(`${server.base}/media/${videoPath}`, { headers: auth })).status).toBe(404);
    // fetch() normalises dot segments, so send the raw paths with node:http.
    for (const p of ['/../../../etc/passwd', '/..%2f..%2f..%2fetc%2fpasswd', '/assets/..%2f..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd']) {
      const r = await rawGet(server, p);
      expect(r.status, p).toBe(400);
      expect(r.body).not.toContain('root:');
    }
    // A foreign Host header (DNS rebinding) is refused even with the token.
    const rebinding = await rawGet(server, '/', { host: 'evil.example' });
    expect(rebinding.status).toBe(403);
    // With the token the API answers, and a malformed request is a Result error, not a crash.
    const bad = (await (await fetch(`${server.base}/api/op/item:get`, { method: 'POST', headers: auth, body: '{"model":1}' })).json()) as { ok: boolean; error: { code: string } };
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  it('audits a terminal regression: queue, strips, frame steps, spans, tags, undo/redo, reload, kill -9, export', async () => {
    await page.goto(server.url);
    // The annotator name is asked once per machine.
    await signIn(page, annotator);

    // Queue: default rows, then filters.
    const rows = page.getByRole('listbox', { name: 'Queue' }).getByRole('option');
    await rows.first().waitFor();
    await shot('queue');
    const all = { rows: await queueRows<QueueRowLite>(server) };
    const model = 'SimInternVL-8B';
    const expected = all.rows.filter((r) => r.model === model && r.flags.terminalRegression);
    expect(expected.length).toBeGreaterThan(0);
    await page.getByLabel('Model', { exact: true }).selectOption(model);
    await page.getByLabel('Flag: terminal regression').check();
    await expect.poll(() => rows.count()).toBe(expected.length);
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`${expected.length} shown`);
    await shot('queue-filtered');

    // Open the first terminal regression.
    const first = rows.first();
    const label = (await first.getAttribute('aria-label')) ?? '';
    const target = expected.find((r) => `${r.model} ${r.split} ${r.sampleId}` === label);
    expect(target).toBeDefined();
    const item = { model: target!.model, split: target!.split, sampleId: target!.sampleId };
    await first.click();
    await page.getByTestId('item-view').waitFor();
    await expect.poll(() => page.getByLabel('Flags').textContent()).toContain('terminal regression');

    // One strip per config, each with that config's frames.
    const detail = await api<DetailLite>(server, 'item:get', item);
    for (const f of detail.frames) {
      const strip = page.getByRole('group', { name: `Strip ${f.config}` });
      await expect.poll(() => strip.locator('.tile').count()).toBe(new Set(f.indices).size);
    }
    // Every tile becomes exact (approximate keyframe tiles are replaced).
    await expect.poll(() => page.locator('.tile[data-approximate="true"]').count(), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => page.locator('.tile img').count()).toBe(await page.locator('.tile').count());
    await shot('item');

    // Frame stepping on the real video.
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
    const frameNow = async () => Number(await page.getByLabel('Frame and time').getAttribute('data-frame'));
    await page.getByLabel('Jump to frame or time').fill('100');
    await page.getByLabel('Jump to frame or time').press('Enter');
    await expect.poll(frameNow).toBe(100);
    await page.locator('body').press('.');
    await expect.poll(frameNow).toBe(101);
    await page.locator('body').press(',');
    await page.locator('body').press(',');
    await expect.poll(frameNow).toBe(99);

    // Mark an evidence span in/out by key and see its coverage.
    await page.getByLabel('Jump to frame or time').fill('2s');
    await page.getByLabel('Jump to frame or time').press('Enter');
    await expect.poll(frameNow).toBe(Math.floor(2 * (detail.video?.fps ?? 25)));
    await page.locator('body').press('i');
    await page.getByLabel('Jump to frame or time').fill('6s');
    await page.getByLabel('Jump to frame or time').press('Enter');
    await expect.poll(async () => Number(await page.getByLabel('Frame and time').getAttribute('data-time'))).toBeGreaterThan(5.9);
    await page.locator('body').press('e');
    const coverage = page.getByLabel('Coverage of span 1');
    await expect.poll(() => coverage.textContent()).toContain('covered by:');
    const state1 = await api<{ spans: { startS: number; endS: number; coveredBy: string[] }[] }>(server, 'annotation:state', { ...item, annotator });
    expect(state1.spans).toHaveLength(1);
    const span = state1.spans[0]!;
    const expectedCover = detail.frames
      .filter((f) => f.indices.some((k) => k / (detail.video?.fps ?? 25) >= span.startS - 1e-6 && k / (detail.video?.fps ?? 25) <= span.endS + 1e-6))
      .map((f) => f.config);
    expect([...span.coveredBy].sort()).toEqual([...expectedCover].sort());
    expect(await coverage.textContent()).toContain(span.coveredBy.length ? span.coveredBy.join(', ') : 'no config');

    // Tag pathways by keyboard: c = count-inflation, m = evidence-missed, Shift+C = primary.
    const countBtn = page.getByRole('button', { name: 'Count inflation (c)' });
    const missedBtn = page.getByRole('button', { name: 'Evidence missed (m)' });
    await page.locator('body').press('c');
    await expect.poll(() => countBtn.getAttribute('aria-pressed')).toBe('true');
    await page.locator('body').press('m');
    await expect.poll(() => missedBtn.getAttribute('aria-pressed')).toBe('true');
    await page.locator('body').press('Shift+C');
    await expect.poll(() => page.getByLabel('Primary pathway').inputValue()).toBe('count-inflation');
    await page.locator('body').press('4');
    await expect.poll(() => page.getByRole('radio', { name: 'Confidence 4' }).getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => page.getByLabel('Save state').getAttribute('data-state')).toBe('saved');
    await shot('item-tagged');

    // Undo the confidence and the primary, redo the primary.
    await page.locator('body').press('Control+z');
    await expect.poll(() => page.getByRole('radio', { name: 'Confidence 4' }).getAttribute('aria-checked')).toBe('false');
    await page.locator('body').press('Control+z');
    await expect.poll(() => page.getByLabel('Primary pathway').inputValue()).toBe('');
    await page.locator('body').press('Control+Shift+z');
    await expect.poll(() => page.getByLabel('Primary pathway').inputValue()).toBe('count-inflation');

    const checkEverything = async () => {
      await page.getByTestId('item-view').waitFor();
      await expect.poll(() => countBtn.getAttribute('aria-pressed')).toBe('true');
      await expect.poll(() => missedBtn.getAttribute('aria-pressed')).toBe('true');
      await expect.poll(() => page.getByLabel('Primary pathway').inputValue()).toBe('count-inflation');
      await expect.poll(() => page.getByRole('radio', { name: 'Confidence 4' }).getAttribute('aria-checked')).toBe('false');
      await expect.poll(() => page.getByLabel('Coverage of span 1').textContent()).toContain('covered by:');
    };

    // Reload: everything is still there.
    await page.reload();
    await checkEverything();

    // kill -9 the backend, restart it on the same port (same origin), and find everything.
    const port = server.port;
    // Killing the backend under the open page cuts its event stream and the frames and video it
    // is loading, and refuses them until the restart: provoked on purpose.
    allowProblems(
      /^requestfailed .*(ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_SOCKET_NOT_CONNECTED)/,
      /^console .*(ERR_CONNECTION_REFUSED|ERR_CONNECTION_RESET|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_SOCKET_NOT_CONNECTED)/,
    );
    await stop(server, 'SIGKILL');
    server = await serve(sample.project, port);
    await page.goto(`${server.url}${routeHash({ view: 'item', item })}`);
    await checkEverything();

    // Shortcuts: '?' lists them all.
    await page.locator('body').press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    expect(await dialog.locator('tbody tr').count()).toBeGreaterThan(40);
    await shot('shortcuts');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).getByRole('button', { name: 'Close', exact: true }).click();

    // Export from the project view and find the annotation in annotations/.
    await page.getByRole('link', { name: 'Project' }).click();
    const out = path.join(sample.dir, 'release');
    await page.getByLabel('Export folder').fill(out);
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await expect.poll(() => page.locator('.jobs li[data-state="ok"]').count(), { timeout: 60_000 }).toBe(1);
    await shot('project-export');
    const pathways = fs.readFileSync(path.join(out, 'annotations/pathways.csv'), 'utf8');
    const line = pathways.split('\n').find((l) => l.startsWith(`${item.sampleId},${item.model},${item.split},${annotator}`));
    expect(line).toBeDefined();
    expect(line).toContain('count-inflation');
    expect(line).toContain('evidence-missed');
    const spansCsv = fs.readFileSync(path.join(out, 'annotations/evidence_spans.csv'), 'utf8');
    expect(spansCsv).toContain(`${item.sampleId},${item.model},${item.split},${annotator}`);
  });
});
