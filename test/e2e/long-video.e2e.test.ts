/**
 * The frame audit on a long video: a real 6-minute 1280×720 video (system ffmpeg), a project
 * whose item has four budgets (8, 16, 32, 64 frames picked by the real sampler, extracted by the
 * real frame engine), `flipbook serve`, Chromium at 1280×720. With the keyboard alone the
 * annotator zooms the time axis to a few seconds, marks an evidence span that is drawn wide,
 * and opens the moment view, whose frames are checked against the nearest frame by time computed
 * here from the item's frame times; with the mouse, a drag on the axis makes a span and a drag of
 * its edge moves it. Screenshots go to test-results/ and /tmp/flipbook-long-video-shots/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import type { AnnotationState, ItemDetail } from '../../shared/api/contract';
import { routeHash } from '../../renderer/route';
import { LONG_CONFIGS, LONG_ITEM, LONG_VIDEO, longProject } from '../long-video-fixture';
import { tempDir } from '../temp-dir';
import { api, chromiumMissingReason, launchBrowser, resultsDir, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();
if (skipReason) console.log(`[e2e] skipped: ${skipReason}`);

const SHOTS = '/tmp/flipbook-long-video-shots';
const annotator = 'Lena Long';

/** The nearest frame to t by time, ties to the earlier frame: written here from the rule in docs/architecture.md, not imported. */
function nearestByTime(indices: number[], timesS: number[], t: number): { index: number; timeS: number } {
  const pairs = indices.map((index, k) => ({ index, timeS: timesS[k]! })).sort((a, b) => a.timeS - b.timeS || a.index - b.index);
  let best = pairs[0]!;
  for (const p of pairs) if (Math.abs(p.timeS - t) < Math.abs(best.timeS - t) - 1e-9) best = p;
  return best;
}

