import { copyFileSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { tempDir } from '../../temp-dir';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const sharedFixtures = resolve(repoRoot, '../shared/fixtures');
export const fixtures = resolve(repoRoot, 'test/fixtures/importers');

/** A scratch folder per test file (tempDir: removed after the file); files are written into it by name. */
export class Scratch {
  readonly dir = tempDir('flipbook-importers-');
  write(name: string, content: string | Uint8Array): string {
    const p = join(this.dir, name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  }
  path(name: string): string {
    return join(this.dir, name);
  }
  private freshCount = 0;
  /** The name of a new folder under this one, another on each call: for files that must not meet. */
  freshDir(): string {
    return `fresh${++this.freshCount}`;
  }
  /** `content` written as `name` in a new folder of its own; its path. */
  freshFile(name: string, content: string | Uint8Array): string {
    return this.write(`${this.freshDir()}/${name}`, content);
  }
  /** The files (name → content) written into one new folder; the path of each by name. */
  freshFolder(files: Record<string, string | Uint8Array>): Record<string, string> {
    const dir = this.freshDir();
    return Object.fromEntries(Object.entries(files).map(([name, content]) => [name, this.write(`${dir}/${name}`, content)]));
  }
  /**
   * Lays out the synthetic lmms-eval ≥ 0.7 log of test/fixtures/formats/ under the names
   * lmms-eval gives its files (`<datetime>_samples_<task>.jsonl` beside `<datetime>_results.json`;
   * the importer takes the task from that name, docs/formats.md "lmms-eval"). The repository
   * keeps it under neutral names so it is never mistaken for a real benchmark log.
   */
  lmmsEvalLog(task: string, folder = task): string {
    const src = join(repoRoot, 'test/fixtures/formats/lmms-eval-v0.7-videomme-qwen3vl');
    const dir = this.path(folder);
    mkdirSync(dir, { recursive: true });
    copyFileSync(join(src, 'synthetic-results.json'), join(dir, '20260301_101500_results.json'));
    const log = join(dir, `20260301_101500_samples_${task}.jsonl`);
    copyFileSync(join(src, 'synthetic-samples.jsonl'), log);
    return log;
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The ImportError `f` throws (fails the test if it throws none, or another error). */
export function refusalOf(f: () => unknown): ImportError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
  throw new Error('expected an ImportError, none was thrown');
}

/** The message of the error `f` throws, or 'accepted' when it throws none. */
export function errorMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'accepted';
}

/** An ImportError's file, line, field and reason, to compare in one expectation. */
export const whereOf = (e: ImportError): [string, number, string, string] => [e.file, e.line, e.field, e.reason];

/** Asserts the promise rejects with an ImportError and returns it. */
export async function refusal(p: Promise<unknown>): Promise<ImportError> {
  const caught = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(caught, `expected an ImportError, got ${String(caught)}`).toBeInstanceOf(ImportError);
  return caught as ImportError;
}

/** Asserts the promise rejects with an ImportError naming file (basename), line and field. */
export async function expectImportError(p: Promise<unknown>, where: { file: string; line: number; field: string; reason?: RegExp }): Promise<ImportError> {
  const err = await refusal(p);
  expect(err.file).toContain(where.file);
  expect(err.line).toBe(where.line);
  expect(err.field).toBe(where.field);
  expect(err.message).toContain(where.file);
  expect(err.message).toContain(`:${where.line}`);
  expect(err.message).toContain(where.field);
  if (where.reason) expect(err.reason).toMatch(where.reason);
  return err;
}

/** The 1-based number of the `nth` line of `file` holding `needle` (where a refusal should point). */
export function lineOf(file: string, needle: string, nth = 0): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  let seen = 0;
  for (let i = 0; i < lines.length; i++) if (lines[i]!.includes(needle) && seen++ === nth) return i + 1;
  throw new Error(`${needle} not in ${file}`);
}
