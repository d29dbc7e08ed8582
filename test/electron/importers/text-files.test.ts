/**
 * How the importers read text files (docs/formats.md "Damaged input"): a whole JSON document
 * with the line of each of its objects, a text file line by line knowing whether its last line
 * ended, the head of a file for sniffing, a file's sha256, and the `file:line: field: reason`
 * of every refusal.
 */
import { createHash } from 'node:crypto';
import { truncateSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { sha256File } from '../../../electron/importers/file-hash';
import { MAX_JSON_BYTES, readJsonSource } from '../../../electron/importers/json-source';
import { readHead, readLines, type TextLine } from '../../../electron/importers/line-reader';
import { Scratch, refusal } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

async function lines(path: string): Promise<TextLine[]> {
  const out: TextLine[] = [];
  for await (const l of readLines(path)) out.push(l);
  return out;
}

describe('readJsonSource', () => {
  it('knows the line of every object, in arrays and objects, past braces and quotes inside strings', async () => {
    const text = [
      '{',
      '  "note": "a { brace, a \\" quote and a \\\\",',
      '  "items": [',
      '    {"id": 1, "sub": {"k": "}"}},',
      '',
      '    {"id": 2}',
      '  ],',
      '  "meta": {"n": [1, {"deep": true}]}',
      '}',
    ].join('\n');
    const src = await readJsonSource(scratch.write('doc.json', text));
    const v = src.value as { items: { id: number; sub?: object }[]; meta: { n: [number, object] } };
    expect(src.lineOf(src.value)).toBe(1);
    expect(src.lineOf(v.items[0])).toBe(4);
    expect(src.lineOf(v.items[0]!.sub)).toBe(4);
    expect(src.lineOf(v.items[1])).toBe(6);
    expect(src.lineOf(v.meta)).toBe(8);
    expect(src.lineOf(v.meta.n[1])).toBe(8);
    // Not an object of the document: no line.
    expect([src.lineOf(v.items), src.lineOf('items'), src.lineOf(null), src.lineOf({ id: 1 }), src.lineOf(7)]).toEqual([0, 0, 0, 0, 0]);
  });

  it("reads Python's bare NaN and Infinity as missing values, and drops a byte-order mark", async () => {
    const src = await readJsonSource(scratch.write('nan.json', '\uFEFF{"a": NaN,\n "b": [Infinity, -Infinity], "c": "NaN"}'));
    expect(src.value).toEqual({ a: null, b: [null, null], c: 'NaN' });
  });

  it('refuses malformed JSON at the line of the position JSON.parse names, and a file too large to read whole', async () => {
    const cut = await refusal(readJsonSource(scratch.write('cut.json', '{"a": 1,\n"b": [1,\n2'), 'shown/cut.json'));
    expect([cut.file, cut.line, cut.field]).toEqual(['shown/cut.json', 3, '']);
    expect(cut.reason).toMatch(/^malformed JSON: /);
    const extra = await refusal(readJsonSource(scratch.write('extra.json', '{"a": 1}\n\n}')));
    expect(extra.line).toBe(3);
    const first = await refusal(readJsonSource(scratch.write('first.json', '{"a":1,"b" 2}')));
    expect(first.line).toBe(1);
    // A line feed inside a string is refused at its own position: the line it ends.
    const feed = await refusal(readJsonSource(scratch.write('feed.json', '{"a": "x\ny"}')));
    expect([feed.line, feed.reason]).toEqual([1, expect.stringMatching(/^malformed JSON: Bad control character in string literal/)]);
    const big = scratch.write('big.json', '');
    truncateSync(big, MAX_JSON_BYTES + 1);
    const e = await refusal(readJsonSource(big, 'big.json'));
    expect([e.file, e.line, e.field, e.reason]).toEqual(['big.json', 0, '', `JSON file too large (${MAX_JSON_BYTES + 1} bytes)`]);
    expect(MAX_JSON_BYTES).toBe(512 * 1024 * 1024);
  });
});

describe('readLines', () => {
  it('gives each line without its LF or CRLF, numbered from 1, and says whether the last one ended', async () => {
    expect(await lines(scratch.write('a.jsonl', 'one\r\ntwo\n\nthree'))).toEqual([
      { line: 1, text: 'one', terminated: true },
      { line: 2, text: 'two', terminated: true },
      { line: 3, text: '', terminated: true },
      { line: 4, text: 'three', terminated: false },
    ]);
    expect(await lines(scratch.write('b.jsonl', 'x\ny\r'))).toEqual([
      { line: 1, text: 'x', terminated: true },
      { line: 2, text: 'y', terminated: false },
    ]);
    expect(await lines(scratch.write('c.jsonl', '\n'))).toEqual([{ line: 1, text: '', terminated: true }]);
    expect(await lines(scratch.write('d.jsonl', ''))).toEqual([]);
    expect(await lines(scratch.write('e.jsonl', '\uFEFFfirst\n'))).toEqual([{ line: 1, text: 'first', terminated: true }]);
    expect(await lines(scratch.write('f.jsonl', '\r\na\rb\n'))).toEqual([
      { line: 1, text: '', terminated: true },
      { line: 2, text: 'a\rb', terminated: true },
    ]);
  });

  it('joins lines and characters across its 1 MB reads', async () => {
    // A CRLF and a two-byte character each split by the 1 MiB read boundary.
    const mib = 1 << 20;
    const a = 'a'.repeat(mib - 1) + '\r\n' + 'é'.repeat(10) + '\n';
    const b = 'b'.repeat(mib - 1) + 'é' + 'tail';
    expect((await lines(scratch.write('g.jsonl', a))).map((l) => [l.line, l.text.length, l.terminated])).toEqual([
      [1, mib - 1, true],
      [2, 10, true],
    ]);
    expect((await lines(scratch.write('h.jsonl', b))).map((l) => [l.line, l.text.slice(-6), l.terminated])).toEqual([[1, 'bétail', false]]);
  });

  it('refuses invalid UTF-8 at its line', async () => {
    const p = scratch.write('bad.jsonl', Buffer.concat([Buffer.from('{"a": 1}\n{"a": "caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    const e = await refusal(lines(p));
    expect(e).toBeInstanceOf(ImportError);
    expect(e.line).toBe(2);
    // A character cut off by the end of the file, in the last line.
    const cut = await refusal(lines(scratch.write('cut.jsonl', Buffer.concat([Buffer.from('{"a": 1}\n{"a": "caf'), Buffer.from([0xc3])]))));
    expect(cut.line).toBe(2);
  });
});

describe('readHead and sha256File', () => {
  it('reads at most maxBytes of a file, all of a shorter one', async () => {
    const p = scratch.write('head.txt', 'x'.repeat(10_000));
    expect((await readHead(p)).length).toBe(4096);
    expect((await readHead(p, 10)).toString()).toBe('xxxxxxxxxx');
    expect((await readHead(p, 20_000)).length).toBe(10_000);
    expect((await readHead(scratch.write('empty.txt', ''))).length).toBe(0);
  });

  it("hashes a file's bytes across its 1 MB reads", async () => {
    const content = Buffer.alloc((1 << 20) * 2 + 17, 7);
    content[5] = 1;
    content[content.length - 1] = 9;
    expect(await sha256File(scratch.write('h.bin', content))).toBe(createHash('sha256').update(content).digest('hex'));
    expect(await sha256File(scratch.write('e.bin', ''))).toBe(createHash('sha256').digest('hex'));
  });
});

describe('ImportError', () => {
  it('says file:line: field: reason, without a field when there is none, each part clipped', () => {
    const e = new ImportError('runs/r.csv', 4, 'pred', 'bad value');
    expect([e.name, e.message, e.file, e.line, e.field, e.reason]).toEqual(['ImportError', 'runs/r.csv:4: pred: bad value', 'runs/r.csv', 4, 'pred', 'bad value']);
    expect(new ImportError('r.csv', 0, '', 'empty').message).toBe('r.csv:0: empty');
    const long = new ImportError('f'.repeat(600), 1, 'c'.repeat(300), 'r'.repeat(2000));
    expect(long.message).toBe(`${'f'.repeat(500)}… (100 more characters cut):1: ${'c'.repeat(200)}… (100 more characters cut): ${'r'.repeat(1000)}… (1000 more characters cut)`);
    // The fields keep the whole text.
    expect(long.reason.length).toBe(2000);
  });
});
