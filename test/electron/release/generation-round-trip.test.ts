/**
 * The release round trip with generation items (docs/release-format.md): a project holding an
 * AVSD test set (dialogue history, several references, generated answers scored by Token-F1)
 * and an MLVU generation grid with a judge's own scores, exported with --include-text, imported
 * into a new project and exported again, is byte-identical (README.md's date line aside), and
 * the new project holds every item's context, references, generated text, score and the
 * score's source. Without --include-text no benchmark or generated text leaves the project.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { applyImportFiles, readImportFiles } from '../../../electron/jobs/import-files';
import { exportRelease } from '../../../electron/release/export';
import { README_DATE_PREFIX } from '../../../electron/release/readme';
import { openProject, type Project } from '../../../electron/store/project';
import { AVSD_MODEL, expectedAvsd, writeAvsdRun, type AvsdRun } from '../../avsd-run';
import { MODEL as MLVU_MODEL, writeMlvuGeneration } from '../../mlvu-generation';
import { tempDir } from '../../temp-dir';

function readTree(dir: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${e}` : e;
    if (statSync(path.join(dir, r)).isDirectory()) for (const [k, v] of readTree(dir, r)) out.set(k, v);
    else out.set(r, readFileSync(path.join(dir, r)));
  }
  return out;
}
const withoutDate = (b: Buffer) =>
  b
    .toString('utf8')
    .split('\n')
    .filter((l) => !l.startsWith(README_DATE_PREFIX))
    .join('\n');

/** Imports a release as `flipbook import` does (its annotations/ in the same transaction). */
async function reimport(file: string, release: string): Promise<Project> {
  const p = openProject(file, { create: true });
  applyImportFiles(p, await readImportFiles([release], {}), {});
  return p;
}

function expectSameTree(a: string, b: string): void {
  const x = readTree(a);
  const y = readTree(b);
  expect([...y.keys()]).toEqual([...x.keys()]);
  for (const [k, v] of x) {
    if (k === 'README.md') expect(withoutDate(y.get(k)!)).toBe(withoutDate(v));
    else expect(y.get(k)!.equals(v), `${k} differs`).toBe(true);
  }
}

