/**
 * The release export called directly (export.ts) on a small real project whose counts are worked
 * out by hand: which files an export writes (docs/release-format.md's layout, benchmark text only
 * with --include-text), in path order; provenance/configs.json holding only the configs the
 * cells use; the summary's counts, which README.md repeats; the file list's sizes and digests;
 * `.zip` appended to a zip's path; the paths refused before anything is written
 * (docs/security.md "Export"); and a folder export that replaces its previous one leaving
 * nothing else behind.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResponseRow } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { buildReleaseFiles, exportRelease, pathInside } from '../../../electron/release/export';
import { readReleaseData } from '../../../electron/release/project-source';
import type { ReleaseData } from '../../../electron/release/release-data';
import { openProject, type Project } from '../../../electron/store/project';
import { batch, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';

const NOW = new Date('2026-05-06T12:00:00Z');
/** 64f_151k is known to the project but no cell uses it. */
const KEYS = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

/**
 * Grids (model, split): (M, S) items q1 q2 q3, q3 lacking 32f (excluded); (N, S) items q1 q2;
 * (M, T) items q1 q9 — q1 of T is another item than q1 of S. (M, OPEN) an open-ended split:
 * g1 with generated text at textonly and 16f, g2 with a score and no text.
 * Last, (M, T) item a-late: imported after every other item, so it has the largest item id, yet
 * it is not the last row of its grid (rows are in sample_id order).
 * Distinct items: S q1 q2 q3, T q1 q9 a-late, OPEN g1 g2 = 8. Cells: 8 + 6 + 9 + 3 = 26.
 */
function responses(): ResponseRow[] {
  const out: ResponseRow[] = [];
  let line = 1;
  const mc = (model: string, split: string, sampleId: string, config: string, pred: string): void => {
    out.push(response({ model, split, sampleId, config, pred, groundTruth: 'A', line: line++ }));
  };
  for (const id of ['q1', 'q2', 'q3']) for (const k of KEYS.slice(0, 3)) if (!(id === 'q3' && k === '32f_151k')) mc('M', 'S', id, k, id === 'q2' ? 'B' : 'A');
  for (const id of ['q1', 'q2']) for (const k of KEYS.slice(0, 3)) mc('N', 'S', id, k, 'A');
  for (const id of ['q1', 'q9']) for (const k of KEYS.slice(0, 3)) mc('M', 'T', id, k, k === 'textonly' ? 'C' : 'A');
  out.push(response({ model: 'M', split: 'OPEN', sampleId: 'g1', config: 'textonly', pred: 'a red ball', score: 0.5, line: line++ }));
  out.push(response({ model: 'M', split: 'OPEN', sampleId: 'g1', config: '16f_151k', pred: 'the red ball', score: 1, line: line++ }));
  out.push(response({ model: 'M', split: 'OPEN', sampleId: 'g2', config: 'textonly', pred: null, score: 0, line: line++ }));
  for (const k of KEYS.slice(0, 3)) mc('M', 'T', 'a-late', k, 'A');
  return out;
}

const MC_ONLY = responses().filter((r) => r.split !== 'OPEN');

function makeProject(file: string, rows: ResponseRow[]): Project {
  const p = openProject(file, { create: true });
  p.applyImport(
    batch(file, {
      configs: KEYS.map((k) => makeConfigSpec(k)),
      responses: rows,
      items: [{ split: 'S', sampleId: 'q1', question: 'Which colour is the ball?', options: ['red', 'blue'], answer: 'A' }],
    }),
  );
  return p;
}

/** The layout of docs/release-format.md for these grids, without the --include-text files. */
const GRIDS = ['M_OPEN', 'M_S', 'M_T', 'N_S'];
const LAYOUT = [
  'README.md',
  'annotations/codebook.json',
  'annotations/events.jsonl',
  'annotations/evidence_spans.csv',
  'annotations/pathways.csv',
  ...GRIDS.flatMap((g) => [`labels/aggregated/${g}.json`, `labels/aggregated/${g}_predictions_wide.csv`]),
  'labels/aggregated/protocols.json',
  'labels/aggregated/release_manifest.json',
  'labels/aggregated/table2_metrics.json',
  'labels/derived.csv',
  'labels/per_item.csv',
  'provenance/configs.json',
  'provenance/videos.csv',
];

