/**
 * The tokenizer's offset path on its own (electron/importers/csv-tokenize.ts, docs/formats.md
 * "per_item.csv"): `tokenize` must give, chunk by chunk, the fields and lines `recordStrings`
 * gives (which csv-records.test.ts holds to csv-parse), whatever the field lengths and wherever
 * the text sits in its buffer; `recordsEnd` must cut a window only where a record ends; and each
 * malformed record is refused at its line.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CHUNK_ROWS, bomLength, recordStrings, recordsEnd, tokenize, type Cursor } from '../../../electron/importers/csv-tokenize';
import { mulberry32 } from '../../../shared/engine/prng';
import { refusalOf } from './helpers';

/** Every record by `tokenize` (fields past `width` counted, not read), with the line it ends on. */
function tokenized(buf: Buffer, width: number, start = 0): { fields: string[]; count: number; line: number }[] {
  const at: Cursor = { p: start, line: 1, quote: -1 };
  const offs = new Int32Array(CHUNK_ROWS * (2 + 2 * width));
  const quoted: string[] = [];
  const out: { fields: string[]; count: number; line: number }[] = [];
  for (;;) {
    const rows = tokenize(buf, at, 'f.csv', width, offs, quoted);
    if (rows === 0) break;
    expect(rows).toBeLessThanOrEqual(CHUNK_ROWS);
    for (let r = 0; r < rows; r++) {
      const base = r * (2 + 2 * width);
      const count = offs[base + 1]!;
      const fields: string[] = [];
      for (let f = 0; f < Math.min(count, width); f++) {
        const s = offs[base + 2 + 2 * f]!;
        const e = offs[base + 3 + 2 * f]!;
        fields.push(s < 0 ? quoted[e]! : buf.toString('utf8', s, e));
      }
      out.push({ fields, count, line: offs[base]! });
    }
  }
  expect(at.p).toBeGreaterThanOrEqual(buf.length);
  return out;
}

/**
 * Every record by `recordStrings`, with the line it ends on and the offset after it. The line is
 * checked against a count of the line feeds before the record's own (or all of them, for a last
 * record without one), so that both paths cannot share a miscount.
 */
function strings(buf: Buffer, start = 0): { fields: string[]; line: number; next: number }[] {
  const at: Cursor = { p: start, line: 1, quote: -1 };
  const out: { fields: string[]; line: number; next: number }[] = [];
  // Line feeds in [0, end), counted on from the last call (ends only grow).
  let counted = 0;
  let feeds = 0;
  const feedsBefore = (end: number): number => {
    for (; counted < end; counted++) if (buf[counted] === 10) feeds++;
    return feeds;
  };
  while (at.p < buf.length) {
    const fields = recordStrings(buf, at, 'f.csv');
    const next = Math.min(at.p, buf.length);
    if (fields.length > 0) {
      const line = 1 + feedsBefore(buf[next - 1] === 10 ? next - 1 : buf.length);
      expect(at.line - 1).toBe(line);
      out.push({ fields, line, next });
    }
  }
  return out;
}

/** `text` in a buffer of its own, ending where its memory ends (as the reader's windows may: the word-at-a-time search must stop there). */
function exact(text: string): Buffer {
  const buf = Buffer.alloc(Buffer.byteLength(text));
  buf.write(text, 0, 'utf8');
  return buf;
}

/** A seeded random CSV: fields of 0–9 characters, some quoted (quotes, commas, line breaks inside), CRLF or LF, empty lines. */
function randomCsv(rnd: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const eol = pick(['\n', '\r\n']);
  const lines: string[] = [];
  for (let r = 0; r < 1 + Math.floor(rnd() * 14); r++) {
    if (rnd() < 0.1) {
      lines.push('');
      continue;
    }
    const fields: string[] = [];
    for (let f = 0; f < 1 + Math.floor(rnd() * 7); f++) {
      const quote = rnd() < 0.25;
      const chars = quote ? ['a', 'é', '1', ',', '"', '\n', '\r\n', ' '] : ['a', 'é', '1', ' ', 'x', 'Z'];
      const raw = Array.from({ length: Math.floor(rnd() * 10) }, () => pick(chars)).join('');
      fields.push(quote ? `"${raw.replace(/"/g, '""')}"` : raw);
    }
    lines.push(fields.join(','));
  }
  return lines.join(eol) + (rnd() < 0.5 ? eol : '');
}

