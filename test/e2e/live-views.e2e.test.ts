/**
 * Two browser contexts on one `flipbook serve` (two tabs, two windows of one user): an edit in
 * one is shown in the other within a second (data:changed over server-sent events), and an
 * edit made in a tab that had not heard of the other's change never reverses it — a pathway key
 * sets the pathway to the opposite of what that tab shows (found already so: nothing recorded),
 * and a status change made on a stale view is refused with a notice that says what is saved.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AnnotationState, Codebook, QueueRow } from '../../shared/api/contract';
import { api, chromiumMissingReason, launchBrowser, makeSampleProject, queueRows, resultsDir, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

type Ref = { model: string; split: string; sampleId: string };
const itemHash = (r: Ref) => `#/item/${[r.model, r.split, r.sampleId].map(encodeURIComponent).join('/')}`;

describe.skipIf(skipReason !== null)('live views: two contexts on one server', () => {
  let server: Served;
  let browser: Browser;
  /** Each test annotates its own item. */
  let rows: QueueRow[];
  let row: QueueRow;
  let codebook: Codebook;
  const contexts: BrowserContext[] = [];
  const annotator = 'Lena Live';

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    const sample = makeSampleProject();
    server = await serve(sample.project);
    browser = await launchBrowser();
    rows = (await queueRows<QueueRow>(server)).filter((r) => r.hasVideo && r.flags.terminalRegression);
    codebook = await api<Codebook>(server, 'codebook:get', {});
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    if (server) await stop(server);
  });

  /** A tab of its own context on the item; `deaf`: its event stream answers but never carries an event. */
  async function tab(deaf = false): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    contexts.push(ctx);
    const page = await ctx.newPage();
    if (deaf) {
      await page.route('**/api/events**', (r) => r.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' }, body: ': deaf\n\n' }));
    }
    await page.goto(server.url);
    await signIn(page, annotator);
    await page.goto(`${server.url}${itemHash(row)}`);
    await page.getByTestId('item-view').waitFor();
    await expect.poll(() => page.getByLabel('Save state').getAttribute('data-state')).not.toBeNull();
    return page;
  }
  const state = () => api<AnnotationState>(server, 'annotation:state', { model: row.model, split: row.split, sampleId: row.sampleId, annotator });
  const pathway = () => codebook.pathways.find((p) => p.id === 'count-inflation')!;
  const button = (page: Page) => page.getByRole('button', { name: `${pathway().label} (${pathway().shortcut ?? ''})` });
  const saved = async (page: Page) => expect.poll(() => page.getByLabel('Save state').getAttribute('data-state')).toBe('saved');

  it('shows an edit made in one context in the other within a second', async () => {
    row = rows[0]!;
    const a = await tab();
    const b = await tab();
    await expect.poll(() => button(a).getAttribute('aria-pressed')).toBe('false');
    await b.keyboard.press(pathway().shortcut!);
    await saved(b);
    const t0 = Date.now();
    await expect.poll(() => button(a).getAttribute('aria-pressed'), { timeout: 1_000, interval: 20 }).toBe('true');
    const ms = Date.now() - t0;
    console.log(`[e2e] B's edit shown in A ${ms} ms after B's save`);
    expect(ms).toBeLessThan(1_000);
    // And back: A's status reaches B.
    await a.keyboard.press('v');
    await saved(a);
    await expect.poll(() => b.getByLabel('Status').inputValue(), { timeout: 1_000, interval: 20 }).toBe('done');
    await a.screenshot({ path: path.join(resultsDir, 'live-views-a.png') });
  });

  it('never lets an edit made on a stale view reverse the other context’s edit', async () => {
    row = rows[1]!;
    // A hears nothing (its event stream is cut off), so it keeps showing what it loaded.
    const a = await tab(true);
    const b = await tab();
    await expect.poll(() => button(a).getAttribute('aria-pressed')).toBe('false');
    // B tags the pathway; A still shows it off.
    await b.keyboard.press(pathway().shortcut!);
    await saved(b);
    await expect.poll(async () => (await state()).pathways).toEqual(['count-inflation']);
    expect(await button(a).getAttribute('aria-pressed')).toBe('false');
    // A presses the same key: it asks for "on" (what it shows is off), which is already saved — B's edit stays.
    await a.keyboard.press(pathway().shortcut!);
    await saved(a);
    expect((await state()).pathways).toEqual(['count-inflation']);
    await expect.poll(() => button(a).getAttribute('aria-pressed')).toBe('true');

    // B sets the status to done; A, still showing todo, asks for needs review: refused, and said so.
    await b.keyboard.press('v');
    await saved(b);
    expect(await a.getByLabel('Status').inputValue()).toBe('todo');
    await a.keyboard.press('b');
    await expect.poll(() => a.getByLabel('Item notice').textContent()).toMatch(/not saved: status of .* is done now, not todo as shown when you changed it to needs_review/);
    expect((await state()).status).toBe('done');
    // A now shows what is saved.
    await expect.poll(() => a.getByLabel('Status').inputValue()).toBe('done');
    await a.screenshot({ path: path.join(resultsDir, 'live-views-stale-refused.png') });
    // Having seen it, A's next change is applied.
    await a.keyboard.press('b');
    await saved(a);
    expect((await state()).status).toBe('needs_review');
  });
});
