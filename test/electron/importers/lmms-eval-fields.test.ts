/**
 * What an lmms-eval record's fields mean (docs/formats.md "lmms-eval"), one function at a time:
 * the prompt, the metric objects' video, item id, answer and parsed letter, option lists and
 * answers in each task's form, and an open-ended item's dialogue context. The lmms-eval tests
 * import whole logs of each task; this file checks each rule by itself.
 */
import { describe, expect, it } from 'vitest';
import { refusalOf, whereOf } from './helpers';
import {
  answerLetterOf,
  docOptions,
  firstString,
  lastLine,
  metricAnswerLetter,
  metricItemId,
  metricString,
  openContext,
  optionIndexOf,
  promptOf,
  resolveAnswer,
  taskParsedLetter,
  videoOfMetrics,
} from '../../../electron/importers/lmms-eval-fields';

describe('the prompt', () => {
  it('is `input`, else the first string of a pre-0.3 `arguments`, searched depth first', () => {
    expect(promptOf({ input: 'the prompt', arguments: ['other'] })).toBe('the prompt');
    expect(promptOf({ input: '', arguments: [[{ until: [] }, ['nested prompt', 'x']], 'later'] })).toBe('nested prompt');
    expect(promptOf({ input: null, arguments: [1, { a: 'b' }] })).toBeNull();
    expect(promptOf({ arguments: 'not a list' })).toBeNull();
    expect(promptOf({})).toBeNull();
    expect([firstString('plain'), firstString([[], [[7]], 'x']), firstString([])]).toEqual(['plain', 'x', null]);
  });

  it('its last non-empty line is the question', () => {
    expect(lastLine('Instructions.\n  What is it?  \n\n  ')).toBe('What is it?');
    expect([lastLine(''), lastLine(null), lastLine(undefined), lastLine('\n \n')]).toEqual([null, null, null, null]);
  });
});

