// The scan thread's work (electron/importers/per-item-scan-thread.ts), run on the test's own
// thread: its messages, the ring's slots and their rows, reads in blocks of a few bytes, the
// wait for a free slot, a stop, a refusal and a failure. per-item-scan.test.ts and
// per-item-windows.test.ts read files through the real thread; a mutation run cannot see into
// that thread, so the work is tested here as well (docs/testing.md).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { CHUNK_ROWS } from '../../../electron/importers/csv-tokenize';
import { CTRL_RELEASED, CTRL_STOP, CTRL_WORDS, RING_SLOTS, type ScanMessage } from '../../../electron/importers/per-item-scan-protocol';
import { runScan } from '../../../electron/importers/per-item-scan-thread';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

interface Run {
  messages: ScanMessage[];
  /** The released-chunk count in shared memory when each chunk was posted. */
  releasedAt: number[];
  data: Uint8Array;
}

/** Runs the scan of `path` (of `size` bytes, its own by default) and collects what it posts. */
function scanOf(path: string, opts: { size?: number; block?: number; released?: number; stop?: boolean; ctrl?: SharedArrayBuffer; posted?: SharedArrayBuffer } = {}): Run {
  const data = new SharedArrayBuffer(opts.size ?? statSync(path).size);
  const ctrlBuf = opts.ctrl ?? new SharedArrayBuffer(CTRL_WORDS * 4);
  const ctrl = new Int32Array(ctrlBuf);
  // Released far ahead unless a test says otherwise: on one thread, a wait for a slot never ends.
  if (opts.ctrl === undefined) ctrl[CTRL_RELEASED] = opts.released ?? 1 << 30;
  if (opts.stop === true) ctrl[CTRL_STOP] = 1;
  const messages: ScanMessage[] = [];
  const releasedAt: number[] = [];
  // Chunks posted so far, for a thread that waits on them (afterRingFullOnAnotherThread).
  const posted = opts.posted === undefined ? undefined : new Int32Array(opts.posted);
  runScan(
    { data: { path, display: 'shown/per_item.csv', data, ctrl: ctrlBuf } },
    (m) => {
      messages.push(m);
      if (m.t !== 'chunk') return;
      releasedAt.push(Atomics.load(ctrl, CTRL_RELEASED));
      if (posted !== undefined) {
        Atomics.add(posted, 0, 1);
        Atomics.notify(posted, 0);
      }
    },
    opts.block,
  );
  return { messages, releasedAt, data: new Uint8Array(data) };
}

/** Each row the chunks hold, as [line, field count, ...its first fields as text]. */
function rowsOf(run: Run): (string | number)[][] {
  const header = run.messages.find((m) => m.t === 'header');
  if (header?.t !== 'header') throw new Error('no header');
  const offs = new Int32Array(header.ring);
  const text = Buffer.from(run.data);
  const out: (string | number)[][] = [];
  for (const m of run.messages) {
    if (m.t !== 'chunk') continue;
    for (let r = 0; r < m.rows; r++) {
      const base = (m.slot * CHUNK_ROWS + r) * header.stride;
      const fields = offs[base + 1]!;
      const row: (string | number)[] = [offs[base]!, fields];
      for (let f = 0; f < Math.min(fields, header.names.length); f++) {
        const s = offs[base + 2 + 2 * f]!;
        const e = offs[base + 3 + 2 * f]!;
        row.push(s === -1 ? m.quoted[e]! : text.toString('utf8', s, e));
      }
      out.push(row);
    }
  }
  return out;
}

const kinds = (run: Run): string[] => run.messages.map((m) => m.t);

/**
 * The reader's side, on a thread of its own while the scan blocks this one: once the scan has
 * posted RING_SLOTS chunks (counted in `posted`, word 0), it sets control word `word` to 1 and
 * wakes the scan. It waits on that count, not on a clock, so a slow machine only makes the test
 * slower; the 50 ms it lets pass before it acts are for a scan that would not wait for a slot,
 * which would have posted its next chunk by then.
 */
