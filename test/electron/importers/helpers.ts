import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const sharedFixtures = resolve(repoRoot, '../shared/fixtures');
export const fixtures = resolve(repoRoot, 'test/fixtures/importers');

/** A scratch folder per test file; files are written into it by name. */
export class Scratch {
  readonly dir = mkdtempSync(join(tmpdir(), 'flipbook-importers-'));
  write(name: string, content: string | Uint8Array): string {
    const p = join(this.dir, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  }
  path(name: string): string {
    return join(this.dir, name);
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Asserts the promise rejects with an ImportError naming file (basename), line and field. */
export async function expectImportError(
  p: Promise<unknown>,
  where: { file: string; line: number; field: string; reason?: RegExp },
): Promise<ImportError> {
  let caught: unknown = null;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught, 'expected an ImportError').toBeInstanceOf(ImportError);
  const err = caught as ImportError;
  expect(err.file).toContain(where.file);
  expect(err.line).toBe(where.line);
  expect(err.field).toBe(where.field);
  expect(err.message).toContain(where.file);
  expect(err.message).toContain(`:${where.line}`);
  expect(err.message).toContain(where.field);
  if (where.reason) expect(err.reason).toMatch(where.reason);
  return err;
}
