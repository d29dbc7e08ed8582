/**
 * The queue pages at lab scale, real renderer + real web-mode backend in Chromium: on a project
 * of 25,900 queue rows (the bench's generated release matrix), scrolling to the end, keyboard
 * navigation across a page boundary and a filter change all show exactly the backend's rows,
 * while the renderer never holds more than QUEUE_PAGE_SIZE × QUEUE_PAGES_KEPT rows (the list's
 * own count, the DOM's options and every answer the page received), and never asks for the
 * whole queue (docs/architecture.md "The queue at lab scale").
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir';
import type { Browser, Page } from 'playwright-core';
import type { QueueRow } from '../../shared/api/contract';
import { EMPTY_FILTER, type QueueFilter, type QueueSort } from '../../shared/api/queue-filter';
import { QUEUE_PAGE_SIZE, QUEUE_PAGES_KEPT } from '../../renderer/api/use-queue-pages';
import { applyImportFiles, readImportFiles } from '../../electron/jobs/import-files';
import { openProject } from '../../electron/store/project';
import { generatePerItemCsv } from '../bench/generate-per-item';
import { api, chromiumMissingReason, launchBrowser, serve, type Served, signIn, stop } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const BOUND = QUEUE_PAGE_SIZE * QUEUE_PAGES_KEPT;
const SORT: QueueSort = { key: 'default', desc: false };
const label = (r: QueueRow) => `${r.model} ${r.split} ${r.sampleId}`;

describe.skipIf(skipReason !== null)('queue paging at lab scale in Chromium', () => {
  let dir: string;
  let server: Served;
  let browser: Browser;
  let page: Page;
  /** Every queue operation the page asked for, with its limit. */
  const asked: { op: string; limit: number | null }[] = [];
  /** Most rows any one answer carried. */
  let largestAnswer = 0;

  const rowAt = async (filter: QueueFilter, offset: number): Promise<QueueRow> =>
    (await api<{ rows: QueueRow[] }>(server, 'queue:page', { filter, sort: SORT, offset, limit: 1, annotator: 'Paging E2E' })).rows[0]!;
  const list = () => page.getByRole('listbox', { name: 'Queue' });
  const held = async () => Number(await list().getAttribute('data-rows-held'));
  const options = () => page.locator('[role=option]').count();
  const selectedLabel = () => page.locator('[role=option][aria-selected=true]').getAttribute('aria-label');
  /** The renderer's rows never exceed the bound: its own count and the DOM's. */
  const expectBounded = async () => {
    expect(await held()).toBeLessThanOrEqual(BOUND);
    expect(await options()).toBeLessThanOrEqual(BOUND);
  };

  beforeAll(async () => {
    dir = tempDir('fb-e2e-paging-');
    const csv = path.join(dir, 'per_item.csv');
    generatePerItemCsv(csv);
    const project = path.join(dir, 'lab.flipbook');
    const p = openProject(project, { create: true });
    try {
      applyImportFiles(p, await readImportFiles([csv], {}), {});
    } finally {
      p.close();
    }
    server = await serve(project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('request', (r) => {
      const m = /\/api\/op\/(queue:[a-z]+)/.exec(decodeURIComponent(r.url()));
      if (!m) return;
      const body = r.postDataJSON() as { limit?: number } | null;
      asked.push({ op: m[1]!, limit: body?.limit ?? null });
    });
    page.on('response', async (r) => {
      if (!/\/api\/op\/queue:/.test(decodeURIComponent(r.url()))) return;
      const body = (await r.json().catch(() => null)) as { value?: { rows?: unknown[] } } | null;
      largestAnswer = Math.max(largestAnswer, body?.value?.rows?.length ?? 0);
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('scrolls to the end of 25,900 rows showing the backend’s rows, holding at most a few pages', async () => {
    // signIn polls: allowed in a test, not in beforeAll.
    await page.goto(`${server.url}#/queue`);
    await signIn(page, 'Paging E2E');
    const all: QueueFilter = { ...EMPTY_FILTER, preset: 'all' };
    const total = (await api<{ total: number }>(server, 'queue:page', { filter: all, sort: SORT, offset: 0, limit: 0 })).total;
    expect(total).toBe(25_900);
    expect(total).toBeGreaterThan(BOUND * 10);
    await page.getByLabel('Rows').selectOption('all');
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${total} shown of ${total})`);
    await expect.poll(() => page.locator('[role=option][data-index="0"]').getAttribute('aria-label')).toBe(label(await rowAt(all, 0)));
    await expectBounded();
    // Down the list in steps (each lands on pages not held yet), then to its very end.
    for (const frac of [0.1, 0.35, 0.6, 0.85, 1]) {
      await list().evaluate((el, f) => (el.scrollTop = f * (el.scrollHeight - el.clientHeight)), frac);
      const index = Math.min(total - 1, Math.floor(frac * (total - 1)));
      // The list renders the rows at the new scroll position once the scroll event has been
      // handled, which may come after the old rows were still shown and not busy.
      const firstShown = async () =>
        (await page.locator('[role=option]').count()) > 0 && (await list().getAttribute('aria-busy')) === 'false'
          ? Number(await page.locator('[role=option]').first().getAttribute('data-index'))
          : Number.NaN;
      await expect.poll(async () => Math.abs((await firstShown()) - index)).toBeLessThan(200);
      const first = await firstShown();
      await expect.poll(() => page.locator(`[role=option][data-index="${first}"]`).getAttribute('aria-label')).toBe(label(await rowAt(all, first)));
      await expectBounded();
    }
    await expect.poll(() => page.locator(`[role=option][data-index="${total - 1}"]`).getAttribute('aria-label')).toBe(label(await rowAt(all, total - 1)));
    await expectBounded();
  });

  it('ArrowDown/ArrowUp and Enter work across a page boundary, on rows fetched as the selection moves', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all' };
    await list().evaluate((el) => (el.scrollTop = 0));
    await page.locator('[role=option][data-index="0"]').waitFor();
    await list().focus();
    // From row 0 down past the first page's last row (QUEUE_PAGE_SIZE - 1) and back one.
    for (let i = 0; i < QUEUE_PAGE_SIZE + 1; i++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    const want = await rowAt(filter, QUEUE_PAGE_SIZE);
    await expect.poll(selectedLabel).toBe(label(want));
    await expectBounded();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => decodeURIComponent(window.location.hash))).toBe(`#/item/${want.model}/${want.split}/${want.sampleId}`);
    // The item view knows its place in the queue from the backend.
    await expect.poll(() => page.getByText(`${QUEUE_PAGE_SIZE + 1} of 25900 in queue`).count()).toBe(1);
    await page.goBack();
    await list().waitFor();
  });

  it('a filter change shows the backend’s first rows and counts, still within the bound', async () => {
    await page.getByLabel('Model', { exact: true }).selectOption('Qwen2.5-VL-7B');
    await page.getByLabel('Search queue').fill('mlvu-0001');
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', model: 'Qwen2.5-VL-7B', search: 'mlvu-0001' };
    const total = (await api<{ total: number }>(server, 'queue:page', { filter, sort: SORT, offset: 0, limit: 0 })).total;
    expect(total).toBeGreaterThan(0);
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${total} shown of 25900)`);
    await expect.poll(() => page.locator('[role=option][data-index="0"]').getAttribute('aria-label')).toBe(label(await rowAt(filter, 0)));
    await expectBounded();
    // The page never asked for the whole queue, never more than a page at once, and no answer was larger.
    expect(asked.filter((a) => a.op !== 'queue:page')).toEqual([]);
    expect(Math.max(...asked.map((a) => a.limit ?? Infinity))).toBeLessThanOrEqual(QUEUE_PAGE_SIZE);
    expect(largestAnswer).toBeLessThanOrEqual(QUEUE_PAGE_SIZE);
    expect(asked.length).toBeGreaterThan(5);
  });
});
