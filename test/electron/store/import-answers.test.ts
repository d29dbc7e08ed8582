/**
 * An item's answer and the outcomes that depend on it, as imports apply them
 * (electron/store/import-apply.ts, docs/formats.md "Importing the same cell again"): the exact
 * refusals when an answer, a ground truth or a stated correctness disagrees; what an answer
 * arriving later fills and what it leaves; a run read anew replacing its cells; and the summary.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import type { ImportBatch } from '../../../shared/domain/types';
import { batch, config, importRefusal, response, tempDir } from './helpers';

const configs = [config('textonly', 0), config('16f', 16)];
const project = (): Project => openProject(path.join(tempDir('flipbook-answers-'), 'p.flipbook'), { create: true });
const meta = (file: string, answer: string | null, line = 2) => batch(file, { items: [{ split: 'S', sampleId: 'q1', answer, line }] });
const refusal = (p: Project, b: ImportBatch) => importRefusal(() => p.applyImport(b));
const cells = (p: Project) => p.responsesForItem('m', 'S', 'q1').map((r) => [r.config, r.pred, r.correct, r.score]);

describe('answers and outcomes', () => {
  it('a stated correctness that contradicts the prediction and the known answer is refused, exactly', () => {
    const p = project();
    p.applyImport(meta('meta.json', 'A'));
    const e = refusal(p, batch('run.csv', { configs, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'A', correct: false, line: 4 })] }));
    expect(e.message).toBe('run.csv:4: correct: correct = 0 contradicts predicted "A" and answer "A"');
    // Without a prediction, a stated outcome stands (wrong, as no answer is).
    p.applyImport(batch('run2.csv', { configs, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: null, correct: false, line: 2 })] }));
    expect(cells(p)).toEqual([['16f', null, false, null]]);
  });

  it("metadata whose answer contradicts the project's is refused; the same answer again is nothing", () => {
    const p = project();
    p.applyImport(meta('meta-a.json', 'A'));
    expect(refusal(p, meta('meta-b.json', 'B', 5)).message).toBe('meta-b.json:5: answer: answer "B" for (S, q1) contradicts the project\'s "A"');
    expect(p.applyImport(meta('meta-c.json', 'A'))).toMatchObject({ itemsAdded: 0, itemsUpdated: 0 });
  });

  it('an answer arriving that contradicts a stored outcome names the run, its line, the model and the config', () => {
    const p = project();
    p.applyImport(batch('runs/scored.csv', { configs, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'B', correct: true, line: 3 })] }));
    expect(refusal(p, meta('meta.json', 'A', 7)).message).toBe('meta.json:7: answer: answer "A" for (S, q1) contradicts runs/scored.csv:3 (m, 16f: predicted "B", correct = 1)');
    // The same from a row's ground truth, named by that row.
    const e = refusal(
      p,
      batch('labels.csv', { configs, responses: [response({ model: 'n', split: 'S', sampleId: 'q1', config: 'textonly', pred: 'A', groundTruth: 'A', line: 9 })] }),
    );
    expect(e.message).toBe('labels.csv:9: ground_truth: answer "A" for (S, q1) contradicts runs/scored.csv:3 (m, 16f: predicted "B", correct = 1)');
  });

  it('an answer arriving fills the unknown outcomes only: a known one, an open-ended score and other items stay', () => {
    const p = project();
    p.applyImport(
      batch('run.csv', {
        configs,
        responses: [
          response({ model: 'm', split: 'S', sampleId: 'q1', config: 'textonly', pred: 'A', line: 2 }),
          response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'B', correct: false, line: 3 }),
          response({ model: 'n', split: 'S', sampleId: 'q1', config: '16f', pred: 'free text', score: 0.4, line: 4 }),
          response({ model: 'm', split: 'S', sampleId: 'q2', config: '16f', pred: 'A', line: 5 }),
        ],
      }),
    );
    expect(p.applyImport(meta('meta.json', 'A'))).toMatchObject({ itemsUpdated: 1, responsesUpdated: 1 });
    expect(cells(p)).toEqual([
      ['textonly', 'A', true, null],
      ['16f', 'B', false, null],
    ]);
    expect(p.responsesForItem('n', 'S', 'q1').map((r) => [r.correct, r.score])).toEqual([[null, 0.4]]);
    expect(p.responsesForItem('m', 'S', 'q2').map((r) => r.correct)).toEqual([null]);
  });

  it('ground truth on several rows of one item updates the item once', () => {
    const p = project();
    p.applyImport(meta('meta.json', null));
    const rows = configs.map((c, i) => response({ model: 'm', split: 'S', sampleId: 'q1', config: c.key, pred: 'A', groundTruth: 'A', line: i + 2 }));
    expect(p.applyImport(batch('gt.csv', { configs, responses: rows }))).toMatchObject({ itemsAdded: 0, itemsUpdated: 1, responsesAdded: 2 });
    expect(p.getItem('S', 'q1')?.answer).toBe('A');
  });
});

describe('a run read anew', () => {
  it('the same file bytes read differently (a newer importer) replace their cells; another file conflicts', () => {
    const p = project();
    const first = batch('run.csv', { configs, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'B', line: 2 })] });
    p.applyImport(first);
    const reread: ImportBatch = { ...first, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'C', line: 2 })] };
    expect(p.applyImport(reread)).toMatchObject({ responsesAdded: 0, responsesUpdated: 1 });
    expect(cells(p)).toEqual([['16f', 'C', null, null]]);
    const other = batch('other.csv', { configs, responses: [response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: 'D', line: 6 })] });
    expect(refusal(p, other).message).toBe('other.csv:6: pred: (m, S, q1, 16f) is already recorded with a different pred (run.csv:2)');
  });

  it('two lines of one import that disagree name the earlier line', () => {
    const p = project();
    const rows = [2, 3].map((line) => response({ model: 'm', split: 'S', sampleId: 'q1', config: '16f', pred: line === 2 ? 'A' : 'B', line }));
    expect(refusal(p, batch('run.csv', { configs, responses: rows })).message).toBe(
      'run.csv:3: pred: (m, S, q1, 16f) is already recorded with a different pred (line 2 of the same import)',
    );
  });
});

describe('the summary', () => {
  it('names the models, splits and configs it touched, each sorted', () => {
    const p = project();
    const rows = [
      response({ model: 'zeta', split: 'S2', sampleId: 'q1', config: 'textonly', pred: 'A', line: 2 }),
      response({ model: 'alpha', split: 'S1', sampleId: 'q1', config: '16f', pred: 'A', line: 3 }),
      response({ model: 'mid', split: 'S3', sampleId: 'q1', config: '16f', pred: 'A', line: 4 }),
    ];
    expect(p.applyImport(batch('run.csv', { configs, responses: rows }))).toMatchObject({
      models: ['alpha', 'mid', 'zeta'],
      splits: ['S1', 'S2', 'S3'],
      configs: ['16f', 'textonly'],
    });
  });
});
