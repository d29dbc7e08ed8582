/**
 * The renderer built for this run (global-setup.ts) opens with a small first chunk: the
 * overview's charts and the item view's player are loaded when those views are first shown
 * (React.lazy, docs/performance.md "The renderer's first chunk"), and a browser opening them
 * gets them then.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildRendererInto, firstChunk } from '../bench/first-chunk';
import { tempDir } from '../temp-dir';
import { chromiumMissingReason, launchBrowser, makeSampleProject, repoRoot, serve, signIn, stop, type Served } from './harness';

const skipReason = chromiumMissingReason();

describe('the renderer’s first chunk', () => {
  it('is under 500 kB in a release build: no charts and no player in it', () => {
    const out = tempDir('flipbook-chunk-');
    buildRendererInto(repoRoot, out);
    const c = firstChunk(out);
    expect(c.bytes).toBeLessThan(500_000);
    // The views that were split off are files of their own, loaded by the first chunk on demand.
    const entry = fs.readFileSync(path.join(out, c.file), 'utf8');
    const files = fs.readdirSync(path.join(out, 'assets'));
    for (const view of ['OverviewView', 'ItemView']) {
      const chunk = files.find((f) => f.startsWith(`${view}-`) && f.endsWith('.js'));
      expect(chunk, `a chunk of ${view}`).toBeDefined();
      expect(entry.includes(chunk as string), `${chunk} loaded from the first chunk`).toBe(true);
    }
  });
});

describe.skipIf(skipReason !== null)('lazy views load on first use', () => {
  let s: Served;
  let browser: Browser;
  beforeAll(async () => {
    s = await serve(makeSampleProject().project);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    if (s) await stop(s);
  });

  it('the queue opens without the overview’s chunk; the overview then loads it and draws its charts', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
    await page.goto(s.url);
    await signIn(page, 'Lazy Tester');
    await page.getByLabel('Audit progress').waitFor();
    expect(scripts.some((u) => /OverviewView-/.test(u))).toBe(false);
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.locator('canvas').first().waitFor({ timeout: 30_000 });
    expect(scripts.some((u) => /OverviewView-/.test(u))).toBe(true);
  });
});
