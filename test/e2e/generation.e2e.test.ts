/**
 * Open-ended audits end to end (docs/metrics.md §4): the real renderer against `flipbook serve`
 * in Debian's Chromium. On a project imported from an MLVU generation run in MLVU's own layouts,
 * the overview shows the run's flows, rates, score distribution per config and step patterns as
 * an independent computation from the files gives them, and a click on any flows bar (improved
 * or regressed, each transition), a pattern or a score band opens exactly its items. On a
 * project imported from an AVSD test set (DSTC7 layout, multi-references, three budgets, real
 * ffmpeg-made videos), the item view shows the dialogue history, the question, the references
 * and each budget's generated text with its score, and the keyboard flow of MCQA items works:
 * tag a pathway, mark a span on the video, set the status, go to the next item.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { mlvuSampleId } from '../../electron/importers/mlvu-id';
import { applyImportFiles, readImportFiles } from '../../electron/jobs/import-files';
import { openProject } from '../../electron/store/project';
import { expectedFlows, MODEL, writeMlvuGeneration, type ExpectedFlows } from '../mlvu-generation';
import { tempDir } from '../temp-dir';
import { api, chromiumMissingReason, launchBrowser, resultsDir, serve, type Served, signIn, stop } from './harness';
import type { AnnotationState } from '../../shared/api/contract';
import { routeHash } from '../../renderer/route';
import { binRange } from '../../shared/api/overview-marks';
import { AVSD_BUDGETS, AVSD_MODEL, expectedAvsd, writeAvsdRun, type AvsdExpected } from '../avsd-run';
import { f1Independent, tokensIndependent } from '../independent-f1';

/** The words of `text` sharing a token with its best reference (first on a tie), each reference token matched once, left to right. */
function sharedWordsIndependent(text: string, refs: readonly string[]): string[] {
  const best = refs.reduce((b, r) => (f1Independent(text, [r]) > f1Independent(text, [b]) ? r : b), refs[0]!);
  const left = tokensIndependent(best);
  return text
    .split(/\s+/)
    .filter((w) => w !== '')
    .filter((w) => {
      let hit = false;
      for (const t of tokensIndependent(w)) {
        const i = left.indexOf(t);
        if (i >= 0) {
          left.splice(i, 1);
          hit = true;
        }
      }
      return hit;
    });
}

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
    (
      await page
        .getByRole('listbox', { name: 'Queue' })
        .getByRole('option')
        .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))
    ).sort();

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

  it('the overview shows the run’s flows, and every bar of the flows chart opens exactly its items', async () => {
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
      expect(await row.getByRole('button', { name: `${t.regressed}: open regressed items of ${t.from} → ${t.to} (${where})` }).getAttribute('data-count')).toBe(
        String(t.regressed),
      );
      expect(Math.abs(Number(await row.locator('[data-net]').getAttribute('data-net')) - t.netPts)).toBeLessThan(1e-9);
    }
    const terminal = want.items.filter((x) => x.terminalRegression).length;
    expect(await page.getByRole('button', { name: `${terminal} items → open the terminal regressions items (${where})` }).getAttribute('data-count')).toBe(String(terminal));
    await shot('open-overview');

    // Every bar of the chart's canvas, improved and regressed of each transition, opens exactly its items.
    for (const t of want.transitions) {
      for (const kind of ['regressed', 'improved'] as const) {
        await page.goto(`${server.url}#/overview`);
        await page.locator('.overview-view[data-ready="true"]').waitFor();
        const chart = page.getByTestId(`flows-${MODEL}-MLVU_gen`);
        await chart.scrollIntoViewIfNeeded();
        await page.waitForFunction((id) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute('data-ready') === 'true', `flows-${MODEL}-MLVU_gen`);
        const marks = JSON.parse((await chart.getAttribute('data-marks')) ?? '{}') as Record<string, [number, number]>;
        const at = marks[`${kind}:${t.from}>${t.to}`];
        expect(at, `${kind} ${t.from}>${t.to}`).toBeDefined();
        await chart.click({ position: { x: at![0], y: at![1] } });
        await page.getByRole('listbox', { name: 'Queue' }).waitFor();
        const expected = want.items
          .filter((x) => (kind === 'regressed' ? x.regressedOn : x.improvedOn).includes(`${t.from}>${t.to}`))
          .map((x) => `${MODEL} MLVU_gen ${idOf(x)}`)
          .sort();
        expect(expected.length).toBe(kind === 'regressed' ? t.regressed : t.improved);
        await expect.poll(queueLabels).toEqual(expected);
        await expect.poll(() => page.getByLabel('Unsaved view').textContent()).toContain(`${kind} ${t.from} → ${t.to}`);
        if (t === want.transitions[0] && kind === 'regressed') await shot('open-regressed-queue');
      }
    }

    // The terminal-regression rate opens exactly the terminal regressions.
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    await page.getByRole('button', { name: `${terminal} items → open the terminal regressions items (${where})` }).click();
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(queueLabels).toEqual(
      want.items
        .filter((x) => x.terminalRegression)
        .map((x) => `${MODEL} MLVU_gen ${idOf(x)}`)
        .sort(),
    );
  });

  it('the queue’s default filter, in a fresh page, lists exactly the terminal regressions and the regressed items', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1500, height: 1600 } });
    try {
      const fresh = await ctx.newPage();
      await fresh.goto(`${server.url}#/queue`);
      await signIn(fresh, 'Ada Queue');
      const list = fresh.getByRole('listbox', { name: 'Queue' });
      await list.waitFor();
      const labels = async () => (await list.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))).sort();
      const expected = want.items
        .filter((x) => x.terminalRegression || x.regressed)
        .map((x) => `${MODEL} MLVU_gen ${idOf(x)}`)
        .sort();
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(want.items.length);
      await expect.poll(labels).toEqual(expected);
    } finally {
      await ctx.close();
    }
  });

  it('the overview shows each config’s score distribution and each step pattern as computed from the files, and a count opens exactly its items', async () => {
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const where = `${MODEL} / MLVU_gen`;
    const label = (x: ExpectedFlows['items'][number]) => `${MODEL} MLVU_gen ${idOf(x)}`;
    const bin = (s: number) => Math.min(9, Math.floor(s * 10));

    // Every non-empty band of every config, with its count; the empty ones show no button.
    const dist = page.getByRole('table', { name: `Score distribution: ${where}` });
    await dist.waitFor();
    const shown = await dist.getByRole('button').evaluateAll((els) => els.map((e) => `${e.getAttribute('aria-label')}=${e.getAttribute('data-count')}`));
    const expectedBands: string[] = [];
    want.configs.forEach((c, j) => {
      for (let b = 0; b < 10; b++) {
        const n = want.items.filter((x) => bin(x.scores[j]!) === b).length;
        if (n > 0) expectedBands.push(`${n} items scoring ${binRange(b)} at ${c} (${where})=${n}`);
      }
    });
    expect(shown.sort()).toEqual(expectedBands.sort());
    for (const [j, c] of want.configs.entries())
      expect(Math.abs(Number(await dist.locator('td[data-mean]').nth(j).getAttribute('data-mean')) - want.mean[j]!), c).toBeLessThan(1e-9);

    // Every pattern with its count.
    const counts = new Map<string, number>();
    for (const x of want.items) counts.set(x.pattern, (counts.get(x.pattern) ?? 0) + 1);
    const pats = page.getByRole('table', { name: `Step patterns: ${where}` });
    const rows = await pats
      .locator('tr[data-pattern]')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-pattern')}=${e.querySelector('button')?.getAttribute('data-count')}`));
    expect(rows.sort()).toEqual([...counts].map(([p, n]) => `${p}=${n}`).sort());

    // The most common pattern opens exactly its items.
    const [p, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
    await pats.getByRole('button', { name: `${n} items with pattern ${p} (${where})` }).click();
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(queueLabels).toEqual(
      want.items
        .filter((x) => x.pattern === p)
        .map(label)
        .sort(),
    );

    // The terminal config's lowest band opens exactly the items scoring in it there.
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const last = want.configs.length - 1;
    const low = Math.min(...want.items.map((x) => bin(x.scores[last]!)));
    const inLow = want.items.filter((x) => bin(x.scores[last]!) === low);
    await page.getByRole('button', { name: `${inLow.length} items scoring ${binRange(low)} at ${want.configs[last]} (${where})` }).click();
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(queueLabels).toEqual(inLow.map(label).sort());
  });
});

