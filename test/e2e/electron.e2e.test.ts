/**
 * The same flows under Electron (`_electron.launch`) where an Electron binary exists; on
 * machines without one (these build machines cannot download it) this prints why it skips.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { _electron } from 'playwright-core';
import { makeSampleProject, repoRoot, resultsDir, signIn } from './harness';

function electronBinary(): string | null {
  try {
    const p = createRequire(import.meta.url)('electron') as unknown;
    return typeof p === 'string' && fs.existsSync(p) ? p : null;
  } catch {
    return null;
  }
}
const bin = electronBinary();
if (!bin) console.log('[e2e] Electron flows skipped: no Electron binary is installed (node_modules/electron could not download it)');

describe.skipIf(bin === null)('Electron shell', () => {
  it('opens the sample project in a hardened window; navigation and window.open are blocked', async () => {
    const b = spawnSync(process.execPath, [path.join(repoRoot, 'scripts/build-electron.js')], { cwd: repoRoot, encoding: 'utf8' });
    expect(b.status, b.stderr).toBe(0);
    const sample = makeSampleProject();
    const app = await _electron.launch({
      executablePath: bin as string,
      args: [repoRoot],
      env: { ...process.env, FLIPBOOK_PROJECT: sample.project, FLIPBOOK_USER_DATA: path.join(sample.dir, 'user-data') },
    });
    try {
      const page = await app.firstWindow();
      await signIn(page, 'Electron E2E');
      await page.getByRole('listbox', { name: 'Queue' }).getByRole('option').first().waitFor();
      await page.screenshot({ path: path.join(resultsDir, 'electron-queue.png') });
      expect(await page.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
      const opened = await page.evaluate(() => window.open('https://example.com/') === null);
      expect(opened).toBe(true);
      await page.evaluate(() => {
        window.location.href = 'https://example.com/';
      });
      await page.getByRole('listbox', { name: 'Queue' }).waitFor();
      expect(page.url().startsWith('app://flipbook/')).toBe(true);
    } finally {
      await app.close();
    }
  });
});
