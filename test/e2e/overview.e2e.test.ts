/**
 * The overview and saved views end to end: the real renderer against
 * `flipbook serve` on the sample project in Debian's Chromium. Expected numbers come from the
 * engine run on the same project file, never typed in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openProject } from '../../electron/store/project';
import { transitions, type Transition } from '../../shared/engine/mcqa';
import { matchedGridMetrics, proposeMatchedGrid } from '../../shared/engine/matched-grid';
import { completeRows } from '../../shared/engine/matrix';
import { chromiumMissingReason, launchBrowser, makeSampleProject, resultsDir, serve, type Served, signIn, stop } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

interface Expected {
  transitions: Map<string, Transition[]>;
  /** model → sample ids harmed by the chosen transition */
  harmedItems: string[];
  harmedTransition: Transition;
  harmedModel: string;
  split: string;
  matched: { model: string; n: number; headroom: number; confusion: number }[];
}

function expectedFromEngine(project: string): Expected {
  const p = openProject(project, { readOnly: true });
  try {
    const grids = p.listGrids().filter((g) => g.kind === 'mcqa');
    const trs = new Map<string, Transition[]>();
    let pick: { model: string; split: string; t: Transition } | null = null;
    for (const g of grids) {
      const ts = transitions(p.loadMatrix(g.model, g.split));
      trs.set(`${g.model}/${g.split}`, ts);
      // The ladder transition with the most harmed items: the mark the test clicks.
      const ladderish = ts.filter((t, i) => i === 0 || t.from !== ts[0]?.from);
      for (const t of ladderish) if (!pick || t.harmed > pick.t.harmed) pick = { model: g.model, split: g.split, t };
    }
    if (!pick || pick.t.harmed === 0) throw new Error('the sample project has no harmed flow to click');
    const m = p.loadMatrix(pick.model, pick.split);
    const C = m.configs.length;
    const a = m.configs.findIndex((c) => c.key === pick!.t.from);
    const b = m.configs.findIndex((c) => c.key === pick!.t.to);
    const harmedItems: string[] = [];
    for (const r of completeRows(m).rows) if (m.correct[r * C + a] === 1 && m.correct[r * C + b] === 0) harmedItems.push(m.itemIds[r]!);
    const proposal = proposeMatchedGrid(grids);
    const ms = grids.filter((g) => g.split === pick!.split).map((g) => p.loadMatrix(g.model, g.split));
    const mg = matchedGridMetrics(ms, proposal.configs);
    return {
      transitions: trs,
      harmedItems: harmedItems.sort(),
      harmedTransition: pick.t,
      harmedModel: pick.model,
      split: pick.split,
      matched: mg.perModel.map((x) => ({ model: x.model, n: x.metrics.n, headroom: x.metrics.oracleHeadroomPts, confusion: x.metrics.visualConfusionRate })),
    };
  } finally {
    p.close();
  }
}

