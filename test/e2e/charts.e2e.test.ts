/**
 * Overview charts end to end: a cascade point opens exactly the items behind it, a heatmap row
 * opens its item (real mouse clicks on the canvas, at the pixel the chart reports), and the overview follows an import made
 * while it is open (data:changed). A small per_item.csv written here, the real CLI import,
 * `flipbook serve` and Chromium; expected counts come from the backend's own answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { Overview, OverviewCascade } from '../../shared/api/overview';
import { ladderTransitions } from '../../shared/api/overview-marks';
import { api, chromiumMissingReason, flipbookCli, launchBrowser, serve, signIn, stop, type Served } from './harness';
import { tempDir } from '../temp-dir';

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

/** Eleven configs, the release's budget ladder plus mixed resolutions that dominance does not order against it. */
const WIDE: [string, number, number][] = [
  ['textonly', 0, 0],
  ['8f_151k', 8, 151000],
  ['16f_151k', 16, 151000],
  ['32f_151k', 32, 151000],
  ['64f_151k', 64, 151000],
  ['128f_76k', 128, 76000],
  ['256f_38k', 256, 38000],
  ['32f_302k', 32, 302000],
  ['16f_604k', 16, 604000],
  ['8f_1208k', 8, 1208000],
  ['4f_2416k', 4, 2416000],
];
/** ModelC on split W: six items, item i right at config j when (i + 2j) mod 5 is not 0, so accuracies are sixths (16.666…%). */
function wideCsv(): string {
  const lines = [HEADER];
  for (let i = 0; i < 6; i++)
    WIDE.forEach(([key, frames, pixels], j) => {
      const ok = (i + 2 * j) % 5 !== 0;
      lines.push([`w-${i}`, 'ModelC', 'W', key, frames, pixels || '', ok ? 'A' : 'B', 'A', ok ? 1 : 0, '', '', ''].join(','));
    });
  return `${lines.join('\n')}\n`;
}

describe.skipIf(skipReason !== null)('overview charts in Chromium', () => {
  let dir: string;
  let project: string;
  let server: Served;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    dir = tempDir('flipbook-charts-');
    project = path.join(dir, 'charts.flipbook');
    fs.writeFileSync(path.join(dir, 'a.csv'), perItemCsv('ModelA'));
    fs.writeFileSync(path.join(dir, 'b.csv'), perItemCsv('ModelB'));
    fs.writeFileSync(path.join(dir, 'c.csv'), wideCsv());
    const r = flipbookCli('import', path.join(dir, 'a.csv'), path.join(dir, 'c.csv'), '--project', project);
    if (r.status !== 0) throw new Error(`import failed:\n${r.stdout}\n${r.stderr}`);
    server = await serve(project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
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
    // Its tooltip gives the point's numbers rounded (79.17%, never 79.16666666666666%).
    await page.mouse.move(box.x + marks[key]![0], box.y + marks[key]![1]);
    const tip = page.locator('[data-testid="cascade-ModelA-S"] div').filter({ hasText: 'mean frames' });
    await tip.first().waitFor();
    const tipText = (await tip.first().textContent()) ?? '';
    expect(tipText).toContain(`accuracy ${(100 * point.accuracy).toFixed(2)}% at ${point.meanSharedCost.toFixed(2)} mean frames`);
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

  it('with 11 configs: every config is labelled on the heatmap and flows axes, the accuracy line joins only the ladder, tooltips round', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Charts E2E');
    await page.locator('.overview-view[data-ready=true]').waitFor();
    const grid = (await api<Overview>(server, 'overview:get', {})).grids.find((g) => g.model === 'ModelC' && g.split === 'W')!;
    const configs = grid.metrics!.configs;
    expect([...configs].sort()).toEqual(WIDE.map(([k]) => k).sort());
    const ladder = ladderTransitions(grid.transitions);
    const onLadder = new Set([ladder[0]!.from, ...ladder.map((t) => t.to)]);
    // The engine leaves some of these configs off the ladder, or the line check below proves nothing.
    expect(onLadder.size).toBeGreaterThan(1);
    expect(onLadder.size).toBeLessThan(configs.length);
    const svgOf = async (label: string) => {
      const [d] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: `Export ${label} as SVG` }).click()]);
      return fs.readFileSync((await d.path())!, 'utf8');
    };
    const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);
    // The SVG export draws the chart's own option: its text is what the axis shows.
    for (const label of ['Trajectory heatmap: ModelC / W', 'Accuracy and flows: ModelC / W']) {
      const shown = texts(await svgOf(label));
      expect
        .soft(
          configs.filter((c) => !shown.includes(c)),
          `${label}: configs without an axis label`,
        )
        .toEqual([]);
    }
    // The accuracy line has one vertex per ladder config; the others are points of their own.
    const flows = await svgOf('Accuracy and flows: ModelC / W');
    const lines = [...flows.matchAll(/<path d="([^"]*)"[^>]*stroke="#2b4c9b"[^>]*stroke-width="3"/g)].map((m) => (m[1]!.match(/[ML]/g) ?? []).length);
    expect.soft(Math.max(...lines), 'vertices of the accuracy line').toBe(onLadder.size);
    // Tooltips: numbers rounded (16.67%, not 16.666666666666664%), and an off-ladder point says why it is apart.
    const chart = page.getByTestId('flows-ModelC-W');
    await chart.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect.poll(() => chart.getAttribute('data-ready')).toBe('true');
    const marks = JSON.parse((await chart.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    const box = (await chart.boundingBox())!;
    const off = configs.find((c) => !onLadder.has(c))!;
    for (const c of [ladder[0]!.to, off]) {
      const [x, y] = marks[`accuracy:${c}`]!;
      await page.mouse.move(box.x + x, box.y + y);
      const acc = (100 * grid.metrics!.accuracy[c]!).toFixed(2);
      const tip = page.locator('[data-testid="flows-ModelC-W"] div').filter({ hasText: `${c}: ${acc}%` });
      await tip.first().waitFor();
      const text = (await tip.first().textContent()) ?? '';
      expect(text).not.toMatch(/\d\.\d{3,}/);
      expect(text.includes('not ordered against the ladder')).toBe(c === off);
    }
  });

  it('refreshes when an import lands while the overview is open (data:changed)', async () => {
    expect(await page.getByRole('region', { name: 'Overview: ModelB / S' }).count()).toBe(0);
    await api(server, 'import:run', { jobId: 'e2e-import-b', paths: [path.join(dir, 'b.csv')] });
    await page.getByRole('region', { name: 'Overview: ModelB / S' }).waitFor();
  });
});
