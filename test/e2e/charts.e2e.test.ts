/**
 * Overview charts end to end: a cascade point opens exactly the items behind it, a heatmap row
 * opens its item (real mouse clicks on the canvas, at the pixel the chart reports), and the overview follows an import made
 * while it is open (data:changed). A small per_item.csv written here, the real CLI import,
 * `flipbook serve` and Chromium; expected counts come from the backend's own answers.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { OverviewCascade } from '../../shared/api/overview';
import { api, chromiumMissingReason, launchBrowser, repoRoot, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const HOSTILE = '<a href=http://evil.example/>pwn</a><b style=color:red>bold</b>';
const IDS = [HOSTILE, 'item-2', 'item-3', 'item-4', 'item-5', 'item-6'];
const CONFIGS: [string, number][] = [
  ['textonly', 0],
  ['8f', 8],
  ['16f', 16],
];
const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence';

/** One per_item.csv of a model: item i is right at config j when (i + j) is not a multiple of 3. */
function perItemCsv(model: string): string {
  const lines = [HEADER];
  IDS.forEach((id, i) =>
    CONFIGS.forEach(([key, frames], j) => {
      const ok = (i + j) % 3 !== 0;
      const conf = frames === 0 ? '' : (0.3 + ((i * 7 + j * 5) % 10) / 15).toFixed(3);
      lines.push([`"${id}"`, model, 'S', key, frames, '', ok ? 'A' : 'B', 'A', ok ? 1 : 0, '', '', conf].join(','));
    }),
  );
  return `${lines.join('\n')}\n`;
}

describe.skipIf(skipReason !== null)('overview charts in Chromium', () => {
  let dir: string;
  let project: string;
  let server: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flipbook-charts-'));
    project = path.join(dir, 'charts.flipbook');
    fs.writeFileSync(path.join(dir, 'a.csv'), perItemCsv('ModelA'));
    fs.writeFileSync(path.join(dir, 'b.csv'), perItemCsv('ModelB'));
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'import', path.join(dir, 'a.csv'), '--project', project], { cwd: repoRoot, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`import failed:\n${r.stdout}\n${r.stderr}`);
    server = await serve(project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('opens exactly the items behind a cascade point', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Charts E2E');
    await page.locator('.overview-view[data-ready=true]').waitFor();
    const cascade = page.getByTestId('cascade-ModelA-S');
    await cascade.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect.poll(() => cascade.getAttribute('data-ready')).toBe('true');
    const marks = JSON.parse((await cascade.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    const c = (await api<{ cascade: OverviewCascade | null }>(server, 'overview:cascade', { model: 'ModelA', split: 'S', budgets: ['8f', '16f'], reference: '16f' })).cascade!;
    const point = c.pareto[0]!;
    const key = `tau:${point.tau === null ? '∞' : point.tau.toFixed(4)}`;
    expect(Object.keys(marks)).toContain(key);
    const box = (await cascade.boundingBox())!;
    await page.mouse.click(box.x + marks[key]![0], box.y + marks[key]![1]);
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${point.correct} shown of`);
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready=true]').waitFor();
  });

  it('opens the item of a clicked heatmap row (a mouse click on the canvas, at the row the chart reports)', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Charts E2E');
    await page.locator('.overview-view[data-ready=true]').waitFor();
    const heatmap = page.getByTestId('heatmap-ModelA-S');
    await page.getByLabel('Sort Trajectory heatmap: ModelA / S').selectOption('sampleId');
    await expect.poll(() => heatmap.getAttribute('data-ready')).toBe('true');
    // Centred: the sticky bars at the top must not sit over the rows the mouse goes to.
    await heatmap.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const marks = JSON.parse((await heatmap.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    // Every row has its place, in sample-id order top to bottom.
    expect(Object.keys(marks)).toEqual([...IDS].sort().map((id) => `row:${id}`));
    const box = (await heatmap.boundingBox())!;
    for (const id of ['item-3', 'item-6']) {
      const [x, y] = marks[`row:${id}`]!;
      await page.mouse.click(box.x + x, box.y + y);
      await page.getByTestId('item-view').waitFor();
      expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/item/ModelA/S/${id}`);
      expect(await page.locator('.item-title').textContent()).toContain(id);
      await page.goBack();
      await page.locator('.overview-view[data-ready=true]').waitFor();
      await expect.poll(() => heatmap.getAttribute('data-ready')).toBe('true');
      await heatmap.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    }
  });

  it('refreshes when an import lands while the overview is open (data:changed)', async () => {
    expect(await page.getByRole('region', { name: 'Overview: ModelB / S' }).count()).toBe(0);
    await api(server, 'import:run', { jobId: 'e2e-import-b', paths: [path.join(dir, 'b.csv')] });
    await page.getByRole('region', { name: 'Overview: ModelB / S' }).waitFor();
  });
});
