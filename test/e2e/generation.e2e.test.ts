/**
 * Open-ended audits end to end (docs/metrics.md §4): the real renderer against `flipbook serve`
 * in Debian's Chromium, on a project imported from an MLVU generation run in MLVU's own layouts.
 * The overview shows the run's flows and rates as an independent computation from the files
 * gives them, and a click on a flows bar opens exactly that transition's regressed items.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { mlvuSampleId } from '../../electron/importers/mlvu-id';
import { applyImportFiles, readImportFiles } from '../../electron/jobs/import-files';
import { openProject } from '../../electron/store/project';
import { expectedFlows, MODEL, writeMlvuGeneration, type ExpectedFlows } from '../mlvu-generation';
import { tempDir } from '../temp-dir';
import { chromiumMissingReason, launchBrowser, resultsDir, serve, type Served, signIn, stop } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('open-ended flows in Chromium', () => {
  let want: ExpectedFlows;
  const idOf = (x: ExpectedFlows['items'][number]) => mlvuSampleId(x.key.video, x.key.question);
  let server: Served;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });
  const queueLabels = async () =>
    (await page.getByRole('listbox', { name: 'Queue' }).getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))).sort();

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    const dir = tempDir('flipbook-e2e-gen-');
    const run = writeMlvuGeneration(path.join(dir, 'mlvu'));
    want = expectedFlows(run);
    const file = path.join(dir, 'gen.flipbook');
    const p = openProject(file, { create: true });
    try {
      const read = [...(await readImportFiles(run.meta, {})), ...(await Promise.all(run.results.map((r) => readImportFiles([r.path], r.opts)))).flat()];
      applyImportFiles(p, read, {});
    } finally {
      p.close();
    }
    server = await serve(file);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('the overview shows the run’s flows, and a regressed bar opens exactly its items', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Ada Open');
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const where = `${MODEL} / MLVU_gen`;
    await expect.poll(() => page.getByLabel(`Score: ${where}`).textContent()).toContain('token_f1');

    // The transitions table and the rates, as computed from the files.
    const table = page.getByRole('table', { name: `Transitions: ${where}` });
    for (const t of want.transitions) {
      const row = table.locator(`tr[data-transition="${t.from}>${t.to}"]`);
      expect(await row.getByRole('button', { name: `${t.improved}: open improved items of ${t.from} → ${t.to} (${where})` }).getAttribute('data-count')).toBe(String(t.improved));
      expect(await row.getByRole('button', { name: `${t.regressed}: open regressed items of ${t.from} → ${t.to} (${where})` }).getAttribute('data-count')).toBe(String(t.regressed));
      expect(Math.abs(Number(await row.locator('[data-net]').getAttribute('data-net')) - t.netPts)).toBeLessThan(1e-9);
    }
    const terminal = want.items.filter((x) => x.terminalRegression).length;
    expect(await page.getByRole('button', { name: `${terminal} items → open the terminal regressions items (${where})` }).getAttribute('data-count')).toBe(String(terminal));
    await shot('open-overview');

    // Click the regressed bar of the first transition on the chart's canvas.
    const t = want.transitions[0]!;
    const chart = page.getByTestId(`flows-${MODEL}-MLVU_gen`);
    await chart.scrollIntoViewIfNeeded();
    await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-ready') === 'true', `flows-${MODEL}-MLVU_gen`);
    const marks = JSON.parse((await chart.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    const at = marks[`regressed:${t.from}>${t.to}`];
    expect(at).toBeDefined();
    await chart.click({ position: { x: at![0], y: at![1] } });
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    const expected = want.items
      .filter((x) => x.regressedOn.includes(`${t.from}>${t.to}`))
      .map((x) => `${MODEL} MLVU_gen ${idOf(x)}`)
      .sort();
    expect(expected.length).toBe(t.regressed);
    await expect.poll(queueLabels).toEqual(expected);
    await expect.poll(() => page.getByLabel('Unsaved view').textContent()).toContain(`regressed ${t.from} → ${t.to}`);
    await shot('open-regressed-queue');

    // The terminal-regression rate opens exactly the terminal regressions.
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    await page.getByRole('button', { name: `${terminal} items → open the terminal regressions items (${where})` }).click();
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(queueLabels).toEqual(want.items.filter((x) => x.terminalRegression).map((x) => `${MODEL} MLVU_gen ${idOf(x)}`).sort());
  });
});