/** Code-point order of docs/release-format.md "General rules", by an independent comparison. */
function byCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** The message `f` throws, or '' when it does not. */
function messageOf(f: () => unknown): string {
  try {
    f();
    return '';
  } catch (e) {
    return (e as Error).message;
  }
}

let tmp = '';
let project: Project;
let data: ReleaseData;
beforeAll(() => {
  tmp = tempDir('flipbook-export-');
  project = makeProject(path.join(tmp, 'p.flipbook'), responses());
  const t = { model: 'M', split: 'S', sampleId: 'q2' };
  project.annotations.apply({ op: 'setStatus', ...t, status: 'done' }, 'alice');
  project.annotations.apply({ op: 'addSpan', ...t, span: { startS: 1, endS: 2, label: 'x', coveredBy: [] } }, 'alice');
  project.annotations.apply({ op: 'addSpan', ...t, span: { startS: 3, endS: 4, label: 'y', coveredBy: [] } }, 'alice');
  project.annotations.apply({ op: 'addSpan', ...t, span: { startS: 5, endS: 6, label: 'z', coveredBy: [] } }, 'alice');
  project.annotations.apply({ op: 'setStatus', model: 'N', split: 'S', sampleId: 'q1', status: 'skipped' }, 'bob');
  data = readReleaseData(project);
});
afterAll(() => project.close());

