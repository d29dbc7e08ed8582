// lmms-eval --log_samples records, field by field: where each item's id, answer, split and
// metadata come from when a record carries them in one place or another, and which field an
// error names (docs/formats.md "lmms-eval").
import { afterAll, describe, expect, it } from 'vitest';
import { readLmmsEval } from '../../../electron/importers/lmms-eval';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import type { ImportOptions } from '../../../electron/importers/batch-builder';
import type { ImportBatch } from '../../../shared/domain/types';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const MODEL_ARGS = 'pretrained=/x/Toy-7B,max_frames_num=8,max_pixels=151000';
const RESULTS = JSON.stringify({ config: { model: 'llava_vid', model_args: MODEL_ARGS }, model_name: '/x/Toy-7B' });
let n = 0;

/** A log of `records` for `task`, its results.json beside it; its path. */
function log(task: string, records: object[], name = `20250101_120000_samples_${task}.jsonl`): string {
  const dir = `log-${n++}`;
  scratch.write(`${dir}/20250101_120000_results.json`, RESULTS);
  return scratch.write(`${dir}/${name}`, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

const read = (task: string, records: object[], opts: ImportOptions = {}): Promise<ImportBatch> => readLmmsEval(log(task, records), opts);

/** A lettered record: the answer B, the response "B.", three options in the prompt. */
const rec = (i: number, extra: object = {}): object => ({ doc_id: i, target: 'B', filtered_resps: ['B.'], input: 'Q?\nA. x\nB. y\nC. z', ...extra });

describe('lmms-eval records', () => {
  it("names the task by the file's name; a log named otherwise is of an unknown task", async () => {
    const named = await read('mlvu_dev', [rec(0)]);
    expect(named.responses[0]).toMatchObject({ split: 'mlvu_dev', sourceTag: 'lmms-eval:mlvu_dev' });
    const other = await readLmmsEval(log('x', [rec(0)], 'log.jsonl'), { model: 'M', config: '8f' });
    expect(other.responses[0]).toMatchObject({ split: 'lmms-eval', sourceTag: 'lmms-eval:unknown' });
  });

  it('keeps the model_args and the pixel budget on the config, also under a --config that names only frames', async () => {
    const b = await read('videomme', [rec(0)]);
    expect(b.configs.map((c) => [c.key, c.pixelCount, c.modelArgs])).toEqual([['8f_151k', 151000, MODEL_ARGS]]);
    const frames = await read('videomme', [rec(0)], { config: '8f' });
    expect(frames.configs.map((c) => [c.key, c.pixelCount, c.modelArgs])).toEqual([['8f', 151000, MODEL_ARGS]]);
    await expectImportError(read('videomme', [rec(0)], { config: '16f' }), { file: 'results.json', line: 0, field: 'model_args' });
  });

  it('finds the metric object by its question_id whatever its name', async () => {
    // `foo_acc` holds the id and lmms-eval's own letter, which disagrees with the response.
    const b = await read('videomme', [rec(0, { extra: null, foo_acc: { question_id: 'x1', answer: 'B', pred_answer: 'C' } })]);
    expect(b.responses[0]).toMatchObject({ sampleId: 'x1', pred: 'B', correct: true });
    expect(b.warnings.join('\n')).toMatch(/differs from lmms-eval's pred_answer on 1 line\(s\): line 1 \(x1\): "B\." → B vs pred_answer "C"/);
    // A null or list value beside it is no metric object.
    const lists = await read('videomme', [rec(0, { extra: null, list: [{ question_id: 'no' }] })]);
    expect(lists.responses[0]!.sampleId).toBe('0');
  });

  it('names the field an answer came from: the metric object (either spelling of _perception_score, with or without a question_id), doc.answer, then target', async () => {
    await expectImportError(read('videomme', [rec(0, { videomme_perception_score: { question_id: 'q1', answer: 'Z' } })]), {
      file: 'samples_videomme.jsonl',
      line: 1,
      field: 'videomme_perception_score.answer',
    });
    await expectImportError(read('mlvu', [rec(0, { mlvu_percetion_score: { answer: 'Z' } })]), { file: 'samples_mlvu.jsonl', line: 1, field: 'mlvu_percetion_score.answer' });
    await expectImportError(read('videomme', [rec(0, { videomme_perception_score: { answer: 'Z' } })]), {
      file: 'samples_videomme.jsonl',
      line: 1,
      field: 'videomme_perception_score.answer',
    });
    await expectImportError(read('videomme', [rec(0, { doc: { question_id: 'q1', answer: 'Z' } })]), { file: 'samples_videomme.jsonl', line: 1, field: 'doc.answer' });
    await expectImportError(read('videomme', [rec(0, { target: 'Z', doc: { question_id: 'q1' } })]), { file: 'samples_videomme.jsonl', line: 1, field: 'target' });
  });

  it("names lmms-eval's own fields when a question is logged twice with another response or answer", async () => {
    const twice = (second: object): object[] => [rec(0, { doc: { question_id: 'q1' } }), rec(1, { doc: { question_id: 'q1' }, ...second })];
    await expectImportError(read('videomme', twice({ filtered_resps: ['C.'] })), { file: 'samples_videomme.jsonl', line: 2, field: 'filtered_resps' });
    // The answer is named whether the outcome changes with it or not (both wrong).
    await expectImportError(read('videomme', twice({ target: 'C' })), { file: 'samples_videomme.jsonl', line: 2, field: 'answer' });
    const wrong = [rec(0, { doc: { question_id: 'q1' }, target: 'C' }), rec(1, { doc: { question_id: 'q1' }, target: 'A' })];
    await expectImportError(read('videomme', wrong), { file: 'samples_videomme.jsonl', line: 2, field: 'answer' });
  });

  it('a question text as question_id (MLVU) keys the item by its video and question, read from the text when the doc has none', async () => {
    const listed = await read('mlvu', [rec(0, { doc: { video_name: 'v1.mp4' }, mlvu_percetion_score: { question_id: 'What is it?\n(A) x\n(B) y', answer: 'B' } })]);
    expect(listed.responses[0]!.sampleId).toBe(mlvuSampleId('v1.mp4', 'What is it?'));
    const bare = await read('mlvu', [rec(0, { doc: { video_name: 'v1.mp4' }, mlvu_percetion_score: { question_id: 'What is it now? \nmore', answer: 'B' } })]);
    expect(bare.responses[0]!.sampleId).toBe(mlvuSampleId('v1.mp4', 'What is it now?'));
    // The question is the line before the options, not the text's first line.
    const later = await read('mlvu', [rec(0, { doc: { video_name: 'v1.mp4' }, mlvu_percetion_score: { question_id: 'Watch closely.\nWhat is it?\n(A) x\n(B) y', answer: 'B' } })]);
    expect(later.responses[0]!.sampleId).toBe(mlvuSampleId('v1.mp4', 'What is it?'));
    expect(listed.items[0]).toMatchObject({ videoId: 'v1', videoFile: 'v1.mp4' });
  });

  it('an empty question_id is no id: the item is keyed by doc_id, with a warning', async () => {
    const b = await read('videomme', [rec(7, { videomme_perception_score: { question_id: '', answer: 'B' } })]);
    expect(b.responses[0]!.sampleId).toBe('7');
    expect(b.warnings).toEqual([expect.stringMatching(/1 line\(s\) have no question_id; keyed by doc_id/)]);
  });

  it("takes the split's {duration} from the doc when no metric object states it; a number of seconds is a duration, not a bucket", async () => {
    const b = await read('videomme', [rec(0, { doc: { question_id: 'q1', duration: 'long' } }), rec(1, { doc: { question_id: 'q2', duration: 123.5 } })], {
      split: 'V1_{duration}',
    });
    expect(b.responses.map((r) => r.split)).toEqual(['V1_long', 'V1_unknown']);
    expect(b.items.map((i) => [i.durationBucket, i.durationS])).toEqual([
      ['long', null],
      [null, 123.5],
    ]);
  });

  it('takes the domain and sub-category from the metric object first, else from the doc', async () => {
    const b = await read('videomme', [
      rec(0, { doc: { question_id: 'q1', domain: 'D', sub_category: 'DS' }, videomme_perception_score: { question_id: 'q1', category: 'K', sub_category: 'S' } }),
      rec(1, { doc: { question_id: 'q2', domain: 'D', sub_category: 'DS' } }),
    ]);
    expect(b.items.map((i) => [i.domain, i.subCategory])).toEqual([
      ['K', 'S'],
      ['D', 'DS'],
    ]);
  });

  it('a record with neither prompt nor question keeps null, not a missing value; one with no answer is not scored', async () => {
    const b = await read('videomme', [rec(0, { input: undefined, doc: { question_id: 'q1' } }), rec(1, { target: '', doc: { question_id: 'q2' }, filtered_resps: ['nothing'] })]);
    expect(b.items[0]!.question).toBeNull();
    expect(b.items[0]!.options).toBeNull();
    expect(b.responses[1]).toMatchObject({ pred: null, groundTruth: null, correct: null });
    expect(b.warnings).toEqual([]);
  });

  it("a yes/no record without a doc takes its video and question from the metric object; a doc's video wins", async () => {
    const yes = { doc_id: 0, target: 'yes', filtered_resps: ['yes'] };
    const bare = await read('yn', [{ ...yes, yn_score: { video_id: 'v9', question: 'Is it?' } }]);
    expect(bare.items[0]).toMatchObject({ question: 'Is it?', options: ['yes', 'no'], videoId: 'v9', videoFile: 'v9.mp4', kind: 'mcqa' });
    const doc = await read('yn', [{ ...yes, doc: { video: 'dir/v8.mp4' }, yn_score: { video_id: 'v9' } }]);
    expect(doc.items[0]).toMatchObject({ videoId: 'v8', videoFile: 'dir/v8.mp4' });
  });

  it("an open record's references come from target, then doc.answer, then the metric object, and an error names that field", async () => {
    const open = { doc_id: 0, filtered_resps: ['x'] };
    // The same item logged twice with other references: the field they came from is named.
    const twice = (a: object, b: object): object[] => [
      { ...open, ...a },
      { ...open, doc_id: 1, ...b },
    ];
    await expectImportError(read('cap', twice({ target: 'r1', doc: { question_id: 'c1' } }, { target: 'r2', doc: { question_id: 'c1' } })), {
      file: 'samples_cap.jsonl',
      line: 2,
      field: 'target',
    });
    await expectImportError(read('cap', twice({ target: null, doc: { question_id: 'c1', answer: 'r1' } }, { target: null, doc: { question_id: 'c1', answer: 'r2' } })), {
      file: 'samples_cap.jsonl',
      line: 2,
      field: 'doc.answer',
    });
    await expectImportError(
      read('cap', twice({ target: null, cap_score: { question_id: 'c1', answer: 'r1' } }, { target: null, cap_score: { question_id: 'c1', answer: 'r2' } })),
      {
        file: 'samples_cap.jsonl',
        line: 2,
        field: 'cap_score.answer',
      },
    );
    await expectImportError(read('cap', [{ ...open, target: null, doc: { answer: { a: 1 } } }]), { file: 'samples_cap.jsonl', line: 1, field: 'doc.answer' });
    await expectImportError(read('cap', [{ ...open, target: null, cap_score: { question_id: 'c1', answer: { a: 1 } } }]), {
      file: 'samples_cap.jsonl',
      line: 1,
      field: 'cap_score.answer',
    });
  });
});
