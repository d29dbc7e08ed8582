/**
 * An import as a job in the app (docs/architecture.md "Long work is a job"), real renderer +
 * real backend in Chromium: the Jobs list shows a running import of the bench's 145k-row
 * per_item.csv with a Cancel button; cancelling stops its worker and the project is exactly
 * as before. Meanwhile the page keeps its answers coming (the queue is read during the import).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { EMPTY_FILTER } from '../../shared/api/queue-filter';
import { generatePerItemCsv } from '../bench/generate-per-item';
import { api, chromiumMissingReason, launchBrowser, makeSampleProject, serve, type Served, signIn, stop } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('jobs in Chromium', () => {
  let sample: { dir: string; project: string };
  let server: Served;
  let browser: Browser;

  beforeAll(async () => {
    sample = makeSampleProject();
    server = await serve(sample.project);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('a running import can be cancelled from the Jobs list, and nothing changes', async () => {
    const big = path.join(sample.dir, 'per_item_big.csv');
    generatePerItemCsv(big);
    const before = await api(server, 'project:info', {});
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.url);
    await signIn(page, 'Grace Jobs');
    await page.goto(`${server.url}#/open`);
    await page.getByLabel('Files to import').fill(big);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const job = page.getByRole('listitem', { name: `import job ${big}` });
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 30_000 }).toBe('running');
    // The backend answers while the import's worker reads the file.
    const t0 = Date.now();
    await api(server, 'queue:page', { filter: { ...EMPTY_FILTER, preset: 'all' }, sort: { key: 'default', desc: false }, offset: 0, limit: 50 });
    expect(Date.now() - t0).toBeLessThan(2000);
    await job.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 60_000 }).toBe('cancelled');
    expect(await job.textContent()).toContain('nothing was imported');
    expect(await api(server, 'project:info', {})).toEqual(before);
    await page.close();
  }, 120_000);
});
