// MLVU's question files and its scripts' outputs, record by record: the layouts a record may
// have, where its question, options and duration come from, and which field an error or a
// skipped row names (docs/formats.md "MLVU").
import { afterAll, describe, expect, it } from 'vitest';
import { readMlvuMeta, readMlvuResults } from '../../../electron/importers/mlvu';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());
let n = 0;

/** `rows` as a question file (its records one per few lines, as MLVU writes them). */
const meta = (rows: unknown): string => scratch.write(`meta-${n++}/1_plotQA.json`, JSON.stringify(rows, null, 1));
/** `rows` as choice_bench.py's output of a 16-frame run of Toy-7B. */
const results = (rows: unknown): string => scratch.write(`res-${n++}/Toy-7B_MLVU_16frame.json`, JSON.stringify(rows, null, 1));

const mc = { video: 'v.mp4', question: 'Q?', candidates: ['a', 'b'], answer: 'b' };
const gen = { video: 'w.mp4', question: 'Say', answer: 'free text' };

describe('MLVU question files', () => {
  it('reads a list or {"res_list": [...]}, and refuses anything else', async () => {
    const listed = await readMlvuMeta(meta({ res_list: [mc] }));
    expect(listed.items.map((i) => [i.sampleId, i.answer])).toEqual([[mlvuSampleId('v.mp4', 'Q?'), 'B']]);
    const err = await expectImportError(readMlvuMeta(meta({ rows: [mc] })), { file: '1_plotQA.json', line: 1, field: '' });
    expect(err.reason).toBe('expected a JSON list of questions or {"res_list": [...]}');
    await expectImportError(readMlvuMeta(meta({ res_list: { a: mc } })), { file: '1_plotQA.json', line: 1, field: '' });
  });

  it('a duration in seconds is a number, or a text of one; other text is none', async () => {
    const b = await readMlvuMeta(
      meta([
        { ...mc, duration: '12.5' },
        { ...mc, video: 'w.mp4', duration: 'x' },
        { ...mc, video: 'x.mp4', duration: '' },
        { ...mc, video: 'y.mp4', duration: 30 },
        { ...mc, video: 'z.mp4' },
      ]),
    );
    expect(b.items.map((i) => i.durationS)).toEqual([12.5, null, null, 30, null]);
  });

  it('names the video by its file, from video or video_name', async () => {
    const b = await readMlvuMeta(meta([{ ...mc, video: undefined, video_name: 'dir/v.mp4' }]));
    expect(b.items[0]).toMatchObject({ sampleId: mlvuSampleId('v.mp4', 'Q?'), videoId: 'v', videoFile: 'v.mp4' });
    await expectImportError(readMlvuMeta(meta([{ ...mc, video: undefined }])), { file: '1_plotQA.json', line: 2, field: '[0].video' });
  });

  it('the same question with other candidates is a quirk only over the same video', async () => {
    const b = await readMlvuMeta(meta([mc, { ...mc, video: 'w.mp4', candidates: ['c', 'b'] }]));
    expect(b.items).toHaveLength(2);
    const same = await readMlvuMeta(meta([mc, { ...mc, candidates: ['c', 'b'] }]));
    expect(same.items).toHaveLength(1);
    expect(same.warnings[0]).toMatch(/\[1\]\.candidates: skipped — the same video and question as line 2 with different candidates/);
  });

  it('a file of both kinds names the field of the record that differs', async () => {
    await expectImportError(readMlvuMeta(meta([mc, gen])), { file: '1_plotQA.json', line: 11, field: '[1].answer', reason: /^an open-ended/ });
    await expectImportError(readMlvuMeta(meta([gen, mc])), { file: '1_plotQA.json', line: 7, field: '[1].candidates' });
  });

  it("a generation task's answer is its reference even when it looks like a letter; an answer not among the candidates is skipped, named", async () => {
    const b = await readMlvuMeta(meta([{ video: 'v.mp4', question: 'Sum', question_type: 'summary', answer: 'A' }]));
    expect(b.items[0]).toMatchObject({ split: 'MLVU_gen', kind: 'open', references: ['A'], options: null, answer: null });
    const none = await readMlvuMeta(meta([{ ...gen, candidates: [] }]));
    expect(none.items[0]).toMatchObject({ kind: 'open', references: ['free text'] });
    const skipped = await readMlvuMeta(meta([{ ...mc, answer: 'zz' }]));
    expect(skipped.items).toEqual([]);
    expect(skipped.warnings[0]).toMatch(/1_plotQA\.json:2: \[0\]\.answer: skipped — answer "zz" is not among the candidates/);
  });
});

