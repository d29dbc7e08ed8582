/**
 * The open-ended rules on their own (docs/metrics.md §1 and §7, docs/formats.md "Which score a
 * cell holds"): which file scores are accepted, which references, how each row is scored and
 * noted, the file's summary warnings, and one kind per file. open-ended.test.ts imports whole
 * files of each toolkit; this file checks each rule by itself.
 */
import { describe, expect, it } from 'vitest';
import { emptyResponse } from '../../../electron/importers/batch-builder';
import { OpenScorer, TOKEN_F1_NOTE, checkKind, parseScore, referencesOf } from '../../../electron/importers/open-ended';
import { refusalOf, whereOf } from './helpers';

describe('parseScore', () => {
  it('takes a number or a decimal numeric string in [0, 1], a boolean as 1 or 0, and nothing as none', () => {
    const ok: [unknown, number][] = [
      [0, 0],
      [1, 1],
      [0.25, 0.25],
      [' .5 ', 0.5],
      ['+1', 1],
      ['1.', 1],
      ['1e-1', 0.1],
      ['10E-1', 1],
      ['0.0', 0],
      [true, 1],
      [false, 0],
    ];
    for (const [v, n] of ok) expect(parseScore(v, 'f', 1, 's'), JSON.stringify(v)).toBe(n);
    for (const v of [null, undefined, '', '   ']) expect(parseScore(v, 'f', 1, 's')).toBeNull();
  });

  it('refuses a value outside [0, 1], a string that is not a decimal number, and any other type', () => {
    for (const v of [1.5, -0.1, Number.NaN, Number.POSITIVE_INFINITY, '2', '-1', '0x1', '1/2', 'NaN', 'Infinity', '.', 'e1', '1e', '50%', '0.5 0.5']) {
      expect(whereOf(refusalOf(() => parseScore(v, 'runs/r.jsonl', 3, 'gpt_score'))), JSON.stringify(v)).toEqual([
        'runs/r.jsonl',
        3,
        'gpt_score',
        `score ${JSON.stringify(v)} is outside [0, 1] (rescale it, or drop it to score by Token-F1)`,
      ]);
    }
    for (const v of [[0.5], { s: 1 }]) {
      expect(whereOf(refusalOf(() => parseScore(v, 'runs/r.jsonl', 3, 'gpt_score')))).toEqual([
        'runs/r.jsonl',
        3,
        'gpt_score',
        `expected a score in [0, 1], got ${JSON.stringify(v)}`,
      ]);
    }
  });
});