describe('release round trip with generation items', () => {
  let tmp: string;
  let run: AvsdRun;
  let source: string;
  beforeAll(async () => {
    tmp = tempDir('flipbook-gen-rt-');
    run = writeAvsdRun(path.join(tmp, 'avsd'));
    const mlvu = writeMlvuGeneration(path.join(tmp, 'mlvu'), 8);
    // The 32-frame predictions carry a judge's own score: kept, and named as their source.
    const judged = JSON.parse(readFileSync(mlvu.results[2]!.path, 'utf8')) as Record<string, unknown>[];
    judged.forEach((r, i) => (r.score = ((i * 37) % 100) / 100));
    writeFileSync(mlvu.results[2]!.path, JSON.stringify(judged, null, 4));
    source = path.join(tmp, 'source.flipbook');
    const p = openProject(source, { create: true });
    try {
      const read = [
        ...(await readImportFiles([run.reference, run.multiref, ...run.results.map((r) => r.path)], {})),
        ...(await readImportFiles(mlvu.meta, {})),
        ...(await Promise.all(mlvu.results.map((r) => readImportFiles([r.path], r.opts)))).flat(),
      ];
      applyImportFiles(p, read, {});
      p.annotations.apply({ op: 'setStatus', model: AVSD_MODEL, split: 'AVSD', sampleId: expectedAvsd(run)[0]!.sampleId, status: 'done' }, 'ana');
      await exportRelease(p, path.join(tmp, 'text1'), { includeText: true, now: new Date('2025-03-01T00:00:00Z') });
      await exportRelease(p, path.join(tmp, 'bare1'), { now: new Date('2025-03-01T00:00:00Z') });
    } finally {
      p.close();
    }
  });

  it('with --include-text: items.csv carries each dialogue item’s context, generations.csv each generated text; per_item.csv each score and its source', () => {
    const items = parse(readFileSync(path.join(tmp, 'text1/labels/items.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const want = expectedAvsd(run);
    for (const x of want) {
      const row = items.find((r) => r.split === 'AVSD' && r.sample_id === x.sampleId)!;
      expect(JSON.parse(row.references!)).toEqual(x.references);
      expect((JSON.parse(row.context!) as { history: unknown }).history).toEqual(x.history);
    }
    expect(items.filter((r) => r.split === 'MLVU_gen').every((r) => r.context === '')).toBe(true);
    const gens = parse(readFileSync(path.join(tmp, 'text1/labels/generations.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(gens.filter((g) => g.model === AVSD_MODEL).length).toBe(want.length * 3);
    for (const x of want) for (const [j, c] of ['8f', '16f', '32f'].entries()) expect(gens.find((g) => g.sample_id === x.sampleId && g.config === c)!.text).toBe(x.texts[j]);
    const cells = parse(readFileSync(path.join(tmp, 'text1/labels/per_item.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const notes = new Set(cells.filter((c) => c.model === MLVU_MODEL).map((c) => `${c.config} ${c.protocol_note}`));
    expect([...notes].sort()).toEqual(['16f score: token_f1', '32f score: score', '8f score: token_f1']);
    const agg = JSON.parse(readFileSync(path.join(tmp, `text1/labels/aggregated/${MLVU_MODEL}_MLVU_gen.json`), 'utf8')) as { metric: string };
    expect(agg.metric).toBe('score + token_f1');
  });

  it('export → import → export is byte-identical, and the imported project holds context, references, texts, scores and sources', async () => {
    const p = await reimport(path.join(tmp, 'back.flipbook'), path.join(tmp, 'text1'));
    try {
      for (const x of expectedAvsd(run)) {
        const it = p.getItem('AVSD', x.sampleId)!;
        expect(it.context!.history).toEqual(x.history);
        expect(it.references).toEqual(x.references);
        expect(it.question).toBe(x.question);
        const cells = p.responsesForItem(AVSD_MODEL, 'AVSD', x.sampleId);
        expect(cells.map((c) => [c.pred, c.protocolNote])).toEqual(x.texts.map((t) => [t, 'score: token_f1']));
        cells.forEach((c, j) => expect(Math.abs(c.score! - x.scores[j]!)).toBeLessThan(1e-12));
      }
      expect(p.listGrids().map((g) => [g.model, g.kind, g.score])).toEqual([
        [AVSD_MODEL, 'open', 'token_f1'],
        [MLVU_MODEL, 'open', 'score + token_f1'],
      ]);
      await exportRelease(p, path.join(tmp, 'text2'), { includeText: true, now: new Date('2025-03-02T00:00:00Z') });
    } finally {
      p.close();
    }
    expectSameTree(path.join(tmp, 'text1'), path.join(tmp, 'text2'));
  });

  it('without --include-text: no benchmark or generated text is written, and the round trip is byte-identical too', async () => {
    const files = [...readTree(path.join(tmp, 'bare1')).keys()];
    expect(files).not.toContain('labels/items.csv');
    expect(files).not.toContain('labels/generations.csv');
    const all = [...readTree(path.join(tmp, 'bare1')).values()].map((b) => b.toString('utf8')).join('\n');
    for (const x of expectedAvsd(run)) for (const t of [x.question, ...x.texts, ...x.references]) expect(all.includes(t), t).toBe(false);
    const p = await reimport(path.join(tmp, 'bare.flipbook'), path.join(tmp, 'bare1'));
    try {
      await exportRelease(p, path.join(tmp, 'bare2'), { now: new Date('2025-03-02T00:00:00Z') });
    } finally {
      p.close();
    }
    expectSameTree(path.join(tmp, 'bare1'), path.join(tmp, 'bare2'));
  });

  it('a generations.csv row naming no cell, or a multiple-choice cell, is refused naming the line', async () => {
    const gen = path.join(tmp, 'text1/labels/generations.csv');
    const good = readFileSync(gen, 'utf8');
    try {
      writeFileSync(gen, `${good}NOPE_9,${AVSD_MODEL},AVSD,8f,some text\n`);
      await expect(readImport(path.join(tmp, 'text1'))).rejects.toThrow(
        new RegExp(`generations\\.csv:${good.trimEnd().split('\n').length + 1}: sample_id: no labels/per_item\\.csv row`),
      );
      writeFileSync(gen, good.replace(/\n([^\n]*)\n$/, '\n$1\n$1\n'));
      await expect(readImport(path.join(tmp, 'text1'))).rejects.toThrow(/listed twice/);
    } finally {
      writeFileSync(gen, good);
    }
  });
});
