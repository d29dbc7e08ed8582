/**
 * A yes/no task file with per-sample ratings imports its ratings (docs/formats.md "Which score a
 * cell holds"), through nothing but the import path every front end takes: lmms-eval's
 * TempCompass `yes_no` log (test/fixtures/formats/README.md) gives one closed cell per record
 * whose `correct` is the record's own `avg_accuracy.rating`, and the grid's accuracy is the log's
 * own `avg_accuracy` (75.0 in its results.json). Read as free text, "Yes, it does." against `yes`
 * would score a Token-F1 of 0.5 where the task rated it 1, and the grid would be open-ended.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { repoRoot, Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const DIR = join(repoRoot, 'test/fixtures/formats/lmms-eval-v0.3-tempcompass_yes_no');
const SAMPLES = join(DIR, '20250301_120000_samples_tempcompass_yes_no.jsonl');

describe('a yes/no task file with per-sample ratings', () => {
  it('imports each record’s rating as its cell’s outcome, and the grid’s accuracy is the log’s own', async () => {
    const records = readFileSync(SAMPLES, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { doc_id: number; avg_accuracy: { rating: number } });
    const logged = (JSON.parse(readFileSync(join(DIR, '20250301_120000_results.json'), 'utf8')) as { results: { tempcompass_yes_no: { 'avg_accuracy,none': number } } }).results
      .tempcompass_yes_no['avg_accuracy,none'];
    const project = openProject(scratch.path('ratings.flipbook'), { create: true });
    try {
      project.applyImports(await readImport(SAMPLES));
      const grids = project.listGrids();
      expect(grids.map((g) => [g.model, g.split, g.kind])).toEqual([['llava-onevision-qwen2-7b-ov', 'tempcompass_yes_no', 'mcqa']]);
      for (const rec of records) {
        const [cell, ...more] = project.responsesForItem('llava-onevision-qwen2-7b-ov', 'tempcompass_yes_no', String(rec.doc_id));
        expect(more).toEqual([]);
        expect({ config: cell!.config, correct: cell!.correct, score: cell!.score }, `record ${rec.doc_id}`).toEqual({
          config: '16f',
          correct: rec.avg_accuracy.rating === 1,
          score: null,
        });
      }
      const acc = mcqaMetrics(project.loadMatrix('llava-onevision-qwen2-7b-ov', 'tempcompass_yes_no')).accuracy['16f']!;
      expect(Math.abs(acc * 100 - logged)).toBeLessThan(1e-9);
    } finally {
      project.close();
    }
  });
});
