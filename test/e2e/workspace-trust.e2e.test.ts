/**
 * The workspace never misleads its annotator, in Chromium against `flipbook serve`:
 * - a fresh checkout (no renderer build) serves a working app: `serve` builds it, and the
 *   first page load has no console error and no failed request (favicon included);
 * - two `serve`s in one browser do not log each other's tabs out (one token cookie per port);
 * - `serve` reuses its last port and token per project, so a tab open before a restart keeps
 *   working; the annotator name is remembered by Flipbook (not the browser), shown in the
 *   header, changed there, with the project's known annotators offered;
 * - the queue's filter belongs to its project: another project opens with its own;
 * - Recent projects in web mode lists every project this machine opened (its user settings);
 * - Ctrl+z / Ctrl+Shift+z change only the item on screen and say what they changed;
 * - the import form takes every option of `flipbook import` and gives the same project as
 *   the CLI from the same files; an import of a good and a bad file commits nothing.
 * Expectations come from the backend's API and the shared queue filter, never hard-coded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { EMPTY_FILTER, filterQueue } from '../../shared/api/queue-filter';
import type { ItemDetail, QueueRow } from '../../shared/api/contract';
import { allowProblems, api, chromiumMissingReason, flipbookCli, launchBrowser, makeSampleProject, serve, signIn, stop, type Served, queueRows } from './harness';

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

  it("a second serve in the same browser leaves the first tab's media working (one cookie per port)", async () => {
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
    const rows = await queueRows<QueueRow>(a);
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
    const rows = (await queueRows<QueueRow>(s1)).filter((r) => r.hasVideo);
    const [first, second] = [rows[0]!, rows[1]!];
    await api(s1, 'annotation:apply', { annotator: 'Ada Identity', edit: { op: 'setStatus', model: first.model, split: first.split, sampleId: first.sampleId, status: 'done' } });
    // While the server is down the tab's event stream retries and is refused, and the queue page
    // the tab asks again after the annotation's data:changed may be refused (or, when it was
    // already sent as the server stopped, reset, or failed on a socket the server closed as it
    // connected: Chromium's ERR_SOCKET_NOT_CONNECTED, as web-mode.e2e allows after a kill):
    // provoked here on purpose.
    allowProblems(/api\/events.*ERR_CONNECTION_REFUSED/, /api\/op\/queue%3Apage.*ERR_(CONNECTION_REFUSED|CONNECTION_RESET|SOCKET_NOT_CONNECTED)/);
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
    // The prompt asks the backend for them when it opens.
    const annotators = (await queueRows<QueueRow>(s2))
      .flatMap((r) => r.annotators)
      .filter((x, i, all) => all.indexOf(x) === i)
      .sort();
    expect(annotators.length).toBeGreaterThan(0);
    await expect.poll(() => known.getByRole('button').allTextContents()).toEqual(annotators);
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
    const r = flipbookCli('import', csv, '--project', projectB);
    expect(r.status, r.stderr).toBe(0);

    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('filters') } });
    const page = await newPage();
    await page.goto(`${s.url}#/queue`);
    await signIn(page, 'Ada Filters');
    const rowsA = await queueRows<QueueRow>(s);
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
    const rowsB = await queueRows<QueueRow>(s);
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

  it('Recent projects in web mode lists every project this machine opened, newest first, and opens one', async () => {
    // Three projects, each opened by its own `serve` with this machine's settings (as a user restarts serve on another project).
    const projects = [sample.project, makeSampleProject().project, makeSampleProject().project];
    const env = { FLIPBOOK_USER_DATA: userData('recent') };
    for (const p of projects.slice(0, 2)) await stop(await start(p, { args: ['--port', '0'], env }));
    const s = await start(projects[2]!, { args: ['--port', '0'], env });
    const page = await newPage();
    await page.goto(`${s.url}#/open`);
    await signIn(page, 'Rita Recent');
    const list = page.getByRole('list', { name: 'Recent projects' });
    await expect.poll(async () => (await list.count()) > 0 && (await list.getByRole('listitem').count())).toBe(projects.length);
    expect(await list.getByRole('button').allTextContents()).toEqual([...projects].reverse());
    // A recent entry opens that project.
    await list.getByRole('button', { name: `Open recent ${projects[0]}` }).click();
    await expect.poll(async () => (await api<{ path: string } | null>(s, 'project:info', {}))?.path).toBe(projects[0]);
    await page.close();
    await stop(s);
  });

  it('Ctrl+z changes only the item on screen, never another one, and says what it undid', async () => {
    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('undo') } });
    const who = 'Una Undo';
    const page = await newPage();
    await page.goto(s.url);
    await signIn(page, who);
    const rows = await queueRows<QueueRow>(s);
    const [a, b] = [rows[0]!, rows[1]!];
    const statusOf = async (r: Ref) => (await api<{ status: string }>(s, 'annotation:state', { model: r.model, split: r.split, sampleId: r.sampleId, annotator: who })).status;
    const open = async (r: Ref) => {
      await page.goto(`${s.url}${itemHash(r)}`);
      await page.getByTestId('item-view').waitFor();
      await expect.poll(() => page.locator('h2.item-title').textContent()).toBe(`${r.sampleId} · ${r.model} · ${r.split}`);
    };
    const saved = () => expect.poll(() => page.getByLabel('Save state').getAttribute('data-state')).toBe('saved');
    const notice = page.getByLabel('Item notice');

    // The last edit is on item B …
    await open(b);
    await page.getByLabel('Status').selectOption('done');
    await saved();
    expect(await statusOf(b)).toBe('done');

    // … but on item A, which has no edit, Ctrl+z changes nothing: B is out of sight.
    await open(a);
    await page.locator('body').press('Control+z');
    // Once the undo was answered (a notice shows), B is unchanged …
    await page.locator('.item-view .notice').first().waitFor();
    expect(await statusOf(b)).toBe('done');
    // … and the notice says there was nothing to undo here.
    await expect.poll(() => notice.textContent()).toBe('Nothing to undo on this item');

    // An edit on A is undone on A, and the notice names it.
    await page.locator('body').press('4');
    await expect.poll(() => page.getByRole('radio', { name: 'Confidence 4' }).getAttribute('aria-checked')).toBe('true');
    await saved();
    await page.locator('body').press('Control+z');
    await expect.poll(() => notice.textContent()).toBe(`Undid: confidence of ${a.sampleId} (${a.model}) 4 → none`);
    await expect.poll(() => page.getByRole('radio', { name: 'Confidence 4' }).getAttribute('aria-checked')).toBe('false');
    expect(await statusOf(b)).toBe('done');

    // On B, with B on screen: its status goes back, and forth again.
    await open(b);
    await page.locator('body').press('Control+z');
    await expect.poll(() => notice.textContent()).toBe(`Undid: status of ${b.sampleId} (${b.model}) done → todo`);
    await expect.poll(() => page.getByLabel('Status').inputValue()).toBe('todo');
    expect(await statusOf(b)).toBe('todo');
    await page.locator('body').press('Control+Shift+z');
    await expect.poll(() => notice.textContent()).toBe(`Redid: status of ${b.sampleId} (${b.model}) todo → done`);
    expect(await statusOf(b)).toBe('done');
    await page.close();
  });

  /** An lmms-eval v0.4 Video-MME log line (synthetic question). */
  const logLine = (docId: number, qid: string, duration: string, answer: string, pred: string) =>
    JSON.stringify({
      doc_id: docId,
      target: answer,
      filtered_resps: [pred],
      doc_hash: 'x',
      videomme_perception_score: { question_id: qid, duration, category: 'Knowledge', sub_category: 'Humanity', task_category: 'Counting Problem', pred_answer: pred, answer },
      input: "Select the best answer.\nHow many lamps are lit?\nA. one\nB. two\nC. three\nD. four\nAnswer with the option's letter from the given choices directly.",
    });
  const cli = flipbookCli;

  /** What a project holds, as the release export writes it (per_item.csv and the aggregated files) plus the matched grid. */
  const contents = (project: string, out: string) => {
    const r = cli('export', '--project', project, '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const agg = path.join(out, 'labels/aggregated');
    const files = [
      path.join(out, 'labels/per_item.csv'),
      ...fs
        .readdirSync(agg)
        .sort()
        .map((f) => path.join(agg, f)),
    ];
    const metrics = cli('metrics', '--project', project, '--json');
    expect(metrics.status, metrics.stderr).toBe(0);
    return { files: Object.fromEntries(files.map((f) => [path.relative(out, f), fs.readFileSync(f, 'utf8')])), metrics: JSON.parse(metrics.stdout) as unknown };
  };

  it('the import form takes every CLI option (split template, config, ground truth, matched grid) and gives the same project as the CLI', async () => {
    const dir = path.join(sample.dir, 'import-parity');
    fs.mkdirSync(dir);
    const log = path.join(dir, '20250101_000000_samples_videomme.jsonl');
    fs.writeFileSync(
      log,
      [logLine(0, '001-1', 'short', 'A', 'A'), logLine(1, '001-2', 'short', 'B', 'C'), logLine(2, '302-1', 'medium', 'C', 'C'), logLine(3, '302-2', 'medium', 'D', 'A')].join(
        '\n',
      ) + '\n',
    );
    const wide = path.join(dir, 'WideModel_V1_short_predictions_wide.csv');
    fs.writeFileSync(wide, 'sample_id,8f_151k,16f_151k\n001-1,A,B\n001-2,B,B\n');
    const first = { model: 'LogModel', config: '16f_151k', split: 'V1_{duration}' };
    const second = { groundTruth: log, matchedGrid: '16f_151k' };

    // The app way: a new project, the same files and options in the form.
    const viaUi = path.join(dir, 'ui.flipbook');
    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('import') } });
    const page = await newPage();
    await page.goto(`${s.url}#/open`);
    await signIn(page, 'Ida Import');
    await page.getByLabel('Project file').fill(viaUi);
    await page.getByRole('button', { name: 'Create project' }).click();
    await expect.poll(() => page.locator('.project-name').textContent()).toBe('ui.flipbook');
    let previous: Record<string, string> = {};
    const importWith = async (file: string, fields: Record<string, string>) => {
      // The fields of this import, and the previous import's emptied.
      for (const label of Object.keys({ ...previous, ...fields })) await page.getByLabel(label, { exact: true }).fill(fields[label] ?? '');
      previous = fields;
      await page.getByLabel('Files to import').fill(file);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const job = page.getByRole('listitem', { name: `import job ${file}` }).first();
      await expect.poll(() => job.getAttribute('data-state'), { timeout: 60_000 }).not.toBe('running');
      expect(await job.getAttribute('data-state'), (await job.textContent()) ?? '').toBe('ok');
      return job;
    };
    const j1 = await importWith(log, { 'Import model': first.model, 'Import config': first.config, 'Import split': first.split });
    // The split template is expanded per item, as the CLI does (not stored as "V1_{duration}").
    expect((await api<{ splits: string[] }>(s, 'project:info', {})).splits).toEqual(['V1_medium', 'V1_short']);
    expect(await j1.getByLabel('Import summary').textContent()).toContain('splits V1_medium, V1_short');
    const j2 = await importWith(wide, { 'Import ground truth': second.groundTruth, 'Import matched grid': second.matchedGrid });
    expect(await j2.getByLabel('Import summary').textContent()).toContain('answers V1_short 2 of 2');
    const info = await api<{ splits: string[] }>(s, 'project:info', {});
    expect(info.splits).toEqual(['V1_medium', 'V1_short']);
    expect(await api<string | null>(s, 'settings:get', { key: 'matchedGrid' })).toBe('16f_151k');
    await page.close();
    await stop(s);

    // The CLI way.
    const viaCli = path.join(dir, 'cli.flipbook');
    let r = cli('import', log, '--project', viaCli, '--model', first.model, '--config', first.config, '--split', first.split);
    expect(r.status, r.stderr).toBe(0);
    r = cli('import', wide, '--project', viaCli, '--ground-truth', second.groundTruth, '--matched-grid', second.matchedGrid);
    expect(r.status, r.stderr).toBe(0);

    const a = contents(viaCli, path.join(dir, 'out-cli'));
    const b = contents(viaUi, path.join(dir, 'out-ui'));
    expect(Object.keys(b.files)).toEqual(Object.keys(a.files));
    expect(b.files).toEqual(a.files);
    expect(b.metrics).toEqual(a.metrics);
  });

  it('an import of a good file and a bad file from the app commits nothing, shows the error and the unchanged project', async () => {
    const s = await start(sample.project, { args: ['--port', '0'], env: { FLIPBOOK_USER_DATA: userData('atomic') } });
    const page = await newPage();
    await page.goto(`${s.url}#/open`);
    await signIn(page, 'Ida Import');
    const header = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
    const good = path.join(sample.dir, 'atomic_good.csv');
    fs.writeFileSync(good, [header, 'g-1,GoodModel,GoodSplit,textonly,0,0,A,A,1,t,', 'g-1,GoodModel,GoodSplit,8f_151k,8,151000,B,A,0,t,'].join('\n') + '\n');
    const bad = path.join(sample.dir, 'atomic_bad.csv');
    fs.writeFileSync(bad, [header, 'b-1,BadModel,BadSplit,textonly,0,0,A,A,1,t,', 'b-1,BadModel,BadSplit,8f_151k,8,151000,B,A,maybe,t,'].join('\n') + '\n');
    const before = await api<{ models: string[]; nItems: number }>(s, 'project:info', {});
    const summaryText = await page.getByLabel('Project summary').textContent();

    await page.getByLabel('Files to import').fill(`${good}\n${bad}`);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const job = page.getByRole('listitem', { name: `import job ${good}, ${bad}` });
    await expect.poll(() => job.getAttribute('data-state'), { timeout: 60_000 }).toBe('error');
    expect(await job.getByRole('alert').textContent()).toContain(`${bad}:3: correct:`);
    const after = await api<{ models: string[]; nItems: number }>(s, 'project:info', {});
    expect(after.models).not.toContain('GoodModel');
    expect(after).toEqual(before);
    // The page shows the project as it is (refreshed, unchanged), and the queue has no row of the good file.
    await expect.poll(() => page.getByLabel('Project summary').textContent()).toBe(summaryText);
    await page.getByRole('link', { name: 'Queue' }).click();
    await page.getByLabel('Rows').selectOption('all');
    await expect.poll(() => page.getByLabel('Audit progress').textContent()).toContain(`shown of ${(await queueRows<QueueRow>(s)).length})`);
    expect((await queueRows<QueueRow>(s)).some((r) => r.model === 'GoodModel')).toBe(false);
    await page.close();
  });
});
