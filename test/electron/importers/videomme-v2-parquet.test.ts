/**
 * Video-MME-v2's dataset table (docs/formats.md "Video-MME-v2"): options as a list or as one
 * string of lines, numeric video ids as the v2 script names them (`001`), the default split
 * `videomme_v2`, and the refusals of a table that is not one.
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { readVideoMmeParquet } from '../../../electron/importers/videomme-parquet';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

type Col = { name: string; data: unknown[]; type?: 'STRING' | 'INT32' };
function table(cols: Col[]): string {
  return scratch.freshFile('test.parquet', new Uint8Array(parquetWriteBuffer({ columnData: cols as Parameters<typeof parquetWriteBuffer>[0]['columnData'] })));
}
const base = (options: Col, videoIds: Col = { name: 'video_id', data: [1, 12], type: 'INT32' }): Col[] => [
  videoIds,
  { name: 'group_type', data: ['a', 'b'], type: 'STRING' },
  { name: 'question_id', data: ['1-1', '12-1'], type: 'STRING' },
  { name: 'question', data: ['Who?', 'Where?'], type: 'STRING' },
  options,
  { name: 'answer', data: ['B', 'A'], type: 'STRING' },
  { name: 'second_head', data: ['Perception', null], type: 'STRING' },
  { name: 'third_head', data: ['Counting', null], type: 'STRING' },
];

describe('Video-MME-v2 parquet', () => {
  it('reads options given as one string of lines, and pads numeric video ids', async () => {
    const p = table(base({ name: 'options', data: ['A. a cat\nB. a dog', "['A. inside', 'B. outside']"], type: 'STRING' }));
    const b = await readVideoMmeParquet(p);
    expect(b.items).toEqual([
      {
        split: 'videomme_v2',
        sampleId: '1-1',
        question: 'Who?',
        options: ['a cat', 'a dog'],
        answer: 'B',
        taskType: 'Perception',
        subCategory: 'Counting',
        videoId: '001',
        videoFile: '001.mp4',
        kind: 'mcqa',
      },
      {
        split: 'videomme_v2',
        sampleId: '12-1',
        question: 'Where?',
        options: ['inside', 'outside'],
        answer: 'A',
        taskType: null,
        subCategory: null,
        videoId: '012',
        videoFile: '012.mp4',
        kind: 'mcqa',
      },
    ]);
    expect(b.run).toMatchObject({ format: 'videomme-parquet', toolkit: 'video-mme' });
    expect((await readVideoMmeParquet(p, { split: 'V2' })).items.map((i) => i.split)).toEqual(['V2', 'V2']);
    await expectImportError(readVideoMmeParquet(p, { split: 'V2_{duration}' }), { file: 'test.parquet', line: 1, field: 'duration', reason: /needs a duration bucket/ });
  });

  it('keeps a text video id as it is', async () => {
    const p = table(base({ name: 'options', data: ['A. x\nB. y', 'A. x\nB. y'], type: 'STRING' }, { name: 'video_id', data: ['v7', 'v8'], type: 'STRING' }));
    expect((await readVideoMmeParquet(p)).items.map((i) => i.videoFile)).toEqual(['v7.mp4', 'v8.mp4']);
  });

  it('refuses a row without options, a bad answer, and a table missing a v2 column', async () => {
    const empty = table(base({ name: 'options', data: ['A. x\nB. y', 'not options'], type: 'STRING' }));
    await expectImportError(readVideoMmeParquet(empty), { file: 'test.parquet', line: 2, field: 'options', reason: /^expected the options A–H \(a list, or one per line\)$/ });
    const none = table(base({ name: 'options', data: ['A. x\nB. y', '[]'], type: 'STRING' }));
    await expectImportError(readVideoMmeParquet(none), { file: 'test.parquet', line: 2, field: 'options' });
    const cols = base({ name: 'options', data: ['A. x\nB. y', 'A. x\nB. y'], type: 'STRING' });
    const badAnswer = table(cols.map((c) => (c.name === 'answer' ? { ...c, data: ['B', 'E?'] } : c)));
    await expectImportError(readVideoMmeParquet(badAnswer), { file: 'test.parquet', line: 2, field: 'answer', reason: /expected an option letter A–H/ });
    const noQuestion = table(cols.filter((c) => c.name !== 'question'));
    await expectImportError(readVideoMmeParquet(noQuestion), {
      file: 'test.parquet',
      line: 0,
      field: 'question',
      reason: /^missing column "question" \(expected Video-MME's table\)$/,
    });
    // Without group_type it is read as v1's table, and v1's columns are missing.
    const neither = table(cols.filter((c) => c.name !== 'group_type'));
    await expectImportError(readVideoMmeParquet(neither), { file: 'test.parquet', line: 0, field: 'duration' });
    // With a duration column it is v1's table, whatever else it has.
    const both = table([...cols, { name: 'duration', data: ['short', 'long'], type: 'STRING' }]);
    await expectImportError(readVideoMmeParquet(both), { file: 'test.parquet', line: 0, field: 'videoID' });
  });
});
