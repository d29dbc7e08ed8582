/**
 * Scores are never silently redefined (docs/metrics.md §1, docs/formats.md "Which score a cell
 * holds"): a yes/no task is closed — correct or wrong, with the task's own per-sample rating
 * where the record has one — never a Token-F1 of its text against "yes". The fixture is
 * lmms-eval's TempCompass `yes_no` log in the shape its task code writes
 * (test/fixtures/formats/README.md).
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractYesNo, givenOutcome, yesNoAnswer } from '../../../electron/importers/closed-answer';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { expectImportError, repoRoot, Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const FIXTURE = join(repoRoot, 'test/fixtures/formats/lmms-eval-v0.3-tempcompass_yes_no');
const SAMPLES = '20250301_120000_samples_tempcompass_yes_no.jsonl';
const RESULTS = '20250301_120000_results.json';

/** The fixture's log in a folder of its own, its records optionally rewritten line by line. */
function log(folder: string, edit?: (rec: Record<string, unknown>, i: number) => Record<string, unknown>): string {
  const dir = scratch.path(folder);
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(FIXTURE, RESULTS), join(dir, RESULTS));
  const lines = readFileSync(join(FIXTURE, SAMPLES), 'utf8').trimEnd().split('\n');
  const out = edit ? lines.map((l, i) => JSON.stringify(edit(JSON.parse(l) as Record<string, unknown>, i))) : lines;
  writeFileSync(join(dir, SAMPLES), out.join('\n') + '\n');
  return join(dir, SAMPLES);
}

describe('closed answers: yes/no tasks', () => {
  it('the yes/no rules are the task’s own', () => {
    expect(['yes', ' Yes ', 'NO.', 'no'].map(yesNoAnswer)).toEqual(['yes', 'yes', 'no', 'no']);
    expect(yesNoAnswer('yes, it does')).toBeNull();
    // TempCompass's extract_pred: the lower-cased text starts with yes / no.
    expect(['Yes, it does.', 'no', 'Not really', 'It rolls.', null].map(extractYesNo)).toEqual(['yes', 'no', 'no', null, null]);
    expect(givenOutcome({ doc: { score: 1 }, avg_accuracy: { rating: 1, dim: 'speed' }, speed_accuracy: { rating: 0 } }, 'f', 1)).toEqual({
      value: 1,
      field: 'avg_accuracy.rating',
    });
    expect(givenOutcome({ target: 'yes', filtered_resps: ['yes'] }, 'f', 1)).toBeNull();
  });

  it('TempCompass yes_no: the ratings are imported as correct / wrong, the items are two-option closed items', async () => {
    const [b] = await readImport(log('tc'));
    const rows = b!.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct, r.score, r.protocolNote]);
    expect(rows).toEqual([
      // "Yes, it does." against yes: rating 1 (Token-F1 of the text would be 0.5).
      ['0', 'A', 'A', true, null, 'score: avg_accuracy.rating'],
      ['1', 'B', 'B', true, null, 'score: avg_accuracy.rating'],
      ['2', 'B', 'A', false, null, 'score: avg_accuracy.rating'],
      // No yes/no in the text: the task's judge rated it correct, and the rating is kept.
      ['3', null, 'B', true, null, 'score: avg_accuracy.rating'],
    ]);
    expect(b!.items[0]).toMatchObject({
      split: 'tempcompass_yes_no',
      kind: 'mcqa',
      options: ['yes', 'no'],
      answer: 'A',
      question: 'Is the car in the synthetic clip moving to the left?',
      videoFile: 'car_01.mp4',
      taskType: 'direction',
    });
    expect(b!.warnings.join('\n')).toMatch(/4 yes\/no row\(s\) scored as closed answers .*4 keep the task's own outcome \(avg_accuracy\.rating\)/);

    const project = openProject(scratch.path('tc.flipbook'), { create: true });
    try {
      project.applyImports([b!]);
      const [g] = project.listGrids();
      expect(g).toMatchObject({ model: 'llava-onevision-qwen2-7b-ov', split: 'tempcompass_yes_no', kind: 'mcqa', score: 'correct (avg_accuracy.rating)' });
      expect(mcqaMetrics(project.loadMatrix(g!.model, g!.split)).accuracy['16f']).toBe(0.75);
    } finally {
      project.close();
    }
  });

  it('without a rating the extracted yes/no is matched; a 0.4+ log without doc still gives question and video', async () => {
    const p = log('tc04', (rec) => {
      const { doc: _doc, arguments: _args, ...rest } = rec;
      return rest;
    });
    const [b] = await readImport(p);
    expect(b!.items[0]).toMatchObject({ question: 'Is the car in the synthetic clip moving to the left?', videoFile: 'car_01.mp4', options: ['yes', 'no'] });
    const bare = log('tcbare', (rec) => {
      const out = { ...rec };
      for (const k of Object.keys(out)) if (k.endsWith('_accuracy')) delete out[k];
      return out;
    });
    const [nb] = await readImport(bare);
    expect(nb!.responses.map((r) => [r.correct, r.protocolNote])).toEqual([
      [true, null],
      [true, null],
      [false, null],
      [false, null],
    ]);
    expect(nb!.warnings.join('\n')).toMatch(/4 without one are scored by matching the extracted answer/);
    expect(nb!.warnings.join('\n')).toMatch(/1 yes\/no response\(s\) give no readable answer/);
  });

  it('a rating that is not 0 or 1 is refused with file:line: field; a log whose free-text answers are only partly yes/no stays open-ended', async () => {
    const half = log('tchalf', (rec, i) => (i === 2 ? { ...rec, avg_accuracy: { ...(rec.avg_accuracy as object), rating: 0.5 } } : rec));
    await expectImportError(readImport(half), { file: SAMPLES, line: 3, field: 'avg_accuracy.rating', reason: /must be 0 or 1/ });
    const neg = log('tcneg', (rec, i) => (i === 1 ? { ...rec, avg_accuracy: { ...(rec.avg_accuracy as object), rating: -1 } } : rec));
    await expectImportError(readImport(neg), { file: SAMPLES, line: 2, field: 'avg_accuracy.rating', reason: /outside \[0, 1\]/ });
    const mixed = log('tcmixed', (rec, i) => {
      if (i !== 3) return rec;
      const out: Record<string, unknown> = { ...rec, target: 'it hits the wall', doc: { ...(rec.doc as object), answer: 'it hits the wall' } };
      for (const k of Object.keys(out)) if (k.endsWith('_accuracy')) delete out[k];
      return out;
    });
    const [mb] = await readImport(mixed);
    expect(mb!.responses.every((r) => r.correct === null && r.score !== null)).toBe(true);
    expect(mb!.items.every((x) => x.kind === 'open')).toBe(true);
  });
});
