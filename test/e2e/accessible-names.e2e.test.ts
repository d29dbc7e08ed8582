/**
 * Screen-reader names keep the visible text (WCAG 2.5.3 "label in name"): on every view of the
 * app, a heading, button, link or summary that shows words has an accessible name containing
 * them, so `<h2 aria-label="Item">` hiding the sample id, or a button read as "Select span 1"
 * while it shows "1.200–2.300 s", is found. Real renderer, `flipbook serve` on the sample
 * project, Chromium; names as the accname rules compute them (Playwright's aria snapshot).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { QueueRow } from '../../shared/api/contract';
import { routeHash } from '../../renderer/route';
import { chromiumMissingReason, launchBrowser, makeSampleProject, queueRows, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const NAMED = 'h1, h2, h3, h4, h5, h6, button, a[href], [role=button], [role=tab], [role=link]';
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}._'-]*/gu) ?? [];

/** Elements whose accessible name lacks their visible words, as "tag: name ≠ text". */
async function nameViolations(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const el of await page.locator(NAMED).all()) {
    if (!(await el.isVisible())) continue;
    const text = await el.innerText();
    // Icon-only controls (▶, ×, ◀|) have no words to keep.
    if (words(text).length === 0) continue;
    // The accessible name as the accname rules compute it (what a screen reader announces).
    const [node] = (await el.ariaSnapshotJSON({ depth: 0 })) as { name?: string }[];
    const name = node?.name ?? '';
    // Every shown word is in the name (a key hint may move: "d Evidence dilution" → "Evidence dilution (d)").
    const have = new Set(words(name));
    const lost = words(text).filter((w) => !have.has(w));
    if (lost.length > 0)
      out.push(`${await el.evaluate((e) => e.tagName.toLowerCase())}: "${name}" lacks ${lost.map((w) => `"${w}"`).join(', ')} of "${text.replace(/\s+/g, ' ').trim()}"`);
  }
  return out;
}

describe.skipIf(skipReason !== null)('accessible names in Chromium', () => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  let rows: QueueRow[];

  beforeAll(async () => {
    const sample = makeSampleProject();
    server = await serve(sample.project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    rows = await queueRows(server);
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('every view: headings, buttons and links are named with the words they show', async () => {
    await page.goto(`${server.url}#/queue`);
    await signIn(page, 'Nora Names');
    const seen: Record<string, string[]> = {};
    const check = async (view: string) => {
      seen[view] = await nameViolations(page);
    };

    await page.getByRole('listbox', { name: 'Queue' }).getByRole('option').first().waitFor();
    await check('queue');

    // The item view with a span marked (its list of spans has buttons of its own).
    const r = rows.find((x) => x.hasVideo)!;
    await page.goto(`${server.url}${routeHash({ view: 'item', item: r })}`);
    await page.getByTestId('item-view').waitFor();
    await page.getByRole('group', { name: 'Player controls' }).waitFor();
    await page.locator('body').press('i');
    await page.keyboard.press('.');
    await page.keyboard.press('e');
    await page.getByRole('list', { name: 'Spans' }).getByRole('listitem').first().waitFor();
    await check('item');
    expect(await page.getByRole('heading', { level: 2, name: r.sampleId }).count()).toBe(1);

    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await check('shortcuts dialog');
    await page.keyboard.press('Escape');

    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready=true]').waitFor();
    await check('overview');

    for (const [hash, view] of [
      ['#/team', 'team'],
      ['#/codebook', 'codebook'],
      ['#/open', 'project'],
    ] as const) {
      await page.goto(`${server.url}${hash}`);
      await page.locator('main h2, main h1').first().waitFor();
      await check(view);
    }
    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((k) => [k, []])));
  });
});