describe('buildReleaseFiles', () => {
  it('writes the layout in code-point path order, benchmark text only with --include-text', () => {
    const plain = buildReleaseFiles(data, { now: NOW }).files.map((f) => f.path);
    expect(plain).toEqual([...LAYOUT].sort(byCodePoints));
    const withText = buildReleaseFiles(data, { now: NOW, includeText: true }).files.map((f) => f.path);
    expect(withText).toEqual([...LAYOUT, 'labels/items.csv', 'labels/generations.csv'].sort(byCodePoints));
  });

  it('writes generations.csv only when a cell has generated text', () => {
    const p = makeProject(path.join(tmp, 'mc.flipbook'), MC_ONLY);
    try {
      const paths = buildReleaseFiles(readReleaseData(p), { includeText: true }).files.map((f) => f.path);
      expect(paths).toContain('labels/items.csv');
      expect(paths).not.toContain('labels/generations.csv');
    } finally {
      p.close();
    }
    const text = new TextDecoder().decode(buildReleaseFiles(data, { includeText: true }).files.find((f) => f.path === 'labels/generations.csv')!.data);
    expect(text.split('\n').slice(1, -1)).toEqual(['g1,M,OPEN,16f_151k,the red ball', 'g1,M,OPEN,textonly,a red ball']);
  });

  it('lists in provenance/configs.json only the configs the cells use', () => {
    const configs = buildReleaseFiles(data, {}).files.find((f) => f.path === 'provenance/configs.json')!;
    const keys = Object.keys(JSON.parse(new TextDecoder().decode(configs.data)) as Record<string, unknown>);
    expect(keys.sort()).toEqual(['16f_151k', '32f_151k', 'textonly']);
  });

  it('counts cells, items by (split, sample_id), models, splits, used configs, grids, exclusions and annotations', () => {
    const { summary } = buildReleaseFiles(data, { now: NOW });
    expect(summary.counts).toEqual({
      cells: 26,
      // (M,S): q1 q2 complete, q3 excluded; (N,S): 2; (M,T): 3. The open-ended grid (g2 lacks
      // 16f: excluded) has no derived rows: its flags are about correctness.
      derivedRows: 7,
      items: 8,
      models: 2,
      splits: 3,
      configs: 3,
      grids: 4,
      excluded: 2,
      pathwayRows: 2,
      spanRows: 3,
    });
    expect(summary.includeText).toBe(false);
    expect(buildReleaseFiles(data, { includeText: true }).summary.includeText).toBe(true);
    expect(summary.matchedGrid).toEqual(data.matchedGrid);
    expect(summary.optionalColumns).toEqual(['score']);
  });

  it('repeats the counts in README.md, dated as asked', () => {
    const readme = new TextDecoder().decode(buildReleaseFiles(data, { now: NOW }).files.find((f) => f.path === 'README.md')!.data);
    expect(readme).toContain('Exported by Flipbook on 2026-05-06.\n');
    expect(readme).toContain('- 26 response cells (per_item.csv rows) over 8 items\n');
    expect(readme).toContain('- 2 models: M, N\n');
    expect(readme).toContain('- 3 splits: OPEN, S, T\n');
    expect(readme).toContain('- 3 configs: 16f_151k, 32f_151k, textonly\n');
    expect(readme).toContain('- 4 (model, split) grids; 7 derived rows; 2 item rows excluded for a missing cell\n');
    expect(readme).toContain('- 2 pathway annotations, 3 evidence spans\n');
    expect(readme).toContain('(here: score)');
    expect(readme).not.toContain('INCLUDES');
    const withText = new TextDecoder().decode(buildReleaseFiles(data, { now: NOW, includeText: true }).files.find((f) => f.path === 'README.md')!.data);
    expect(withText).toContain('INCLUDES benchmark question text');
    // Without a date, today's (UTC).
    const before = new Date().toISOString().slice(0, 10);
    const today = new TextDecoder().decode(buildReleaseFiles(data).files.find((f) => f.path === 'README.md')!.data);
    const after = new Date().toISOString().slice(0, 10);
    expect([before, after]).toContain(/Exported by Flipbook on (\S+)\./.exec(today)?.[1]);
  });

  it('lists models and splits in code-point order whatever order the grids come in', () => {
    // N on split A: the grids' own order (M before N) would give the splits OPEN, S, T, A.
    const p = makeProject(path.join(tmp, 'order.flipbook'), [...MC_ONLY, response({ model: 'N', split: 'A', sampleId: 'q1', config: 'textonly', pred: 'A', line: 999 })]);
    try {
      const d = readReleaseData(p);
      for (const matrices of [d.matrices, [...d.matrices].reverse()]) {
        const readme = new TextDecoder().decode(buildReleaseFiles({ ...d, matrices }, { now: NOW }).files.find((f) => f.path === 'README.md')!.data);
        expect(readme).toContain('- 2 models: M, N\n');
        expect(readme).toContain('- 3 splits: A, S, T\n');
      }
    } finally {
      p.close();
    }
  });

  it('counts an item once over models, and separately per split', () => {
    // Only model N's grid: S q1 q2 = 2 items; then the same ids on a second split double them.
    const nOnly = { ...data, grids: data.grids.filter((g) => g.model === 'N') };
    expect(buildReleaseFiles(nOnly).summary.counts.items).toBe(2);
    const both = { ...data, grids: data.grids.filter((g) => g.split === 'S') };
    expect(buildReleaseFiles(both).summary.counts.items).toBe(3);
    const none = { ...data, grids: [] };
    expect(buildReleaseFiles(none).summary.counts).toMatchObject({ cells: 0, items: 0 });
  });

  it('refuses a path that leaves the release, or two that differ only in case', () => {
    const rename = (names: Record<string, string>): ReleaseData => {
      const named = <T extends { model: string }>(xs: T[]): T[] => xs.map((x) => (names[x.model] === undefined ? x : { ...x, model: names[x.model] }));
      // The open-ended grid is left out: its matrix fills its cells on first read, which a copy would not.
      const mc = <T extends { split: string }>(xs: T[]): T[] => xs.filter((x) => x.split !== 'OPEN');
      return { ...data, grids: named(mc(data.grids)), mainGrids: named(mc(data.mainGrids)), matrices: named(mc(data.matrices)) };
    };
    const unsafe = messageOf(() => buildReleaseFiles(rename({ N: '../x' })));
    expect(unsafe).toBe(
      'export: refusing to write "labels/aggregated/../x_S.json": "labels/aggregated/../x_S.json" has a part ".." (an absolute path, or one that leaves its folder) (rename the model or split)',
    );
    // Windows and macOS fold case letter by letter: ß is not SS there, so these are two files.
    expect(buildReleaseFiles(rename({ M: 'ß', N: 'SS' })).files.map((f) => f.path)).toEqual(expect.arrayContaining(['labels/aggregated/ß_S.json', 'labels/aggregated/SS_S.json']));
    expect(() => buildReleaseFiles(rename({ N: 'm' }))).toThrow(
      'export: "labels/aggregated/M_S.json" and "labels/aggregated/m_S.json" would be one file on Windows and macOS (rename a model or split)',
    );
  });
});