describe('referencesOf', () => {
  it('reads a text, a number or nested lists of them, empty texts dropped unless they are all there is', () => {
    expect(referencesOf('a dog', 'f', 1, 'r')).toEqual(['a dog']);
    expect(referencesOf(42, 'f', 1, 'r')).toEqual(['42']);
    expect(referencesOf(['a', ['b', [3]], ' ', ''], 'f', 1, 'r')).toEqual(['a', 'b', '3']);
    expect(referencesOf(['', ' '], 'f', 1, 'r')).toEqual(['']);
    expect(referencesOf('', 'f', 1, 'r')).toEqual(['']);
    expect([referencesOf(null, 'f', 1, 'r'), referencesOf(undefined, 'f', 1, 'r'), referencesOf([], 'f', 1, 'r'), referencesOf([[]], 'f', 1, 'r')]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it('refuses anything else, naming the bad part', () => {
    for (const [v, bad] of [
      [{ text: 'a' }, '{"text":"a"}'],
      [['a', true], 'true'],
      [Number.NaN, 'null'],
      [['a', [null]], 'null'],
    ] as const) {
      expect(whereOf(refusalOf(() => referencesOf(v, 'runs/r.json', 5, 'answer')))).toEqual([
        'runs/r.json',
        5,
        'answer',
        `expected reference text or a list of reference texts, got ${bad}`,
      ]);
    }
  });
});

describe('OpenScorer', () => {
  const row = () => ({ ...emptyResponse('M', 'S', 'q', '8f', 3), correct: true, groundTruth: 'A' });

  it('computes Token-F1 against the best reference, notes it, and counts a response without text', () => {
    const s = new OpenScorer('runs/o.jsonl');
    const a = row();
    s.apply(a, { pred: 'red car', references: ['a blue car', 'red car'], given: null, givenField: 'score', referenceField: 'answer', line: 3 });
    expect([a.pred, a.score, a.correct, a.groundTruth, a.protocolNote]).toEqual(['red car', 1, null, null, TOKEN_F1_NOTE]);
    const b = row();
    s.apply(b, { pred: '  ', references: ['a dog'], given: null, givenField: 'score', referenceField: 'answer', line: 4 });
    expect([b.pred, b.score]).toEqual([null, 0]);
    const c = row();
    s.apply(c, { pred: null, references: [''], given: null, givenField: 'score', referenceField: 'answer', line: 5 });
    expect([c.pred, c.score]).toEqual([null, 1]);
    expect(TOKEN_F1_NOTE).toBe('score: token_f1');
    expect(s.warnings()).toEqual(['o.jsonl: 2 open-ended row(s) have no predicted text (scored as an empty answer)']);
  });

  it("keeps the file's own score, counts where it differs from Token-F1, and says when a file mixes the two", () => {
    const s = new OpenScorer('runs/o.jsonl');
    const rows = [row(), row(), row(), row()];
    s.apply(rows[0]!, { pred: 'red car', references: ['red car'], given: 1, givenField: 'gpt_score', referenceField: 'answer', line: 1 });
    s.apply(rows[1]!, { pred: 'red car', references: ['blue car'], given: 0.5 + 1e-12, givenField: 'gpt_score', referenceField: 'answer', line: 2 });
    s.apply(rows[2]!, { pred: 'red car', references: ['red car'], given: 0, givenField: 'acc', referenceField: 'answer', line: 3 });
    s.apply(rows[3]!, { pred: 'red', references: null, given: 0.7, givenField: 'acc', referenceField: 'answer', line: 4 });
    expect(rows.map((r) => [r.score, r.protocolNote, r.correct, r.groundTruth])).toEqual([
      [1, 'score: gpt_score', null, null],
      [0.5 + 1e-12, 'score: gpt_score', null, null],
      [0, 'score: acc', null, null],
      [0.7, 'score: acc', null, null],
    ]);
    expect(s.warnings()).toEqual(["o.jsonl: 4 open-ended row(s) keep the file's own score (gpt_score, acc), not Token-F1; on 1 of them it differs from Token-F1 of the text"]);
    s.apply(row(), { pred: 'x', references: ['x'], given: null, givenField: 'gpt_score', referenceField: 'answer', line: 5 });
    expect(s.warnings()).toEqual([
      "o.jsonl: 4 open-ended row(s) keep the file's own score (gpt_score, acc), not Token-F1; on 1 of them it differs from Token-F1 of the text; 1 other row(s) have no score and were scored by Token-F1 — one grid now mixes two metrics",
    ]);
    expect(new OpenScorer('none.jsonl').warnings()).toEqual([]);
  });

  it('refuses a row with neither a score nor a reference, naming the reference field', () => {
    const s = new OpenScorer('runs/o.jsonl');
    expect(whereOf(refusalOf(() => s.apply(row(), { pred: 'x', references: null, given: null, givenField: 'score', referenceField: 'doc.answer', line: 8 })))).toEqual([
      'runs/o.jsonl',
      8,
      'doc.answer',
      'open-ended row with neither a score nor a reference text to compute Token-F1 from',
    ]);
  });
});

describe('checkKind', () => {
  it('takes the first record’s kind and refuses the other one after it, both ways', () => {
    const a = { kind: null as 'mcqa' | 'open' | null, line: 0 };
    checkKind(a, 'open', 'f.jsonl', 3, 'answer');
    checkKind(a, 'open', 'f.jsonl', 4, 'answer');
    expect(a).toEqual({ kind: 'open', line: 3 });
    expect(whereOf(refusalOf(() => checkKind(a, 'mcqa', 'f.jsonl', 5, 'options')))).toEqual([
      'f.jsonl',
      5,
      'options',
      'a multiple-choice record in a file whose records are open-ended (free-text answer, no options) (from line 3); import the two kinds as separate files',
    ]);
    const b = { kind: null as 'mcqa' | 'open' | null, line: 0 };
    checkKind(b, 'mcqa', 'f.jsonl', 2, 'answer');
    expect(whereOf(refusalOf(() => checkKind(b, 'open', 'f.jsonl', 9, 'answer')))[3]).toBe(
      'an open-ended (free-text answer, no options) record in a file whose records are multiple-choice (from line 2); import the two kinds as separate files',
    );
  });
});
