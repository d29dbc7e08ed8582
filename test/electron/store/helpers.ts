/** Shared builders for the store tests: real SQLite files in a fresh temp dir (tempDir). */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { ImportError } from '../../../electron/importers/errors';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow } from '../../../shared/domain/types';

// The store tests' temp folders come from the suite-wide helper (removed after each file).
export { tempDir } from '../../temp-dir';
export { config } from '../../config-spec';

export function response(p: Partial<ResponseRow> & Pick<ResponseRow, 'sampleId' | 'config' | 'line'>): ResponseRow {
  return {
    model: 'qwen',
    split: 'V1_short',
    pred: null,
    correct: null,
    score: null,
    groundTruth: null,
    confidence: null,
    margin: null,
    latencyMs: null,
    frameIndices: null,
    sourceTag: null,
    protocolNote: null,
    ...p,
  };
}

export function batch(file: string, parts: { items?: ItemMeta[]; responses?: ResponseRow[]; configs?: ConfigSpec[]; format?: string }): ImportBatch {
  const body = JSON.stringify(parts);
  return {
    run: { sourcePath: file, sha256: crypto.createHash('sha256').update(body).digest('hex'), format: parts.format ?? 'test', toolkit: null, modelArgs: null },
    items: parts.items ?? [],
    responses: parts.responses ?? [],
    configs: parts.configs ?? [],
    warnings: [],
  };
}

export function sha256File(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The pid of a process that has exited (so it is certainly not alive). */
export function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

/** The ImportError `f` throws; any other error is rethrown, and no error fails the test. */
export function importRefusal(f: () => unknown): ImportError {
  try {
    f();
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('not refused');
}

/** An empty SQLite file of `encoding` at `file`, which openProject initialises as a new project. */
export function emptySqliteFile(file: string, encoding: string): string {
  const raw = new Database(file);
  raw.pragma(`encoding = '${encoding}'`);
  raw.exec('CREATE TABLE t (x); DROP TABLE t');
  raw.close();
  return file;
}
