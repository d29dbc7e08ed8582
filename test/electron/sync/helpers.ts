/** Projects for the sync tests: one small release imported once, copied per annotator. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { exportRelease } from '../../../electron/release/export';
import { openProject } from '../../../electron/store/index';
import { spawnSync } from 'node:child_process';
import { flipbook, repoRoot, writePerItem, TWO_MODEL_CELLS } from '../cli/cli-helpers';
import type { PgServer } from './pg-server';

/** Items q1…qN of model m1 on split S at textonly/16f/32f (ground truth A). */
export function cells(n: number): Record<string, Record<string, [string, number]>> {
  const out: Record<string, Record<string, [string, number]>> = { ...TWO_MODEL_CELLS };
  for (let i = 5; i <= n; i++) {
    out[`q${i}`] = { textonly: [i % 2 ? 'A' : 'B', 0.5], '16f_151k': [i % 3 ? 'A' : 'B', 0.6], '32f_151k': ['A', 0.9] };
  }
  return out;
}

/** A project holding model m1 on split S with `n` items, imported through the CLI; returns its path. */
export function makeReleaseProject(dir: string, n = 12, name = 'release.flipbook'): string {
  const csv = path.join(dir, `per_item_${n}.csv`);
  writePerItem(csv, 'm1', 'S', cells(n));
  const project = path.join(dir, name);
  const r = flipbook('import', csv, '--project', project);
  if (r.code !== 0) throw new Error(`import failed: ${r.stderr}`);
  return project;
}

/**
 * Gives `annotator` a backlog of `count` edits on q1…q12 of m1/S in the project file, stamped a
 * millisecond apart from 2026-02-01, through the store's merge path (fast, and still theirs).
 */
export function addBacklog(projectPath: string, annotator: string, count: number): void {
  const p = openProject(projectPath);
  const t0 = Date.parse('2026-02-01T00:00:00.000Z');
  try {
    p.annotations.importEvents(
      Array.from({ length: count }, (_, i) => ({
        uuid: randomUUID(),
        at: new Date(t0 + i).toISOString(),
        annotator,
        model: 'm1',
        split: 'S',
        sampleId: `q${1 + (i % 12)}`,
        kind: i % 2 ? 'setNotes' : 'setStatus',
        payload: i % 2 ? { notes: `note ${i}` } : { status: 'done' },
        codebookVersion: 1,
        targetUuid: null,
      })),
    );
  } finally {
    p.close();
  }
}

/** Copies of a closed project file (each annotator's own project, same release). */
export function copies(source: string, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    out[n] = path.join(path.dirname(source), `${n}.flipbook`);
    fs.copyFileSync(source, out[n]);
  }
  return out;
}

/** Every file under annotations/ of an export, path → bytes. */
export async function exportedAnnotations(projectPath: string, outDir: string): Promise<Map<string, Buffer>> {
  const p = openProject(projectPath, { readOnly: true });
  try {
    await exportRelease(p, outDir, { now: new Date('2026-01-01T00:00:00Z') });
  } finally {
    p.close();
  }
  const dir = path.join(outDir, 'annotations');
  return new Map(
    fs
      .readdirSync(dir)
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f))]),
  );
}

/** The project's event uuids, sorted. */
export function eventUuids(projectPath: string): string[] {
  const p = openProject(projectPath, { readOnly: true });
  try {
    return p.annotations
      .exportEvents()
      .map((e) => e.uuid)
      .sort();
  } finally {
    p.close();
  }
}

/** The real CLI as `user` of `server` (PGPASSWORD and FLIPBOOK_ANNOTATOR set). */
export function cliAs(server: PgServer, user: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    env: { ...process.env, PGPASSWORD: server.password, FLIPBOOK_ANNOTATOR: user },
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * One step of a test whose steps build on each other: a failure names the step. Such steps are
 * one test rather than several, because a test run alone (as the mutation run runs only the
 * tests that reach a mutant) must not fail for want of the tests before it (docs/testing.md).
 */
export async function step(name: string, f: () => unknown): Promise<void> {
  try {
    await f();
  } catch (e) {
    if (e instanceof Error) e.message = `${name}: ${e.message}`;
    throw e;
  }
}

/**
 * Shared setup that is itself sync code under test (a space's first sync): run by the first
 * test that calls it, once. In a top-level beforeAll instead, the mutation run could not tell
 * which tests reach it, so each of its mutants ran every test file of the folder, and a throw
 * there skipped the tests (docs/testing.md, "Mutation testing").
 */
export function firstTime(f: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= f());
}
