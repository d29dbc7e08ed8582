/**
 * `npm start` must leave plain-Node better-sqlite3 alone, so that `npm test` passes after it:
 * scripts/start.js (written with the shell) runs no native rebuild, and really running it —
 * here the web-mode fallback on a scratch sample project — leaves the Node addon byte-identical
 * and loadable.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { betterSqliteLoadsInNode, electronBinary, nodeAddon, repoRoot, sha256 } from './shipping-helpers';
import { tempDir } from '../../temp-dir';

const startScript = path.join(repoRoot, 'scripts/start.js');
const sampleDir = tempDir('flipbook-start-');

describe('npm start and the Node build of better-sqlite3', () => {
  it('scripts/start.js runs no native rebuild', () => {
    const src = fs.readFileSync(startScript, 'utf8');
    // scripts/rebuild-native.js would be allowed: it compiles into .cache/, never node_modules.
    for (const banned of [
      /electron-rebuild|@electron\/rebuild/,
      /install-app-deps/,
      /node-gyp/,
      /prebuild-install/,
      /['"`]npm['"`][^\n]*['"`](install|ci|rebuild)['"`]/,
      /npm (install|ci|rebuild)\b/,
    ]) {
      expect(src, `start.js matches ${banned}`).not.toMatch(banned);
    }
  });

  it('running it leaves better-sqlite3 loadable under plain Node', async (ctx) => {
    if (electronBinary()) {
      console.log('[shipping] an Electron binary is installed: npm start would open a window, so only the static check runs here (the Electron e2e suite starts the app)');
      ctx.skip();
    }
    const before = sha256(nodeAddon);
    const child = spawn(process.execPath, [startScript], {
      cwd: repoRoot,
      env: { ...process.env, FLIPBOOK_SAMPLE_DIR: sampleDir, PORT: '0', FLIPBOOK_USER_DATA: path.join(sampleDir, 'user-data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (d: Buffer) => {
        output += d.toString();
        const m = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(output);
        if (m) resolve(m[0]);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`npm start exited (${code}) before printing its URL:\n${output}`)));
    });
    try {
      // The page is served by a backend that has the sample project open through better-sqlite3.
      const res = await fetch(url);
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM'); // start.js forwards it to the web-mode server
      await exited;
    }
    expect(output).toMatch(/no Electron binary/);
    expect(sha256(nodeAddon)).toBe(before);
    const load = betterSqliteLoadsInNode();
    expect(load.ok, load.output).toBe(true);
  }, 240_000);
});