describe.skipIf(skipReason !== null)('overview and saved views in Chromium', () => {
  let sample: { dir: string; project: string };
  let expected: Expected;
  let server: Served;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });
  const queueLabels = async () =>
    (
      await page
        .getByRole('listbox', { name: 'Queue' })
        .getByRole('option')
        .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
    ).sort();

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    sample = makeSampleProject();
    expected = expectedFromEngine(sample.project);
    server = await serve(sample.project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1500, height: 1100 }, acceptDownloads: true });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('shows the engine’s flows and matched grid, and a harmed flow opens exactly its items', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Ada Overview');
    await page.locator('.overview-view[data-ready="true"]').waitFor();

    // Every transition of every grid, as the engine computes it.
    for (const [key, ts] of expected.transitions) {
      const [model, split] = key.split('/') as [string, string];
      const table = page.getByRole('table', { name: `Transitions: ${model} / ${split}` });
      for (const t of ts) {
        const row = table.locator(`tr[data-transition="${t.from}>${t.to}"]`);
        expect(await row.getByRole('button', { name: `Open harmed items of ${t.from} → ${t.to} (${model} / ${split})` }).getAttribute('data-count')).toBe(String(t.harmed));
        expect(await row.getByRole('button', { name: `Open rescued items of ${t.from} → ${t.to} (${model} / ${split})` }).getAttribute('data-count')).toBe(String(t.rescued));
        expect(Number(await row.locator('[data-net]').getAttribute('data-net'))).toBeCloseTo(t.netPts, 9);
        expect(Number(await row.locator('[data-p]').getAttribute('data-p'))).toBeCloseTo(t.mcnemarP, 12);
      }
    }

    // The matched-grid table across models.
    const mg = page.getByRole('table', { name: 'Matched-grid metrics' });
    for (const x of expected.matched) {
      const row = mg.locator(`tr[data-model="${x.model}"][data-split="${expected.split}"]`);
      expect(Number(await row.getAttribute('data-n'))).toBe(x.n);
      expect(Number(await row.getAttribute('data-headroom'))).toBeCloseTo(x.headroom, 9);
      expect(Number(await row.getAttribute('data-confusion'))).toBeCloseTo(x.confusion, 12);
    }
    // The cascade is drawn (the sample records confidence) with its held-out figure.
    await expect.poll(() => page.locator('.cascade-summary').first().textContent()).toContain('Held out');
    await shot('overview');

    // Any chart exports as PNG, SVG and CSV (the flows chart of the clicked grid here).
    const flowsLabel = `Accuracy and flows: ${expected.harmedModel} / ${expected.split}`;
    const read = async (name: string) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name }).click()]);
      return fs.readFileSync((await d.path())!);
    };
    expect((await read(`Export ${flowsLabel} as SVG`)).toString('utf8')).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect((await read(`Export ${flowsLabel} as PNG`)).subarray(1, 4).toString('latin1')).toBe('PNG');
    const csv = (await read(`Export ${flowsLabel} numbers as CSV`)).toString('utf8');
    const tHarm = expected.harmedTransition;
    expect(csv).toContain(`${expected.harmedModel},${expected.split},${tHarm.from},${tHarm.to},${tHarm.rescued},${tHarm.harmed},`);

    // Click the harmed bar on the chart's canvas, at the pixel the chart reports for that mark.
    const t = expected.harmedTransition;
    const chart = page.getByTestId(`flows-${expected.harmedModel}-${expected.split}`);
    await chart.scrollIntoViewIfNeeded();
    await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-ready') === 'true', `flows-${expected.harmedModel}-${expected.split}`);
    const marks = JSON.parse((await chart.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    const at = marks[`harmed:${t.from}>${t.to}`];
    expect(at).toBeDefined();
    await chart.click({ position: { x: at![0], y: at![1] } });

    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    const want = expected.harmedItems.map((id) => `${expected.harmedModel} ${expected.split} ${id}`).sort();
    await expect.poll(queueLabels).toEqual(want);
    await expect.poll(() => page.getByLabel('Unsaved view').textContent()).toContain(`harmed ${t.from} → ${t.to}`);
    expect(await page.getByLabel('Transition').inputValue()).toBe(`${t.from}>${t.to}`);
    await shot('overview-harmed-queue');
  });

  it('saves the view, which survives a reload and can be renamed and deleted', async () => {
    const want = expected.harmedItems.map((id) => `${expected.harmedModel} ${expected.split} ${id}`).sort();
    await page.getByLabel('View name').fill('harmed flow');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('button', { name: 'Apply view harmed flow' }).waitFor();

    // Change the queue to something else, reload, and get the saved view back from the project.
    await page.getByLabel('Transition').selectOption('');
    await expect.poll(async () => (await queueLabels()).length).not.toBe(want.length);
    await page.reload();
    await page.getByRole('button', { name: 'Apply view harmed flow' }).click();
    await expect.poll(queueLabels).toEqual(want);
    await shot('saved-view-after-reload');

    await page.getByRole('button', { name: 'Rename view harmed flow' }).click();
    await page.getByLabel('New name for harmed flow').fill('worst transition');
    await page.getByRole('button', { name: 'Confirm rename of harmed flow' }).click();
    await page.getByRole('button', { name: 'Apply view worst transition' }).waitFor();
    await page.getByRole('button', { name: 'Delete view worst transition' }).click();
    await expect.poll(() => page.getByRole('list', { name: 'Saved view list' }).getByRole('listitem').count()).toBe(0);
  });
});
