/**
 * The overview of a grid with many items, end to end: the answer of overview:get stays bounded
 * (pattern rows, no item rows), the heatmap draws one row per pattern plus a rest row, and a
 * mouse click on a pattern row or on the rest row (at the pixel the chart reports) opens the
 * queue on exactly those items. The per_item.csv is written here with each item's pattern
 * chosen by a seeded generator, so the expected items come from the generator, not the app.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../temp-dir';
import type { Browser, Page } from 'playwright-core';
import { HEATMAP_PATTERN_ROWS, type Overview } from '../../shared/api/overview';
import { mulberry32 } from '../../shared/engine/prng';
import { api, chromiumMissingReason, flipbookCli, launchBrowser, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const N = 1500;
const CONFIGS: [string, number][] = [
  ['textonly', 0],
  ['8f', 8],
  ['16f', 16],
  ['32f', 32],
  ['64f', 64],
  ['128f', 128],
];
const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';

/** Item id → its pattern over CONFIGS (1 correct): skewed, so pattern counts differ and all 64 occur. */
function patterns(): Map<string, string> {
  const rnd = mulberry32(7);
  const out = new Map<string, string>();
  for (let i = 0; i < N; i++) {
    const skill = rnd();
    out.set(`it-${String(i).padStart(5, '0')}`, CONFIGS.map((_, j) => (rnd() < 0.25 + 0.6 * skill + 0.02 * j ? '1' : '0')).join(''));
  }
  return out;
}

function perItemCsv(ps: Map<string, string>): string {
  const lines = [HEADER];
  for (const [id, p] of ps) CONFIGS.forEach(([key, frames], j) => lines.push([id, 'M', 'S', key, frames, '', p[j] === '1' ? 'A' : 'B', 'A', p[j], '', ''].join(',')));
  return `${lines.join('\n')}\n`;
}