describe.skipIf(skipReason !== null)('an AVSD dialogue item in Chromium', () => {
  let want: AvsdExpected[];
  let server: Served;
  let browser: Browser;
  let page: Page;
  const annotator = 'Ada Dialogue';

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    const dir = tempDir('flipbook-e2e-avsd-');
    const run = writeAvsdRun(path.join(dir, 'avsd'));
    want = expectedAvsd(run);
    // One short real video per dialog, named as Charades names them (<image_id>.mp4).
    const media = path.join(dir, 'media');
    fs.mkdirSync(media);
    for (const x of want) {
      const id = x.sampleId.replace(/_\d+$/, '');
      execFileSync(process.env.FLIPBOOK_FFMPEG ?? 'ffmpeg', [
        '-v',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=size=320x240:rate=10',
        '-t',
        '3',
        '-pix_fmt',
        'yuv420p',
        '-c:v',
        'libx264',
        '-g',
        '10',
        path.join(media, `${id}.mp4`),
      ]);
    }
    const file = path.join(dir, 'avsd.flipbook');
    const p = openProject(file, { create: true });
    try {
      applyImportFiles(p, await readImportFiles([run.reference, run.multiref, ...run.results.map((r) => r.path)], {}), {});
      p.setSetting('mediaRoot', media);
    } finally {
      p.close();
    }
    server = await serve(file);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('shows history, question, references and each budget’s text with its score; the keyboard flow tags, marks a span, sets the status and moves on', async () => {
    // The item with the largest drop between budgets: the one an auditor opens first.
    const drop = (x: AvsdExpected) => Math.max(...x.scores) - x.scores[x.scores.length - 1]!;
    const x = [...want].sort((a, b) => drop(b) - drop(a))[0]!;
    expect(drop(x)).toBeGreaterThan(0.05);
    const item = { model: AVSD_MODEL, split: 'AVSD', sampleId: x.sampleId };
    await page.goto(`${server.url}${routeHash({ view: 'item', item })}`);
    await signIn(page, annotator);
    await page.getByTestId('item-view').waitFor();
    const panel = page.getByRole('region', { name: 'Generation item' });
    await panel.waitFor();

    // The dialogue so far, turn by turn; the current question; the references.
    const turns = panel.getByRole('list', { name: `Earlier turns (${x.history.length})` }).getByRole('listitem');
    await expect.poll(() => turns.count()).toBe(x.history.length);
    for (const [i, t] of x.history.entries()) {
      expect(await turns.nth(i).textContent()).toContain(t.question);
      expect(await turns.nth(i).textContent()).toContain(t.answer);
    }
    expect(await panel.getByLabel('Question').textContent()).toContain(x.question);
    const refs = panel.getByRole('list', { name: `Reference answers (${x.references.length})` }).getByRole('listitem');
    expect(await refs.allTextContents()).toEqual(x.references);

    // One row per budget: its text (words shared with the best reference marked) and its score.
    const table = panel.getByRole('table', { name: 'Generations per config' });
    for (const [j, frames] of AVSD_BUDGETS.entries()) {
      const row = table.locator(`tr[data-config="${frames}f"]`);
      expect((await row.locator('td.text').textContent())?.trim()).toBe(x.texts[j]);
      expect(Math.abs(Number(await row.getAttribute('data-score')) - x.scores[j]!)).toBeLessThan(1e-9);
      expect(await row.locator('td.score').textContent()).toContain(x.scores[j]!.toFixed(2));
    }
    // The marked words are the ones the text shares with its best reference, as computed here.
    for (const [j, frames] of AVSD_BUDGETS.entries()) {
      const marked = (await table.locator(`tr[data-config="${frames}f"] td.text mark`).allTextContents()).map((w) => w.trim());
      expect(marked, `${frames}f`).toEqual(sharedWordsIndependent(x.texts[j]!, x.references));
    }
    expect(await table.locator('mark').count()).toBeGreaterThan(0);
    // The regression at a glance: the terminal budget's row says how far it fell below the best.
    const last = table.locator(`tr[data-config="${AVSD_BUDGETS[AVSD_BUDGETS.length - 1]}f"]`);
    expect(await last.getAttribute('class')).toContain('below-best');
    expect(await last.locator('.drop-by').textContent()).toContain((Math.max(...x.scores) - x.scores[x.scores.length - 1]!).toFixed(2));
    await page.screenshot({ path: path.join(resultsDir, 'avsd-item.png'), fullPage: true });

    // The keyboard flow: pathway (d), a span on the video (i … e), status done (v), next item (j).
    await page.getByRole('group', { name: 'Player controls' }).waitFor();
    await page.locator('body').press('d');
    await page.keyboard.press('i');
    for (let k = 0; k < 5; k++) await page.keyboard.press('.');
    await page.keyboard.press('e');
    await page.keyboard.press('v');
    await expect
      .poll(async () => {
        const st = await api<AnnotationState>(server, 'annotation:state', { ...item, annotator });
        return { status: st.status, pathways: st.pathways, spans: st.spans.length, wide: (st.spans[0]?.endS ?? 0) > (st.spans[0]?.startS ?? 0) };
      })
      .toEqual({ status: 'done', pathways: ['evidence-dilution'], spans: 1, wide: true });
    const before = page.url();
    await page.keyboard.press('j');
    await expect.poll(() => page.url()).not.toBe(before);
    await page.getByRole('region', { name: 'Generation item' }).waitFor();
  });
});