describe("MLVU's script outputs", () => {
  it("splits choice_bench.py's prompt back into question and options, and reads its gt `(B) text`", async () => {
    const b = await readMlvuResults(results([{ video: 'v.mp4', question: 'Question: Q?\nOptions:\n(A) a\n(B) b', gt: '(B) b', pred: '(B)' }]));
    expect(b.items[0]).toMatchObject({ question: 'Q?', options: ['a', 'b'], answer: 'B' });
    expect(b.responses[0]).toMatchObject({ pred: 'B', groundTruth: 'B', correct: true });
    // No space after the label or the letter.
    const tight = await readMlvuResults(results([{ video: 'v.mp4', question: 'Question:Q?\nOptions:\n(A)a\n(B) b', gt: 'B', pred: 'A' }]));
    expect(tight.items[0]).toMatchObject({ question: 'Q?', options: ['a', 'b'] });
    // Not that shape (a letter out of order, or text before it): the question is kept whole.
    for (const question of [
      'Question: Q?\nOptions:\n(A) a\n(C) b',
      'Question: Q?\nOptions:\n(A) a\nsee (B) b',
      'Intro\nQuestion: Q?\nOptions:\n(A) a\n(B) b',
      'Question: Q?\nOptions:\n',
    ]) {
      const other = await readMlvuResults(results([{ video: 'v.mp4', question, candidates: ['a', 'b'], gt: 'B', pred: 'A' }]));
      expect(other.items[0]!.question, question).toBe(question);
    }
  });

  it('names the answer field the record has: gt, answer, or A (with Q)', async () => {
    const row = { question_id: 'q1', question: 'Q?', candidates: ['a', 'b'], pred: 'A' };
    await expectImportError(readMlvuResults(results([{ ...row, gt: 'zz' }])), { file: 'Toy-7B_MLVU_16frame.json', line: 2, field: '[0].gt' });
    await expectImportError(readMlvuResults(results([{ ...row, answer: 'zz' }])), { file: 'Toy-7B_MLVU_16frame.json', line: 2, field: '[0].answer' });
    await expectImportError(readMlvuResults(results([{ ...row, question: undefined, Q: 'Q?', A: 'zz' }])), { file: 'Toy-7B_MLVU_16frame.json', line: 2, field: '[0].A' });
    await expectImportError(readMlvuResults(results([{ ...row, question: undefined, Q: 'Q?', answer: 'zz' }])), { file: 'Toy-7B_MLVU_16frame.json', line: 2, field: '[0].answer' });
    // A Q/A record whose free-text answer is missing names A; a file of both kinds names it too.
    const qa = { video: 'v.mp4', Q: 'Say?', A: 'text', pred: 'text', score: 1 };
    await expectImportError(readMlvuResults(results([{ ...qa, question_id: 'q0', A: undefined, candidates: ['a'] }, qa])), {
      file: 'Toy-7B_MLVU_16frame.json',
      line: 12,
      field: '[1].A',
    });
    await expectImportError(readMlvuResults(results([qa, { video: 'w.mp4', Q: 'Q?', candidates: ['a', 'b'], A: 'a', pred: 'A' }])), {
      file: 'Toy-7B_MLVU_16frame.json',
      line: 9,
      field: '[1].candidates',
    });
  });

  it('a multiple-choice record without an answer is not scored', async () => {
    const b = await readMlvuResults(results([{ question_id: 'q1', question: 'Q?', candidates: ['a', 'b'], pred: 'A' }]));
    expect(b.responses[0]).toMatchObject({ sampleId: 'q1', pred: 'A', groundTruth: null, correct: null });
  });

  it("a record with an id is kept as it is; one without is checked as the benchmark's rows are, and named by its layout's fields", async () => {
    const withId = await readMlvuResults(results([{ id: 'i1', question: '', candidates: ['a', 'b'], answer: 'a', pred: 'A' }]));
    expect(withId.items.map((i) => [i.sampleId, i.question])).toEqual([['i1', '']]);
    const withQid = await readMlvuResults(results([{ question_id: 'q1', question: '', candidates: ['a', 'b'], answer: 'a', pred: 'A' }]));
    expect(withQid.items.map((i) => i.sampleId)).toEqual(['q1']);
    const blank = await readMlvuResults(results([{ video: 'v.mp4', question: '', candidates: ['a', 'b'], answer: 'a', pred: 'A' }]));
    expect(blank.items).toEqual([]);
    expect(blank.warnings[0]).toMatch(/:2: \[0\]\.question: skipped — blank question/);
    const blankQ = await readMlvuResults(results([{ video: 'v.mp4', Q: ' ', candidates: ['a', 'b'], A: 'a', pred: 'A' }]));
    expect(blankQ.warnings[0]).toMatch(/:2: \[0\]\.Q: skipped — blank question/);
    await expectImportError(readMlvuResults(results([{ question_id: '', id: '', question: 'Q', candidates: ['a', 'b'], answer: 'a', pred: 'A' }])), {
      file: 'Toy-7B_MLVU_16frame.json',
      line: 2,
      field: '[0].question_id',
    });
  });

  it("an open record is scored against its references and tagged as MLVU's output", async () => {
    const b = await readMlvuResults(results([{ video: 'v.mp4', question: 'Say?', answer: 'the red car', pred: 'the red car' }]));
    expect(b.items[0]).toMatchObject({ split: 'MLVU_gen', kind: 'open', references: ['the red car'] });
    expect(b.responses[0]).toMatchObject({ sourceTag: 'mlvu-results', score: 1 });
  });
});
