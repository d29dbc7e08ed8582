/**
 * The release test: joining the scalegrid release's wide prediction files (V1 splits) with the
 * Video-MME ground truth of the real lmms-eval log gives real, complete per-item correctness;
 * Flipbook's aggregated JSONs, derived.csv rows, manifest cells and table2 entries must equal the
 * published ones. The one documented exception: Qwen2.5-VL-7B V1_short's visual confusion
 * (the release's 30.4071 is not a dominance figure; Flipbook keeps dominance, which is lower).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { aggregatedJson, derivedRows, manifestCells, table2, type AggregatedJson } from '../../../shared/release/aggregate';
import { realFixturesPresent } from '../../real-fixtures';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures');
const aggDir = path.join(fixtures, 'scalegrid/labels/aggregated');
const derivedCsv = path.join(fixtures, 'scalegrid/labels/derived.csv');
const lmmsLog = path.join(fixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const present = realFixturesPresent('release reproduction', aggDir, lmmsLog, derivedCsv);
if (!present) {
  console.warn(`[real-data] skipped: the release fixtures are not at ${fixtures} (../shared relative to the repository)`);
}

const MATCHED = ['textonly', '16f_151k', '32f_151k', '64f_151k'];
const EXCEPTION = 'Qwen2.5-VL-7B_V1_short';

function groundTruth(): Map<string, string> {
  const gt = new Map<string, string>();
  for (const line of readFileSync(lmmsLog, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const rec = JSON.parse(line) as { videomme_perception_score: { question_id: string; answer: string } };
    gt.set(rec.videomme_perception_score.question_id, rec.videomme_perception_score.answer);
  }
  return gt;
}

function buildMatrix(model: string, split: string, gt: Map<string, string>): ResponseMatrix {
  const file = path.join(aggDir, `${model}_${split}_predictions_wide.csv`);
  const rows = parse(readFileSync(file, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const header = Object.keys(rows[0] ?? {}).filter((k) => k !== 'sample_id');
  const m = createMatrix({
    model,
    split,
    kind: 'mcqa',
    itemIds: rows.map((r) => r.sample_id!),
    configs: header.map((k) => makeConfigSpec(k)),
  });
  const cols = header.map((k) => configIndex(m, k));
  const C = m.configs.length;
  rows.forEach((r, i) => {
    const answer = gt.get(r.sample_id!);
    if (answer === undefined) throw new Error(`${file}: no ground truth for ${r.sample_id}`);
    header.forEach((k, h) => {
      // An empty predicted_option is an answer that names no option: wrong, not missing.
      m.correct[i * C + cols[h]!] = r[k] === answer ? 1 : 0;
    });
  });
  return m;
}

interface Published extends Omit<AggregatedJson, 'n_excluded'> {
  n_excluded?: number;
}

describe.skipIf(!present)('release reproduction on the V1 splits (real files)', () => {
  const pairs = present
    ? readdirSync(aggDir)
        .map((f) => /^(.+)_(V1_short|V1_medium)_predictions_wide\.csv$/.exec(f))
        .filter((x): x is RegExpExecArray => x !== null)
        .map((x) => ({ model: x[1]!, split: x[2]! }))
    : [];
  const gt = present ? groundTruth() : new Map<string, string>();
  const matrices = new Map(pairs.map((p) => [`${p.model}_${p.split}`, buildMatrix(p.model, p.split, gt)]));
  const published = new Map(pairs.map((p) => [`${p.model}_${p.split}`, JSON.parse(readFileSync(path.join(aggDir, `${p.model}_${p.split}.json`), 'utf8')) as Published]));

  it('finds the nine V1 (model, split) pairs and the full ground truth', () => {
    expect(pairs.length).toBe(9);
    expect(gt.size).toBe(2700);
  });

  it('aggregated JSONs equal the published ones (to 1e-4)', () => {
    for (const [name, m] of matrices) {
      const ours = aggregatedJson(m, { matchedGrid: MATCHED });
      const pub = published.get(name)!;
      expect(ours.n, name).toBe(pub.n);
      expect(ours.n_excluded, name).toBe(0);
      expect(ours.configs, name).toEqual(pub.configs);
      expect(Object.keys(ours.accuracy_by_config), name).toEqual(Object.keys(pub.accuracy_by_config));
      for (const k of pub.configs) expect(ours.accuracy_by_config[k], `${name} ${k}`).toBeCloseTo(pub.accuracy_by_config[k]!, 4);
      for (const field of ['best_fixed', 'oracle', 'headroom', 'overwrite_rate'] as const) {
        expect(Math.abs(ours[field]! - pub[field]!), `${name} ${field}: ${ours[field]} vs ${pub[field]}`).toBeLessThanOrEqual(1e-4);
      }
      expect(ours.matched_grid_status, name).toBe(pub.matched_grid_status);
      if (name === EXCEPTION) {
        console.log(`[real-data] ${name} visual_confusion_rate: published ${pub.visual_confusion_rate}, dominance ${ours.visual_confusion_rate}`);
        expect(ours.visual_confusion_rate!).toBeLessThan(pub.visual_confusion_rate!);
      } else {
        expect(Math.abs(ours.visual_confusion_rate! - pub.visual_confusion_rate!), name).toBeLessThanOrEqual(1e-4);
      }
    }
  });

  it('the paper ranges hold on the matched grid (headroom 8.78–18.94, confusion 12.47–25.53)', () => {
    const head: number[] = [];
    const conf: number[] = [];
    for (const m of matrices.values()) {
      if (!MATCHED.every((k) => m.configs.some((c) => c.key === k))) continue;
      const mm = mcqaMetrics(m, MATCHED);
      head.push(mm.oracleHeadroomPts);
      conf.push(100 * mm.visualConfusionRate);
    }
    expect(head.length).toBe(8);
    expect(Math.min(...head)).toBeGreaterThanOrEqual(8.78 - 1e-2);
    expect(Math.max(...head)).toBeLessThanOrEqual(18.94 + 1e-2);
    expect(Math.min(...conf)).toBeGreaterThanOrEqual(12.47 - 1e-2);
    expect(Math.max(...conf)).toBeLessThanOrEqual(25.53 + 1e-2);
  });

  it('derived.csv rows equal the published rows', () => {
    const all = parse(readFileSync(derivedCsv, 'utf8'), { columns: true, skip_empty_lines: true }) as Record<string, string>[];
    for (const [name, m] of matrices) {
      const pub = all.filter((r) => r.model === m.model && r.split === m.split);
      const ours = derivedRows(m, MATCHED);
      expect(ours.length, name).toBe(pub.length);
      if (name === EXCEPTION) {
        // Every column but the confusion flag matches. The flag follows the release's
        // non-dominance figure there (239 items = 30.4071%), so it differs in both directions
        // (e.g. pattern 00111111111 is flagged by the release); ours follows the metrics.
        let differ = 0;
        ours.forEach((o, i) => {
          const p = pub[i]!;
          expect({ ...o, is_visually_confused: '' }, `${name} row ${i}`).toEqual({ ...p, is_visually_confused: '' });
          if (o.is_visually_confused !== p.is_visually_confused) differ++;
        });
        const pubCount = pub.filter((r) => r.is_visually_confused === '1').length;
        const ourCount = ours.filter((r) => r.is_visually_confused === '1').length;
        console.log(`[real-data] ${name} derived is_visually_confused: published ${pubCount} items, dominance ${ourCount} (${differ} rows differ)`);
        expect(pubCount / pub.length).toBeCloseTo(published.get(name)!.visual_confusion_rate! / 100, 6);
        expect(ourCount).toBe(mcqaMetrics(m).counts.visuallyConfused);
        expect(ourCount).toBeLessThan(pubCount);
      } else {
        expect(ours, name).toEqual(pub);
      }
    }
  });

  it('manifest cells equal the published totals and correct counts', () => {
    const man = JSON.parse(readFileSync(path.join(aggDir, 'release_manifest.json'), 'utf8')) as {
      cells: { model: string; split: string; config: string; total: number; correct: number; source_tag: string; protocol_note: string }[];
      wide_sources: { source_tag: string; cells: Record<string, { total: number; correct: number }> }[];
    };
    let checked = 0;
    for (const m of matrices.values()) {
      const pub = man.cells.filter((c) => c.model === m.model && c.split === m.split);
      if (pub.length === 0) {
        // Qwen2.5-VL-7B V1_short is listed under wide_sources (its extended grid), with counts only.
        const src = man.wide_sources.find((w) => w.source_tag.includes(`:${m.model}:${m.split}:`));
        expect(src, `${m.model} ${m.split} in the manifest`).toBeDefined();
        const ours = manifestCells(m);
        expect(Object.fromEntries(ours.map((c) => [c.config, { total: c.total, correct: c.correct }]))).toEqual(src!.cells);
        checked += ours.length;
        continue;
      }
      const lookup = (config: string) => {
        const c = pub.find((x) => x.config === config);
        return c ? { sourceTag: c.source_tag, protocolNote: c.protocol_note } : null;
      };
      const ours = manifestCells(m, lookup);
      expect(ours.length).toBe(pub.length);
      expect(ours).toEqual(expect.arrayContaining(pub));
      checked += ours.length;
    }
    expect(checked).toBe(51); // 9 grids: 5+5+4+4+4+6+11+6+6 configs
  });

  it('table2_metrics.json V1 entries equal ours', () => {
    const pub = JSON.parse(readFileSync(path.join(aggDir, 'table2_metrics.json'), 'utf8')) as Record<string, Record<string, Published>>;
    const ours = table2(
      [...matrices.values()].map((m) => ({ model: m.model, split: m.split, json: aggregatedJson(m, { matchedGrid: MATCHED }) })),
      Object.keys(pub),
    );
    expect(Object.keys(ours)).toEqual(['V1_medium', 'V1_short']);
    for (const split of Object.keys(ours)) {
      expect(Object.keys(ours[split]!)).toEqual(Object.keys(pub[split]!));
      for (const [model, o] of Object.entries(ours[split]!)) {
        const p = pub[split]![model]!;
        const { n_excluded: _skip, ...rest } = o;
        const cmp = `${model}_${split}` === EXCEPTION ? { ...rest, visual_confusion_rate: p.visual_confusion_rate } : rest;
        expect(cmp, `${model} ${split}`).toEqual(p);
      }
    }
  });
});
