/**
 * MLVU's rules on their own (docs/formats.md "MLVU"): a question's sample id, an answer's letter
 * as MLVU's choice_bench.py gives it, the benchmark rows that are skipped or kept with a
 * warning, and the default splits. mlvu-scorer.test.ts and real-formats.test.ts import whole
 * files; this file checks each rule by itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MlvuQuirks, answerLetter, mlvuSplit, readMlvuMeta, readMlvuResults, sampleIdOf } from '../../../electron/importers/mlvu';
import { Scratch, expectImportError } from './helpers';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';

const FIELDS = { question: 'question', answer: 'answer', candidates: 'candidates' };
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('sampleIdOf', () => {
  it('is question_id, else id, else the video and question', () => {
    expect(sampleIdOf({ question_id: 7, id: 'x', video: 'v.mp4', question: 'q' })).toBe('7');
    expect(sampleIdOf({ question_id: '', id: 3, video: 'v.mp4', question: 'q' })).toBe('3');
    expect(sampleIdOf({ question_id: null, id: '', video: 'clips/v.mp4', question: 'q' })).toBe(mlvuSampleId('clips/v.mp4', 'q'));
    expect(sampleIdOf({ video_name: 'w.mp4', question: '' })).toBe(mlvuSampleId('w.mp4', ''));
    expect([sampleIdOf({ video: 'v.mp4' }), sampleIdOf({ question: 'q' }), sampleIdOf({ video: '', question: 'q' })]).toEqual([null, null, null]);
  });
});

describe('answerLetter', () => {
  const cands = ['red', 'blue', ' green ', 'blue', ''];
  it('reads a letter, "(B)" and "(B) text", and a candidate’s text as its last copy’s letter', () => {
    expect(['C', '(B)', 'B)', 'B.', '(D) blue'].map((a) => answerLetter(a, ['x']))).toEqual(['C', 'B', 'B', 'B', 'D']);
    expect([answerLetter('blue', cands), answerLetter('red', cands), answerLetter('green', cands), answerLetter(' green ', cands)]).toEqual(['D', 'A', 'C', 'C']);
    // A blank answer is the last blank candidate, if any.
    expect([answerLetter('', cands), answerLetter('', ['a', 'b'])]).toEqual(['E', null]);
    expect([answerLetter(null, cands), answerLetter(undefined, cands)]).toEqual([null, null]);
  });

  it('is undefined for an answer it cannot read, and for a candidate past H', () => {
    const nine = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    expect([answerLetter('purple', cands), answerLetter('i', nine), answerLetter('(I)', nine), answerLetter('B text', cands), answerLetter('purple', null)]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(answerLetter('h', nine)).toBe('H');
    expect(answerLetter('', [...nine.slice(0, 8), ''])).toBeNull();
  });
});

describe('MlvuQuirks', () => {
  it('keeps a good row without a word', () => {
    const q = new MlvuQuirks('runs/1_plotQA.json');
    expect(q.skip({ video: 'v', question: 'q', candidates: ['a', 'b'], answer: 'b', kind: 'mcqa' }, 3, FIELDS)).toBe(false);
    expect(q.skip({ video: 'v', question: 'tell', kind: 'open' }, 4, FIELDS)).toBe(false);
    expect([q.warnings(), q.count]).toEqual([[], 0]);
  });

  it('skips a blank question, an answer not among the candidates, a blank answer without a blank candidate, and a question asked again with other candidates', () => {
    const q = new MlvuQuirks('runs/3_ego.json');
    const rows: [Parameters<MlvuQuirks['skip']>[0], number][] = [
      [{ video: 'v', question: ' ', candidates: ['a', 'b'], answer: 'a', kind: 'mcqa' }, 2],
      [{ video: 'v', question: 'q1', candidates: ['a', 'b'], answer: 'z', kind: 'mcqa' }, 3],
      [{ video: 'v', question: 'q2', candidates: ['a', 'b'], answer: '', kind: 'mcqa' }, 4],
      [{ video: 'v', question: 'q3', candidates: ['a', 'b'], answer: 'a', kind: 'mcqa' }, 5],
      [{ video: 'v', question: 'q3', candidates: ['a', 'c'], answer: 'a', kind: 'mcqa' }, 6],
      [{ video: 'v', question: 'q3', candidates: ['a', 'b'], answer: 'b', kind: 'mcqa' }, 7],
      [{ video: 'w', question: 'q3', candidates: ['a', 'c'], answer: 'a', kind: 'mcqa' }, 8],
      [{ video: 'v', question: null, kind: 'open' }, 9],
      // Still named by the first line that asked it.
      [{ video: 'v', question: 'q3', candidates: ['a', 'd'], answer: 'a', kind: 'mcqa' }, 10],
    ];
    expect(rows.map(([r, line]) => q.skip(r, line, FIELDS))).toEqual([true, true, true, false, true, false, false, true, true]);
    expect(q.count).toBe(6);
    expect(q.warnings()).toEqual([
      'runs/3_ego.json:2: question: skipped — blank question (a blank row of the benchmark)',
      'runs/3_ego.json:3: answer: skipped — answer "z" is not among the candidates',
      'runs/3_ego.json:4: answer: skipped — blank answer, and no blank candidate to be it',
      'runs/3_ego.json:6: candidates: skipped — the same video and question as line 5 with different candidates',
      'runs/3_ego.json:9: question: skipped — blank question (a blank row of the benchmark)',
      'runs/3_ego.json:10: candidates: skipped — the same video and question as line 5 with different candidates',
      '3_ego.json: 6 benchmark row(s) skipped (MLVU quirks listed above)',
    ]);
  });

  it("keeps a row whose answer is a blank candidate, with the letter MLVU's scorer gives it, and says so", () => {
    const q = new MlvuQuirks('runs/7_topic_reasoning.json');
    expect(q.skip({ video: 'v', question: 'q', candidates: ['a', '', 'c'], answer: '', kind: 'mcqa' }, 4, { question: 'Q', answer: 'A', candidates: 'cands' })).toBe(false);
    expect(q.skip({ video: 'v', question: '', candidates: ['', ''], answer: '', kind: 'mcqa' }, 5, FIELDS)).toBe(false);
    expect(q.skip({ video: 'v', question: 'p', candidates: ['a', '  '], answer: 'B', kind: 'mcqa' }, 6, FIELDS)).toBe(false);
    expect([q.count, q.warnings()]).toEqual([
      0,
      [
        "runs/7_topic_reasoning.json:4: cands[1]: kept — the answer is a blank candidate; scored as MLVU's choice_bench.py scores it, with answer B",
        "runs/7_topic_reasoning.json:5: candidates[1]: kept — a blank row of the benchmark (blank question, candidates and answer); scored as MLVU's choice_bench.py scores it, with answer B",
        "runs/7_topic_reasoning.json:6: candidates[1]: kept — the answer is a blank candidate; scored as MLVU's choice_bench.py scores it, with answer B",
        "7_topic_reasoning.json: 3 blank-answer row(s) kept with the answer MLVU's scorer gives them (listed above)",
      ],
    ]);
  });
});

describe('mlvuSplit', () => {
  it('is --split, else MLVU for multiple choice and MLVU_gen for generation', () => {
    expect([mlvuSplit('mcqa', undefined), mlvuSplit('open', undefined), mlvuSplit('open', 'Mine'), mlvuSplit('mcqa', '')]).toEqual(['MLVU', 'MLVU_gen', 'Mine', 'MLVU']);
  });
});

describe('generation tasks', () => {
  it('read each generation task type as open-ended, a letter-like answer too; other types by their answer', async () => {
    const types = ['subPlot', 'summary', 'sub_scene', 'subscene', 'sub_plot'];
    const rows = [
      ...types.map((t, i) => ({ video: `v${i}.mp4`, question: `Describe ${t}.`, answer: 'A', question_type: t })),
      { video: 'w.mp4', question: 'Sum up.', answer: 'the man cooks, then leaves', question_type: 'plotQA' },
    ];
    const b = await readMlvuMeta(scratch.write('meta/gen.json', JSON.stringify(rows)));
    expect(b.items.map((i) => [i.taskType, i.kind, i.split, i.references])).toEqual([
      ...types.map((t) => [t, 'open', 'MLVU_gen', ['A']]),
      ['plotQA', 'open', 'MLVU_gen', ['the man cooks, then leaves']],
    ]);
    // With candidates a record is multiple-choice, whatever its type.
    const mc = await readMlvuMeta(
      scratch.write('meta/mc.json', JSON.stringify([{ video: 'v.mp4', question: 'Which?', candidates: ['a', 'b'], answer: 'b', question_type: 'summary' }])),
    );
    expect(mc.items.map((i) => [i.kind, i.split, i.answer])).toEqual([['mcqa', 'MLVU', 'B']]);
  });
});

describe('MLVU results', () => {
  const mc = (over: object = {}) => ({ question_id: 'q1', video: 'v.mp4', question: 'Which?', candidates: ['a', 'b', 'c'], answer: 'b', question_type: 'plotQA', ...over });

  it('reads the prediction from option, pred, prediction or response, letters up to the candidates', async () => {
    const rows = [
      mc({ question_id: 'q1', option: 'B', pred: 'A' }),
      mc({ question_id: 'q2', pred: '(B) b' }),
      mc({ question_id: 'q3', prediction: 'C' }),
      mc({ question_id: 'q4', response: 'The answer is B' }),
      mc({ question_id: 'q5', pred: 'D' }),
      mc({ question_id: 'q6', candidates: [], answer: 'E', pred: 'E' }),
    ];
    const b = await readMlvuResults(scratch.write('res/Toy-7B_MLVU_16frame.json', JSON.stringify(rows)));
    expect(b.responses.map((r) => [r.sampleId, r.model, r.config, r.pred, r.groundTruth, r.correct, r.sourceTag])).toEqual([
      ['q1', 'Toy-7B', '16f', 'B', 'B', true, 'mlvu-results'],
      ['q2', 'Toy-7B', '16f', 'B', 'B', true, 'mlvu-results'],
      ['q3', 'Toy-7B', '16f', 'C', 'B', false, 'mlvu-results'],
      ['q4', 'Toy-7B', '16f', 'B', 'B', true, 'mlvu-results'],
      // Three candidates: D is no answer.
      ['q5', 'Toy-7B', '16f', null, 'B', false, 'mlvu-results'],
      ['q6', 'Toy-7B', '16f', 'E', 'E', true, 'mlvu-results'],
    ]);
    expect(b.run).toMatchObject({ format: 'mlvu-results', toolkit: 'mlvu', modelArgs: null });
  });

  it("scores an open-ended answer by Token-F1 of the first prediction field given, or by the record's own score", async () => {
    const rows = [
      { video_name: 'v.mp4', Q: 'What happens?', A: 'a man cooks eggs', pred: 'a man cooks', question_type: 'summary' },
      { video_name: 'w.mp4', Q: 'And then?', A: 'he leaves', prediction: 'he leaves', question_type: 'summary', score: 0.25 },
    ];
    const b = await readMlvuResults(scratch.write('res2/Toy-7B_MLVU_8frame.json', JSON.stringify(rows)));
    expect(b.responses.map((r) => [r.pred, r.score, r.protocolNote, r.split])).toEqual([
      // Articles dropped: {man, cooks} against {man, cooks, eggs}, precision 1, recall 2/3.
      ['a man cooks', 0.8, 'score: token_f1', 'MLVU_gen'],
      ['he leaves', 0.25, 'score: score', 'MLVU_gen'],
    ]);
  });

  it('needs a model and a budget from the name or the options, and warns when the model is a guess', async () => {
    const rows = JSON.stringify([mc({ pred: 'B' })]);
    await expectImportError(readMlvuResults(scratch.write('res3/results.json', rows)), {
      file: 'results.json',
      line: 0,
      field: 'model',
      reason: /^model unknown from the file name; pass --model$/,
    });
    const g = scratch.write('res3/Foo_Bar_Baz_4fps.json', rows);
    const b = await readMlvuResults(g, { config: '8f' });
    expect(b.responses[0]!.model).toBe('Foo');
    expect(b.warnings.filter((w) => w.includes('first "_" part'))).toHaveLength(1);
    expect(b.configs).toEqual([expect.objectContaining({ key: '8f', toolkit: 'mlvu', sampling: { policy: null, seed: null, fps: 4 } })]);
    expect((await readMlvuResults(g, { config: '8f', model: 'Foo_Bar' })).warnings.filter((w) => w.includes('first "_" part'))).toEqual([]);
  });
});
