// Where the per_item.csv reader's rows come from (electron/importers/per-item-sources.ts): the
// windows read on the reader's thread stay the size asked for (a record longer than one gets a
// larger one), skip a byte-order mark, check each window for UTF-8, and go on past windows of
// blank lines; the scan thread's chunks are given back one by one.
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import type { Rows } from '../../../electron/importers/per-item-rows';
import type { Scan } from '../../../electron/importers/per-item-scan';
import { scannedRows, windowRows } from '../../../electron/importers/per-item-sources';
import { INLINE } from './per-item-files';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
const row = (i: number): string => `q${i},M,S,8f,8,,A,A,1,t,`;

/** The rows a window source gives for the file at `path`, and the largest window it used. */
async function windows(path: string, windowBytes: number): Promise<{ header: string[]; rows: number; largest: number }> {
  const fd = openSync(path, 'r');
  try {
    const source = windowRows(fd, 'per_item.csv', createHash('sha256'), windowBytes);
    const header = await source.header();
    let largest = source.buf.length;
    // What the source needs of the row code: where to put the offsets, and word of a move.
    const rows = { offs: new Int32Array(0), quoted: [] as string[], moved: () => undefined } as unknown as Rows;
    let count = 0;
    for (let got = await source.next(rows); got > 0; got = await source.next(rows)) {
      count += got;
      largest = Math.max(largest, source.buf.length);
    }
    return { header, rows: count, largest };
  } finally {
    closeSync(fd);
  }
}

describe("the reader's own windows", () => {
  it('stay the size asked for over a file many times larger, and grow for a record longer than one', async () => {
    const p = scratch.freshFile('per_item.csv', `${HEADER}\n${Array.from({ length: 2000 }, (_, i) => row(i)).join('\n')}\n`);
    const got = await windows(p, 256);
    expect(got).toEqual({ header: HEADER.split(','), rows: 2000, largest: 256 });
    const long = scratch.freshFile('per_item.csv', `${HEADER}\n${row(1)}\nq2,M,S,8f,8,,A,A,1,${'t'.repeat(600)},\n${row(3)}\n`);
    const grown = await windows(long, 256);
    expect(grown.rows).toBe(3);
    expect(grown.largest).toBe(1024);
  });

  it('skip a byte-order mark, also before a quoted first name', async () => {
    const p = scratch.freshFile('per_item.csv', `\ufeff"sample_id",${HEADER.slice('sample_id,'.length)}\n${row(1)}\n`);
    for (const w of [64, 1 << 20]) expect((await windows(p, w)).header[0]).toBe('sample_id');
    const b = await readPerItemCsv(p, {}, 'per_item.csv', INLINE);
    expect(b.responses.map((r) => r.sampleId)).toEqual(['q1']);
  });

  it('skip a byte-order mark at the start of the file only, not at the start of a later window', async () => {
    // A sample id that starts with U+FEFF, at the start of some window whatever its size.
    const rows = Array.from({ length: 30 }, (_, i) => (i % 3 === 1 ? `\ufeffq${i},M,S,8f,8,,A,A,1,t,` : row(i)));
    const p = scratch.freshFile('per_item.csv', `${HEADER}\n${rows.join('\n')}\n`);
    const want = (await readPerItemCsv(p, {}, 'per_item.csv', INLINE)).responses.map((r) => r.sampleId);
    expect(want.filter((id) => id.startsWith('\ufeff'))).toHaveLength(10);
    for (let w = 64; w <= 200; w++) {
      const b = await readPerItemCsv(p, {}, 'per_item.csv', INLINE, w);
      expect(
        b.responses.map((r) => r.sampleId),
        `window ${w}`,
      ).toEqual(want);
    }
  });

  it('go on past a stretch of blank lines longer than a window', async () => {
    const p = scratch.freshFile('per_item.csv', `${HEADER}\n${row(1)}\n${'\n'.repeat(700)}${row(2)}\n\n\n${row(3)}\n`);
    for (const w of [64, 100, 1 << 20]) expect((await windows(p, w)).rows, `window ${w}`).toBe(3);
    const b = await readPerItemCsv(p, {}, 'per_item.csv', INLINE, 64);
    expect(b.responses.map((r) => [r.sampleId, r.line])).toEqual([
      ['q1', 2],
      ['q2', 703],
      ['q3', 706],
    ]);
  });

  it('refuse bytes that are not UTF-8 in a row the row code would take, naming where', async () => {
    const bytes = Buffer.concat([Buffer.from(`${HEADER}\n${row(1)}\nq2,M,S,8f,8,,A,A,1,t`), Buffer.from([0xff]), Buffer.from(`,\n${row(3)}\n`)]);
    const p = scratch.freshFile('per_item.csv', bytes);
    for (const w of [64, 1 << 20]) {
      await expectImportError(readPerItemCsv(p, {}, 'per_item.csv', INLINE, w), { file: 'per_item.csv', line: 3, field: 'source_tag', reason: /UTF-8/ });
    }
  });
});

describe("the scan thread's chunks", () => {
  it('each is given back when the next is asked for, never before the first, and not after the end', async () => {
    const events: string[] = [];
    const chunks = [1, 2, 3].map((n) => ({ offs: new Int32Array(n), rows: n, quoted: [`q${n}`] }));
    const scan = {
      buf: Buffer.alloc(0),
      header: () => Promise.resolve(['a']),
      next: () => {
        events.push('next');
        return Promise.resolve(chunks.shift() ?? null);
      },
      release: () => events.push('release'),
    } as unknown as Scan;
    const source = scannedRows(scan);
    const rows = { offs: new Int32Array(0), quoted: [] as string[] } as unknown as Rows;
    const got: number[] = [];
    for (let n = await source.next(rows); n > 0; n = await source.next(rows)) got.push(n, rows.offs.length, Number(rows.quoted[0]!.slice(1)));
    expect(got).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3]);
    expect(events).toEqual(['next', 'release', 'next', 'release', 'next', 'release', 'next']);
    // Asked again after the end: nothing more to give back.
    expect(await source.next(rows)).toBe(0);
    expect(events.slice(7)).toEqual(['next']);
  });
});
