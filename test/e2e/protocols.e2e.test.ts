/**
 * Protocols in the overview (docs/metrics.md §6), end to end: the real renderer against
 * `flipbook serve` in Debian's Chromium, on the release's real Qwen2.5-VL-7B V1_short letters
 * (Video-MME's answers from a real lmms-eval log) with a sampling variant (`@random`) and a
 * raw-pipeline variant (`@raw`) imported beside them. The Protocols panel's counts are the
 * engine's; clicking one opens exactly the items that changed membership, clicking the
 * recovery opens exactly the recovered terminal regressions; choosing another main protocol
 * recomputes the headline numbers on its grid. Expected values come from the engine run on
 * the same project file, never typed in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openProject } from '../../electron/store/project';
import { mcqaMetrics } from '../../shared/engine/mcqa';
import { compareProtocols, type ProtocolReport } from '../../shared/engine/protocols';
import { realFixturesPresent } from '../real-fixtures';
import { tempDir } from '../temp-dir';
import { chromiumMissingReason, flipbookCli, launchBrowser, resultsDir, serve, type Served, signIn, stop } from './harness';

const fixtures = path.resolve(__dirname, '../../../shared/fixtures');
const wide = path.join(fixtures, 'scalegrid/labels/aggregated/Qwen2.5-VL-7B_V1_short_predictions_wide.csv');
const lmmsLog = path.join(fixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const skipReason = chromiumMissingReason() ?? (realFixturesPresent('protocols e2e', wide, lmmsLog) ? null : 'real fixtures absent');
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const MODEL = 'Qwen2.5-VL-7B';
const SPLIT = 'V1_short';
const WHERE = `${MODEL} / ${SPLIT}`;
const SEED = 3131;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Variant wide CSVs from the release's letters: a cell keeps the main letter, or (12%) the answer, or (12%) another letter. */
function writeVariants(dir: string): string[] {
  const answer = new Map<string, string>();
  for (const line of fs.readFileSync(lmmsLog, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const s = (JSON.parse(line) as { videomme_perception_score: { question_id: string; answer: string } }).videomme_perception_score;
    answer.set(s.question_id, s.answer);
  }
  const [head, ...rows] = fs
    .readFileSync(wide, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  const col = (c: string) => head!.indexOf(c);
  const rnd = mulberry32(SEED);
  const out: string[] = [];
  for (const [tag, budgets] of [
    ['random', ['64f_151k', '256f_151k']],
    ['raw', ['32f_151k', '256f_151k']],
  ] as const) {
    const lines = [['sample_id', ...budgets.map((b) => `${b}@${tag}`)].join(',')];
    for (const r of rows) {
      const gt = answer.get(r[0]!)!;
      lines.push(
        [
          r[0],
          ...budgets.map((b) => {
            const u = rnd();
            return u < 0.12 ? gt : u < 0.24 ? 'ABCD'.replace(gt, '')[Math.floor(rnd() * 3)]! : r[col(b)]!;
          }),
        ].join(','),
      );
    }
    const file = path.join(dir, tag, `${MODEL}_${SPLIT}_predictions_wide.csv`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    out.push(file);
  }
  return out;
}

describe.skipIf(skipReason !== null)('protocols in the overview (Chromium)', () => {
  let project = '';
  let report: ProtocolReport;
  let server: Served;
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });
  /** Every row of the (virtualised) queue: its labels read while it scrolls from top to bottom. */
  const queueLabels = async () => {
    const list = page.getByRole('listbox', { name: 'Queue' });
    const seen = new Set<string>();
    await list.evaluate((el) => (el.scrollTop = 0));
    for (;;) {
      for (const l of await list.getByRole('option').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''))) seen.add(l);
      const done = await list.evaluate((el) => el.scrollTop + el.clientHeight >= el.scrollHeight - 1);
      if (done) break;
      await list.evaluate((el) => (el.scrollTop += el.clientHeight / 2));
      // The rows for the new scroll position: wait until the listbox shows them (not a sleep).
      await expect.poll(() => list.getAttribute('aria-busy')).toBe('false');
    }
    return [...seen].sort();
  };
  const labelsOf = (ids: readonly string[]) => ids.map((id) => `${MODEL} ${SPLIT} ${id}`).sort();

  beforeAll(async () => {
    console.log(`protocols e2e: variant letters from mulberry32 seed ${SEED}`);
    fs.mkdirSync(resultsDir, { recursive: true });
    const dir = tempDir('flipbook-e2e-protocols-');
    project = path.join(dir, 'protocols.flipbook');
    const r = flipbookCli('import', wide, ...writeVariants(dir), '--ground-truth', lmmsLog, '--project', project);
    if (r.status !== 0) throw new Error(`import failed:\n${r.stderr}`);
    const p = openProject(project, { readOnly: true });
    try {
      report = compareProtocols(p.loadMatrix(MODEL, SPLIT, { allProtocols: true }), '')!;
    } finally {
      p.close();
    }
    server = await serve(project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it("shows each variant's agreement and recovery; a count opens exactly the items that changed membership", async () => {
    await page.goto(`${server.url}#/overview`);
    await signIn(page, 'Ada Protocols');
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const table = page.getByRole('table', { name: `Protocols: ${WHERE}` });
    await table.scrollIntoViewIfNeeded();
    expect(report.variants.map((v) => v.protocol)).toEqual(['random', 'raw']);
    for (const v of report.variants) {
      const a = v.agreement!;
      for (const [set, label] of [
        ['confused', 'visually confused'],
        ['terminalRegression', 'terminal regression'],
        ['textOverwritten', 'text overwritten'],
      ] as const) {
        const x = a[set]!;
        await table.getByRole('button', { name: `${x.onlyMain.length} items ${label} in the main grid only, not under @${v.protocol} (${WHERE})` }).waitFor();
        await table.getByRole('button', { name: `${x.onlyVariant.length} items ${label} under @${v.protocol} only (${WHERE})` }).waitFor();
      }
    }
    await shot('overview-protocols');

    // Entered the confused set under @random: exactly those items in the queue.
    const random = report.variants[0]!;
    const entered = random.agreement!.confused.onlyVariant;
    expect(entered.length).toBeGreaterThan(0);
    await table.getByRole('button', { name: `${entered.length} items visually confused under @random only (${WHERE})` }).click();
    await page.getByRole('listbox', { name: 'Queue' }).waitFor();
    await expect.poll(queueLabels).toEqual(labelsOf(entered));
    await expect.poll(() => page.getByLabel('Unsaved view').textContent()).toContain('visually confused under @random only');
    await shot('protocols-entered-queue');

    // Left the terminal-regression set under @raw.
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const left = report.variants[1]!.agreement!.terminalRegression.onlyMain;
    expect(left.length).toBeGreaterThan(0);
    await page
      .getByRole('table', { name: `Protocols: ${WHERE}` })
      .getByRole('button', { name: `${left.length} items terminal regression in the main grid only, not under @raw (${WHERE})` })
      .click();
    await expect.poll(queueLabels).toEqual(labelsOf(left));

    // Sampling recovery: the main grid's terminal regressions @random answers correctly.
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const rec = random.recovery;
    expect(rec.recovered).toBeGreaterThan(0);
    await page
      .getByRole('table', { name: `Protocols: ${WHERE}` })
      .getByRole('button', { name: `${rec.recovered} of ${rec.regressions} terminal regressions recovered by @random (${WHERE})` })
      .click();
    await expect.poll(queueLabels).toEqual(labelsOf(rec.recoveredItems));
  });

  it('choosing another main protocol recomputes the headline numbers on its grid', async () => {
    await page.goto(`${server.url}#/overview`);
    await page.locator('.overview-view[data-ready="true"]').waitFor();
    const p = openProject(project, { readOnly: true });
    let want: ReturnType<typeof mcqaMetrics>;
    try {
      want = mcqaMetrics(p.loadMatrix(MODEL, SPLIT, { protocol: 'random' }));
    } finally {
      p.close();
    }
    expect(want.configs).toEqual(['textonly', '64f_151k@random', '256f_151k@random']);
    await page.getByLabel('Main protocol').selectOption('random');
    const rates = page.getByLabel(`Rates: ${WHERE}`);
    await expect
      .poll(() => rates.getByRole('button', { name: new RegExp(`→ open the terminal regressions items \\(${WHERE}\\)`) }).textContent())
      .toBe(`${want.counts.terminalRegressions} items →`);
    expect(await rates.getByRole('button', { name: new RegExp(`→ open the visual confusion items`) }).textContent()).toBe(`${want.counts.visuallyConfused} items →`);
    // The protocols panel now compares the untagged and raw protocols with @random's grid.
    await expect
      .poll(() =>
        page
          .getByRole('table', { name: `Protocols: ${WHERE}` })
          .locator('tr[data-protocol]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-protocol'))),
      )
      .toEqual(['', 'raw']);
    await shot('overview-main-random');
    // Back to the default, through the same control.
    await page.getByLabel('Main protocol').selectOption('');
    await expect
      .poll(() =>
        page
          .getByRole('table', { name: `Protocols: ${WHERE}` })
          .locator('tr[data-protocol]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-protocol'))),
      )
      .toEqual(['random', 'raw']);
  });
});
