/**
 * The keymap end to end (renderer/shortcuts.ts is the one table, keymap.ts the one listener):
 * Escape leaves every text field, a key typed after Escape is a shortcut again (`?` after `/`),
 * our dialogs take every key but Escape, trap Tab and give focus back on close, and the help
 * dialog opens at its top. Real renderer, `flipbook serve` on the sample project, Chromium.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { AnnotationState, QueueRow } from '../../shared/api/contract';
import { routeHash } from '../../renderer/route';
import { api, chromiumMissingReason, launchBrowser, makeSampleProject, serve, signIn, stop, type Served, queueRows } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const activeLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? null);

describe.skipIf(skipReason !== null)('keymap in Chromium', () => {
  let sample: { dir: string; project: string };
  let server: Served;
  let browser: Browser;
  let rows: QueueRow[];
  const annotator = 'Kim Keymap';

  async function newPage(hash = ''): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(server.url + hash);
    await signIn(page, annotator);
    return page;
  }

  beforeAll(async () => {
    sample = makeSampleProject();
    server = await serve(sample.project);
    browser = await launchBrowser();
    rows = await queueRows<QueueRow>(server);
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
    if (sample) fs.rmSync(sample.dir, { recursive: true, force: true });
  });

  it('Escape leaves the queue search, so `?` then opens help instead of being typed', async () => {
    const page = await newPage('#/queue');
    const search = page.getByLabel('Search queue');
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await page.locator('body').press('/');
    await expect.poll(() => activeLabel(page)).toBe('Search queue');
    await page.keyboard.type('v01');
    // The backend filters: the list is busy until the filtered rows are on screen.
    await expect.poll(() => page.getByRole('listbox', { name: 'Queue' }).getAttribute('aria-busy')).toBe('false');
    // In the search field the arrow keys still move the queue selection (its binding says so).
    await page.keyboard.press('ArrowDown');
    const second = await page.getByRole('listbox', { name: 'Queue' }).getByRole('option').nth(1).getAttribute('aria-label');
    await expect.poll(() => page.locator('[role=option][aria-selected=true]').getAttribute('aria-label')).toBe(second);
    await page.keyboard.press('Escape');
    await expect.poll(() => activeLabel(page)).not.toBe('Search queue');
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    expect(await search.inputValue()).toBe('v01');
    // The help dialog opens at its top, its Close button focused.
    expect(await dialog.evaluate((d) => d.scrollTop)).toBe(0);
    expect(await activeLabel(page)).toBe('BUTTON');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
    await page.close();
  });

  it('dialogs keep Tab inside, take every key but Escape, and give focus back on close', async () => {
    const r = rows[0]!;
    const item = { model: r.model, split: r.split, sampleId: r.sampleId };
    const page = await newPage(routeHash({ view: 'item', item }));
    await page.getByTestId('item-view').waitFor();
    const opener = page.getByRole('button', { name: 'Keyboard shortcuts' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      expect(await page.evaluate(() => Boolean(document.activeElement?.closest('[role=dialog]')))).toBe(true);
    }
    // `v` (status: done) is the item view's; with the dialog open it does nothing.
    await page.keyboard.press('v');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('Keyboard shortcuts');
    const before = await api<AnnotationState>(server, 'annotation:state', { ...item, annotator });
    expect(before.status).toBe('todo');
    await page.close();
  });

  it('Escape leaves the jump field and a span label; the keys after it are shortcuts again', async () => {
    const r = rows[1]!;
    const item = { model: r.model, split: r.split, sampleId: r.sampleId };
    const page = await newPage(routeHash({ view: 'item', item }));
    await page.getByTestId('item-view').waitFor();
    await page.getByRole('group', { name: 'Player controls' }).waitFor();
    await page.locator('body').press('f');
    await expect.poll(() => activeLabel(page)).toBe('Jump to frame or time');
    await page.keyboard.type('12');
    await page.keyboard.press('Escape');
    await expect.poll(() => activeLabel(page)).not.toBe('Jump to frame or time');
    // Mark a span with i / e, then its label field: Escape leaves it too.
    await page.keyboard.press('i');
    await page.keyboard.press('.');
    await page.keyboard.press('e');
    const label = page.getByRole('list', { name: 'Spans' }).getByRole('textbox').first();
    await label.waitFor();
    await label.click();
    await page.keyboard.type('hand');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).not.toBe('INPUT');
    await page.keyboard.press('v');
    await expect.poll(async () => (await api<AnnotationState>(server, 'annotation:state', { ...item, annotator })).status).toBe('done');
    const st = await api<AnnotationState>(server, 'annotation:state', { ...item, annotator });
    expect(st.spans.map((s) => s.label)).toEqual(['hand']);
    await page.close();
  });
});