describe.skipIf(skipReason !== null)('overview of a grid with many items in Chromium', () => {
  let dir: string;
  let server: Served;
  let browser: Browser;
  let page: Page;
  const ps = patterns();
  const idsWhere = (keep: (p: string) => boolean) => new Set([...ps].filter(([, p]) => keep(p)).map(([id]) => id));

  beforeAll(async () => {
    dir = tempDir('flipbook-overview-scale-');
    const project = path.join(dir, 'many.flipbook');
    fs.writeFileSync(path.join(dir, 'many.csv'), perItemCsv(ps));
    const r = flipbookCli('import', path.join(dir, 'many.csv'), '--project', project);
    if (r.status !== 0) throw new Error(`import failed:\n${r.stdout}\n${r.stderr}`);
    server = await serve(project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  /** Clicks heatmap mark `key` and checks the queue shows exactly `want` (count, and every row it draws). */
  async function clickRowAndCheck(key: string, want: Set<string>, label: string): Promise<void> {
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready=true]').waitFor();
    const heatmap = page.getByTestId('heatmap-M-S');
    await heatmap.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect.poll(() => heatmap.getAttribute('data-ready')).toBe('true');
    const marks = JSON.parse((await heatmap.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    expect(Object.keys(marks)).toContain(key);
    const box = (await heatmap.boundingBox())!;
    await page.mouse.click(box.x + marks[key]![0], box.y + marks[key]![1]);
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${want.size} shown of`);
    await expect.poll(() => page.getByLabel('Unsaved view').textContent()).toContain(`${label} (M / S)`);
    const shown = await page
      .getByRole('listbox', { name: 'Queue' })
      .getByRole('option')
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
    expect(shown.length).toBeGreaterThan(0);
    for (const s of shown) expect(want.has(s.replace(/^M S /, '')), s).toBe(true);
  }

  it('answers with pattern rows and a rest row, not one row per item', async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Scale E2E');
    await page.locator('.overview-view[data-ready=true]').waitFor();
    const g = (await api<Overview>(server, 'overview:get', {})).grids[0]!;
    expect(g.metrics!.n).toBe(N);
    expect(g.heatmap.items).toBeNull();
    expect(g.heatmap.patterns).toHaveLength(HEATMAP_PATTERN_ROWS);
    expect(g.heatmap.rest!.patterns).toBe(new Set(ps.values()).size - HEATMAP_PATTERN_ROWS);
    // A few hundred bytes per pattern row, whatever N is (one row per item would be ~100 kB here).
    expect(JSON.stringify(g.heatmap).length).toBeLessThan(HEATMAP_PATTERN_ROWS * 200);
    for (const r of g.heatmap.patterns) expect(r.n, r.pattern).toBe(idsWhere((p) => p === r.pattern).size);
    // Only patterns: no choice of one row per item, and the chart publishes one mark per drawn row.
    expect(await page.getByLabel('Rows of Trajectory heatmap: M / S').count()).toBe(0);
    const heatmap = page.getByTestId('heatmap-M-S');
    await expect.poll(() => heatmap.getAttribute('data-ready')).toBe('true');
    const marks = JSON.parse((await heatmap.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
    expect(Object.keys(marks).sort()).toEqual([...g.heatmap.patterns.map((r) => `pattern:${r.pattern}`), 'pattern:rest'].sort());
    // A pattern row's tooltip names its pattern and count.
    const top = g.heatmap.patterns[0]!;
    await heatmap.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const box = (await heatmap.boundingBox())!;
    const at = marks[`pattern:${top.pattern}`]!;
    await page.mouse.move(box.x + at[0], box.y + at[1]);
    const tip = page.locator('[data-testid="heatmap-M-S"] div').filter({ hasText: `${top.n} items with pattern ${top.pattern}` });
    await tip.first().waitFor();
  });

  it('does not ask the backend again for a cascade the answer already settles (none: no confidence recorded)', async () => {
    const asked: string[] = [];
    const onRequest = (r: import('playwright-core').Request) => {
      if (r.url().includes('/api/op/overview%3Acascade') || r.url().includes('/api/op/overview:cascade')) asked.push(r.postData() ?? '');
    };
    page.on('request', onRequest);
    try {
      await page.goto(`${server.url}#/overview`);
      await page.locator('.overview-view[data-ready=true]').waitFor();
      const cascade = page.getByRole('group', { name: 'Confidence cascade: M / S' });
      await cascade.scrollIntoViewIfNeeded();
      await expect.poll(() => cascade.getByRole('note').textContent()).toContain('no confidence or margin is recorded');
      await expect.poll(() => page.getByTestId('heatmap-M-S').getAttribute('data-ready')).toBe('true');
      // Each grid's reading of its whole matrix per view is what the stored answer is for.
      expect(asked).toEqual([]);
      // Another reference is the user's question: that one is asked.
      await page.getByLabel('Reference budget: M / S').selectOption('64f');
      await expect.poll(() => asked.length).toBe(1);
      expect(JSON.parse(asked[0]!)).toMatchObject({ model: 'M', split: 'S', reference: '64f' });
      await expect.poll(() => cascade.getByRole('note').textContent()).toContain('no confidence or margin is recorded');
    } finally {
      page.off('request', onRequest);
    }
  });

  it('a pattern row opens exactly the items with that pattern', async () => {
    const g = (await api<Overview>(server, 'overview:get', {})).grids[0]!;
    const row = g.heatmap.patterns[3]!;
    await clickRowAndCheck(
      `pattern:${row.pattern}`,
      idsWhere((p) => p === row.pattern),
      `pattern ${row.pattern}`,
    );
  });

  it('the rest row opens exactly the items of the patterns not listed', async () => {
    const g = (await api<Overview>(server, 'overview:get', {})).grids[0]!;
    const listed = new Set(g.heatmap.patterns.map((r) => r.pattern));
    const want = idsWhere((p) => !listed.has(p));
    expect(want.size).toBe(g.heatmap.rest!.n);
    await clickRowAndCheck('pattern:rest', want, 'other patterns');
  });
});
