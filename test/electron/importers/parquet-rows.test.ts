/**
 * A parquet table read on its decoding thread (electron/importers/parquet-rows.ts): the header,
 * the rows in slices of the size asked, the end, and an unreadable file refused as file:0.
 * The deadline for a thread that stops sending is parquet-deadline.test.ts's.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readParquetRows } from '../../../electron/importers/parquet-rows';
import { Scratch, expectImportError } from './helpers';
import { videoMmeTable } from './videomme-table';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('readParquetRows', () => {
  it('gives the header, then the rows in slices, then null', async () => {
    const p = scratch.write('t/test.parquet', videoMmeTable(['A', 'B', 'C', 'D', 'A', 'B', 'C']));
    const t = readParquetRows(p, 'shown.parquet', 3);
    try {
      const h = await t.header();
      expect(h.rows).toBe(7);
      expect(h.names).toContain('question_id');
      const slices: [number, number][] = [];
      const answers: unknown[] = [];
      for (let s = await t.next(); s !== null; s = await t.next()) {
        slices.push([s.start, s.rows.length]);
        answers.push(...s.rows.map((r) => (r as Record<string, unknown>).answer));
      }
      expect(slices).toEqual([
        [0, 3],
        [3, 3],
        [6, 1],
      ]);
      expect(answers).toEqual(['A', 'B', 'C', 'D', 'A', 'B', 'C']);
    } finally {
      t.stop();
    }
  });

  it('refuses a file that is no parquet as file:0, naming it as shown', async () => {
    const p = scratch.write('u/test.parquet', 'PAR1 this is not a table PAR1');
    const t = readParquetRows(p, 'shown.parquet', 10);
    try {
      await expectImportError(t.header(), { file: 'shown.parquet', line: 0, field: '', reason: /^not a readable parquet file: / });
    } finally {
      t.stop();
    }
  });
});
