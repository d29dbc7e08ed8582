import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';
import { videoMmeTable as table } from './videomme-table';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('Video-MME parquet metadata', () => {
  it('reads items with options, answers, durations and video files', async () => {
    const p = scratch.write('videomme/test-00000-of-00001.parquet', table(['A', 'B', 'C', 'D', 'A', 'B']));
    expect(await detectFormat(p)).toBe('videomme-parquet');
    const [b] = await readImport(p, { split: 'V1_{duration}' });
    expect(b!.responses).toHaveLength(0);
    expect(b!.items).toHaveLength(6);
    expect(b!.items[0]).toMatchObject({
      split: 'V1_short',
      sampleId: '001-1',
      options: ['one', 'two', 'three', 'four'],
      answer: 'A',
      taskType: 'Counting Problem',
      durationBucket: 'short',
      videoId: 'yt0',
      videoFile: 'yt0.mp4',
    });
    expect(b!.items[5]).toMatchObject({ split: 'V1_medium', sampleId: '002-3', answer: 'B' });
  });

  it('rejects a bad answer naming the row and field, and a missing column', async () => {
    const bad = scratch.write('bad.parquet', table(['A', 'B', 'C', 'yes']));
    await expectImportError(readImport(bad), { file: 'bad.parquet', line: 4, field: 'answer' });
    const missing = scratch.write('missing.parquet', table(['A'], 'question_id'));
    await expectImportError(readImport(missing), { file: 'missing.parquet', line: 0, field: 'question_id' });
  });
});
