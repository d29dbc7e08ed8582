/**
 * The one way a test makes a scratch folder: `tempDir()` makes it under os.tmpdir() and it is
 * removed when the calling test file's tests are done, whether they passed or failed (vitest
 * runs afterAll hooks either way). Importing this module registers that hook on the importing
 * file, so a helper that makes folders for its callers (cli-helpers) uses it too.
 * KEEP_TMP=1 keeps them (each printed) to look at what a test wrote.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const created: string[] = [];

function removeAll(): void {
  if (process.env.KEEP_TMP) {
    for (const d of created.splice(0)) console.log(`kept ${d}`);
    return;
  }
  // maxRetries: a child process that was just killed may still be closing files in it.
  for (const d of created.splice(0)) fs.rmSync(d, { recursive: true, force: true, maxRetries: 5 });
}

// Outside a test file there is no suite to hook into (the e2e globalSetup imports the harness,
// which imports this module); there tempDir() refuses rather than leave its folders behind.
let hooked = true;
try {
  afterAll(removeAll);
} catch {
  hooked = false;
}

export function tempDir(prefix = 'flipbook-test-'): string {
  if (!hooked) throw new Error('tempDir() is for test files (its folders are removed by an afterAll hook)');
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.push(d);
  return d;
}