async function afterRingFullOnAnotherThread(ctrl: SharedArrayBuffer, posted: SharedArrayBuffer, word: number): Promise<Worker> {
  const thread = new Worker(
    `const { workerData } = require('node:worker_threads');
     const c = new Int32Array(workerData.ctrl);
     const p = new Int32Array(workerData.posted);
     for (let n = Atomics.load(p, 0); n < ${RING_SLOTS}; n = Atomics.load(p, 0)) Atomics.wait(p, 0, n);
     Atomics.wait(p, 1, 0, 50);
     Atomics.store(c, workerData.word, 1);
     Atomics.notify(c, ${CTRL_RELEASED});`,
    { eval: true, workerData: { ctrl, posted, word } },
  );
  await new Promise((resolve) => thread.once('online', resolve));
  return thread;
}

describe("the scan thread's work", () => {
  const text = '\ufeffid,model,note\r\n1,M1,plain\r\n\r\n2,M2,"two\r\nlines, quoted ""here"""\r\n3,M3,\r\n4,"M4"\r\n';
  const small = scratch.write('small/per_item.csv', text);
  const expected = [
    [2, 3, '1', 'M1', 'plain'],
    [5, 3, '2', 'M2', 'two\r\nlines, quoted "here"'],
    [6, 3, '3', 'M3', ''],
    [7, 2, '4', 'M4'],
  ];

  it('posts the header, then the rows in ring slots, then the length: the whole file lands in shared memory', () => {
    const run = scanOf(small);
    expect(kinds(run)).toEqual(['header', 'chunk', 'end']);
    const header = run.messages[0]!;
    expect(header).toMatchObject({ t: 'header', names: ['id', 'model', 'note'], stride: 8 });
    if (header.t === 'header') expect(header.ring.byteLength).toBe(RING_SLOTS * CHUNK_ROWS * 8 * 4);
    expect(run.messages[1]).toMatchObject({ t: 'chunk', slot: 0, rows: 4, end: Buffer.byteLength(text) });
    expect(run.messages[2]).toEqual({ t: 'end', length: Buffer.byteLength(text) });
    expect(rowsOf(run)).toEqual(expected);
    expect(Buffer.from(run.data).toString('utf8')).toBe(text);
  });

  it('reads the same rows in blocks of any size: a record is tokenized once its line break is read', () => {
    for (const block of [1, 2, 3, 5, 7, 11, 16, 40]) {
      const run = scanOf(small, { block });
      expect(rowsOf(run), `block ${block}`).toEqual(expected);
      expect(run.messages.at(-1), `block ${block}`).toEqual({ t: 'end', length: Buffer.byteLength(text) });
      expect(Buffer.from(run.data).toString('utf8')).toBe(text);
      // Each chunk ends where a record ends, after the one before.
      const ends = run.messages.flatMap((m) => (m.t === 'chunk' ? [m.end] : []));
      expect(ends).toEqual([...ends].sort((a, b) => a - b));
      for (const e of ends) expect(Buffer.from(text)[e - 1], `block ${block} end ${e}`).toBe(0x0a);
    }
  });

  it('a header across blocks, and a last record without its line break', () => {
    const p = scratch.write('nolf/per_item.csv', 'first_column,second_column\n"a",b\nc,"d\ne"');
    for (const block of [3, 64]) {
      const run = scanOf(p, { block });
      expect(run.messages[0]).toMatchObject({ t: 'header', names: ['first_column', 'second_column'] });
      expect(rowsOf(run)).toEqual([
        [2, 2, 'a', 'b'],
        [4, 2, 'c', 'd\ne'],
      ]);
    }
  });

  it('fills slot after slot, CHUNK_ROWS rows each, and the last chunk holds the rest', () => {
    const n = CHUNK_ROWS * 2 + 5;
    const body = Array.from({ length: n }, (_, i) => `${i},x`).join('\n');
    const p = scratch.write('chunks/per_item.csv', `a,b\n${body}\n`);
    const run = scanOf(p, { block: 1 << 16 });
    const chunks = run.messages.filter((m) => m.t === 'chunk');
    expect(chunks.map((m) => [m.slot, m.rows])).toEqual([
      [0, CHUNK_ROWS],
      [1, CHUNK_ROWS],
      [2, 5],
    ]);
    // Each chunk ends after its last row, not where the bytes read so far end.
    const after = (k: number): number => Buffer.byteLength(`a,b\n${body.split('\n').slice(0, k).join('\n')}\n`);
    expect(chunks.map((m) => m.end)).toEqual([after(CHUNK_ROWS), after(2 * CHUNK_ROWS), after(n)]);
    const rows = rowsOf(run);
    expect(rows).toHaveLength(n);
    expect(rows.at(-1)).toEqual([n + 1, 2, String(n - 1), 'x']);
    expect(parse(Buffer.from(run.data), { from_line: 2 })).toEqual(rows.map((r) => r.slice(2)));
  });

  it('waits for a free slot once RING_SLOTS chunks are unreleased, and goes on when the reader releases one', async () => {
    const n = CHUNK_ROWS * RING_SLOTS + 1;
    const body = Array.from({ length: n }, (_, i) => `${i % 10}`).join('\n');
    const p = scratch.write('ring/per_item.csv', `a\n${body}\n`);
    const ctrl = new SharedArrayBuffer(CTRL_WORDS * 4);
    // The reader's side: releases one chunk once the ring is full.
    const posted = new SharedArrayBuffer(8);
    const reader = await afterRingFullOnAnotherThread(ctrl, posted, CTRL_RELEASED);
    const run = scanOf(p, { ctrl, posted });
    await reader.terminate();
    expect(run.releasedAt).toHaveLength(RING_SLOTS + 1);
    expect(run.releasedAt.slice(0, RING_SLOTS).every((r) => r === 0)).toBe(true);
    expect(run.releasedAt[RING_SLOTS]).toBe(1);
    expect(run.messages.filter((m) => m.t === 'chunk').map((m) => m.slot)).toEqual([...Array.from({ length: RING_SLOTS }, (_, i) => i), 0]);
  });

  it('a stop from the reader ends the tokenizing, not the read', () => {
    const run = scanOf(small, { stop: true });
    expect(kinds(run)).toEqual(['header', 'end']);
    expect(Buffer.from(run.data).toString('utf8')).toBe(text);
  });

  it('a stop while waiting for a slot ends the tokenizing there', async () => {
    const n = CHUNK_ROWS * RING_SLOTS + 1;
    const p = scratch.write('ring-stop/per_item.csv', `a\n${'1\n'.repeat(n)}`);
    const ctrl = new SharedArrayBuffer(CTRL_WORDS * 4);
    const posted = new SharedArrayBuffer(8);
    const reader = await afterRingFullOnAnotherThread(ctrl, posted, CTRL_STOP);
    const run = scanOf(p, { ctrl, posted });
    await reader.terminate();
    expect(run.messages.filter((m) => m.t === 'chunk')).toHaveLength(RING_SLOTS);
    expect(run.messages.at(-1)).toEqual({ t: 'end', length: statSync(p).size });
  });

  it('a record it cannot tokenize is refused where it is, after the chunks before it, and the read goes on', () => {
    const rows = Array.from({ length: CHUNK_ROWS + 2 }, (_, i) => `${i},ok`);
    const p = scratch.write('refused/per_item.csv', `a,b\n${rows.join('\n')}\n7,"never closed\n8,x\n9,y\n`);
    // The chunk the bad record is in is not posted: in one block, the rows after the first
    // chunk's; in blocks of 1000 bytes, those after the last block's whole records.
    for (const [block, before] of [
      [undefined, CHUNK_ROWS],
      [1000, 4013],
    ] as const) {
      const run = scanOf(p, { block });
      expect(kinds(run).slice(-2)).toEqual(['refused', 'end']);
      expect(kinds(run).filter((k) => k === 'refused')).toHaveLength(1);
      expect(rowsOf(run)).toEqual(rows.slice(0, before).map((r, i) => [i + 2, 2, ...r.split(',')]));
      const refused = run.messages.at(-2)!;
      expect(refused.t === 'refused' && refused.error.importError).toMatchObject({ file: 'shown/per_item.csv', line: CHUNK_ROWS + 4 });
      expect(run.messages.at(-1)).toEqual({ t: 'end', length: statSync(p).size });
      expect(Buffer.from(run.data).equals(readFileSync(p))).toBe(true);
    }
  });

  it('a refusal mid-file is posted once: the blocks after it are read, not tokenized', () => {
    const p = scratch.write('refused-early/per_item.csv', `a,b\n1,ok\n2,x"y"\n${'3,ok\n'.repeat(200)}`);
    const run = scanOf(p, { block: 16 });
    expect(kinds(run).filter((k) => k !== 'chunk')).toEqual(['header', 'refused', 'end']);
    // Good rows before it may come in a chunk, or be in the call that meets it, never after it.
    expect([[], [[2, 2, '1', 'ok']]]).toContainEqual(rowsOf(run));
    const refused = run.messages.at(-2)!;
    expect(refused.t === 'refused' && refused.error.importError).toMatchObject({ line: 3, reason: /quote inside an unquoted field/ });
    expect(Buffer.from(run.data).equals(readFileSync(p))).toBe(true);
  });

  it('an error that is no refusal of the file (here, from posting) fails the scan', () => {
    const got: ScanMessage[] = [];
    const ctrl = new SharedArrayBuffer(CTRL_WORDS * 4);
    runScan({ data: { path: small, display: 'd', data: new SharedArrayBuffer(statSync(small).size), ctrl } }, (m) => {
      if (m.t === 'header') throw new TypeError('could not post');
      got.push(m);
    });
    expect(got).toEqual([{ t: 'failed', error: expect.objectContaining({ name: 'TypeError', message: 'could not post', importError: null }) }]);
  });

  it.skipIf(!existsSync('/proc/self/fd'))('closes the file however the scan ends', () => {
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 20; i++) {
      scanOf(small);
      scanOf(scratch.write(`closes/${i}.csv`, 'a\n"open'));
      runScan({ data: { path: small, display: 'd', data: new SharedArrayBuffer(statSync(small).size), ctrl: new SharedArrayBuffer(CTRL_WORDS * 4) } }, (m) => {
        if (m.t === 'header') throw new Error('could not post');
      });
    }
    expect(open()).toBe(before);
  });

  it('a quote inside an unquoted header field is refused on line 1', () => {
    const p = scratch.write('bad-header/per_item.csv', 'a,b"c\n1,2\n');
    const run = scanOf(p);
    expect(kinds(run)).toEqual(['refused', 'end']);
    const refused = run.messages[0]!;
    expect(refused.t === 'refused' && refused.error.importError).toMatchObject({ line: 1, reason: /quote inside an unquoted field/ });
  });

  it('a file that shrank after its size was taken: what was read is the file', () => {
    const run = scanOf(small, { size: Buffer.byteLength(text) + 100, block: 8 });
    expect(rowsOf(run)).toEqual(expected);
    expect(run.messages.at(-1)).toEqual({ t: 'end', length: Buffer.byteLength(text) });
  });

  it('no header row: an empty file, or one of blank lines, posts an empty header and its length', () => {
    for (const [name, content] of [
      ['empty', ''],
      ['blank', '\n\r\n\n'],
    ] as const) {
      const p = scratch.write(`${name}/per_item.csv`, content);
      for (const block of [1, 64]) {
        const run = scanOf(p, { block });
        expect(kinds(run), name).toEqual(['header', 'end']);
        expect(run.messages[0]).toMatchObject({ names: [] });
        expect(run.messages[1]).toEqual({ t: 'end', length: content.length });
      }
    }
  });

  it('a header after blank lines, and rows that are blank lines only', () => {
    const p = scratch.write('late-header/per_item.csv', '\n\na,b\n\n\n');
    const run = scanOf(p, { block: 2 });
    expect(kinds(run)).toEqual(['header', 'end']);
    expect(run.messages[0]).toMatchObject({ names: ['a', 'b'], stride: 6 });
  });

  it('a file it cannot open, or no input, is posted as failed, and nothing follows', () => {
    const missing: ScanMessage[] = [];
    const data = new SharedArrayBuffer(4);
    const ctrl = new SharedArrayBuffer(CTRL_WORDS * 4);
    runScan({ data: { path: scratch.path('nowhere/per_item.csv'), display: 'd', data, ctrl } }, (m) => missing.push(m));
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatchObject({ t: 'failed', error: { code: 'ENOENT' } });
    const good = { path: small, display: 'd', data, ctrl };
    for (const bad of [
      null,
      {},
      { data: null },
      { data: { ...good, path: 1 } },
      { data: { ...good, display: null } },
      { data: { ...good, data: new ArrayBuffer(4) } },
      { data: { ...good, ctrl: [0, 0] } },
    ]) {
      const got: ScanMessage[] = [];
      runScan(bad, (m) => got.push(m));
      expect(got, JSON.stringify(bad)).toEqual([{ t: 'failed', error: expect.objectContaining({ message: 'the per_item.csv scan thread was started without its input' }) }]);
    }
  });
});
