/**
 * The team workflow end to end: a codebook edit bumps the version; two
 * annotators' exported bundles (a release folder and a zip, made from copies of the sample
 * project) merge with no edit lost and their κ shown; adjudication resolves a conflict and
 * keeps everyone's labels. Real renderer, real `flipbook serve`, Debian's Chromium.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openProject } from '../../electron/store/index';
import { exportRelease } from '../../electron/release/export';
import { api, chromiumMissingReason, launchBrowser, makeSampleProject, resultsDir, serve, type Served, signIn, stop } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

interface TeamItem {
  labels: { annotator: string; primaryPathway: string | null; pathways: string[]; notes: string; codebookVersion: number | null }[];
  resolution: { adjudicator: string; primary: string | null } | null;
}

describe.skipIf(skipReason !== null)('team workflow in Chromium', () => {
  let sample: { dir: string; project: string };
  let server: Served;
  let browser: Browser;
  let page: Page;
  let grid: { model: string; split: string };
  let items: string[];
  const bundles: { bob: string; carol: string } = { bob: '', carol: '' };
  // Bob: x x y y; Carol: x y y y on the primary pathway → raw agreement ¾, Cohen κ = ½ (hand-computed).
  const X = 'evidence-missed';
  const Y = 'temporal-misorder';
  const labels = { bob: [X, X, Y, Y], carol: [X, Y, Y, Y] };
  const shot = (name: string) => page.screenshot({ path: path.join(resultsDir, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    sample = makeSampleProject();
    // Each annotator works on a copy of the project on their own machine, then exports.
    for (const who of ['bob', 'carol'] as const) {
      const file = path.join(sample.dir, `${who}.flipbook`);
      fs.copyFileSync(sample.project, file);
      const p = openProject(file);
      if (!grid) {
        const g = p.listGrids()[0]!;
        grid = { model: g.model, split: g.split };
        items = p
          .listItems({ split: g.split })
          .map((i) => i.sampleId)
          .slice(0, 4);
      }
      items.forEach((sampleId, i) => {
        const it = { ...grid, sampleId };
        p.annotations.apply({ op: 'setPrimary', ...it, pathway: labels[who][i]! }, who);
        p.annotations.apply({ op: 'setNotes', ...it, notes: `${who} note ${i}` }, who);
        p.annotations.apply({ op: 'setStatus', ...it, status: 'done' }, who);
      });
      const out = path.join(sample.dir, `${who}-release`);
      await exportRelease(p, out, { zip: who === 'carol' });
      bundles[who] = who === 'carol' ? `${out}.zip` : out;
      p.close();
    }
    server = await serve(sample.project);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('a codebook edit bumps the version; colliding keys are refused before saving', async () => {
    await page.goto(server.url);
    await signIn(page, 'Ada Adjudicator');
    await page.getByRole('link', { name: 'Codebook' }).click();
    await page.getByTestId('codebook-view').waitFor();
    const before = await api<{ version: number }>(server, 'codebook:get', {});
    await expect.poll(() => page.getByTestId('codebook-version').textContent()).toBe(`version ${before.version}`);

    // A key that is already an app shortcut (j = next item) is named and blocks saving.
    await page.getByLabel(`Key of ${X}`).fill('j');
    await expect.poll(() => page.getByLabel('Codebook problems').textContent()).toContain('"j" is already an app shortcut');
    expect(await page.getByRole('button', { name: 'Save codebook' }).isDisabled()).toBe(true);
    await page.getByLabel(`Key of ${X}`).fill('m');

    await page.getByLabel(`Label of ${X}`).fill('Evidence missed (no sampled frame in the span)');
    await page.getByRole('button', { name: 'Save codebook' }).click();
    await expect.poll(() => page.getByTestId('codebook-version').textContent()).toBe(`version ${before.version + 1}`);
    const after = await api<{ version: number; pathways: { id: string; label: string }[] }>(server, 'codebook:get', {});
    expect(after.version).toBe(before.version + 1);
    expect(after.pathways.find((p) => p.id === X)?.label).toBe('Evidence missed (no sampled frame in the span)');
    await shot('team-codebook-edited');
  });

  it("merges two annotators' bundles with no edit lost (twice = no change) and shows their κ", async () => {
    await page.getByRole('link', { name: 'Project' }).click();
    // A merge is a job in a worker thread: under load it takes longer than expect.poll's default second.
    const merge = async (bundle: string) => {
      await page.getByLabel('Bundle path').fill(bundle);
      await page.getByRole('button', { name: 'Merge annotations' }).click();
    };
    // An export carries each annotator's whole event log (annotations/events.jsonl): three edits per item.
    const edits = items.length * 3;
    await merge(bundles.bob);
    await expect.poll(() => page.getByLabel('Merge result').textContent(), { timeout: 30_000 }).toContain(`Merged bob: ${edits} added, 0 already present; 0 open conflicts`);
    await merge(bundles.carol);
    await expect.poll(() => page.getByLabel('Merge result').textContent(), { timeout: 30_000 }).toContain(`Merged carol: ${edits} added, 0 already present; 1 open conflicts`);
    await shot('team-merged');
    // The same bundle again adds nothing.
    await merge(bundles.bob);
    await expect.poll(() => page.getByLabel('Merge result').textContent(), { timeout: 30_000 }).toContain(`Merged bob: 0 added, ${edits} already present`);

    // Nobody's edits were lost: each annotator's labels and notes are in the project.
    for (const [i, sampleId] of items.entries()) {
      const t = await api<TeamItem>(server, 'team:item', { ...grid, sampleId });
      expect(t.labels.map((l) => [l.annotator, l.primaryPathway, l.notes])).toEqual([
        ['bob', labels.bob[i], `bob note ${i}`],
        ['carol', labels.carol[i], `carol note ${i}`],
      ]);
    }

    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByTestId('team-view').waitFor();
    await expect.poll(() => page.getByLabel('Cohen kappa primary bob carol').textContent()).toBe('0.500');
    const table = page.getByRole('table', { name: `Agreement ${grid.model} ${grid.split} bob × carol` });
    expect(await table.locator('caption').textContent()).toContain('4 items labelled by both');
    expect(await table.locator('tr.primary-row').textContent()).toContain('75.0%');
    await shot('team-agreement');
  });

  it('adjudication resolves the conflict, records the adjudicator and keeps the originals', async () => {
    const conflictItem = items[1]!;
    const name = `${grid.model} ${grid.split} ${conflictItem}`;
    expect(await page.getByTestId('open-conflicts').textContent()).toBe('1');
    const row = page.getByRole('listitem', { name: `Conflict ${name}` });
    await row.waitFor();
    await page.getByLabel(`Resolved primary for ${name}`).selectOption(Y);
    await page.getByLabel(`Adjudication note for ${name}`).fill('the order of events decides it');
    await shot('team-conflict');
    await page.getByRole('button', { name: `Resolve ${name}` }).click();
    await expect.poll(() => page.getByTestId('open-conflicts').textContent()).toBe('0');
    await expect.poll(() => row.count()).toBe(0);

    const conflicts = await api<{ conflicts: { sampleId: string; resolution: { adjudicator: string; primary: string } | null }[] }>(server, 'team:conflicts', {});
    expect(conflicts.conflicts).toHaveLength(1);
    expect(conflicts.conflicts[0]?.resolution).toMatchObject({ adjudicator: 'Ada Adjudicator', primary: Y });
    const t = await api<TeamItem>(server, 'team:item', { ...grid, sampleId: conflictItem });
    expect(t.labels.map((l) => [l.annotator, l.primaryPathway])).toEqual([
      ['bob', X],
      ['carol', Y],
    ]);

    // The item view shows both annotators side by side, the resolution, and the older codebook version.
    await page.getByLabel('show resolved').check();
    await page
      .getByRole('listitem', { name: `Conflict ${name}` })
      .getByRole('button', { name })
      .click();
    await page.getByTestId('item-view').waitFor();
    await expect.poll(() => page.getByLabel('Resolved label').textContent()).toContain('Resolved by Ada Adjudicator');
    const current = (await api<{ version: number }>(server, 'codebook:get', {})).version;
    const bobRow = page.getByRole('row', { name: 'Labels of bob' });
    await expect.poll(() => bobRow.textContent()).toContain(`(current v${current})`);
    expect(await page.getByRole('row', { name: 'Labels of carol' }).textContent()).toContain('carol note 1');
    await shot('team-item-side-by-side');
  });
});