describe('metric objects', () => {
  it('give the first non-empty string of a name, from any object but doc', () => {
    const rec = { doc: { video_id: 'from-doc' }, a: null, b: ['x'], c: { video_id: '  ' }, d: { video_id: 'v7' }, e: { video_id: 'v8' } };
    expect(metricString(rec, 'video_id')).toBe('v7');
    expect(metricString(rec, 'question')).toBeNull();
  });

  it('name a video by id (as <id>.mp4) or by file, an absolute path cut to its name', () => {
    expect(videoOfMetrics({ videomme_perception_score: { videoID: 'fFjv93ACGo8', pred_answer: 'A' } })).toEqual({ id: 'fFjv93ACGo8', file: 'fFjv93ACGo8.mp4' });
    expect(videoOfMetrics({ m: { video_id: 'v1', video_name: 'other.mp4' } })).toEqual({ id: 'v1', file: 'v1.mp4' });
    expect(videoOfMetrics({ m: { video_name: 'clips/dog.mkv' } })).toEqual({ id: 'dog', file: 'clips/dog.mkv' });
    expect(videoOfMetrics({ m: { video: 'dog' } })).toEqual({ id: 'dog', file: 'dog.mp4' });
    expect(videoOfMetrics({ m: { video_path: '/data/videos/dog.webm' } })).toEqual({ id: 'dog', file: 'dog.webm' });
    expect(videoOfMetrics({ m: { video_path: 'C:\\data\\videos\\cat.mp4' } })).toEqual({ id: 'cat', file: 'cat.mp4' });
    expect(videoOfMetrics({ m: { video_path: 'd:/v/cat' } })).toEqual({ id: 'cat', file: 'cat.mp4' });
    expect(videoOfMetrics({ doc: { video_id: 'x' }, m: { score: 1 } })).toBeNull();
  });

  it("name an item: LongVideoBench's lvb_acc.id, EgoSchema's one submission key", () => {
    expect(metricItemId({ lvb_acc: { id: 'lvb-1' }, submission: { e1: 2 } })).toBe('lvb-1');
    expect(metricItemId({ lvb_acc: { id: '' }, submission: { e1: 2 } })).toBe('e1');
    expect(metricItemId({ lvb_acc: ['x'], submission: { e1: 2, e2: 3 } })).toBeNull();
    expect(metricItemId({ lvb_acc: { id: 5 }, submission: [] })).toBeNull();
    expect(metricItemId({ submission: { '': 1 } })).toBeNull();
    expect(metricItemId({})).toBeNull();
  });

  it('state an answer letter: the first letter-valued gt_answer or answer of an object other than doc', () => {
    expect(metricAnswerLetter({ doc: { answer: 'A' }, mvbench_accuracy: { gt_answer: 'C', answer: 'B' } })).toEqual({ letter: 'C', field: 'mvbench_accuracy.gt_answer' });
    expect(metricAnswerLetter({ x: { gt_answer: 'the cat', answer: 'D' } })).toEqual({ letter: 'D', field: 'x.answer' });
    expect(metricAnswerLetter({ a: null, b: ['A'], c: { answer: 'Z' }, d: { answer: 'AB' } })).toBeNull();
  });

  it("give the letter the task's own code read: LongVideoBench's parsed_pred, EgoSchema's score.pred index", () => {
    expect(taskParsedLetter({ lvb_acc: { parsed_pred: 'C' } })).toBe('C');
    expect(taskParsedLetter({ lvb_acc: { parsed_pred: 'none' } })).toBeNull();
    expect(taskParsedLetter({ score: { ground_truth: 2, pred: 1 } })).toBe('B');
    expect(taskParsedLetter({ score: { ground_truth: 2, pred: -1 } })).toBeNull();
    expect(taskParsedLetter({ score: { ground_truth: 2, pred: 8 } })).toBeNull();
    expect(taskParsedLetter({ score: { ground_truth: 2, pred: 7 } })).toBe('H');
    // Neither: undefined, so nothing is compared.
    expect([
      taskParsedLetter({ score: 1 }),
      taskParsedLetter({ score: { pred: 1 } }),
      taskParsedLetter({ lvb_acc: { parsed_pred: 3 } }),
      taskParsedLetter({ score: { ground_truth: 1, pred: 'A' } }),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });
});

describe('options and answers', () => {
  it("reads a doc's options as a list (their own prefixes stripped) or as v2's lines", () => {
    expect(docOptions(['A. red', 'B. blue', 'C. A. green'])).toEqual(['red', 'blue', 'A. green']);
    expect(docOptions('A. red\nB. blue')).toEqual(['red', 'blue']);
    expect([docOptions(null), docOptions(undefined), docOptions('no options')]).toEqual([null, null, null]);
  });

  it('reads an answer letter in each form, anything else unchanged', () => {
    expect(['B', '(B)', ' (C) the dog', 'D. text', 'E)', 'F.\nmore'].map(answerLetterOf)).toEqual(['B', 'B', 'C', 'D', 'E', 'F']);
    expect(['(B', 'B.x', 'the dog', 'I.', '(I)', 3, null].map(answerLetterOf)).toEqual(['(B', 'B.x', 'the dog', 'I.', '(I)', 3, null]);
  });

  it('reads a 0-based option index from a number or its digits', () => {
    expect([optionIndexOf(0), optionIndexOf(7), optionIndexOf(' 12 '), optionIndexOf('3')]).toEqual([0, 7, 12, 3]);
    expect([optionIndexOf(-1), optionIndexOf(1.5), optionIndexOf('123'), optionIndexOf('1a'), optionIndexOf(''), optionIndexOf(null)]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it("resolves the answer: the metric's letter first, then a letter, an index, an option's text", () => {
    const opts = ['red', 'blue', 'green'];
    expect(resolveAnswer('A', opts, { letter: 'C', field: 'm.gt_answer' }, 'f', 1, 'answer')).toBe('C');
    expect([resolveAnswer(null, opts, null, 'f', 1, 'a'), resolveAnswer(undefined, opts, null, 'f', 1, 'a'), resolveAnswer('', opts, null, 'f', 1, 'a')]).toEqual([
      null,
      null,
      null,
    ]);
    expect(resolveAnswer('H', opts, null, 'f', 1, 'a')).toBe('H');
    expect([resolveAnswer(2, opts, null, 'f', 1, 'a'), resolveAnswer('0', opts, null, 'f', 1, 'a'), resolveAnswer(7, null, null, 'f', 1, 'a')]).toEqual(['C', 'A', 'H']);
    expect(resolveAnswer(' blue ', opts, null, 'f', 1, 'a')).toBe('B');
  });

  it('refuses an index past the options, an answer that is none of them, and any other value', () => {
    expect(whereOf(refusalOf(() => resolveAnswer(3, ['red', 'blue', 'green'], null, 'runs/s.jsonl', 4, 'doc.correct_choice')))).toEqual([
      'runs/s.jsonl',
      4,
      'doc.correct_choice',
      'option index 3 is past the 3 options (0-based: 0 = A, 1 = B, 2 = C)',
    ]);
    expect(whereOf(refusalOf(() => resolveAnswer('8', null, null, 'f', 1, 'a')))[3]).toBe(
      'option index 8 is past the 8 options (0-based: 0 = A, 1 = B, 2 = C, 3 = D, 4 = E, 5 = F, 6 = G, 7 = H)',
    );
    expect(whereOf(refusalOf(() => resolveAnswer('purple', ['red', 'blue'], null, 'runs/s.jsonl', 5, 'target')))).toEqual([
      'runs/s.jsonl',
      5,
      'target',
      'the answer "purple" is neither an option letter nor one of the options (A. red; B. blue)',
    ]);
    expect(whereOf(refusalOf(() => resolveAnswer('purple', null, null, 'f', 6, 'target')))[3]).toBe('expected an option letter A–H, got "purple"');
    expect(whereOf(refusalOf(() => resolveAnswer(true, ['x'], null, 'f', 6, 'target')))[3]).toBe('expected an option letter A–H, got true');
    // The ninth option's text has no letter.
    const nine = Array.from({ length: 9 }, (_, i) => `o${i}`);
    expect(whereOf(refusalOf(() => resolveAnswer('o8', nine, null, 'f', 7, 'target')))[3]).toMatch(/^the answer "o8" is neither an option letter nor one of the options/);
    expect(resolveAnswer('o7', nine, null, 'f', 7, 'target')).toBe('H');
    // An index of the ninth option names no letter either.
    expect(resolveAnswer(7, nine, null, 'f', 7, 'target')).toBe('H');
    expect(whereOf(refusalOf(() => resolveAnswer(8, nine, null, 'f', 7, 'correct_choice')))[3]).toBe('option index 8 names the 9th option, and options are lettered A–H');
  });
});

describe('openContext', () => {
  const dialog = [
    { question: 'who is there?', answer: 'a man' },
    { question: 'what does he do?', answer: 'he cooks' },
    { question: 'is it day?', answer: 'yes' },
  ];

  it("takes doc.history, else doc.dialog's turns before the one asked (else before the last)", () => {
    expect(openContext({ history: [dialog[0]], dialog }, null, 'is it day?')).toEqual({ history: [dialog[0]], caption: null, summary: null, prompt: null });
    expect(openContext({ dialog }, null, ' what does he do? ')?.history).toEqual([dialog[0]]);
    // An empty history is none: the dialog is read.
    expect(openContext({ history: [], dialog }, null, 'what does he do?')?.history).toEqual([dialog[0]]);
    expect(openContext({ dialog }, null, 'something else')?.history).toEqual([dialog[0], dialog[1]]);
    expect(openContext({ dialog }, null, null)?.history).toEqual([dialog[0], dialog[1]]);
    // Only the turns' question and answer are kept.
    expect(openContext({ history: [{ ...dialog[0], extra: 1 }] }, null, null)?.history).toEqual([dialog[0]]);
  });

  it('keeps the prompt only when it says more than the question, and is null when there is nothing', () => {
    expect(openContext(undefined, 'Answer briefly.\nwhat is it?', 'what is it?')).toEqual({ history: [], caption: null, summary: null, prompt: 'Answer briefly.\nwhat is it?' });
    expect(openContext(undefined, '  what is it? ', 'what is it?')).toBeNull();
    expect(openContext(undefined, '   ', null)).toBeNull();
    expect(openContext({ dialog: [dialog[0]] }, null, 'who is there?')).toBeNull();
    // Turns that are not {question, answer} texts are no history.
    expect(openContext({ history: [{ question: 'q' }], dialog: [] }, null, null)).toBeNull();
    expect(openContext({ history: 'who?' }, 'q', null)).toEqual({ history: [], caption: null, summary: null, prompt: 'q' });
  });
});
