import fs from 'node:fs';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { ROWS_DEADLINE_MS } from '../../../electron/importers/parquet-rows';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

function table(answers: string[], drop?: string): Uint8Array {
  const n = answers.length;
  const cols = [
    { name: 'video_id', data: Array.from({ length: n }, (_, i) => String(Math.floor(i / 3) + 1).padStart(3, '0')), type: 'STRING' as const },
    { name: 'duration', data: Array.from({ length: n }, (_, i) => (i < 3 ? 'short' : 'medium')), type: 'STRING' as const },
    { name: 'domain', data: Array.from({ length: n }, () => 'Knowledge'), type: 'STRING' as const },
    { name: 'sub_category', data: Array.from({ length: n }, () => 'History'), type: 'STRING' as const },
    { name: 'videoID', data: Array.from({ length: n }, (_, i) => `yt${Math.floor(i / 3)}`), type: 'STRING' as const },
    { name: 'question_id', data: Array.from({ length: n }, (_, i) => `${String(Math.floor(i / 3) + 1).padStart(3, '0')}-${(i % 3) + 1}`), type: 'STRING' as const },
    { name: 'task_type', data: Array.from({ length: n }, () => 'Counting Problem'), type: 'STRING' as const },
    { name: 'question', data: Array.from({ length: n }, (_, i) => `Synthetic question ${i}?`), type: 'STRING' as const },
    { name: 'options', data: Array.from({ length: n }, () => ['A. one', 'B. two', 'C. three', 'D. four']) },
    { name: 'answer', data: answers, type: 'STRING' as const },
  ].filter((c) => c.name !== drop);
  return new Uint8Array(parquetWriteBuffer({ columnData: cols }));
}

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

describe('a damaged Video-MME table', () => {
  it('is refused within the deadline, and with no read left in flight: removing the file at once raises nothing later', async () => {
    const bytes = table(Array.from({ length: 3000 }, (_, i) => 'ABCD'[i % 4]!));
    // Byte 17658 of this table is in a data page's definition levels: flipped, it declares a run
    // of ~2^31 values, and hyparquet loops for minutes. Every 1999th byte besides.
    const positions = [17658];
    for (let at = 4; at < bytes.length - 8; at += 1999) positions.push(at);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const outcomes: string[] = [];
      for (const [k, at] of positions.entries()) {
        const damaged = bytes.slice();
        damaged[at] = damaged[at]! ^ 0xff;
        const p = scratch.write(`damaged-${k}/test-00000-of-00001.parquet`, damaged);
        const t0 = performance.now();
        const outcome = await readImport(p).then(
          () => 'imported',
          (e: unknown) => e,
        );
        const ms = performance.now() - t0;
        // hyparquet may still have reads of the file in flight when it gives up on a part.
        fs.rmSync(path.dirname(p), { recursive: true, force: true });
        expect(ms, `byte ${at}`).toBeLessThan(ROWS_DEADLINE_MS + 3000);
        if (outcome !== 'imported') expect(outcome, `byte ${at}`).toBeInstanceOf(ImportError);
        outcomes.push(outcome === 'imported' ? 'imported' : (outcome as ImportError).reason);
      }
      expect(outcomes[0]).toMatch(/no rows decoded in \d+ s after row \d+: the file is damaged/);
      await new Promise((r) => setTimeout(r, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 60_000);
});
