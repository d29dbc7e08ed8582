/**
 * The native part of better-sqlite3 to load, as its `nativeBinding` option (every connection
 * the store opens takes it).
 *
 * - In Electron: under `npm start` with a real Electron, node_modules holds the Node build of
 *   better-sqlite3 (npm test needs it); start.js points us at the Electron-ABI build made by
 *   scripts/rebuild-native.js (FLIPBOOK_SQLITE_BINDING). Packaged apps have the right build in
 *   place, found the usual way.
 * - In Node: the package's own build (build/Release, or build/Debug for a debug build), named
 *   directly. Left to itself, better-sqlite3 finds it with the `bindings` package, which reads
 *   a stack trace for the module's root and tries a dozen paths: 3–10 ms of every CLI call,
 *   and wrong from the CLI's build, which bundles better-sqlite3's JavaScript
 *   (scripts/build-cli.js), so the root it finds is not the package's.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

/**
 * SQLite URI filenames (`file:…?immutable=1`): identify.ts looks at a file through one without
 * writing to it or beside it, and project.ts opens a project in a folder this process cannot
 * write through one. better-sqlite3 turns them on once per process, when it first loads, if the
 * process's environment has SQLITE_USE_URI=1 (C `getenv`). A worker thread's `process.env` is
 * its own copy, which `getenv` never sees: only the main thread can set it, and it must do so
 * before the first worker that loads the store starts (host/backend-client.ts calls this
 * before the desktop app's backend thread starts). Without it a foreign SQLite file looks
 * unreadable, so it is not refused but taken over (docs/security.md "The project file").
 */
export function enableUriFilenames(): void {
  if (isMainThread) {
    process.env.SQLITE_USE_URI ??= '1';
    return;
  }
  // The copy a worker gets is its parent's environment when it started: without the setting
  // there, this process's SQLite may already be, or be about to be, loaded without URIs.
  if (process.env.SQLITE_USE_URI !== '1') {
    throw new Error(
      'the store was loaded in a worker thread whose process did not set SQLITE_USE_URI=1 first: call enableUriFilenames() (electron/store/sqlite-binding.ts) in the main thread before starting it',
    );
  }
}
enableUriFilenames();

let nodeBuild: string | null | undefined;

export function sqliteBinding(): { nativeBinding?: string } {
  if (process.versions.electron) {
    const binding = process.env.FLIPBOOK_SQLITE_BINDING;
    return binding ? { nativeBinding: binding } : {};
  }
  if (nodeBuild === undefined) {
    try {
      const dir = path.dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
      nodeBuild = ['Release', 'Debug'].map((d) => path.join(dir, 'build', d, 'better_sqlite3.node')).find((f) => fs.existsSync(f)) ?? null;
    } catch {
      nodeBuild = null;
    }
  }
  return nodeBuild ? { nativeBinding: nodeBuild } : {};
}
