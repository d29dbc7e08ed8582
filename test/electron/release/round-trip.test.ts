/**
 * export → import → export is byte-identical (README.md's date line aside), through the real
 * importers and a real SQLite project, on a synthetic project with several models and splits,
 * mixed resolutions, missing cells, optional columns, an open-ended split, annotations with
 * awkward notes, evidence spans and unicode ids; and the same through a zip.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ConfigSpec, ImportBatch, ResponseRow } from '../../../shared/domain/types';
import { exportRelease } from '../../../electron/release/export';
import { README_DATE_PREFIX } from '../../../electron/release/readme';
import { readImport } from '../../../electron/importers/index';
import { openProject, type Project } from '../../../electron/store/project';
import { applyImportsWithAnnotations, bundleForImport } from '../../../electron/jobs/import-with-annotations';
import { tempDir } from '../../temp-dir';

const MATCHED = ['textonly', '16f_151k', '32f_151k'];

function spec(key: string, frames: number, pixelCount: number | null, extra: Partial<ConfigSpec> = {}): ConfigSpec {
  return {
    key,
    frames,
    pixelCount,
    width: null,
    height: null,
    sampling: { policy: null, seed: null, fps: null },
    pipeline: null,
    toolkit: null,
    modelArgs: null,
    notes: null,
    ...extra,
  };
}

const CONFIGS: ConfigSpec[] = [
  spec('textonly', 0, 0),
  spec('16f_151k', 16, 150528, { sampling: { policy: 'uniform-linspace-round', seed: null, fps: null }, toolkit: 'lmms-eval', width: 448, height: 336 }),
  spec('32f_151k', 32, 150528, { sampling: { policy: 'scalegrid-uniform', seed: 7, fps: 1 }, pipeline: 'cache' }),
  spec('64f_151k', 64, 150528, { notes: 'note, with "quotes"' }),
  spec('32f_302k', 32, 301056),
  spec('128f_76k', 128, 75264),
];

/** Deterministic pseudo-random stream (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function syntheticBatch(): ImportBatch {
  const r = rng(42);
  const responses: ResponseRow[] = [];
  const ids = ['001-1', '001-2', '010-3', 'ü-ñ-1', 'Z-9', 'a-1', '𝔘-astral', '\uE000-pua', 'b-2', '002-1'];
  const letters = 'ABCD';
  const models = ['Qwen2.5-VL-7B', 'LLaVA-NeXT-Video-7B', 'Ünicode-Model'];
  const splits = ['V1_short', 'V2_medium'];
  let line = 1;
  for (const model of models) {
    for (const split of splits) {
      for (const id of ids) {
        const gt = letters[id.length % 4] as string;
        for (const c of CONFIGS) {
          if (model.startsWith('LLaVA') && c.frames > 32) continue; // context ceiling
          if (model === 'Ünicode-Model' && c.key === '32f_151k' && split === 'V2_medium') continue; // incomplete matched grid
          if (r() < 0.06) continue; // missing cells
          const ok = r() < 0.55;
          const pred = r() < 0.03 ? null : ok ? gt : (letters[(letters.indexOf(gt) + 1) % 4] as string);
          const row: ResponseRow = {
            model,
            split,
            sampleId: id,
            config: c.key,
            pred,
            correct: pred === gt,
            score: null,
            groundTruth: gt,
            confidence: r() < 0.5 ? Math.round(r() * 1e6) / 1e6 : null,
            margin: r() < 0.3 ? r() : null,
            latencyMs: r() < 0.4 ? Math.round(r() * 5e6) / 1000 : null,
            frameIndices: c.frames > 0 && r() < 0.3 ? Array.from({ length: Math.min(c.frames, 4) }, (_, i) => i * 3) : null,
            sourceTag: `official:${model}:${split}:${c.key}`,
            protocolNote: model.startsWith('LLaVA') ? 'llava_native_processor;max_32f' : null,
            line: line++,
          };
          responses.push(row);
        }
      }
    }
  }
  // An open-ended split: scores, no correctness or letters.
  for (const id of ['gen-1', 'gen-2', 'gen-3']) {
    for (const c of CONFIGS.slice(0, 3)) {
      responses.push({
        model: 'Qwen2.5-VL-7B',
        split: 'MLVU_gen',
        sampleId: id,
        config: c.key,
        pred: null,
        correct: null,
        score: Math.round(r() * 1e4) / 1e4,
        groundTruth: null,
        confidence: null,
        margin: null,
        latencyMs: null,
        frameIndices: null,
        sourceTag: null,
        protocolNote: null,
        line: line++,
      });
    }
  }
  return {
    run: { sourcePath: 'synthetic', sha256: 'synthetic-0001', format: 'synthetic', toolkit: null, modelArgs: null },
    items: [],
    responses,
    configs: CONFIGS,
    warnings: [],
  };
}

function annotate(p: Project): void {
  const cb = JSON.parse(readFileSync(path.resolve(__dirname, '../../../assets/codebook.json'), 'utf8')) as unknown;
  p.annotations.setCodebook(cb);
  const t = { model: 'Qwen2.5-VL-7B', split: 'V1_short', sampleId: '001-1' };
  p.annotations.apply({ op: 'setStatus', ...t, status: 'done' }, 'alice');
  p.annotations.apply({ op: 'setPrimary', ...t, pathway: 'evidence-dilution' }, 'alice');
  p.annotations.apply({ op: 'setPathway', ...t, pathway: 'distractor-frames', on: true }, 'alice');
  p.annotations.apply({ op: 'setTransition', ...t, transition: '16f_151k>64f_151k' }, 'alice');
  p.annotations.apply({ op: 'setNotes', ...t, notes: 'commas, "quotes"\nand a second line; ünïcödé' }, 'alice');
  p.annotations.apply({ op: 'setConfidence', ...t, confidence: 4 }, 'alice');
  p.annotations.apply({ op: 'addSpan', ...t, span: { startS: 12.5, endS: 14, label: 'the red, "big" ball', coveredBy: ['32f_151k', '64f_151k'] } }, 'alice');
  p.annotations.apply({ op: 'addSpan', ...t, span: { startS: 3, endS: 4.25, label: '', coveredBy: [] } }, 'alice');
  const u = { model: 'Ünicode-Model', split: 'V2_medium', sampleId: 'ü-ñ-1' };
  p.annotations.apply({ op: 'setStatus', ...u, status: 'needs_review' }, 'bob');
  p.annotations.apply({ op: 'setNotes', ...u, notes: 'plain' }, 'bob');
  p.annotations.apply({ op: 'setStatus', ...t, status: 'in_progress' }, 'bob');
}

/** Every file under `dir`, relative path → bytes. */
function readTree(dir: string, rel = ''): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(path.join(dir, rel)).sort()) {
    const r = rel ? `${rel}/${e}` : e;
    if (statSync(path.join(dir, r)).isDirectory()) for (const [k, v] of readTree(dir, r)) out.set(k, v);
    else out.set(r, readFileSync(path.join(dir, r)));
  }
  return out;
}

