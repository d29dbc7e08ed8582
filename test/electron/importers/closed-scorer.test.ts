/**
 * The closed-answer rules on their own (docs/formats.md "Which score a cell holds"): which
 * yes/no a text gives, which field of a record is the task's own outcome, how a cell is scored
 * with or without it, and the file's summary warnings. closed-answer.test.ts imports whole
 * TempCompass logs; this file checks each rule by itself.
 */
import { describe, expect, it } from 'vitest';
import { ClosedScorer, extractYesNo, givenOutcome, YES_NO_OPTIONS, yesNoAnswer, yesNoLetter } from '../../../electron/importers/closed-answer';
import { emptyResponse } from '../../../electron/importers/batch-builder';
import { refusalOf } from './helpers';

describe('yes/no answers', () => {
  it('an answer is yes or no in any case, with spaces and one final full stop ignored', () => {
    expect(['yes', 'YES', ' No ', 'no.', ' yes . ', 'Yes.'].map(yesNoAnswer)).toEqual(['yes', 'yes', 'no', 'no', 'yes', 'yes']);
    expect(['yes..', 'yes!', '.yes', 'y', 'maybe', '', 'yes no'].map(yesNoAnswer)).toEqual([null, null, null, null, null, null, null]);
    expect([1, true, null, undefined, ['yes'], { yes: 1 }].map(yesNoAnswer)).toEqual([null, null, null, null, null, null]);
  });

  it("a response's yes/no is how its lower-cased text starts", () => {
    expect(['YES', 'Yes, it does.', 'yesterday', 'No', 'nope', 'NOT at all'].map(extractYesNo)).toEqual(['yes', 'yes', 'yes', 'no', 'no', 'no']);
    expect(['', ' yes', 'I say yes', 'n', null].map(extractYesNo)).toEqual([null, null, null, null, null]);
  });

  it('yes and no are the options A and B', () => {
    expect(YES_NO_OPTIONS).toEqual(['yes', 'no']);
    expect([yesNoLetter('yes'), yesNoLetter('no')]).toEqual(['A', 'B']);
  });
});

describe('givenOutcome', () => {
  it('reads a field named score, rating, accuracy or acc, or ending in _score, _accuracy, _acc or _rating', () => {
    for (const k of ['score', 'rating', 'accuracy', 'acc', 'gpt_score', 'mvbench_accuracy', 'x_acc', 'judge_rating']) {
      expect(givenOutcome({ doc_id: 3, [k]: 1 }, 'f', 4)).toEqual({ value: 1, field: k });
    }
    for (const k of ['scores', 'score_', 'myscore', 'accuracy_x', 'acc2', 'racc', 'rating1', 'doc', 'target', 'resps', 'filtered_resps', 'doc_id']) {
      expect(givenOutcome({ [k]: 1 }, 'f', 4)).toBeNull();
    }
  });

  it('takes a number, a numeric string or a boolean, skipping empty ones, and the first in key order', () => {
    expect(givenOutcome({ score: 0 }, 'f', 1)).toEqual({ value: 0, field: 'score' });
    expect(givenOutcome({ score: ' 1 ' }, 'f', 1)).toEqual({ value: 1, field: 'score' });
    expect(givenOutcome({ score: true }, 'f', 1)).toEqual({ value: 1, field: 'score' });
    expect(givenOutcome({ score: false }, 'f', 1)).toEqual({ value: 0, field: 'score' });
    expect(givenOutcome({ score: null, acc: '', rating: 0.25, x_acc: 1 }, 'f', 1)).toEqual({ value: 0.25, field: 'rating' });
    expect(givenOutcome({ b_score: 0, a_score: 1 }, 'f', 1)).toEqual({ value: 0, field: 'b_score' });
    // A list is no outcome and is passed over.
    expect(givenOutcome({ score: [1], acc: 0 }, 'f', 1)).toEqual({ value: 0, field: 'acc' });
    expect(givenOutcome({}, 'f', 1)).toBeNull();
  });

  it('reads inside a metric object its score, rating, accuracy or acc, in that order', () => {
    expect(givenOutcome({ avg_accuracy: { rating: 1, score: 0 } }, 'f', 1)).toEqual({ value: 0, field: 'avg_accuracy.score' });
    expect(givenOutcome({ avg_accuracy: { acc: 1, accuracy: 0, rating: null } }, 'f', 1)).toEqual({ value: 0, field: 'avg_accuracy.accuracy' });
    expect(givenOutcome({ avg_accuracy: { acc: 1, dim: 'speed' } }, 'f', 1)).toEqual({ value: 1, field: 'avg_accuracy.acc' });
    // An object with none of them, or only empty ones, is passed over for the next field.
    expect(givenOutcome({ avg_accuracy: { dim: 'speed' }, a_score: { rating: '' }, b_score: { score: 1 } }, 'f', 1)).toEqual({ value: 1, field: 'b_score.score' });
    expect(givenOutcome({ avg_accuracy: null }, 'f', 1)).toBeNull();
  });

  it('refuses an outcome outside [0, 1], naming the line and the field', () => {
    const top = refusalOf(() => givenOutcome({ doc_id: 1, gpt_score: 3 }, 'runs/s.jsonl', 7));
    expect([top.file, top.line, top.field]).toEqual(['runs/s.jsonl', 7, 'gpt_score']);
    const inner = refusalOf(() => givenOutcome({ avg_accuracy: { rating: -1 } }, 'runs/s.jsonl', 8));
    expect([inner.file, inner.line, inner.field]).toEqual(['runs/s.jsonl', 8, 'avg_accuracy.rating']);
    expect(inner.message).toMatch(/outside \[0, 1\]/);
  });
});

