// Every refusal names the file (docs/security.md, "Import limits"): failures that come from a
// parser rather than from an importer's own checks (a stack overflow on deeply nested JSON,
// a damaged parquet footer, a cut zip) still come back as ImportError "<file>:0: …".
import { strToU8, zipSync } from 'fflate';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { readImportFiles } from '../../../electron/jobs/import-files';
import { Scratch, refusal } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('every refusal names the file', () => {
  it('a 100k-deep JSON document', async () => {
    const depth = 100_000;
    const p = scratch.write('deep/results.json', '['.repeat(depth) + ']'.repeat(depth));
    const err = await refusal(readImport(p));
    expect(err.file).toBe(p);
    expect(err.message.startsWith(`${p}:0: `)).toBe(true);
    // The import service detects the format first: that refusal names the file too.
    expect((await refusal(detectFormat(p))).message.startsWith(`${p}:0: `)).toBe(true);
    expect((await refusal(readImportFiles([p], {}))).message.startsWith(`${p}:0: `)).toBe(true);
  });

  it('a parquet whose data page header is damaged (the footer intact)', async () => {
    const n = 3;
    const col = (name: string, f: (i: number) => string) => ({ name, data: Array.from({ length: n }, (_, i) => f(i)), type: 'STRING' as const });
    const good = parquetWriteBuffer({
      columnData: [
        col('video_id', () => '001'),
        col('duration', () => 'short'),
        col('domain', () => 'Knowledge'),
        col('sub_category', () => 'History'),
        col('videoID', () => 'yt0'),
        col('question_id', (i) => `001-${i + 1}`),
        col('task_type', () => 'Counting Problem'),
        col('question', (i) => `Synthetic question ${i}?`),
        { name: 'options', data: Array.from({ length: n }, () => ['A. one', 'B. two', 'C. three', 'D. four']) },
        col('answer', () => 'A'),
      ],
    });
    const bytes = new Uint8Array(good);
    // The first column chunk's page header starts right after the leading "PAR1".
    bytes.fill(0xff, 4, 24);
    const p = scratch.write('damaged/test-00000-of-00001.parquet', bytes);
    const err = await refusal(readImport(p));
    expect(err.message.startsWith(`${p}:0: `)).toBe(true);
  });

  it('a truncated zip names the zip', async () => {
    const body = strToU8('sample_id,model,split,config\n'.repeat(2000));
    const zip = zipSync({ 'labels/per_item.csv': body, 'README.md': strToU8('x'.repeat(5000)) }, { level: 0 });
    const p = scratch.write('cut/release.zip', zip.subarray(0, Math.floor(zip.length / 3)));
    const err = await refusal(readImport(p));
    expect(err.message.startsWith(p)).toBe(true);
  });
});
