// The parquet decoding thread's work (electron/importers/parquet-rows-thread.ts), run on the
// test's own thread: its messages for a table, an unreadable file, a file it cannot open, a
// footer that points outside the file, and an input it does not know. parquet-rows.test.ts reads
// tables through the real thread; a mutation run cannot see into that thread (docs/testing.md).
import { existsSync, readdirSync, truncateSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParquetRowsMessage } from '../../../electron/importers/parquet-rows-protocol';
import { openRanges, runDecode } from '../../../electron/importers/parquet-rows-thread';
import { Scratch } from './helpers';
import { videoMmeTable } from './videomme-table';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

async function decoded(path: string, slice: number): Promise<ParquetRowsMessage[]> {
  const got: ParquetRowsMessage[] = [];
  await runDecode({ data: { path, slice } }, (m) => got.push(m));
  return got;
}

const answers = (m: ParquetRowsMessage): unknown[] => (m.t === 'rows' ? m.rows.map((r) => (r as Record<string, unknown>).answer) : []);

describe("the parquet decoding thread's work", () => {
  const table = scratch.write('t/test.parquet', videoMmeTable(['A', 'B', 'C', 'D', 'A', 'B', 'C']));

  it('posts the header, the rows slice by slice from their first row, then the end', async () => {
    const got = await decoded(table, 3);
    expect(got.map((m) => m.t)).toEqual(['header', 'rows', 'rows', 'rows', 'end']);
    expect(got[0]).toMatchObject({ t: 'header', rows: 7 });
    expect(got[0]!.t === 'header' && got[0]!.names).toEqual(expect.arrayContaining(['question_id', 'options', 'answer']));
    expect(got.slice(1, 4).map((m) => (m.t === 'rows' ? m.start : -1))).toEqual([0, 3, 6]);
    expect(got.slice(1, 4).map(answers)).toEqual([['A', 'B', 'C'], ['D', 'A', 'B'], ['C']]);
    expect(got[1]!.t === 'rows' && got[1]!.rows[0]).toMatchObject({ question_id: '001-1', options: ['A. one', 'B. two', 'C. three', 'D. four'] });
  });

  it('a slice of one row is a slice', async () => {
    const got = await decoded(table, 1);
    expect(got.filter((m) => m.t === 'rows').map(answers)).toEqual([['A'], ['B'], ['C'], ['D'], ['A'], ['B'], ['C']]);
  });

  it('one slice when the slice is the table or larger', async () => {
    for (const slice of [7, 100]) {
      const got = await decoded(table, slice);
      expect(got.map((m) => m.t)).toEqual(['header', 'rows', 'end']);
      expect(answers(got[1]!)).toEqual(['A', 'B', 'C', 'D', 'A', 'B', 'C']);
    }
  });

  it('a table without rows: the header, then the end', async () => {
    const got = await decoded(scratch.write('empty/test.parquet', videoMmeTable([])), 10);
    expect(got).toEqual([expect.objectContaining({ t: 'header', rows: 0 }), { t: 'end' }]);
  });

  it('a file whose footer does not read is posted as unreadable, with why, and nothing follows', async () => {
    const got = await decoded(scratch.write('u/test.parquet', 'PAR1 this is not a table PAR1'), 10);
    expect(got).toHaveLength(1);
    // hyparquet's own words, as it threw them.
    expect(got[0]).toEqual({ t: 'unreadable', message: 'parquet metadata length 543517794 exceeds available buffer 21' });
  });

  it('a footer that asks for bytes outside the file is refused, not read past its end', async () => {
    // The footer as written, with the table's pages cut out: the column chunks it names (300
    // rows' worth) lie beyond the bytes left.
    const whole = Buffer.from(videoMmeTable(Array.from({ length: 300 }, () => 'A')));
    const footerLength = whole.readUInt32LE(whole.length - 8);
    const cut = Buffer.concat([Buffer.from('PAR1'), whole.subarray(whole.length - 8 - footerLength)]);
    const got = await decoded(scratch.write('cut/test.parquet', cut), 10);
    expect(got.map((m) => m.t)).toEqual(['header', 'failed']);
    expect(got[1]).toMatchObject({ error: { message: expect.stringMatching(new RegExp(`^bytes \\d+ to \\d+ are outside the file's ${cut.length} bytes$`)) } });
  });

  it('a file it cannot open is posted as failed', async () => {
    expect(await decoded(scratch.path('nowhere/test.parquet'), 10)).toEqual([{ t: 'failed', error: expect.objectContaining({ code: 'ENOENT' }) }]);
  });

  it('an input it does not know is posted as failed', async () => {
    for (const bad of [
      null,
      {},
      { data: null },
      { data: { path: 1, slice: 10 } },
      { data: { path: table } },
      { data: { path: table, slice: 0 } },
      { data: { path: table, slice: 2.5 } },
    ]) {
      const got: ParquetRowsMessage[] = [];
      await runDecode(bad, (m) => got.push(m));
      expect(got, JSON.stringify(bad)).toEqual([{ t: 'failed', error: expect.objectContaining({ message: 'the parquet decoding thread was started without its input' }) }]);
    }
  });

  it('reads the file by ranges: a range outside it is refused, and a file cut short since is an error', async () => {
    const p = scratch.write('ranges/data.bin', Buffer.from(Array.from({ length: 100 }, (_, i) => i)));
    const ranges = await openRanges(p);
    try {
      expect(ranges.buffer.byteLength).toBe(100);
      expect([...new Uint8Array(await ranges.buffer.slice(95))]).toEqual([95, 96, 97, 98, 99]);
      expect([...new Uint8Array(await ranges.buffer.slice(10, 13))]).toEqual([10, 11, 12]);
      expect((await ranges.buffer.slice(100, 100)).byteLength).toBe(0);
      for (const [start, end] of [
        [-1, 3],
        [5, 4],
        [90, 101],
        [Number.NaN, 3],
      ]) {
        await expect(ranges.buffer.slice(start!, end), `${start}..${end}`).rejects.toThrow(`bytes ${start} to ${end} are outside the file's 100 bytes`);
      }
      truncateSync(p, 60);
      await expect(ranges.buffer.slice(50, 70)).rejects.toThrow('the file ended at byte 60 of 100');
    } finally {
      await ranges.close();
    }
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file however the decoding ends', async () => {
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    const whole = Buffer.from(videoMmeTable(['A', 'B', 'C']));
    const cut = scratch.write('cut2/test.parquet', Buffer.concat([Buffer.from('PAR1'), whole.subarray(whole.length - 8 - whole.readUInt32LE(whole.length - 8))]));
    const unreadable = scratch.write('u2/test.parquet', 'PAR1 no PAR1');
    for (let i = 0; i < 10; i++) {
      await decoded(table, 3);
      await decoded(cut, 3);
      await decoded(unreadable, 3);
    }
    expect(open()).toBe(before);
  });
});