describe('pathInside', () => {
  it('resolves a path below the root, and refuses the root itself and anything above it', () => {
    const root = path.join(tmp, 'root');
    expect(pathInside(root, 'labels/per_item.csv')).toBe(path.join(root, 'labels', 'per_item.csv'));
    expect(pathInside(root, '..x/y')).toBe(path.join(root, '..x', 'y'));
    expect(pathInside(root, 'a/../b')).toBe(path.join(root, 'b'));
    for (const rel of ['', '.', 'a/..', '..', '../x', 'a/../../x', '../root2/x']) {
      expect(() => pathInside(root, rel), rel).toThrow(`export: refusing to write ${JSON.stringify(rel)}: it resolves outside ${root}`);
    }
  });
});

describe('exportRelease', () => {
  it('writes a folder whose file list gives each size and digest, and replaces it leaving nothing beside it', async () => {
    const dir = path.join(tmp, 'folder');
    const out = path.join(dir, 'a', 'rel');
    const s = await exportRelease(project, out, { now: NOW });
    expect(s.path).toBe(out);
    expect(s.zip).toBe(false);
    expect(s.files.map((f) => f.path)).toEqual([...LAYOUT].sort(byCodePoints));
    for (const f of s.files) {
      const bytes = fs.readFileSync(path.join(out, ...f.path.split('/')));
      expect(f.bytes, f.path).toBe(bytes.byteLength);
      expect(f.sha256, f.path).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(s.files.find((f) => f.path === 'labels/per_item.csv')!.bytes).toBeGreaterThan(500);
    // The summary is JSON as `flipbook export --json` prints it, digests included.
    const json = JSON.parse(JSON.stringify(s)) as { files: { path: string; sha256: string }[] };
    expect(json.files.map((f) => f.sha256)).toEqual(s.files.map((f) => f.sha256));
    // The same bytes as the in-memory build, README.md included (same date).
    const built = buildReleaseFiles(data, { now: NOW }).files;
    for (const f of built) expect(fs.readFileSync(path.join(out, ...f.path.split('/'))).equals(Buffer.from(f.data)), f.path).toBe(true);

    // A second export replaces the first: no temp, no moved-aside copy, no file of the old one left.
    fs.rmSync(path.join(out, 'labels', 'derived.csv'));
    const again = await exportRelease(project, out, { now: NOW, includeText: true });
    expect(again.includeText).toBe(true);
    expect(fs.readdirSync(path.join(dir, 'a'))).toEqual(['rel']);
    expect(fs.existsSync(path.join(out, 'labels', 'derived.csv'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'labels', 'items.csv'))).toBe(true);
    const p = openProject(path.join(tmp, 'mc2.flipbook'), { create: true });
    try {
      // A project without results still exports a release, over the previous one.
      await exportRelease(p, out, { now: NOW });
      expect(fs.existsSync(path.join(out, 'labels', 'items.csv'))).toBe(false);
      expect(fs.readdirSync(path.join(dir, 'a'))).toEqual(['rel']);
    } finally {
      p.close();
    }
  });

  it('writes a zip, appending .zip when the path lacks it, with the files of the folder export', async () => {
    const dir = path.join(tmp, 'zips');
    const s = await exportRelease(project, path.join(dir, 'rel'), { zip: true, now: NOW });
    expect(s.path).toBe(path.join(dir, 'rel.zip'));
    expect(s.zip).toBe(true);
    const entries = unzipSync(fs.readFileSync(s.path));
    expect(Object.keys(entries)).toEqual([...LAYOUT].sort(byCodePoints));
    for (const f of s.files) {
      expect(f.bytes, f.path).toBe(entries[f.path]!.byteLength);
      expect(f.sha256, f.path).toBe(createHash('sha256').update(entries[f.path]!).digest('hex'));
    }
    const named = await exportRelease(project, path.join(dir, 'named.zip'), { zip: true, now: NOW });
    expect(named.path).toBe(path.join(dir, 'named.zip'));
    expect(fs.readdirSync(dir).sort()).toEqual(['named.zip', 'rel.zip']);
    // Replacing its own zip leaves no temp either.
    await exportRelease(project, path.join(dir, 'named.zip'), { zip: true, now: NOW });
    expect(fs.readdirSync(dir).sort()).toEqual(['named.zip', 'rel.zip']);
  });

  it('replaces what a run of this same pid left (a reused pid), which the stale-temp cleanup keeps', async () => {
    const dir = path.join(tmp, 'own-pid');
    const out = path.join(dir, 'rel');
    fs.mkdirSync(path.join(`${out}.tmp-${process.pid}`, 'labels'), { recursive: true });
    fs.writeFileSync(path.join(`${out}.tmp-${process.pid}`, 'labels', 'stray.txt'), 'half');
    const s = await exportRelease(project, out, { now: NOW });
    expect(fs.readdirSync(dir)).toEqual(['rel']);
    expect(fs.existsSync(path.join(out, 'labels', 'stray.txt'))).toBe(false);
    expect(s.files.map((f) => f.path)).toEqual([...LAYOUT].sort(byCodePoints));
  });

  it('keeps the previous export when it cannot be moved aside (a same-pid leftover is in the way)', async () => {
    const dir = path.join(tmp, 'blocked');
    const out = path.join(dir, 'rel');
    await exportRelease(project, out, { now: new Date('2025-01-01T00:00:00Z') });
    const readme = fs.readFileSync(path.join(out, 'README.md'), 'utf8');
    const aside = `${out}.tmp-${process.pid}-old`;
    fs.mkdirSync(aside);
    fs.writeFileSync(path.join(aside, 'x'), 'left by a killed run whose pid this process now has');
    const e = await exportRelease(project, out, { now: NOW }).then(
      () => null,
      (x: unknown) => x as Error & { code?: string },
    );
    // The error of moving the previous export aside, as it is (not a disk failure).
    expect(e?.message).toContain(`rename '${out}' -> '${aside}'`);
    expect(fs.readFileSync(path.join(out, 'README.md'), 'utf8')).toBe(readme);
    expect(fs.readdirSync(dir).sort()).toEqual(['rel', path.basename(aside)]);
  });

  it('leaves no file open', async () => {
    const fds = (): number => fs.readdirSync('/proc/self/fd').length;
    const out = path.join(tmp, 'fds', 'rel');
    await exportRelease(project, out, { now: NOW });
    const before = fds();
    for (let i = 0; i < 5; i++) await exportRelease(project, out, { now: NOW });
    expect(fds()).toBe(before);
  });

  it('a zip that cannot be written (a full disk): says so, removes its temp, and keeps a previous zip', async () => {
    const dir = path.join(tmp, 'full-zip');
    fs.mkdirSync(dir);
    // The temp of this process is not a stale one: made a link to /dev/full, every write to it fails with ENOSPC.
    const target = path.join(dir, 'rel.zip');
    const temp = `${target}.tmp-${process.pid}`;
    fs.symlinkSync('/dev/full', temp);
    await expect(exportRelease(project, path.join(dir, 'rel'), { zip: true })).rejects.toThrow(
      `export to ${target} failed: the disk is full (ENOSPC) while writing the zip; nothing was left there`,
    );
    expect(fs.readdirSync(dir)).toEqual([]);

    await exportRelease(project, target, { zip: true, now: NOW });
    const before = fs.readFileSync(target);
    fs.symlinkSync('/dev/full', temp);
    const e = await exportRelease(project, target, { zip: true }).then(
      () => null,
      (x: unknown) => x as Error,
    );
    expect(e?.message).toBe(`export to ${target} failed: the disk is full (ENOSPC) while writing the zip; the previous export there is kept as it was`);
    expect((e?.cause as { code?: string } | undefined)?.code).toBe('ENOSPC');
    expect(fs.readdirSync(dir)).toEqual(['rel.zip']);
    expect(fs.readFileSync(target).equals(before)).toBe(true);
  });

  it('refuses before writing: a target that is not its own, or an unsafe name', async () => {
    const dir = path.join(tmp, 'refused');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'thesis.zip'), 'mine');
    await expect(exportRelease(project, path.join(dir, 'thesis.zip'), { zip: true })).rejects.toThrow('exists and is not a zip Flipbook exported');
    expect(fs.readdirSync(dir)).toEqual(['thesis.zip']);
    fs.mkdirSync(path.join(dir, 'docs'));
    fs.writeFileSync(path.join(dir, 'docs', 'x.txt'), 'mine');
    await expect(exportRelease(project, path.join(dir, 'docs'))).rejects.toThrow('not a release Flipbook exported');
    expect(fs.readdirSync(dir).sort()).toEqual(['docs', 'thesis.zip']);
    expect(fs.readdirSync(path.join(dir, 'docs'))).toEqual(['x.txt']);
  });
});
