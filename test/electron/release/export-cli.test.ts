/**
 * `flipbook export` end to end (a real process on a real project), and the benchmark-text rule:
 * question text leaves the project only with --include-text.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { ConfigSpec, ImportBatch, ResponseRow } from '../../../shared/domain/types';
import { openProject } from '../../../electron/store/project';
import { tempDir } from '../../temp-dir';

const repoRoot = path.resolve(__dirname, '../../..');
const QUESTION = 'How many red circles appear, and in which order — "first", then?';

function spec(key: string, frames: number, pixelCount: number): ConfigSpec {
  return { key, frames, pixelCount, width: null, height: null, sampling: { policy: null, seed: null, fps: null }, pipeline: null, toolkit: null, modelArgs: null, notes: null };
}

function batch(): ImportBatch {
  const configs = [spec('textonly', 0, 0), spec('16f_151k', 16, 150528), spec('32f_151k', 32, 150528)];
  const responses: ResponseRow[] = [];
  let line = 1;
  for (const id of ['q-1', 'q-2', 'q-3']) {
    for (const c of configs) {
      const pred = id === 'q-2' && c.frames === 32 ? 'B' : 'A';
      responses.push({
        model: 'M',
        split: 'S',
        sampleId: id,
        config: c.key,
        pred,
        correct: null,
        score: null,
        groundTruth: null,
        confidence: null,
        margin: null,
        latencyMs: null,
        frameIndices: null,
        sourceTag: 'src',
        protocolNote: null,
        line: line++,
      });
    }
  }
  return {
    run: { sourcePath: 'cli-test', sha256: 'cli-test-1', format: 'synthetic', toolkit: null, modelArgs: null },
    items: ['q-1', 'q-2', 'q-3'].map((sampleId) => ({ split: 'S', sampleId, question: QUESTION, options: ['one, two', 'three "3"'], answer: 'A', taskType: 'Counting' })),
    responses,
    configs,
    warnings: [],
  };
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], { encoding: 'utf8', cwd: repoRoot });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function allText(dir: string): string {
  let s = '';
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    s += statSync(p).isDirectory() ? allText(p) : readFileSync(p, 'utf8');
  }
  return s;
}

const summarySchema = z.object({
  path: z.string(),
  zip: z.boolean(),
  matchedGrid: z.array(z.string()),
  counts: z.object({ cells: z.number(), derivedRows: z.number(), grids: z.number() }).loose(),
  files: z.array(z.object({ path: z.string(), bytes: z.number(), sha256: z.string() })),
});

describe('flipbook export (CLI)', () => {
  let tmp = '';
  let project = '';
  beforeAll(() => {
    tmp = tempDir('flipbook-export-cli-');
    project = path.join(tmp, 'p.flipbook');
    const p = openProject(project, { create: true });
    try {
      p.applyImport(batch());
    } finally {
      p.close();
    }
  });
  it('exports a folder and prints a JSON summary', () => {
    const out = path.join(tmp, 'rel');
    const r = cli(['export', '--project', project, '--out', out, '--matched-grid', 'textonly,16f_151k', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = summarySchema.parse(JSON.parse(r.stdout));
    expect(s.zip).toBe(false);
    expect(s.matchedGrid).toEqual(['textonly', '16f_151k']);
    expect(s.counts.cells).toBe(9);
    expect(s.counts.derivedRows).toBe(3);
    expect(s.files.map((f) => f.path)).toContain('labels/per_item.csv');
    // The digests (computed on demand) are those of the files written.
    for (const f of s.files) {
      const bytes = readFileSync(path.join(out, f.path));
      expect(f.bytes).toBe(bytes.byteLength);
      expect(f.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    const derived = parse(readFileSync(path.join(out, 'labels/derived.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    // q-2: A (correct) at textonly and 16f, B (wrong) at 32f.
    expect(derived.find((d) => d.sample_id === 'q-2')).toMatchObject({ is_visually_confused: '1', trajectory_class: 'monotonic_decreasing', matched_grid_best_config: 'textonly' });
    // Ground truth letters come from the items; question text does not leave the project.
    expect(readFileSync(path.join(out, 'labels/per_item.csv'), 'utf8')).toContain('q-1,M,S,16f_151k,16,150528,A,A,1,src,\n');
    expect(existsSync(path.join(out, 'labels/items.csv'))).toBe(false);
    expect(allText(out)).not.toContain('red circles');
  });

  it('--include-text adds labels/items.csv with question and options', () => {
    const out = path.join(tmp, 'rel-text');
    const r = cli(['export', '--project', project, '--out', out, '--include-text']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Exported release folder');
    const items = parse(readFileSync(path.join(out, 'labels/items.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(items).toHaveLength(3);
    expect(items[0]).toMatchObject({ split: 'S', sample_id: 'q-1', question: QUESTION, answer: 'A', task_type: 'Counting' });
    expect(JSON.parse(items[0]?.options ?? '')).toEqual(['one, two', 'three "3"']);
    expect(readFileSync(path.join(out, 'README.md'), 'utf8')).toContain('INCLUDES benchmark question text');
  });

  it('--zip writes one zip; usage errors exit 2, a missing project exits 1', () => {
    const r = cli(['export', '--project', project, '--out', path.join(tmp, 'rel'), '--zip', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const s = summarySchema.parse(JSON.parse(r.stdout));
    expect(s.path.endsWith('rel.zip')).toBe(true);
    expect(readFileSync(s.path).subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    expect(cli(['export', '--project', project]).status).toBe(2);
    expect(cli(['export', '--project', project, '--out', path.join(tmp, 'x'), '--bogus']).status).toBe(2);
    expect(cli(['export', '--project', path.join(tmp, 'none.flipbook'), '--out', path.join(tmp, 'y')]).status).toBe(1);
  });
});

describe('release_manifest.json cells', () => {
  it("name each cell's most common source tag and protocol note, null counting as ''", () => {
    // 16f: tags a a a b b (null), notes n1 n1 n2 and three nulls; 32f: (null) then x ×5, one
    // note; textonly: one tag, no note. The grid's cells differ, so it is listed cell by cell.
    const ids = ['i1', 'i2', 'i3', 'i4', 'i5', 'i6'];
    const configs = [spec('textonly', 0, 0), spec('16f_151k', 16, 150528), spec('32f_151k', 32, 150528)];
    const tags: Record<string, (string | null)[]> = {
      textonly: ['solo', 'solo', 'solo', 'solo', 'solo', 'solo'],
      '16f_151k': ['a', 'a', 'a', 'b', 'b', null],
      '32f_151k': [null, 'x', 'x', 'x', 'x', 'x'],
    };
    const notes: Record<string, (string | null)[]> = {
      textonly: [null, null, null, null, null, null],
      '16f_151k': ['n1', null, 'n1', null, 'n2', null],
      '32f_151k': ['p', 'p', 'p', 'p', 'p', 'p'],
    };
    let line = 1;
    const responses: ResponseRow[] = configs.flatMap((c) =>
      ids.map((sampleId, i) => ({
        model: 'M',
        split: 'S',
        sampleId,
        config: c.key,
        pred: 'A',
        correct: null,
        score: null,
        groundTruth: null,
        confidence: null,
        margin: null,
        latencyMs: null,
        frameIndices: null,
        sourceTag: tags[c.key]![i]!,
        protocolNote: notes[c.key]![i]!,
        line: line++,
      })),
    );
    const tmp = tempDir('flipbook-export-manifest-');
    const project = path.join(tmp, 'p.flipbook');
    const p = openProject(project, { create: true });
    try {
      p.applyImport({
        run: { sourcePath: 'manifest-test', sha256: 'manifest-test-1', format: 'synthetic', toolkit: null, modelArgs: null },
        items: ids.map((sampleId) => ({ split: 'S', sampleId, question: 'q', options: ['a', 'b'], answer: 'A', taskType: null })),
        responses,
        configs,
        warnings: [],
      });
    } finally {
      p.close();
    }
    const out = path.join(tmp, 'rel');
    const r = cli(['export', '--project', project, '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(out, 'labels/aggregated/release_manifest.json'), 'utf8')) as {
      cells: { config: string; total: number; source_tag: string; protocol_note: string }[];
      wide_sources: unknown[];
    };
    expect(manifest.wide_sources).toEqual([]);
    expect(manifest.cells.map((c) => [c.config, c.total, c.source_tag, c.protocol_note])).toEqual([
      ['textonly', 6, 'solo', ''],
      ['16f_151k', 6, 'a', ''],
      ['32f_151k', 6, 'x', 'p'],
    ]);
  });
});
