// The reader's side of the scan thread (electron/importers/per-item-scan.ts, startScan) on small
// files, through the real thread: the header, each chunk's rows in its ring slot, the digest
// whichever chunks were given back, a refusal in the header or among the rows, a stop before
// the end, a file the thread cannot open. per-item-scan.test.ts reads files of megabytes, which
// the mutation run leaves out (docs/testing.md).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNK_ROWS } from '../../../electron/importers/csv-tokenize';
import { RING_SLOTS } from '../../../electron/importers/per-item-scan-protocol';
import { ImportError } from '../../../electron/importers/errors';
import { startScan, type Scan } from '../../../electron/importers/per-item-scan';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const scanOf = (path: string): Scan => startScan(path, 'shown/per_item.csv', readFileSync(path).length);
const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Every row's first two fields, chunk by chunk, giving each chunk back. */
async function rowsOf(scan: Scan, width: number): Promise<string[][]> {
  const out: string[][] = [];
  for (let c = await scan.next(); c !== null; c = await scan.next()) {
    const stride = 2 + 2 * width;
    expect(c.offs.length).toBe(CHUNK_ROWS * stride);
    for (let r = 0; r < c.rows; r++) {
      const base = r * stride;
      const field = (f: number): string => {
        const s = c.offs[base + 2 + 2 * f]!;
        const e = c.offs[base + 3 + 2 * f]!;
        return s < 0 ? c.quoted[e]! : scan.buf.toString('utf8', s, e);
      };
      out.push([field(0), field(1)]);
    }
    scan.release();
  }
  return out;
}

describe('startScan', () => {
  it('gives the header, then the rows of every ring slot, then the digest of the whole file', async () => {
    const n = CHUNK_ROWS * 2 + 3;
    const p = scratch.freshFile('per_item.csv', `a,b\n${Array.from({ length: n }, (_, i) => (i % 100 === 7 ? `${i},"q ${i}"` : `${i},x`)).join('\n')}\n`);
    const scan = scanOf(p);
    expect(await scan.header()).toEqual(['a', 'b']);
    const rows = await rowsOf(scan, 2);
    expect(rows).toHaveLength(n);
    expect(rows[n - 1]).toEqual([String(n - 1), 'x']);
    expect(rows[4107]).toEqual(['4107', 'q 4107']); // a quoted field in the second slot
    expect(await scan.next()).toBeNull();
    expect((await scan.end()).equals(readFileSync(p))).toBe(true);
    expect(scan.sha256()).toBe(sha(p));
  });

  it('the digest is the whole file even when no chunk was given back, and is asked for after the end only', async () => {
    const p = scratch.freshFile('per_item.csv', `a\n${'1\n'.repeat(CHUNK_ROWS + 10)}`);
    const scan = scanOf(p);
    await scan.header();
    expect(() => scan.sha256()).toThrow('sha256() before end()');
    const first = await scan.next();
    expect(first?.rows).toBe(CHUNK_ROWS);
    // Stopped before the last chunk is asked for: the bytes are all read all the same.
    expect((await scan.end()).length).toBe(readFileSync(p).length);
    expect(scan.sha256()).toBe(sha(p));
    // A file that shrank since its size was taken: what was read is the file.
    const shrunk = startScan(p, 'shown/per_item.csv', readFileSync(p).length + 50);
    await shrunk.header();
    await shrunk.next();
    expect((await shrunk.end()).length).toBe(readFileSync(p).length);
    expect(shrunk.sha256()).toBe(sha(p));
  });

  it('more chunks than the ring holds: each given back lets the thread go on, and a stop ends its wait', async () => {
    const n = CHUNK_ROWS * RING_SLOTS + 1000;
    const p = scratch.freshFile('per_item.csv', `a\n${'1\n'.repeat(n)}`);
    const all = scanOf(p);
    await all.header();
    let rows = 0;
    for (let c = await all.next(); c !== null; c = await all.next()) {
      rows += c.rows;
      all.release();
    }
    expect(rows).toBe(n);
    await all.end();
    expect(all.sha256()).toBe(sha(p));
    // None given back: the thread waits for a slot until the reader stops it.
    const held = scanOf(p);
    await held.header();
    await held.next();
    expect((await held.end()).length).toBe(readFileSync(p).length);
    expect(held.sha256()).toBe(sha(p));
  });

  it('a refused header is thrown by header(), and nothing follows', async () => {
    const p = scratch.freshFile('per_item.csv', 'a,b"c\n1,2\n');
    const scan = scanOf(p);
    const e = await scan.header().catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ImportError);
    expect(e).toMatchObject({ file: 'shown/per_item.csv', line: 1, reason: /quote inside an unquoted field/ });
    expect(await scan.next()).toBeNull();
    expect((await scan.end()).length).toBe(readFileSync(p).length);
  });

  it('a refusal among the rows is thrown by next(), after the rows before it; then nothing follows', async () => {
    const p = scratch.freshFile('per_item.csv', `a,b\n${Array.from({ length: CHUNK_ROWS }, (_, i) => `${i},x`).join('\n')}\n9,"open\n`);
    const scan = scanOf(p);
    await scan.header();
    const first = await scan.next();
    expect(first?.rows).toBe(CHUNK_ROWS);
    scan.release();
    const e = await scan.next().catch((x: unknown) => x);
    expect(e).toMatchObject({ file: 'shown/per_item.csv', line: CHUNK_ROWS + 2, reason: /not closed before the end of the file/ });
    expect(await scan.next()).toBeNull();
    expect((await scan.end()).equals(readFileSync(p))).toBe(true);
    expect(scan.sha256()).toBe(sha(p));
  });

  it('a file the thread cannot open fails the first read with why', async () => {
    const scan = startScan(scratch.path('nowhere/per_item.csv'), 'shown/per_item.csv', 10);
    await expect(scan.header()).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
