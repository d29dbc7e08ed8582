import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/index';
import { flipbook } from '../cli/cli-helpers';
import { Scratch, expectImportError, sharedFixtures } from './helpers';
import { realFixturesPresent } from '../../real-fixtures';

/**
 * A ground-truth source answers only the splits it is matched to (docs/formats.md "Ground
 * truth"): Video-MME v1 and v2 sample ids collide, and an id-only fallback used to give v2
 * rows v1 answers.
 */
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const LOG = join(sharedFixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const AGG = join(sharedFixtures, 'scalegrid/labels/aggregated');
const REAL = realFixturesPresent('ground-truth real-data tests', LOG, AGG);

/** An lmms-eval v0.4 Video-MME log line (synthetic question), answer `answer`. */
function logLine(docId: number, qid: string, duration: string, answer: string, pred: string): string {
  return JSON.stringify({
    doc_id: docId,
    target: answer,
    filtered_resps: [pred],
    doc_hash: 'x',
    videomme_perception_score: { question_id: qid, duration, category: 'Knowledge', sub_category: 'Humanity', task_category: 'Counting Problem', pred_answer: pred, answer },
    input: `Select the best answer.\nHow many lamps are lit?\nA. one\nB. two\nC. three\nD. four\nAnswer with the option's letter from the given choices directly.`,
  });
}

function v1Log(dir: string): string {
  return scratch.write(
    `${dir}/20250101_000000_samples_videomme.jsonl`,
    [logLine(0, '001-1', 'short', 'A', 'A'), logLine(1, '001-2', 'short', 'B', 'C'), logLine(2, '302-1', 'medium', 'C', 'C')].join('\n') + '\n',
  );
}

describe('ground truth is matched to splits, never by sample id alone', () => {
  it('a v1-only source answers the V1 wide files and no V2 row', async () => {
    const gt = v1Log('a');
    const v1 = scratch.write('a/M_V1_short_predictions_wide.csv', 'sample_id,16f\n001-1,A\n001-2,B\n');
    const v2 = scratch.write('a/M_V2_medium_predictions_wide.csv', 'sample_id,16f\n001-1,A\n001-2,B\n302-1,C\n');
    const [b1] = await readImport(v1, { groundTruth: gt });
    const [b2] = await readImport(v2, { groundTruth: gt });
    expect(b1!.responses.map((r) => [r.sampleId, r.groundTruth, r.correct])).toEqual([
      ['001-1', 'A', true],
      ['001-2', 'B', true],
    ]);
    expect(b2!.responses.filter((r) => r.groundTruth !== null || r.correct !== null)).toEqual([]);
    expect(b2!.items).toEqual([]);
    expect(b2!.warnings.join('\n')).toMatch(/3 of 3 sample\(s\) of split V2_medium have no answer .*not V2_medium/);
  });

  it('an explicit --ground-truth-split mapping answers the mapped split only', async () => {
    const gt = v1Log('b');
    const v2 = scratch.write('b/M_V2_medium_predictions_wide.csv', 'sample_id,16f\n001-1,A\n302-1,C\n');
    const [b] = await readImport(v2, { groundTruth: gt, groundTruthSplit: 'videomme=V2_{duration}' });
    expect(b!.responses.map((r) => [r.sampleId, r.groundTruth])).toEqual([
      ['001-1', null],
      ['302-1', 'C'],
    ]);
    await expectImportError(readImport(v2, { groundTruth: gt, groundTruthSplit: 'nosuch=V2_medium' }), {
      file: '20250101_000000_samples_videomme.jsonl',
      line: 0,
      field: 'ground-truth-split',
      reason: /no split "nosuch"/,
    });
  });

  it('brings the source question, options and task type into the project with the answer', async () => {
    const gt = v1Log('c');
    const v1 = scratch.write('c/M_V1_short_predictions_wide.csv', 'sample_id,16f\n001-1,A\n');
    const [b] = await readImport(v1, { groundTruth: gt });
    expect(b!.items).toEqual([
      expect.objectContaining({
        split: 'V1_short',
        sampleId: '001-1',
        answer: 'A',
        question: 'How many lamps are lit?',
        options: ['one', 'two', 'three', 'four'],
        taskType: 'Counting Problem',
        durationBucket: 'short',
      }),
    ]);
  });

  it('the CLI prints how many items of each split got an answer', () => {
    const gt = v1Log('d');
    const v1 = scratch.write('d/M_V1_short_predictions_wide.csv', 'sample_id,16f\n001-1,A\n001-2,B\n');
    const v2 = scratch.write('d/M_V2_medium_predictions_wide.csv', 'sample_id,16f\n001-1,A\n');
    const project = scratch.path('d/p.flipbook');
    const r = flipbook('import', v1, v2, '--ground-truth', gt, '--project', project);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('answers:   V1_short 2 of 2; V2_medium 0 of 1 (1 without an answer: correct empty)');
    const bad = flipbook('import', v1, '--ground-truth-split', 'videomme', '--ground-truth', gt, '--project', project);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--ground-truth-split: expected <source split>=/);
  });

  it.skipIf(!REAL)('real release: all 18 wide files with the v1 lmms-eval log give no V2 or MLVU row an answer; the export reproduces every matched_grid_status', () => {
    const files = readdirSync(AGG)
      .filter((f) => f.endsWith('_predictions_wide.csv'))
      .map((f) => join(AGG, f));
    expect(files.length).toBe(18);
    const project = scratch.path('real/p.flipbook');
    const r = flipbook('import', ...files, '--ground-truth', LOG, '--project', project, '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { groundTruth: Record<string, { items: number; answered: number }> };
    expect(out.groundTruth).toEqual({
      MLVU: { items: 2170, answered: 0 },
      V1_medium: { items: 639, answered: 639 },
      V1_short: { items: 786, answered: 786 },
      V2_medium: { items: 2516, answered: 0 },
    });
    // The full release imported: the proposed matched grid is the release's, so every grid's
    // matched_grid_status equals the published one without --matched-grid.
    const rel = scratch.path('real/rel');
    const e = flipbook('export', '--project', project, '--out', rel);
    expect(e.stderr).toBe('');
    expect(e.code).toBe(0);
    expect(e.stdout).toContain('matched grid: textonly, 16f_151k, 32f_151k, 64f_151k;');
    const t2 = JSON.parse(readFileSync(join(AGG, 'table2_metrics.json'), 'utf8')) as Record<string, Record<string, { matched_grid_status: string }>>;
    const ours = JSON.parse(readFileSync(join(rel, 'labels/aggregated/table2_metrics.json'), 'utf8')) as typeof t2;
    const status = (t: typeof t2): string[] =>
      Object.entries(t)
        .flatMap(([split, byModel]) => Object.entries(byModel).map(([m, v]) => `${m} ${split} ${v.matched_grid_status}`))
        .sort();
    expect(status(ours)).toEqual(status(t2));
    expect(status(ours)).toContain('InternVL3-8B V1_short complete');
    expect(status(ours)).toContain('InternVL3.5-8B V1_short complete');
    const p = openProject(project);
    try {
      const rows = p.db.prepare(`SELECT COUNT(*) AS n FROM items i JOIN splits s ON s.id = i.split_id WHERE s.name IN ('V2_medium', 'MLVU') AND i.answer IS NOT NULL`).get() as {
        n: number;
      };
      expect(rows.n).toBe(0);
    } finally {
      p.close();
    }
  });
});
