/**
 * Workspace states beyond the main audit flow, real renderer + real backend
 * in Chromium: the Import form (detected format, counts, warnings; a rejected file names
 * file:line:field and changes nothing), an item whose video is missing, strip legends and
 * hover-to-enlarge with the full-size frame, and a project opened read-only because another
 * Flipbook process holds it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { api, chromiumMissingReason, launchBrowser, makeSampleProject, resultsDir, serve, type Served, signIn, stop, queueRows } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

interface Row {
  model: string;
  split: string;
  sampleId: string;
  hasVideo: boolean;
  flags: { terminalRegression: boolean };
}
interface Info {
  models: string[];
  nItems: number;
}
const itemHash = (r: { model: string; split: string; sampleId: string }) => `#/item/${[r.model, r.split, r.sampleId].map(encodeURIComponent).join('/')}`;

describe.skipIf(skipReason !== null)('workspace states in Chromium', () => {
  let sample: { dir: string; project: string };
  let server: Served;
  let browser: Browser;
  let missingVideo: string;

  async function newPage(s: Served, annotator = 'Grace E2E'): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
    await page.goto(s.url);
    await signIn(page, annotator);
    return page;
  }
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    sample = makeSampleProject();
    // One video goes missing (moved away) before the server starts.
    const media = path.join(sample.dir, 'media');
    const first = fs
      .readdirSync(media)
      .filter((f) => f.endsWith('.mp4'))
      .sort()[0]!;
    missingVideo = path.join(media, first);
    fs.renameSync(missingVideo, `${missingVideo}.moved`);
    server = await serve(sample.project);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('imports a per_item.csv through the form (format, counts, warnings); a rejected file names file:line:field and changes nothing', async () => {
    const page = await newPage(server);
    await page.goto(`${server.url}#/open`);
    const header = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
    const good = path.join(sample.dir, 'per_item.csv');
    fs.writeFileSync(
      good,
      [
        header,
        'csv-1,CsvModel,CsvSplit,textonly,0,0,A,A,1,t,',
        'csv-1,CsvModel,CsvSplit,8f_151k,8,151000,B,A,0,t,',
        'csv-2,CsvModel,CsvSplit,textonly,0,0,C,C,1,t,',
        'csv-2,CsvModel,CsvSplit,8f_151k,8,151000,C,C,1,t,',
        // a repeated identical row: ignored, with a warning
        'csv-2,CsvModel,CsvSplit,8f_151k,8,151000,C,C,1,t,',
      ].join('\n') + '\n',
    );
    await page.getByLabel('Files to import').fill(good);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const job = page.getByRole('listitem', { name: `import job ${good}` });
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 60_000 }).not.toBe('running');
    expect(await job.getAttribute('data-state'), (await job.textContent()) ?? '').toBe('ok');
    const text = (await job.textContent()) ?? '';
    expect(text).toContain('format per-item-csv');
    expect(text).toMatch(/added \d+ items, 4 responses; 2 configs in 1 split of 1 model \(2 new grid columns/);
    expect(await job.getByRole('list', { name: 'Warnings' }).textContent()).toContain('repeated identical row');
    expect(await job.getByRole('progressbar').getAttribute('value')).toBe('1');

    // Two files at once: each file's own line says where it is, and the bar is full at done.
    const two = ['a', 'b'].map((x) => {
      const f = path.join(sample.dir, `per_item_${x}.csv`);
      fs.writeFileSync(f, [header, `two-${x},CsvModel,CsvSplit,textonly,0,0,A,A,1,t,`, `two-${x},CsvModel,CsvSplit,8f_151k,8,151000,B,A,0,t,`].join('\n') + '\n');
      return f;
    });
    await page.getByLabel('Files to import').fill(two.join('\n'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const twoJob = page.getByRole('listitem', { name: `import job ${two.join(', ')}` });
    await expect.poll(() => twoJob.getAttribute('data-state'), { timeout: 60_000 }).toBe('ok');
    const perFile = twoJob.getByRole('list', { name: `Files of import ${two.join(', ')}` }).getByRole('listitem');
    expect(await perFile.evaluateAll((li) => li.map((x) => x.getAttribute('data-state')))).toEqual(['imported', 'imported']);
    const bar = twoJob.getByRole('progressbar');
    expect(await bar.getAttribute('value')).toBe(await bar.getAttribute('max'));
    expect((await twoJob.textContent()) ?? '').toMatch(/added 2 items, 4 responses; 2 configs in 1 split of 1 model \(no new grid column\)/);

    const after = await api<Info>(server, 'project:info', {});
    expect(after.models).toContain('CsvModel');
    const rowsAfter = (await queueRows<Row>(server)).length;
    await shot(page, 'import-form');

    // A bad row on line 3 (field `correct`): the whole file is refused, the project unchanged.
    const bad = path.join(sample.dir, 'bad_per_item.csv');
    fs.writeFileSync(bad, [header, 'bad-1,BadModel,BadSplit,textonly,0,0,A,A,1,t,', 'bad-1,BadModel,BadSplit,8f_151k,8,151000,B,A,maybe,t,'].join('\n') + '\n');
    await page.getByLabel('Files to import').fill(bad);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const badJob = page.getByRole('listitem', { name: `import job ${bad}` });
    await expect.poll(() => badJob.getAttribute('data-state'), { timeout: 60_000 }).toBe('error');
    const alert = (await badJob.getByRole('alert').textContent()) ?? '';
    expect(alert).toContain(`${bad}:3: correct:`);
    const unchanged = await api<Info>(server, 'project:info', {});
    expect(unchanged.models).not.toContain('BadModel');
    expect(unchanged).toEqual(after);
    expect((await queueRows<Row>(server)).length).toBe(rowsAfter);
    await shot(page, 'import-rejected');
    await page.close();
  });

  it('opens an item whose video is missing with a clear message where the video and strips go', async () => {
    const rows = await queueRows<Row>(server);
    const row = rows.find((r) => !r.hasVideo && r.model.startsWith('Sim'));
    expect(row).toBeDefined();
    const page = await newPage(server);
    await page.goto(`${server.url}${itemHash(row!)}`);
    await page.getByTestId('item-view').waitFor();
    const msg = page.getByRole('alert', { name: 'No video' });
    await msg.waitFor();
    expect(await msg.textContent()).toContain(`video not found: ${missingVideo}`);
    expect(await page.getByRole('group', { name: 'Frame strips' }).count()).toBe(0);
    expect(await page.locator('video').count()).toBe(0);
    // The rest of the item still works: question, predictions, tagging.
    expect(await page.getByRole('table', { name: 'Predictions per config' }).locator('tbody tr').count()).toBeGreaterThan(1);
    await page.locator('body').press('m');
    await expect.poll(() => page.getByRole('button', { name: 'Evidence missed (m)' }).getAttribute('aria-pressed')).toBe('true');
    await shot(page, 'item-missing-video');
    await page.close();
  });

  it("names each strip's sampler, and hover enlarges a tile with its full-size frame", async () => {
    const rows = await queueRows<Row>(server);
    const row = rows.find((r) => r.hasVideo && r.flags.terminalRegression)!;
    const page = await newPage(server);
    await page.goto(`${server.url}${itemHash(row)}`);
    await page.getByTestId('item-view').waitFor();
    await page.locator('.tile').first().waitFor();
    await expect.poll(() => page.locator('.tile[data-approximate="true"]').count(), { timeout: 60_000 }).toBe(0);
    const text = page.getByLabel('Sampler of textonly');
    if ((await text.count()) > 0) expect(await text.textContent()).toBe('text only — no frames');
    const samplers = await page.locator('.strip .sampler').allTextContents();
    expect(samplers.length).toBeGreaterThan(1);
    for (const s of samplers) expect(s).not.toBe('sampler unknown');
    expect(samplers.filter((s) => s !== 'text only — no frames').every((s) => /uniform|scalegrid|random|explicit/.test(s))).toBe(true);

    // The sparsest strip with frames: its tiles do not overlap, so the pointer lands on one.
    const counts = await page.locator('.strip').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-frames'))));
    const sparse = counts.reduce((best, n, i) => (n > 1 && (best < 0 || n < (counts[best] ?? 0)) ? i : best), -1);
    const tile = page.locator('.strip').nth(sparse).locator('.tile').nth(1);
    const index = await tile.getAttribute('data-index');
    await tile.hover();
    const zoom = page.getByRole('figure', { name: `Enlarged frame ${index}` });
    await zoom.waitFor();
    await expect.poll(() => zoom.getAttribute('data-full'), { timeout: 30_000 }).toBe('true');
    const video = await api<{ video: { width: number } }>(server, 'item:get', { model: row.model, split: row.split, sampleId: row.sampleId });
    await expect.poll(() => zoom.locator('img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(video.video.width);
    await shot(page, 'item-hover-full-frame');
    await page.mouse.move(0, 0);
    await expect.poll(() => zoom.count()).toBe(0);
    await page.close();
  });

  it('a project another Flipbook holds opens read-only: banner, tagging and span controls disabled', async () => {
    const second = await serve(sample.project);
    try {
      const info = await api<{ readOnly: boolean; readOnlyReason: string | null }>(second, 'project:info', {});
      expect(info.readOnly).toBe(true);
      expect(info.readOnlyReason).toContain(`pid ${server.child.pid}`);
      const rows = await queueRows<Row>(second);
      const row = rows.find((r) => r.hasVideo && r.flags.terminalRegression)!;
      const page = await newPage(second, 'Reader E2E');
      await page.goto(`${second.url}${itemHash(row)}`);
      await page.getByTestId('item-view').waitFor();
      const banner = page.getByRole('alert', { name: 'Read-only' });
      await banner.waitFor();
      expect(await banner.textContent()).toContain('another Flipbook');
      const countBtn = page.getByRole('button', { name: 'Count inflation (c)' });
      expect(await countBtn.isDisabled()).toBe(true);
      expect(await page.getByLabel('Status').isDisabled()).toBe(true);
      expect(await page.getByLabel('Notes').isDisabled()).toBe(true);
      expect(await page.getByRole('radio', { name: 'Confidence 3' }).isDisabled()).toBe(true);
      // Keys do not write either: the toggle stays off and the reason is shown.
      // The banner is the one place that says why (no second copy in the header).
      await page.locator('body').press('c');
      expect(await countBtn.getAttribute('aria-pressed')).toBe('false');
      expect(await page.locator('.notice', { hasText: 'Read-only' }).count()).toBe(0);
      const st = await api<{ pathways: string[] }>(second, 'annotation:state', { model: row.model, split: row.split, sampleId: row.sampleId, annotator: 'Reader E2E' });
      expect(st.pathways).toEqual([]);
      await shot(page, 'item-read-only');
      await page.close();
    } finally {
      await stop(second);
    }
  });
});
