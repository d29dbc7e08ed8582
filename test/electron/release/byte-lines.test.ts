/**
 * The release writers' shared byte machinery (electron/release/byte-lines.ts): encoded segments,
 * rows copied in runs into a growing block or reused chunks, and a row longer than its bound
 * stopping the writer instead of losing bytes.
 */
import { describe, expect, it } from 'vitest';
import { ByteSink, encodedIds, encodeIds, encodeTexts, longestSegment, type Segments, writeLines } from '../../../electron/release/byte-lines';
import type { ReleaseGrid } from '../../../electron/release/release-data';

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

/** Rows of `ids`, each followed by the segments `rowSegs[r]` (padded with empty segment `empty` to K). */
function write(sink: ByteSink, ids: Segments, segs: Segments, rowSegs: number[][], perRow: number, empty = 0): void {
  const K = Math.max(...rowSegs.map((r) => r.length));
  const line = new Int32Array(rowSegs.length * K).fill(empty);
  rowSegs.forEach((ss, r) => line.set(ss, r * K));
  writeLines(sink, ids, segs, [line], K, perRow);
}

describe('byte-lines', () => {
  it('encodes texts once with the byte offset of each, ASCII or not', () => {
    const texts = ['a', '', 'ü,', '𝔘', 'plain text', '"q"'];
    const s = encodeTexts(texts);
    texts.forEach((t, i) => expect(text(s.bytes.subarray(s.start[i], s.start[i + 1]))).toBe(t));
    expect(longestSegment(s)).toBe(Buffer.byteLength('plain text'));
    expect(longestSegment(s, 2, 4)).toBe(4);
  });

  it('writes the same bytes whole and in chunks of any size, rows longer than a chunk included', () => {
    let seed = 7;
    const rand = (n: number): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const pieces = [...Array.from({ length: 40 }, (_, i) => 'xyzü,'.repeat(rand(12)) + String(i)), '\n', ''];
    const segs = encodeTexts(pieces);
    const idTexts = Array.from({ length: 500 }, (_, r) => `id-${r}-${'ñ'.repeat(rand(5))}`);
    const ids = encodeTexts(idTexts);
    const rowSegs = Array.from({ length: 500 }, () => [...Array.from({ length: 1 + rand(6) }, () => rand(40)), 40]);
    const want = rowSegs.map((ss, r) => idTexts[r] + ss.map((s) => pieces[s]).join('')).join('');
    const perRow = 7 * longestSegment(segs);

    const whole = new ByteSink(16);
    write(whole, ids, segs, rowSegs, perRow, 41);
    expect(text(whole.end())).toBe(want);

    for (const size of [1, 50, 4096]) {
      const chunks: Buffer[] = [];
      const sink = new ByteSink(size, (b) => chunks.push(Buffer.from(b)));
      write(sink, ids, segs, rowSegs, perRow, 41);
      const total = sink.total;
      sink.end();
      expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
      expect(total).toBe(Buffer.byteLength(want));
    }
  });

  it('a row longer than its bound stops the writer instead of losing bytes (a typed array would drop them)', () => {
    const segs = encodeTexts(['a'.repeat(100) + '\n']);
    const ids = encodeTexts(['r0', 'r1', 'r2']);
    // Each row writes 100 bytes but claims 3: the writer must throw, not write a short file.
    expect(() => {
      const sink = new ByteSink(64);
      write(sink, ids, segs, [[0], [0], [0]], 3);
      sink.end();
    }).toThrow(RangeError);
  });

  it("encodes a grid's ids once, for all three writers", () => {
    const g: ReleaseGrid = { model: 'M', split: 'S', sampleIds: ['a', 'b,c', 'ü'], rowItems: Int32Array.from([1, 2, 3]), columns: [] };
    const e = encodedIds(g);
    expect(encodedIds(g)).toBe(e);
    expect(text(e.bytes.subarray(0, e.start[3]))).toBe('a"b,c"ü');
    expect(Array.from(e.start)).toEqual(Array.from(encodeIds(g.sampleIds).start));
    // Another grid with the same ids is encoded on its own.
    expect(encodedIds({ ...g })).not.toBe(e);
  });
});

describe('ByteSink', () => {
  const bytes = (n: number, from = 0): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (from + i) % 251);
  const concat = (...parts: Uint8Array[]): number[] => parts.flatMap((p) => Array.from(p));

  it('has room for the capacity it was given (at least 64 bytes) before its padding', () => {
    expect(new ByteSink(100).space).toBe(100);
    expect(new ByteSink(10).space).toBe(64);
    expect(new ByteSink(0, () => {}).space).toBe(64);
    const s = new ByteSink(100);
    s.put(bytes(30));
    expect(s.space).toBe(70);
  });

  it('takes as many bytes as it was sized for without growing, then doubles', () => {
    const s = new ByteSink(100);
    const first = s.buf;
    s.put(bytes(60));
    s.put(bytes(40, 60));
    expect(s.buf).toBe(first);
    s.put(bytes(1, 100));
    const grown = s.buf;
    expect(grown).not.toBe(first);
    // Doubled: the next hundred bytes fit without another copy.
    s.put(bytes(100, 101));
    expect(s.buf).toBe(grown);
    expect(Array.from(s.end())).toEqual(Array.from(bytes(201)));
  });

  it('grows at once to a piece longer than twice its size', () => {
    const s = new ByteSink(0);
    s.put(bytes(10));
    s.put(bytes(1000, 10));
    s.put(bytes(5, 1010));
    expect(Array.from(s.end())).toEqual(Array.from(bytes(1015)));
    expect(s.total).toBe(1015);
  });

  it('with emit: hands out full chunks, reuses its buffer, never hands out an empty chunk', () => {
    const chunks: number[][] = [];
    const s = new ByteSink(64, (b) => chunks.push(Array.from(b)));
    const first = s.buf;
    s.put(bytes(60));
    // 10 more do not fit: the 60 go out, the buffer is reused.
    s.put(bytes(10, 60));
    expect(s.buf).toBe(first);
    expect(chunks).toEqual([concat(bytes(60))]);
    // Exactly a chunk's worth after a flush: still the same buffer.
    s.put(bytes(64, 70));
    expect(s.buf).toBe(first);
    expect(chunks.length).toBe(2);
    expect(s.total).toBe(134);
    // Longer than a chunk: a larger buffer for it.
    s.put(bytes(100, 134));
    expect(s.end()).toEqual(new Uint8Array(0));
    expect(chunks.flat()).toEqual(concat(bytes(234)));
    expect(chunks.every((c) => c.length > 0)).toBe(true);
    // Nothing written: nothing handed out.
    const none: number[] = [];
    const e = new ByteSink(64, (b) => none.push(b.length));
    e.put(new Uint8Array(0));
    e.put(bytes(100));
    e.end();
    expect(none).toEqual([100]);
    const empty: number[] = [];
    new ByteSink(64, (b) => empty.push(b.length)).end();
    expect(empty).toEqual([]);
  });
});