describe.skipIf(skipReason !== null)('a long video in the item view (1280×720)', () => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  let detail: ItemDetail;
  let project: string;
  const shot = async (name: string) => {
    const buf = await page.screenshot({ path: path.join(resultsDir, `long-video-${name}.png`) });
    fs.writeFileSync(path.join(SHOTS, `${name}.png`), buf);
  };
  const body = () => page.locator('body');
  const windowOf = async () => {
    const s = page.getByRole('group', { name: 'Frame strips' });
    return { startS: Number(await s.getAttribute('data-window-start')), endS: Number(await s.getAttribute('data-window-end')) };
  };
  const playerTime = async () => Number(await page.getByLabel('Frame and time').getAttribute('data-time'));
  const inViewport = async (loc: Locator, name: string) => {
    const b = await loc.boundingBox();
    expect(b, name).not.toBeNull();
    expect(b!.y, `${name} top`).toBeGreaterThanOrEqual(0);
    expect(b!.y + b!.height, `${name} bottom`).toBeLessThanOrEqual(720);
    expect(b!.x + b!.width, `${name} right`).toBeLessThanOrEqual(1280);
    return b!;
  };
  /** Keyboard only: `f` focuses the jump field, the time is typed, Enter jumps and hands the keys back. */
  const jumpTo = async (what: string) => {
    await body().press('f');
    await page.keyboard.type(what);
    await page.keyboard.press('Enter');
  };

  beforeAll(async () => {
    fs.mkdirSync(resultsDir, { recursive: true });
    fs.mkdirSync(SHOTS, { recursive: true });
    ({ project } = longProject(tempDir('flipbook-long-video-')));
    server = await serve(project);
    detail = await api<ItemDetail>(server, 'item:get', LONG_ITEM);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  });

  afterAll(async () => {
    await browser?.close();
    if (server) await stop(server);
  });

  it('the item is the long video, with one strip per budget of the real sampler’s frames, every tile exact', async () => {
    await page.goto(server.url);
    await signIn(page, annotator);
    await page.goto(`${server.url}${routeHash({ view: 'item', item: { ...LONG_ITEM } })}`);
    await page.getByTestId('item-view').waitFor();
    await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
    // Every tile of every budget exact: the real frame engine decoded them from the real video.
    const total = detail.frames.reduce((n, f) => n + new Set(f.indices).size, 0);
    await expect.poll(() => page.locator('.tile[data-approximate="false"]').count(), { timeout: 120_000 }).toBe(total);
    expect(detail.video?.durationS).toBeCloseTo(LONG_VIDEO.seconds, 0);
    expect(detail.video?.width).toBe(LONG_VIDEO.width);
    expect(detail.video?.fps).toBeCloseTo(LONG_VIDEO.fps, 3);
    expect(detail.frames.map((f) => f.config).sort()).toEqual([...LONG_CONFIGS].sort());
    for (const f of detail.frames) expect(new Set(f.indices).size, f.config).toBe(Number(f.config.replace('f', '')));
  });

  it('at 1280×720 the video, every strip and the status, pathway and span controls are on screen without scrolling', async () => {
    await shot('1-open');
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // The page itself does not scroll: the item view fits the window.
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeLessThanOrEqual(720);
    const video = await inViewport(page.locator('video'), 'video');
    expect(video.height).toBeGreaterThan(120);
    for (const f of detail.frames) {
      const track = page.getByRole('group', { name: `Strip ${f.config}` }).locator('.strip-track');
      await inViewport(track, `strip ${f.config}`);
      // One row: every tile of the strip at the same top.
      const tops = await track.locator('.tile').evaluateAll((ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top)));
      expect(new Set(tops).size, `rows of ${f.config}`).toBe(1);
    }
    await inViewport(page.getByLabel('Status'), 'status');
    await inViewport(page.getByRole('group', { name: 'Evidence pathways' }), 'pathways');
    await inViewport(page.getByRole('heading', { name: 'Evidence spans' }), 'spans heading');
    await inViewport(page.getByRole('list', { name: 'Spans' }), 'span list');
  });

  it('each strip marks exactly the frames the previous budget with frames did not take', async () => {
    // Independently, from the item's frame indices (item:get), in the strips' order; text-only configs are skipped.
    let previous: { config: string; indices: Set<number> } | null = null;
    let marked = 0;
    for (const f of detail.frames) {
      if (f.indices.length === 0) continue;
      const expected = previous === null ? [] : [...new Set(f.indices)].filter((k) => !previous!.indices.has(k)).sort((a, b) => a - b);
      const strip = page.getByRole('group', { name: `Strip ${f.config}` });
      const shown = await strip.locator('.tile[data-new="true"]').evaluateAll((ts) => ts.map((t) => Number((t as HTMLElement).dataset.index)));
      expect(
        shown.sort((a, b) => a - b),
        `new in ${f.config}`,
      ).toEqual(expected);
      // The accessible name says so, on the marked tiles only, and names the budget compared with.
      const named = strip.getByRole('button', { name: /new in this budget/ });
      expect(await named.count(), `named new in ${f.config}`).toBe(expected.length);
      if (previous !== null && expected.length > 0) expect(await named.first().getAttribute('aria-label')).toContain(`not in ${previous.config}`);
      // The mark is drawn: a bar on the tile's top edge.
      if (expected.length > 0) {
        const bar = await strip.locator(`.tile[data-index="${expected[0]}"]`).evaluate((el) => getComputedStyle(el, '::after').height);
        expect(parseFloat(bar), `mark of ${f.config}`).toBeGreaterThanOrEqual(2);
      }
      console.log(`[long-video] ${f.config}: ${expected.length} of ${new Set(f.indices).size} frames new${previous ? ` against ${previous.config}` : ' (smallest budget)'}`);
      marked += expected.length;
      previous = { config: f.config, indices: new Set(f.indices) };
    }
    expect(marked).toBeGreaterThan(0);
    await shot('1b-new-marks');
  });

  it('keyboard alone: zoom to ~5 s, mark a 1-second span drawn wide, open the moment view at a chosen time', async () => {
    // Frame 400 (seeks land mid-frame: 200.25 s).
    await jumpTo('400');
    await expect.poll(playerTime).toBeCloseTo(200.25, 1);
    // Six zoom steps halve the 360-s window six times: 5.6 s around the playhead.
    for (let k = 0; k < 6; k++) await body().press('=');
    await expect
      .poll(async () => {
        const w = await windowOf();
        return w.endS - w.startS;
      })
      .toBeCloseTo(LONG_VIDEO.seconds / 64, 2);
    const w = await windowOf();
    expect(w.startS).toBeLessThanOrEqual(200.25);
    expect(w.endS).toBeGreaterThanOrEqual(200.25);
    // The strips show that window: no tile drawn far outside it, each strip one row.
    for (const f of detail.frames) {
      const strip = page.getByRole('group', { name: `Strip ${f.config}` });
      const times = await strip.locator('.tile').evaluateAll((ts) => ts.map((t) => Number((t as HTMLElement).dataset.time)));
      const inside = f.timesS.filter((t) => t >= w.startS && t <= w.endS).length;
      expect(times.length, f.config).toBeGreaterThanOrEqual(inside);
      expect(times.length, f.config).toBeLessThanOrEqual(inside + 2);
      for (const t of times) expect(t, f.config).toBeGreaterThan(w.startS - (w.endS - w.startS) / 2);
      for (const t of times) expect(t, f.config).toBeLessThan(w.endS + (w.endS - w.startS) / 2);
    }
    await shot('2-zoomed');

    // A span from the playhead to two frames later (1 s at 2 fps): i, . ., e.
    await body().press('i');
    await body().press('.');
    await body().press('.');
    await expect.poll(playerTime).toBeCloseTo(201.25, 1);
    await body().press('e');
    await expect.poll(async () => (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans.length).toBe(1);
    const span = (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans[0]!;
    expect(span.endS - span.startS).toBeCloseTo(1, 2);
    // With the span and a suggestion box, the span's row and its coverage line are on screen without
    // scrolling: inside the viewport and inside the tagging column, which has not scrolled.
    await page.getByLabel('Suggestions').waitFor();
    const coverage = page.getByLabel('Coverage of span 1');
    await expect.poll(() => coverage.innerText()).toContain('covered by');
    const side = page.locator('.item-side');
    expect(await side.evaluate((el) => el.scrollTop)).toBe(0);
    const column = (await side.boundingBox())!;
    for (const [loc, name] of [
      [page.getByRole('list', { name: 'Spans' }).getByRole('listitem').first(), 'span row'],
      [coverage, 'coverage line'],
    ] as const) {
      const b = await inViewport(loc, name);
      expect(b.y + b.height, `${name} bottom inside the tagging column`).toBeLessThanOrEqual(column.y + column.height);
    }
    await inViewport(page.getByLabel('Status'), 'status with a span');
    await inViewport(page.getByRole('group', { name: 'Evidence pathways' }), 'pathways with a span');
    const band = page.locator('.strip-axis .span-band[data-span="1"]');
    const bb = await band.boundingBox();
    expect(bb!.width).toBeGreaterThanOrEqual(40);
    console.log(`[long-video] 1-s span drawn ${bb!.width.toFixed(1)} px wide in a ${(w.endS - w.startS).toFixed(2)}-s window`);
    await shot('3-span');

    // The whole video: the same span is still drawn at least 8 px wide (its band's drawn part).
    await body().press('0');
    await expect.poll(async () => (await windowOf()).endS - (await windowOf()).startS).toBeCloseTo(detail.video!.durationS, 1);
    const drawnWhole = await band.evaluate((el) => parseFloat(getComputedStyle(el, '::before').width));
    expect(drawnWhole).toBeGreaterThanOrEqual(8);
    console.log(`[long-video] the same span drawn ${drawnWhole.toFixed(1)} px wide over the whole 6-minute video`);
    // Fit to the span: the span fills two thirds of the window.
    await body().press('Shift+F');
    await expect.poll(async () => (await band.boundingBox())!.width).toBeGreaterThan(300);
    await shot('4-fit-span');

    // The moment view at a chosen time (typed into the jump field), all by keys.
    await jumpTo('203.3s');
    await expect.poll(playerTime).toBeCloseTo(203.3, 1);
    await body().press('Shift+V');
    const moment = page.getByRole('region', { name: 'Moment view' });
    await moment.waitFor();
    const t = await playerTime();
    // Independently: the item's frame times (item:get), the nearest one by time, ties to the earlier.
    const ordered = detail.frames.filter((f) => f.indices.length > 0);
    let previous: Set<number> | null = null;
    const expected: { config: string; index: number; timeS: number; isNew: string }[] = [];
    for (const f of ordered) {
      const n = nearestByTime(f.indices, f.timesS, t);
      expected.push({ config: f.config, ...n, isNew: previous === null ? 'smallest' : String(!previous.has(n.index)) });
      previous = new Set(f.indices);
    }
    await expect.poll(() => moment.getByRole('listitem').count()).toBe(expected.length);
    for (const e of expected) {
      const li = moment.getByRole('listitem', { name: `Moment frame of ${e.config}` });
      expect(await li.getAttribute('data-index'), e.config).toBe(String(e.index));
      const text = (await li.innerText()).replace(/\s+/g, ' ');
      expect(text, e.config).toContain(e.config);
      expect(text, e.config).toContain(`frame ${e.index}`);
      expect(text, e.config).toContain(`${e.timeS.toFixed(2)} s`);
      expect(await li.getAttribute('data-new'), e.config).toBe(e.isNew);
      expect(text.includes('new in this budget'), e.config).toBe(e.isNew === 'true');
      // A readable size: at least 160 px wide, and the picture is the extracted frame.
      const img = li.locator('img');
      expect((await img.boundingBox())!.width, e.config).toBeGreaterThanOrEqual(160);
      await expect.poll(() => img.evaluate((i) => (i as HTMLImageElement).naturalWidth), { timeout: 30_000 }).toBeGreaterThan(0);
    }
    console.log(`[long-video] moment at ${t.toFixed(3)} s: ${expected.map((e) => `${e.config} frame ${e.index} (${e.timeS} s${e.isNew === 'true' ? ', new' : ''})`).join('; ')}`);
    // Every budget's tile is at least partly in view; the tagging controls are still on screen.
    await inViewport(page.getByLabel('Status'), 'status with the moment view open');
    await shot('5-moment');
    // The moment follows the playhead: a frame step moves it, and each budget's frame is the nearest to the new time.
    await body().press('.');
    await expect.poll(playerTime).toBeGreaterThan(t + 0.2);
    const t2 = await playerTime();
    await expect.poll(async () => Number(await moment.getAttribute('data-time'))).toBeCloseTo(t2, 3);
    for (const f of ordered) {
      const n = nearestByTime(f.indices, f.timesS, t2);
      await expect.poll(() => moment.getByRole('listitem', { name: `Moment frame of ${f.config}` }).getAttribute('data-index')).toBe(String(n.index));
    }
    await body().press('Shift+V');
    await expect.poll(() => moment.count()).toBe(0);
  });

  it('mouse: a drag on the axis makes a span, a drag of its edge moves it, the wheel zooms and Shift+wheel pans', async () => {
    await body().press('0');
    await jumpTo('100s');
    await expect.poll(playerTime).toBeCloseTo(100, 1);
    for (let k = 0; k < 5; k++) await body().press('=');
    await expect.poll(async () => (await windowOf()).endS - (await windowOf()).startS).toBeCloseTo(LONG_VIDEO.seconds / 32, 2);
    const w = await windowOf();
    const axis = page.locator('.strip-axis .axis-track');
    const a = (await axis.boundingBox())!;
    const y = a.y + a.height / 2;
    const x1 = a.x + a.width * 0.3;
    const x2 = a.x + a.width * 0.6;
    await page.mouse.move(x1, y);
    await page.mouse.down();
    await page.mouse.move((x1 + x2) / 2, y, { steps: 4 });
    await page.mouse.move(x2, y, { steps: 4 });
    // While dragging, the new span is drawn where it will be.
    expect(await page.locator('.strip-axis .span-band.draft').count()).toBe(1);
    await page.mouse.up();
    await expect.poll(async () => (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans.length).toBe(2);
    const made = (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans.find((s) => s.startS > w.startS && s.endS < w.endS)!;
    expect(made).toBeDefined();
    // The span covers the dragged stretch: 30 %..60 % of the axis, within the window.
    const len = w.endS - w.startS;
    expect(made.endS - made.startS).toBeGreaterThan(len * 0.2);
    expect(made.endS - made.startS).toBeLessThan(len * 0.4);
    await shot('6-dragged-span');
    // Drag its end edge to the right by a tenth of the axis: the span grows by about a tenth of the window.
    const band = page.locator(`.strip-axis .span-band[title*="${made.startS.toFixed(2)}–"]`);
    const bb = (await band.boundingBox())!;
    await page.mouse.move(bb.x + bb.width - 1, y);
    await page.mouse.down();
    await page.mouse.move(bb.x + bb.width + a.width * 0.05, y, { steps: 3 });
    await page.mouse.move(bb.x + bb.width - 1 + a.width * 0.1, y, { steps: 3 });
    await page.mouse.up();
    await expect
      .poll(async () => (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans.find((s) => s.id === made.id)!.endS)
      .toBeGreaterThan(made.endS + len * 0.05);
    const moved = (await api<AnnotationState>(server, 'annotation:state', { ...LONG_ITEM, annotator })).spans.find((s) => s.id === made.id)!;
    expect(moved.startS).toBeCloseTo(made.startS, 6);
    expect(moved.endS - made.endS).toBeLessThan(len * 0.15);

    // The wheel over the axis zooms in around the pointer; Shift+wheel pans later.
    const before = await windowOf();
    await page.mouse.move(a.x + a.width / 2, y);
    await page.mouse.wheel(0, -300);
    await expect.poll(async () => (await windowOf()).endS - (await windowOf()).startS).toBeLessThan((before.endS - before.startS) * 0.75);
    const zoomed = await windowOf();
    await page.keyboard.down('Shift');
    await page.mouse.wheel(0, 200);
    await page.keyboard.up('Shift');
    await expect.poll(async () => (await windowOf()).startS).toBeGreaterThan(zoomed.startS + 1e-3);
    const panned = await windowOf();
    expect(panned.endS - panned.startS).toBeCloseTo(zoomed.endS - zoomed.startS, 3);
    // Keys pan too, by a quarter of the window.
    await body().press('ArrowLeft');
    await expect.poll(async () => (await windowOf()).startS).toBeLessThan(panned.startS);
    const left = await windowOf();
    await body().press('ArrowRight');
    await expect.poll(async () => (await windowOf()).startS).toBeCloseTo(left.startS + (left.endS - left.startS) / 4, 2);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await shot('7-wheel');
  });

  it('read-only (the project open in another Flipbook): a drag on the axis makes no span, a click still seeks', async () => {
    const second = await serve(project);
    try {
      const ro = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      await ro.goto(second.url);
      await signIn(ro, 'Rita Reader');
      await ro.goto(`${second.url}${routeHash({ view: 'item', item: { ...LONG_ITEM } })}`);
      await ro.getByRole('alert', { name: 'Read-only' }).waitFor();
      await ro.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
      const axis = (await ro.locator('.strip-axis .axis-track').boundingBox())!;
      const y = axis.y + axis.height / 2;
      await ro.mouse.move(axis.x + axis.width * 0.2, y);
      await ro.mouse.down();
      await ro.mouse.move(axis.x + axis.width * 0.5, y, { steps: 5 });
      // No span is drawn while dragging (a writable view draws the new span as it is dragged).
      expect(await ro.locator('.strip-axis .span-band.draft').count()).toBe(0);
      expect(await ro.locator('.strip-axis .span-edge').count()).toBe(0);
      await ro.mouse.up();
      await ro.mouse.click(axis.x + axis.width * 0.5, y);
      await expect.poll(async () => Number(await ro.getByLabel('Frame and time').getAttribute('data-time'))).toBeGreaterThan(60);
      const st = await api<AnnotationState>(second, 'annotation:state', { ...LONG_ITEM, annotator: 'Rita Reader' });
      expect(st.spans).toEqual([]);
      await ro.close();
    } finally {
      await stop(second);
    }
  });

  it('every new key is in the ? dialog', async () => {
    await body().press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    const text = await dialog.innerText();
    for (const a of [
      'Time axis: zoom in',
      'Time axis: zoom out',
      'Time axis: fit the whole video',
      'Time axis: fit the selected evidence span',
      'Time axis: pan earlier',
      'Time axis: pan later',
      'Moment view on/off',
    ])
      expect(text).toContain(a);
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
  });
});
