/**
 * Video-MME's official result JSON read by readVideoMmeResults itself (docs/formats.md
 * "Video-MME results"), one rule at a time: the three templates, videos marked missing, the
 * split template, the video id from a YouTube link, and each refusal. real-formats.test.ts
 * reads whole files of each template.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readVideoMmeResults } from '../../../electron/importers/videomme-results';
import { Scratch, expectImportError, lineOf } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const write = (name: string, doc: unknown): string => scratch.freshFile(name, typeof doc === 'string' ? doc : JSON.stringify(doc, null, 2));
const NAME = 'Qwen2-VL_Video-MME_16frame.json';
const question = (id: string, answer: string | null, response: string | null, over: object = {}) => ({
  question_id: id,
  task_type: 'Counting Problem',
  question: `how many ${id}?`,
  options: ['A. one', 'B. two', 'C. three', 'D. four'],
  answer,
  response,
  ...over,
});

describe('readVideoMmeResults', () => {
  it('reads the current template: one item per question, the letter from the response, model and budget from the name', async () => {
    const p = write(NAME, [
      {
        video_id: '001',
        duration: 'short',
        domain: 'Knowledge',
        sub_category: 'Humanity',
        videoID: 'fFjv93ACGo8',
        questions: [question('001-1', 'C', 'The answer is C.'), question('001-2', 'A', null)],
      },
    ]);
    const b = await readVideoMmeResults(p);
    expect(b.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct, r.sourceTag, r.line])).toEqual([
      ['Qwen2-VL', 'videomme', '001-1', '16f', 'C', 'C', true, 'video-mme-results', lineOf(p, '"question_id": "001-1"') - 1],
      ['Qwen2-VL', 'videomme', '001-2', '16f', null, 'A', false, 'video-mme-results', lineOf(p, '"question_id": "001-2"') - 1],
    ]);
    expect(b.items[0]).toEqual({
      split: 'videomme',
      sampleId: '001-1',
      question: 'how many 001-1?',
      options: ['one', 'two', 'three', 'four'],
      answer: 'C',
      taskType: 'Counting Problem',
      durationBucket: 'short',
      domain: 'Knowledge',
      subCategory: 'Humanity',
      videoId: 'fFjv93ACGo8',
      videoFile: 'fFjv93ACGo8.mp4',
      kind: 'mcqa',
    });
    expect(b.configs).toEqual([expect.objectContaining({ key: '16f', toolkit: 'video-mme' })]);
    expect(b.run).toMatchObject({ format: 'videomme-results', toolkit: 'video-mme', modelArgs: null });
    expect(b.warnings).toEqual([]);
  });

  it('reads the June-2024 template: duration_category, video_category, video_subcategory, choices, the id from the link', async () => {
    const june = (url: string) => [
      {
        video_id: '002',
        duration_category: 'medium',
        video_category: 'Film & Television',
        video_subcategory: 'Animation',
        url,
        questions: [{ ...question('002-1', 'B', 'B'), options: undefined, choices: ['A. red', 'B. blue'] }],
      },
    ];
    for (const [url, id] of [
      ['https://www.youtube.com/watch?v=dQw4w9WgXcQ', 'dQw4w9WgXcQ'],
      ['https://www.youtube.com/watch?feature=share&v=abc_DEF-12', 'abc_DEF-12'],
      ['https://youtu.be/XyZ12345', 'XyZ12345'],
      ['https://example.com/video?v=abc', null],
      ['', null],
    ] as const) {
      const b = await readVideoMmeResults(write(NAME, june(url)), { split: 'V1_{duration}' });
      expect(b.items[0], url).toMatchObject({
        split: 'V1_medium',
        options: ['red', 'blue'],
        durationBucket: 'medium',
        domain: 'Film & Television',
        subCategory: 'Animation',
        videoId: id,
        videoFile: id ? `${id}.mp4` : null,
      });
    }
  });

  it('reads the flat list, one record per question with its video fields', async () => {
    const p = write('Model_videomme_8f.json', [{ ...question('003-1', 'D', 'D. four'), duration: 'long', videoID: 'vid3' }, { ...question('004-1', '', 'A') }]);
    const one = write('Model_videomme_8f.json', [{ ...question('003-1', 'D', 'D. four'), duration: 'long', videoID: 'vid3' }]);
    const b = await readVideoMmeResults(one, { split: 'V1_{duration}', model: 'Other' });
    expect(b.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct])).toEqual([['Other', 'V1_long', '003-1', '8f', 'D', 'D', true]]);
    await expectImportError(readVideoMmeResults(p, { split: 'V1_{duration}' }), {
      file: 'Model_videomme_8f.json',
      line: lineOf(p, '"question_id": "004-1"') - 1,
      field: '[1].duration',
      reason: /^--split V1_\{duration\} needs a duration bucket/,
    });
    // Without --split: split videomme, and an empty answer is none.
    const c = await readVideoMmeResults(p);
    expect(c.responses.map((r) => [r.sampleId, r.split, r.groundTruth, r.correct])).toEqual([
      ['003-1', 'videomme', 'D', true],
      ['004-1', 'videomme', null, null],
    ]);
  });

  it('skips the questions of a video marked missing, and says how many', async () => {
    const p = write(NAME, [
      { video_id: '001', duration: 'short', missing: true, questions: [question('001-1', 'A', null), question('001-2', 'A', null)] },
      { video_id: '002', duration: 'short', missing: false, questions: [question('002-1', 'A', 'A')] },
      { video_id: '003', duration: 'short', missing: true, questions: [question('003-1', 'A', null)] },
    ]);
    const b = await readVideoMmeResults(p);
    expect(b.responses.map((r) => r.sampleId)).toEqual(['002-1']);
    expect(b.warnings).toEqual([`${NAME}: 2 video(s) marked "missing" — their 3 question(s) have no response and were not imported`]);
  });

  it('names a duration_category field when the June template lacks one for a {duration} split', async () => {
    const p = write(NAME, [{ video_id: '009', duration_category: null, questions: [question('009-1', 'A', 'A')] }]);
    await expectImportError(readVideoMmeResults(p, { split: 'V1_{duration}' }), { file: NAME, line: 2, field: '[0].duration', reason: /needs a duration bucket/ });
    const q = write(NAME, [{ video_id: '009', duration_category: '', questions: [question('009-1', 'A', 'A')] }]);
    await expectImportError(readVideoMmeResults(q, { split: 'V1_{duration}' }), { file: NAME, line: 2, field: '[0].duration_category' });
  });

  it('refuses a document that is no list, an answer that is no letter, a question without an id, and a name without a model', async () => {
    await expectImportError(readVideoMmeResults(write(NAME, { videos: [] })), { file: NAME, line: 1, field: '', reason: /^expected a JSON list of videos or questions$/ });
    const p = write(NAME, [{ video_id: '001', questions: [question('001-1', 'four', 'A')] }]);
    await expectImportError(readVideoMmeResults(p), {
      file: NAME,
      line: lineOf(p, '"question_id": "001-1"') - 1,
      field: 'answer',
      reason: /^expected an option letter A–H, got "four"$/,
    });
    const noId = write(NAME, [{ video_id: '001', questions: [{ ...question('x', 'A', 'A'), question_id: '' }] }]);
    await expectImportError(readVideoMmeResults(noId), { file: NAME, line: 5, field: '[0].questions[0].question_id' });
    const noResponse = write(NAME, [{ ...question('x', 'A', 'A'), response: undefined }]);
    await expectImportError(readVideoMmeResults(noResponse), { file: NAME, line: 2, field: '[0].response' });
    await expectImportError(readVideoMmeResults(write('results.json', [])), {
      file: 'results.json',
      line: 0,
      field: 'model',
      reason: /^model unknown from the file name; pass --model$/,
    });
  });

  it('warns when the model is a guess from a name with an unknown dataset part', async () => {
    const p = write('Foo_Bar_Baz_16frame.json', [question('001-1', 'A', 'A')]);
    expect((await readVideoMmeResults(p)).warnings).toEqual([expect.stringMatching(/^.*Foo_Bar_Baz_16frame\.json: model "Foo" is the file name's first "_" part/)]);
    expect((await readVideoMmeResults(p, { model: 'Foo_Bar' })).warnings).toEqual([]);
  });
});
