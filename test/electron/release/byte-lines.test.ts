/**
 * The release writers' shared byte machinery (electron/release/byte-lines.ts): encoded segments,
 * rows copied in runs into a growing block or reused chunks, and a row longer than its bound
 * stopping the writer instead of losing bytes.
 */
import { describe, expect, it } from 'vitest';
import { ByteSink, encodeTexts, longestSegment, type Segments, writeLines } from '../../../electron/release/byte-lines';

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
});
