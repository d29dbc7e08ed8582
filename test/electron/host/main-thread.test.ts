/**
 * The desktop app's main thread loads no store module: the store first loads in the backend
 * thread (electron/host/backend-host.ts). SQLite's URI filenames, which the store needs to look
 * at a file without writing to it (electron/store/identify.ts), are set from the main thread's
 * environment only (electron/store/sqlite-binding.ts). Each case runs in a fresh process
 * (main-child.ts) whose main thread imports what Electron's main does.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../temp-dir';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const sha = (f: string): string => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

/** Runs `script` in a fresh Node whose environment lacks SQLITE_USE_URI; its one JSON line. */
function fresh(script: string, ...args: string[]): unknown {
  const env = { ...process.env };
  delete env.SQLITE_USE_URI;
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(HERE, script), ...args], { env, encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? 'null');
}

describe('the backend thread of a main thread that loads no store', () => {
  it("refuses another application's SQLite file untouched, as the CLI does", () => {
    const dir = tempDir('fb-main-thread-');
    const other = path.join(dir, 'other.db');
    const db = new Database(other);
    db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')");
    db.close();
    const before = sha(other);
    expect(fresh('main-child.ts', other)).toEqual({
      opened: false,
      message: expect.stringContaining(`${other}: not a Flipbook project: it is an SQLite file with tables of its own (notes) and no Flipbook schema`),
    });
    expect(sha(other)).toBe(before);
    expect(fs.readdirSync(dir)).toEqual(['other.db']);
  });

  it('a worker whose process never enabled URI filenames is stopped, saying what to call', () => {
    const entry = pathToFileURL(path.join(HERE, 'store-worker-child.ts')).href;
    expect(fresh('thread-child.ts', entry)).toEqual({
      exitCode: 1,
      error: expect.stringContaining('did not set SQLITE_USE_URI=1 first: call enableUriFilenames()'),
    });
  });
});