describe('tokenize', () => {
  it('gives the fields and lines recordStrings and csv-parse give, on seeded random files, for every width', () => {
    const seed = 0x70c3a1;
    console.log(`csv-tokenize random files: seed ${seed}`);
    const rnd = mulberry32(seed);
    for (let file = 0; file < 150; file++) {
      const text = randomCsv(rnd);
      const buf = exact(text);
      const want = strings(buf);
      expect(
        want.map((r) => r.fields),
        `file ${file}`,
      ).toEqual(parse(text, { relax_column_count: true, skip_empty_lines: true }));
      for (const width of [1, 3, 8]) {
        const got = tokenized(buf, width);
        expect(
          got.map((r) => [r.fields, r.count, r.line]),
          `seed ${seed}, file ${file}, width ${width}: ${JSON.stringify(text)}`,
        ).toEqual(want.map((r) => [r.fields.slice(0, width), r.fields.length, r.line]));
      }
    }
  });

  it('finds every comma whatever its offset within a 4-byte word, and none past the text it was given', () => {
    for (let len = 0; len < 12; len++) {
      for (let shift = 0; shift < 4; shift++) {
        const cells = ['x'.repeat(len), 'y'.repeat((len + 1) % 5), 'z'.repeat((len + shift) % 7)];
        const text = `${' '.repeat(shift)}${cells.join(',')}\n${cells.reverse().join(',')}`;
        // The text at the start of a larger buffer whose bytes after it are all commas.
        const big = Buffer.alloc(text.length + 11, ',');
        big.write(text, 0, 'utf8');
        const view = big.subarray(0, Buffer.byteLength(text));
        expect(
          tokenized(view, 4).map((r) => [r.fields, r.count]),
          JSON.stringify(text),
        ).toEqual(strings(Buffer.from(text)).map((r) => [r.fields, r.fields.length]));
      }
    }
    // Inside a larger buffer, not at its start (a window of the file).
    const big = Buffer.from('zz,zz\nab,cd,ef\n1,2,3,4\n,,,,');
    const view = big.subarray(6, 23);
    expect(tokenized(view, 4).map((r) => r.fields)).toEqual([
      ['ab', 'cd', 'ef'],
      ['1', '2', '3', '4'],
    ]);
  });

  it('stops a chunk at CHUNK_ROWS rows and goes on from there, lines counted across chunks and empty lines', () => {
    const lines: string[] = [];
    for (let i = 0; i < CHUNK_ROWS * 2 + 5; i++) lines.push(i % 1000 === 7 ? '' : i % 3 === 0 ? `"q${i}",${i}` : `r${i},${i}`);
    const buf = Buffer.from(lines.join('\n') + '\n');
    const got = tokenized(buf, 2);
    const want = strings(buf);
    expect(got.length).toBe(want.length);
    expect(got.map((r) => [r.fields, r.line])).toEqual(want.map((r) => [r.fields, r.line]));
    const last = CHUNK_ROWS * 2 + 4;
    expect(got.at(-1)).toEqual({ fields: [`${last % 3 === 0 ? 'q' : 'r'}${last}`, String(last)], count: 2, line: last + 1 });
  });

  it('starts after a byte-order mark', () => {
    const buf = Buffer.from('\uFEFFa,b\n1,2\n');
    expect(bomLength(buf)).toBe(3);
    expect([bomLength(Buffer.from([0xef, 0xbb, 0xbf])), bomLength(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))]).toEqual([3, 3]);
    expect([bomLength(Buffer.from('a,b')), bomLength(Buffer.from([0xef, 0xbb])), bomLength(Buffer.from([0xef, 0xbb, 0xbe])), bomLength(Buffer.from([0xee, 0xbb, 0xbf]))]).toEqual([
      0, 0, 0, 0,
    ]);
    expect(tokenized(buf, 2, bomLength(buf)).map((r) => r.fields)).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('refuses a quote inside an unquoted field, text after a closing quote and an unclosed quote, at the line of the record', () => {
    const cases: [string, number, string][] = [
      ['a,b\n1,x"y\n', 2, 'malformed CSV: a quote inside an unquoted field'],
      ['a,b\n"1",x"y\n', 2, 'malformed CSV: a quote inside an unquoted field'],
      ['a,b\n1,2\n"x"y,3\n', 3, 'malformed CSV: unexpected character after a closing quote'],
      ['a,b\n"x"\r3\n', 2, 'malformed CSV: unexpected character after a closing quote'],
      ['a,b\n1,2\n"open,3\n4,5\n', 3, 'malformed CSV: the quoted field opened on this line is not closed before the end of the file'],
      ['a,"b\n\n\n', 1, 'malformed CSV: the quoted field opened on this line is not closed before the end of the file'],
    ];
    for (const [text, line, reason] of cases) {
      const buf = Buffer.from(text);
      const e = refusalOf(() => tokenized(buf, 2));
      expect([e.file, e.line, e.field, e.reason], text).toEqual(['f.csv', line, '', reason]);
      const s = refusalOf(() => strings(buf));
      expect([s.line, s.reason], text).toEqual([line, reason]);
    }
    // A closing quote before CRLF, at the end of the text, or before a comma is fine.
    expect(tokenized(Buffer.from('"a"\r\n"b","c"'), 2).map((r) => r.fields)).toEqual([['a'], ['b', 'c']]);
    expect(tokenized(Buffer.from('"a"\r'), 2).map((r) => r.fields)).toEqual([['a']]);
    // A last record ending in CR without LF: the CR is its line end, in a quoted record too.
    for (const text of ['"a",c\r', 'a,c\r', '"a",\r']) {
      const want = strings(exact(text)).map((r) => r.fields);
      expect(want, text).toEqual(parse(text, { relax_column_count: true }));
      expect(
        tokenized(exact(text), 2).map((r) => r.fields),
        text,
      ).toEqual(want);
    }
  });
});

describe('recordsEnd', () => {
  it('cuts only after a line break outside quotes: the last record boundary at or before the end of the window', () => {
    const seed = 0x3e2d;
    console.log(`recordsEnd random files: seed ${seed}`);
    const rnd = mulberry32(seed);
    for (let file = 0; file < 100; file++) {
      const text = randomCsv(rnd);
      const buf = Buffer.from(text, 'utf8');
      // Record boundaries: after the line break of each record and each empty line.
      const bounds = [0];
      const at: Cursor = { p: 0, line: 1, quote: -1 };
      while (at.p < buf.length) {
        recordStrings(buf, at, 'f.csv');
        if (at.p <= buf.length && buf[at.p - 1] === 10) bounds.push(at.p);
      }
      for (const from of bounds.filter((b) => b < buf.length).slice(0, 2)) {
        for (let to = from; to <= buf.length; to++) {
          const want = Math.max(...bounds.filter((b) => b >= from && b <= to));
          expect(recordsEnd(buf, from, to), `seed ${seed}, file ${file}, [${from}, ${to}): ${JSON.stringify(text)}`).toBe(want);
        }
      }
    }
  });

  it('keeps a window open while a quoted field spans its line breaks', () => {
    const buf = Buffer.from('a,"b\nc\nd"\ne,f\n');
    // a , " b \n c \n d " \n | e , f \n |
    expect([4, 5, 7, 9, 10, 11, 13, 14].map((to) => recordsEnd(buf, 0, to))).toEqual([0, 0, 0, 0, 10, 10, 10, 14]);
    expect(recordsEnd(buf, 10, 14)).toBe(14);
    expect(recordsEnd(Buffer.from('"x""\ny"\n'), 0, 8)).toBe(8);
    expect(recordsEnd(Buffer.from('"x""\ny"\n'), 0, 7)).toBe(0);
  });
});
