/**
 * The workspace never misleads its annotator, in Chromium against `flipbook serve`:
 * - a fresh checkout (no renderer build) serves a working app: `serve` builds it, and the
 *   first page load has no console error and no failed request (favicon included);
 * - two `serve`s in one browser do not log each other's tabs out (one token cookie per port);
 * - `serve` reuses its last port and token per project, so a tab open before a restart keeps
 *   working; the annotator name is remembered by Flipbook (not the browser), shown in the
 *   header, changed there, with the project's known annotators offered;
 * - the queue's filter belongs to its project: another project opens with its own.
 * Expectations come from the backend's API and the shared queue filter, never hard-coded.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { EMPTY_FILTER, filterQueue } from '../../shared/api/queue-filter';
import type { ItemDetail, QueueRow } from '../../shared/api/contract';
import { allowProblems, api, buildRenderer, chromiumMissingReason, launchBrowser, makeSampleProject, repoRoot, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

type Ref = { model: string; split: string; sampleId: string };
const itemHash = (r: Ref) => `#/item/${[r.model, r.split, r.sampleId].map(encodeURIComponent).join('/')}`;

describe.skipIf(skipReason !== null)('workspace state and identity in Chromium', () => {
  let sample: { dir: string; project: string };
  let browser: Browser;
  const servers: Served[] = [];
  const start = async (...a: Parameters<typeof serve>) => {
    const s = await serve(...a);
    servers.push(s);
    return s;
  };
  const userData = (name: string) => path.join(sample.dir, `user-${name}`);
  const newPage = (): Promise<Page> => browser.newPage({ viewport: { width: 1440, height: 900 } });

  beforeAll(async () => {
    buildRenderer();
    sample = makeSampleProject();
    browser = await launchBrowser();
  });

  // A failed test must not leave its server holding the project for the next one.
  afterEach(async () => {
    for (const s of servers.splice(0)) await stop(s);
  });

  afterAll(async () => {
    await browser?.close();
    if (sample) fs.rmSync(sample.dir, { recursive: true, force: true });
  });

  it('serve on a checkout with no renderer build builds it, says so, and the first page load is clean (favicon included)', async () => {
    const rendererDir = path.join(sample.dir, 'fresh-checkout-renderer');
    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_RENDERER_DIR: rendererDir, FLIPBOOK_USER_DATA: userData('fresh') } });
    expect(s.stderr()).toContain('building the renderer');
    expect(fs.existsSync(path.join(rendererDir, 'index.html'))).toBe(true);
    const page = await newPage();
    const icon = page.waitForResponse((r) => /favicon/.test(r.url()), { timeout: 30_000 });
    await page.goto(s.url);
    await page.getByRole('dialog', { name: 'Annotator name' }).waitFor();
    // The browser asks for the page's icon by itself: it is served (the harness fails the test on a 401/404).
    expect((await icon).status()).toBe(200);
    await page.close();
    await stop(s);
  });

  it('a second serve in the same browser leaves the first tab\'s media working (one cookie per port)', async () => {
    const a = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('a') } });
    const b = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('b') } });
    expect(b.token).not.toBe(a.token);
    const ctx = await browser.newContext();
    const pa = await ctx.newPage();
    await pa.goto(a.url);
    const pb = await ctx.newPage();
    await pb.goto(b.url);
    await pb.getByRole('dialog', { name: 'Annotator name' }).waitFor();
    // The first tab's <video>/<img> requests carry only the cookie: they must still be let in.
    const rows = (await api<{ rows: QueueRow[] }>(a, 'queue:list', {})).rows;
    const row = rows.find((r) => r.hasVideo)!;
    const d = await api<ItemDetail>(a, 'item:get', { model: row.model, split: row.split, sampleId: row.sampleId });
    const status = await pa.evaluate((u) => fetch(u, { headers: { range: 'bytes=0-99' } }).then((r) => r.status), d.video!.url);
    expect(status).toBe(206);
    await ctx.close();
    await stop(b);
    await stop(a);
  });

  it('serve reuses its port and token, the open tab keeps working across a restart, and the annotator is remembered by Flipbook', async () => {
    const env = { FLIPBOOK_USER_DATA: userData('restart') };
    const s1 = await start(sample.project, { args: [], env });
    const page = await newPage();
    await page.goto(s1.url);
    // First run on this machine: asked once.
    await page.getByRole('dialog', { name: 'Annotator name' }).waitFor();
    await signIn(page, 'Ada Identity');
    const rows = (await api<{ rows: QueueRow[] }>(s1, 'queue:list', {})).rows.filter((r) => r.hasVideo);
    const [first, second] = [rows[0]!, rows[1]!];
    await api(s1, 'annotation:apply', { annotator: 'Ada Identity', edit: { op: 'setStatus', model: first.model, split: first.split, sampleId: first.sampleId, status: 'done' } });
    // While the server is down the tab's event stream retries and is refused: provoked here on purpose.
    allowProblems(/api\/events.*ERR_CONNECTION_REFUSED/);
    await stop(s1);

    const s2 = await start(sample.project, { args: [], env });
    expect(s2.port).toBe(s1.port);
    expect(s2.token).toBe(s1.token);
    // The tab opened before the restart, not reloaded: its next item loads, video included.
    await page.evaluate((h) => (window.location.hash = h), itemHash(second));
    await page.getByTestId('item-view').waitFor();
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1, undefined, { timeout: 30_000 });
    // A reload (a new page load) does not ask for the name again: Flipbook remembered it.
    await page.reload();
    await expect.poll(() => page.getByLabel('Current annotator').textContent()).toBe('Ada Identity');
    expect(await page.getByLabel('Your name').count()).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(env.FLIPBOOK_USER_DATA, 'flipbook-settings.json'), 'utf8')) as { annotator: string };
    expect(settings.annotator).toBe('Ada Identity');

    // Changed in one place, the header; the project's annotators are offered, a near-spelling is named.
    await page.getByRole('button', { name: 'Change annotator' }).click();
    const known = page.getByRole('group', { name: 'Known annotators' });
    expect(await known.getByRole('button').allTextContents()).toEqual((await api<{ rows: QueueRow[] }>(s2, 'queue:list', {})).rows.flatMap((r) => r.annotators).filter((x, i, all) => all.indexOf(x) === i).sort());
    await page.getByLabel('Your name').fill('ada  identity');
    await expect.poll(() => page.getByRole('note').textContent()).toContain('“Ada Identity” already annotates this project');
    await page.getByLabel('Your name').fill('Bea Identity');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expect.poll(() => page.getByLabel('Current annotator').textContent()).toBe('Bea Identity');
    expect(await api<string | null>(s2, 'annotator:get', {})).toBe('Bea Identity');
    await page.close();
    await stop(s2);

    // --new-token overrides the remembered token (the port is still reused).
    const s3 = await start(sample.project, { args: ['--new-token'], env });
    expect(s3.port).toBe(s1.port);
    expect(s3.token).not.toBe(s1.token);
    await stop(s3);
  });

  it('the queue filter belongs to its project: another project opens with its own, and each keeps its own', async () => {
    // Project B: a small per_item.csv imported by the CLI.
    const csv = path.join(sample.dir, 'b_per_item.csv');
    const lines = ['sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note'];
    for (let i = 1; i <= 6; i++) {
      lines.push(`b-${i},BModel,BSplit,textonly,0,0,A,A,1,t,`);
      lines.push(`b-${i},BModel,BSplit,8f_151k,8,151000,${i % 2 ? 'B' : 'A'},A,${i % 2 ? 0 : 1},t,`);
    }
    fs.writeFileSync(csv, lines.join('\n') + '\n');
    const projectB = path.join(sample.dir, 'b.flipbook');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), 'import', csv, '--project', projectB], { cwd: repoRoot, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);

    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('filters') } });
    const page = await newPage();
    await page.goto(`${s.url}#/queue`);
    await signIn(page, 'Ada Filters');
    const rowsA = (await api<{ rows: QueueRow[] }>(s, 'queue:list', {})).rows;
    const model = 'SimQwen-7B';
    const shownA = filterQueue(rowsA, { ...EMPTY_FILTER, model }, { key: 'default', desc: false }).length;
    await page.getByLabel('Model', { exact: true }).selectOption(model);
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${shownA} shown of ${rowsA.length})`);

    const openProject = async (p: string) => {
      await page.goto(`${s.url}#/open`);
      await page.getByLabel('Project file').fill(p);
      await page.getByRole('button', { name: 'Open project' }).click();
      await expect.poll(() => page.locator('.project-name').textContent()).toBe(path.basename(p));
      await page.getByRole('link', { name: 'Queue' }).click();
    };
    await openProject(projectB);
    const rowsB = (await api<{ rows: QueueRow[] }>(s, 'queue:list', {})).rows;
    const shownB = filterQueue(rowsB, EMPTY_FILTER, { key: 'default', desc: false }).length;
    expect(shownB).toBeGreaterThan(0);
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${shownB} shown of ${rowsB.length})`);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Applied filter').textContent()).not.toContain(model);
    expect(await page.getByRole('listbox', { name: 'Queue' }).getByRole('option').count()).toBe(shownB);

    // Back in A: A's own filter is still there, and the controls show it.
    await openProject(sample.project);
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`(${shownA} shown of ${rowsA.length})`);
    expect(await page.getByLabel('Model', { exact: true }).inputValue()).toBe(model);
    expect(await page.getByLabel('Applied filter').textContent()).toContain(`model ${model}`);
    await page.close();
    await stop(s);
  });
});