describe('ClosedScorer', () => {
  const row = () => ({ ...emptyResponse('M', 'S', 'q', '8f', 3), score: 0.5, correct: null });

  it("keeps the task's own outcome, notes its field, and counts where it differs from matching", () => {
    const s = new ClosedScorer('runs/tc.jsonl');
    const a = row();
    s.apply(a, { pred: 'B', answer: 'A', given: { value: 1, field: 'avg_accuracy.rating' }, line: 3 });
    expect([a.pred, a.groundTruth, a.correct, a.score, a.protocolNote]).toEqual(['B', 'A', true, null, 'score: avg_accuracy.rating']);
    const b = row();
    s.apply(b, { pred: 'A', answer: 'A', given: { value: 0, field: 'acc' }, line: 4 });
    expect([b.correct, b.protocolNote]).toEqual([false, 'score: acc']);
    const c = row();
    s.apply(c, { pred: 'A', answer: 'A', given: { value: 1, field: 'acc' }, line: 5 });
    expect(c.correct).toBe(true);
    expect(s.warnings('yes/no')).toEqual([
      "tc.jsonl: 3 yes/no row(s) scored as closed answers (correct / wrong), not as free text; 3 keep the task's own outcome (avg_accuracy.rating, acc), on 2 of them it differs from matching the extracted answer",
    ]);
  });

  it('without an outcome, matches the letters; a response with neither is counted unread', () => {
    const s = new ClosedScorer('a/b/yn.json');
    const rows = [row(), row(), row()];
    s.apply(rows[0]!, { pred: 'A', answer: 'A', given: null, line: 1 });
    s.apply(rows[1]!, { pred: 'B', answer: 'A', given: null, line: 2 });
    s.apply(rows[2]!, { pred: null, answer: 'B', given: null, line: 3 });
    expect(rows.map((r) => [r.pred, r.groundTruth, r.correct, r.score, r.protocolNote])).toEqual([
      ['A', 'A', true, null, null],
      ['B', 'A', false, null, null],
      [null, 'B', false, null, null],
    ]);
    expect(s.warnings('closed')).toEqual([
      'yn.json: 3 closed row(s) scored as closed answers (correct / wrong), not as free text; 3 without one are scored by matching the extracted answer',
      'yn.json: 1 closed response(s) give no readable answer (no outcome of their own: counted wrong)',
    ]);
  });

  it('says both counts when some rows have an outcome and some not; an unread response with an outcome is not unread', () => {
    const s = new ClosedScorer('m.jsonl');
    s.apply(row(), { pred: null, answer: 'A', given: { value: 1, field: 'score' }, line: 1 });
    s.apply(row(), { pred: 'A', answer: 'A', given: null, line: 2 });
    expect(s.warnings('yes/no')).toEqual([
      "m.jsonl: 2 yes/no row(s) scored as closed answers (correct / wrong), not as free text; 1 keep the task's own outcome (score), on 1 of them it differs from matching the extracted answer; 1 without one are scored by matching the extracted answer",
    ]);
    expect(new ClosedScorer('none.jsonl').warnings('yes/no')).toEqual([]);
  });

  it('refuses an outcome that is not 0 or 1, naming its line and field', () => {
    const s = new ClosedScorer('runs/tc.jsonl');
    for (const value of [0.5, 0.999, 2, -1]) {
      const e = refusalOf(() => s.apply(row(), { pred: 'A', answer: 'A', given: { value, field: 'avg_accuracy.rating' }, line: 9 }));
      expect([e.file, e.line, e.field, e.reason]).toEqual([
        'runs/tc.jsonl',
        9,
        'avg_accuracy.rating',
        `a closed answer is correct or wrong: its outcome must be 0 or 1, got ${value}`,
      ]);
    }
    expect(s.warnings('yes/no')).toEqual([]);
  });
});