function withoutDateLine(b: Buffer): string {
  return b
    .toString('utf8')
    .split('\n')
    .filter((l) => !l.startsWith(README_DATE_PREFIX))
    .join('\n');
}

/**
 * Imports a release the way `flipbook import` does: responses, configs and provenance through
 * the importers and the store, and the annotations/ folder's event log, in one transaction.
 */
async function importInto(file: string, source: string): Promise<Project> {
  const p = openProject(file, { create: true });
  const batches = await readImport(source);
  const bundle = await bundleForImport(source, batches);
  expect(bundle?.source).toBe('events');
  applyImportsWithAnnotations(p, batches, bundle ? [bundle] : []);
  return p;
}

describe('release export round trip', () => {
  let tmp = '';
  let first = '';
  beforeAll(async () => {
    tmp = tempDir('flipbook-rt-');
    const p = openProject(path.join(tmp, 'a.flipbook'), { create: true });
    try {
      p.applyImport(syntheticBatch());
      p.setSetting('matchedGrid', MATCHED);
      annotate(p);
      first = path.join(tmp, 'first');
      await exportRelease(p, first, { now: new Date('2025-03-01T00:00:00Z') });
    } finally {
      p.close();
    }
  });
  it('writes the layout of docs/release-format.md', () => {
    const files = [...readTree(first).keys()];
    for (const f of [
      'README.md',
      'labels/per_item.csv',
      'labels/derived.csv',
      'labels/aggregated/table2_metrics.json',
      'labels/aggregated/release_manifest.json',
      'labels/aggregated/Qwen2.5-VL-7B_V1_short.json',
      'labels/aggregated/Qwen2.5-VL-7B_V1_short_predictions_wide.csv',
      'labels/aggregated/Qwen2.5-VL-7B_MLVU_gen.json',
      'annotations/codebook.json',
      'annotations/pathways.csv',
      'annotations/evidence_spans.csv',
      'provenance/configs.json',
    ]) {
      expect(files).toContain(f);
    }
    expect(files).not.toContain('labels/items.csv');
  });

  it('per_item.csv: eleven columns then the optional ones present, sorted by (model, split, sample_id, config) in code-point order', () => {
    const text = readFileSync(path.join(first, 'labels/per_item.csv'), 'utf8');
    expect(text).not.toContain('\r');
    const rows = parse(text) as string[][];
    expect(rows[0]).toEqual([
      'sample_id',
      'model',
      'split',
      'config',
      'frame_count',
      'pixel_count',
      'predicted_option',
      'ground_truth_option',
      'correct',
      'source_tag',
      'protocol_note',
      'confidence',
      'margin',
      'latency_s',
      'frame_indices',
      'score',
    ]);
    const body = rows.slice(1);
    const cp = (s: string) => [...s].map((c) => c.codePointAt(0) as number);
    const cmp = (a: number[], b: number[]) => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
      return a.length - b.length;
    };
    for (let i = 1; i < body.length; i++) {
      const a = body[i - 1] as string[];
      const b = body[i] as string[];
      let c = 0;
      for (const k of [1, 2, 0, 3]) if (c === 0) c = cmp(cp(a[k] as string), cp(b[k] as string));
      expect(c, `row ${i}`).toBeLessThan(0);
    }
    // The astral id sorts after the private-use one (code points, not UTF-16 units).
    const ids = body.filter((r) => r[1] === 'Qwen2.5-VL-7B' && r[2] === 'V1_short').map((r) => r[0]);
    expect(ids.indexOf('\uE000-pua')).toBeLessThan(ids.indexOf('𝔘-astral'));
    // Open-ended rows: score set, correct and letters empty.
    const open = body.find((r) => r[2] === 'MLVU_gen') as string[];
    expect([open[6], open[7], open[8]]).toEqual(['', '', '']);
    expect(open[15]).not.toBe('');
  });

  it('annotations keep commas, quotes and newlines', () => {
    const rows = parse(readFileSync(path.join(first, 'annotations/pathways.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const alice = rows.find((r) => r.annotator === 'alice') as Record<string, string>;
    expect(alice.notes).toBe('commas, "quotes"\nand a second line; ünïcödé');
    expect(alice.pathways).toBe('distractor-frames;evidence-dilution');
    expect(alice.primary_pathway).toBe('evidence-dilution');
    expect(alice.transition).toBe('16f_151k>64f_151k');
    expect(alice.confidence).toBe('4');
    const spans = parse(readFileSync(path.join(first, 'annotations/evidence_spans.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(spans.map((s) => [s.start_s, s.end_s, s.label, s.covered_by])).toEqual([
      ['3', '4.25', '', ''],
      ['12.5', '14', 'the red, "big" ball', '32f_151k;64f_151k'],
    ]);
  });

  it('export → import → export is byte-identical except README.md’s date line', async () => {
    const p = await importInto(path.join(tmp, 'b.flipbook'), first);
    const second = path.join(tmp, 'second');
    try {
      p.setSetting('matchedGrid', MATCHED);
      await exportRelease(p, second, { now: new Date('2026-07-04T00:00:00Z') });
    } finally {
      p.close();
    }
    const a = readTree(first);
    const b = readTree(second);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [k, v] of a) {
      if (k === 'README.md') {
        expect(v.equals(b.get(k) as Buffer)).toBe(false); // the dates differ…
        expect(withoutDateLine(b.get(k) as Buffer)).toBe(withoutDateLine(v)); // …and nothing else
      } else {
        expect((b.get(k) as Buffer).toString('utf8'), k).toBe(v.toString('utf8'));
      }
    }
  });

  it('a zip is byte-stable and round-trips to the same zip bytes', async () => {
    const now = new Date('2025-03-01T00:00:00Z');
    const src = openProject(path.join(tmp, 'a.flipbook'));
    let z1: Buffer;
    let z1b: Buffer;
    try {
      z1 = readFileSync((await exportRelease(src, path.join(tmp, 'one.zip'), { zip: true, now })).path);
      z1b = readFileSync((await exportRelease(src, path.join(tmp, 'one-again'), { zip: true, now })).path);
    } finally {
      src.close();
    }
    expect(z1b.equals(z1)).toBe(true);
    const p = await importInto(path.join(tmp, 'c.flipbook'), path.join(tmp, 'one.zip'));
    try {
      p.setSetting('matchedGrid', MATCHED);
      const z2 = readFileSync((await exportRelease(p, path.join(tmp, 'two.zip'), { zip: true, now })).path);
      expect(z2.equals(z1)).toBe(true);
    } finally {
      p.close();
    }
  });

  it('refuses to replace a folder that is not an export', async () => {
    const p = openProject(path.join(tmp, 'a.flipbook'));
    try {
      await expect(exportRelease(p, tmp, {})).rejects.toThrow(/refusing to replace/);
    } finally {
      p.close();
    }
  });
});
