/**
 * The hand-off between two annotators: annotator A exports a release without the benchmark's
 * text (the default); annotator B, with the same videos under a media root of their own,
 * imports it and audits. B's item view plays the video and draws exactly A's strips (the
 * same frame indices per config, every tile exact), says which file brings the question text,
 * and imports it from the item view — the file chosen with the web mode's file chooser.
 * Against the real backend (`flipbook serve`), real ffmpeg-made videos and Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { ItemDetail, ProjectInfo } from '../../shared/api/contract';
import { barcodeVideo } from '../electron/frames/barcode-video';
import { tempDir } from '../temp-dir';
import { api, chromiumMissingReason, flipbookCli, launchBrowser, repoRoot, resultsDir, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

interface V1Row {
  video_id: string;
  videoID: string;
  duration: string;
  domain: string;
  sub_category: string;
  question_id: string;
  task_type: string;
  question: string;
  options: string[];
  answer: string;
}
const QUESTIONS: V1Row[] = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/formats/video-mme/questions.json'), 'utf8'));
const MODEL = 'Qwen2.5-VL-7B';
const item = { model: MODEL, split: 'V1_short', sampleId: '001-1' };
const cli = (...args: string[]) => {
  const r = flipbookCli(...args);
  if (r.status !== 0) throw new Error(`flipbook ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
};

describe.skipIf(skipReason !== null)('hand-off: a release without text, imported by a second annotator', () => {
  let dir: string;
  let a: Served;
  let b: Served;
  let browser: Browser;
  let parquet: string;

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    dir = tempDir('flipbook-handoff-');
    // The same videos in two annotators' own folders, named as Video-MME names them (<videoID>.mp4).
    for (const media of ['a-media', 'b-media']) fs.mkdirSync(path.join(dir, media));
    for (const id of new Set(QUESTIONS.map((q) => q.videoID))) {
      const v = barcodeVideo({ name: `handoff-${id}.mp4`, frames: 300, fps: 25, gop: 50 });
      for (const media of ['a-media', 'b-media']) fs.copyFileSync(v, path.join(dir, media, `${id}.mp4`));
    }
    // Video-MME's question table, as Hugging Face serves it.
    const col = (k: keyof V1Row) => ({ name: k, data: QUESTIONS.map((r) => r[k] as string), type: 'STRING' as const });
    fs.mkdirSync(path.join(dir, 'videomme'));
    parquet = path.join(dir, 'videomme', 'test-00000-of-00001.parquet');
    fs.writeFileSync(
      parquet,
      new Uint8Array(
        parquetWriteBuffer({
          columnData: [
            col('video_id'),
            col('duration'),
            col('domain'),
            col('sub_category'),
            col('videoID'),
            col('question_id'),
            col('task_type'),
            col('question'),
            { name: 'options', data: QUESTIONS.map((r) => r.options) },
            col('answer'),
          ],
        }),
      ),
    );
    // A's results: a text-only run, a run that recorded the frames it saw, and one that did not (its sampler picks them).
    const lines = ['sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,frame_indices'];
    for (const q of QUESTIONS) {
      const split = `V1_${q.duration}`;
      lines.push(`${q.question_id},${MODEL},${split},textonly,0,0,${q.answer},${q.answer},1,t,,`);
      lines.push(`${q.question_id},${MODEL},${split},8f_151k,8,151000,B,${q.answer},${q.answer === 'B' ? 1 : 0},t,,3 40 77 114 151 188 225 262`);
      lines.push(`${q.question_id},${MODEL},${split},16f_151k,16,151000,${q.answer},${q.answer},1,t,,`);
    }
    fs.writeFileSync(path.join(dir, 'per_item.csv'), `${lines.join('\n')}\n`);
    const pa = path.join(dir, 'a.flipbook');
    cli('import', parquet, '--project', pa, '--split', 'V1_{duration}');
    cli('import', path.join(dir, 'per_item.csv'), '--project', pa);
    a = await serve(pa);
    await api(a, 'settings:set', { key: 'mediaRoot', value: path.join(dir, 'a-media') });
    // The default export: no benchmark text.
    await api(a, 'export:run', { jobId: 'handoff-export', outDir: path.join(dir, 'release') });
    expect(fs.existsSync(path.join(dir, 'release/labels/items.csv'))).toBe(false);
    const pb = path.join(dir, 'b.flipbook');
    cli('import', path.join(dir, 'release'), '--project', pb);
    b = await serve(pb);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (a) await stop(a);
    if (b) await stop(b);
  });

  it('B sets the media root with the file chooser; the item plays, draws A’s exact strips, and imports its question text in place', async () => {
    const page: Page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(b.url);
    await signIn(page, 'Bea Second');
    // The Project view: no video yet, and which file brings the question text.
    await page.goto(`${b.url}#/open`);
    await expect.poll(() => page.getByLabel('Video coverage').textContent()).toMatch(/^0 of 6 items have video/);
    await expect
      .poll(() => page.getByRole('group', { name: 'Question text of V1_short' }).textContent())
      .toMatch(/Video-MME's question table videomme\/test-00000-of-00001\.parquet/);
    // Browse… opens the server's folder browser (a page cannot learn a path from the browser's own picker).
    const browse = (field: string) =>
      page
        .locator('.path-field')
        .filter({ has: page.getByRole('textbox', { name: field, exact: true }) })
        .getByRole('button', { name: 'Browse…' });
    await browse('Media root').click();
    const chooser = page.getByRole('dialog', { name: 'Choose: Media root' });
    await expect.poll(() => chooser.getByLabel('Current folder').textContent()).toBe(fs.realpathSync(dir));
    await chooser.getByRole('option', { name: /b-media/ }).dblclick();
    await expect.poll(() => chooser.getByLabel('Current folder').textContent()).toBe(fs.realpathSync(path.join(dir, 'b-media')));
    await page.screenshot({ path: path.join(resultsDir, 'hand-off-chooser.png') });
    await chooser.getByRole('button', { name: 'Choose this folder' }).click();
    expect(await page.getByRole('textbox', { name: 'Media root', exact: true }).inputValue()).toBe(fs.realpathSync(path.join(dir, 'b-media')));
    await page.getByRole('button', { name: 'Set media root' }).click();
    await expect.poll(() => page.getByLabel('Video coverage').textContent()).toMatch(/^6 of 6 items have video/);
    const info = await api<ProjectInfo>(b, 'project:info', {});
    expect(info.itemsWithVideo).toBe(6);

    // B's item is A's: the video, and the same frames for every config (recorded and sampled).
    const da = await api<ItemDetail>(a, 'item:get', item);
    const db = await api<ItemDetail>(b, 'item:get', item);
    expect(db.video).not.toBeNull();
    expect(db.videoError).toBeNull();
    expect(db.frames).toEqual(da.frames);
    expect(db.configs.map((c) => c.sampler)).toEqual(da.configs.map((c) => c.sampler));
    expect(db.frames.find((f) => f.config === '16f_151k')?.indices).toHaveLength(16);

    await page.goto(`${b.url}#/item/${MODEL}/V1_short/001-1`);
    await page.getByTestId('item-view').waitFor();
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 2);
    // Every tile exact, at A's indices.
    for (const f of da.frames.filter((x) => x.indices.length > 0)) {
      const strip = page.getByRole('group', { name: `Strip ${f.config}` });
      await expect.poll(() => strip.locator('.tile[data-approximate="false"]').count(), { timeout: 30_000 }).toBe(f.indices.length);
      const shown = await strip.locator('.tile').evaluateAll((ts) => ts.map((t) => Number((t as HTMLElement).dataset.index)));
      expect(shown.sort((x, y) => x - y)).toEqual([...f.indices].sort((x, y) => x - y));
    }

    // No question text: the item view says which file brings it and imports it in place.
    const q = page.getByRole('group', { name: 'Question text of V1_short' });
    await expect.poll(() => q.textContent()).toMatch(/not in this project.*Video-MME's question table/);
    await q.getByRole('button', { name: 'Import it…' }).click();
    await browse('Question file for V1_short').click();
    const pick = page.getByRole('dialog', { name: 'Choose: Question file for V1_short' });
    await pick.getByRole('option', { name: /videomme/ }).dblclick();
    await pick.getByRole('option', { name: /test-00000-of-00001\.parquet/ }).click();
    await pick.getByRole('button', { name: 'Choose file' }).click();
    await q.getByRole('button', { name: 'Import question file' }).click();
    const expected = QUESTIONS.find((x) => x.question_id === '001-1')!;
    await expect.poll(() => page.locator('.question').textContent(), { timeout: 30_000 }).toBe(expected.question);
    await expect.poll(() => page.getByLabel('Options').textContent()).toContain(expected.options[0]!.replace(/^A\. /, ''));
    await page.screenshot({ path: path.join(resultsDir, 'hand-off-item.png') });
  });
});
