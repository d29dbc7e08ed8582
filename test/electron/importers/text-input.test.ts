/**
 * The checks every importer's text goes through (docs/formats.md "Damaged input"): the first
 * invalid UTF-8 byte, found alike in a whole file and in a stream of any chunking, and named by
 * line and field (a CSV column, or the nearest JSON key); a byte-order mark dropped; ids free of
 * control characters, U+FFFD and lone surrogates, free text free of NUL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { StrictUtf8, checkId, checkText, decodeText, firstInvalidUtf8, readTextFile, refuseInvalidUtf8, type TextLayout } from '../../../electron/importers/text-input';
import { mulberry32 } from '../../../shared/engine/prng';
import { Scratch, refusal } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** Whether the platform's strict decoder takes `bytes`. */
function decodes(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The error `f` throws (an ImportError), or null. */
function thrown(f: () => unknown): ImportError | null {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
  return null;
}

/** `bytes` streamed through StrictUtf8 in chunks of the given sizes (cycled); the text, or the refusal. */
function streamed(path: string, bytes: Uint8Array, sizes: number[], layout: TextLayout): string | ImportError {
  const d = new StrictUtf8(path, 'shown.csv', layout);
  let out = '';
  try {
    let p = 0;
    for (let k = 0; p < bytes.length; k++) {
      const n = sizes[k % sizes.length]!;
      out += d.decode(bytes.subarray(p, p + n));
      p += n;
    }
    return out + d.end();
  } catch (e) {
    expect(e).toBeInstanceOf(ImportError);
    return e as ImportError;
  }
}

describe('firstInvalidUtf8', () => {
  it('agrees with the strict decoder on seeded random bytes: the prefix before it decodes, no character starts there', () => {
    const seed = 0xbadc0de;
    console.log(`firstInvalidUtf8 random bytes: seed ${seed}`);
    const rnd = mulberry32(seed);
    // Bytes near the edges of UTF-8's ranges, so every rule (overlong, surrogate, > U+10FFFF, cut) is met often.
    const pool = [0x41, 0x0a, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff];
    for (let t = 0; t < 5_000; t++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(rnd() * 8) }, () => pool[Math.floor(rnd() * pool.length)]!);
      const at = firstInvalidUtf8(bytes);
      const what = `seed ${seed}, bytes ${Buffer.from(bytes).toString('hex')}`;
      if (at < 0) {
        expect(decodes(bytes), what).toBe(true);
        continue;
      }
      expect(decodes(bytes.subarray(0, at)), what).toBe(true);
      for (let len = 1; len <= Math.min(4, bytes.length - at); len++) expect(decodes(bytes.subarray(0, at + len)), `${what}, length ${len}`).toBe(false);
    }
  });

  it('starts where it is told', () => {
    const bytes = Uint8Array.from([0xff, 0x41, 0xc3, 0xa9, 0xc3]);
    expect([firstInvalidUtf8(bytes), firstInvalidUtf8(bytes, 1), firstInvalidUtf8(bytes, 2), firstInvalidUtf8(bytes, 5)]).toEqual([0, 4, 4, -1]);
    expect(firstInvalidUtf8(Buffer.from('\u{10FFFF}\uFFFF\u0800\u0080'))).toBe(-1);
  });
});

describe('refusing invalid UTF-8', () => {
  const csv = Buffer.concat([Buffer.from('\uFEFFid,pred,"gt"\nq1,A,B\nq2,caf'), Buffer.from([0xe9]), Buffer.from(',B\n')]);

  it('names the line and the CSV column, alike for a whole file and a stream of any chunking', async () => {
    const p = scratch.write('bad.csv', csv);
    const whole = thrown(() => refuseInvalidUtf8(csv, 'shown.csv', { delimiter: ',' }));
    expect([whole?.file, whole?.line, whole?.field, whole?.reason]).toEqual([
      'shown.csv',
      3,
      'pred',
      `invalid UTF-8 (bytes e9 2c 42 0a at byte ${csv.indexOf(0xe9)}): the file is damaged or not UTF-8; re-save it as UTF-8`,
    ]);
    for (const sizes of [[1], [2, 3], [7], [csv.length], [csv.indexOf(0xe9)], [csv.indexOf(0xe9) + 1]]) {
      const s = streamed(p, csv, sizes, { delimiter: ',' });
      expect(s, `chunks ${sizes.join(',')}`).toBeInstanceOf(ImportError);
      expect([(s as ImportError).line, (s as ImportError).field, (s as ImportError).reason]).toEqual([whole?.line, whole?.field, whole?.reason]);
    }
    const r = await refusal(readTextFile(p, 'shown.csv', { delimiter: ',' }));
    expect(r.message).toBe(whole?.message);
    expect(thrown(() => decodeText(csv, 'shown.csv', { delimiter: ',' }))?.message).toBe(whole?.message);
  });

  it('in a stream, points at the bad byte, not at the last bytes of a character already decoded', () => {
    const bytes = Buffer.concat([Buffer.from('id,pred\nq1,éé'), Buffer.from([0xff]), Buffer.from('\n')]);
    const p = scratch.write('tail.csv', bytes);
    const whole = thrown(() => refuseInvalidUtf8(bytes, 'shown.csv', { delimiter: ',' }));
    expect(whole?.reason).toMatch(new RegExp(`at byte ${bytes.indexOf(0xff)}\\)`));
    const s = streamed(p, bytes, [bytes.indexOf(0xff), 10], { delimiter: ',' }) as ImportError;
    expect([s.line, s.field, s.reason]).toEqual([whole?.line, whole?.field, whole?.reason]);
  });

  it('streams valid text whole, a character split across chunks, the byte-order mark dropped once', () => {
    const text = Buffer.from('\uFEFFé\u{1F600}x\uFEFF');
    for (const sizes of [[1], [2], [3], [5]]) expect(streamed('unused', text, sizes, { delimiter: null })).toBe('é\u{1F600}x\uFEFF');
    expect(decodeText(text, 'x')).toBe('é\u{1F600}x\uFEFF');
    expect(decodeText(Buffer.from('plain'), 'x')).toBe('plain');
  });

  it('a sequence cut by the end of the stream is refused at its first byte', () => {
    const bytes = Buffer.concat([Buffer.from('{"a": "x"}\n{"b": "'), Buffer.from([0xf0, 0x9f])]);
    const p = scratch.write('cut.json', bytes);
    const s = streamed(p, bytes, [4], { delimiter: null }) as ImportError;
    expect([s.line, s.field, s.reason]).toEqual([2, 'b', `invalid UTF-8 (bytes f0 9f at byte ${bytes.length - 2}): the file is damaged or not UTF-8; re-save it as UTF-8`]);
  });

  it('a CSV header, a quoted field and a column past the header are named as best they can be', () => {
    const at = (text: Buffer) => thrown(() => refuseInvalidUtf8(text, 'f.csv', { delimiter: ',' }));
    const bad = Buffer.from([0xff]);
    expect([at(Buffer.concat([Buffer.from('id,'), bad, Buffer.from('\n')]))?.line, at(Buffer.concat([Buffer.from('id,'), bad]))?.field]).toEqual([1, '']);
    expect(at(Buffer.concat([Buffer.from('id,pred\nq1,"a,'), bad, Buffer.from('"\n')]))?.field).toBe('');
    expect(at(Buffer.concat([Buffer.from('id,pred\nq1,a,'), bad, Buffer.from('\n')]))?.field).toBe('column 3');
    expect(at(Buffer.concat([Buffer.from('id,,x\nq1,'), bad, Buffer.from('\n')]))?.field).toBe('column 2');
    expect(thrown(() => refuseInvalidUtf8(Buffer.concat([Buffer.from('id\tpred\r\nq1\t'), bad, Buffer.from('\r\n')]), 'f.tsv', { delimiter: '\t' }))?.field).toBe('pred');
  });

  it('in JSON, names the last key before the bad byte', () => {
    const at = (text: Buffer) => thrown(() => refuseInvalidUtf8(text, 'f.json', { delimiter: null }));
    const bad = Buffer.from([0xc0, 0x80]);
    expect(at(Buffer.concat([Buffer.from('{"id": "q1",\n "pred": "'), bad, Buffer.from('"}')]))?.field).toBe('pred');
    expect(at(Buffer.concat([Buffer.from('{"say \\"hi\\"": "'), bad, Buffer.from('"}')]))?.field).toBe('say \\"hi\\"');
    expect(at(Buffer.concat([Buffer.from('["'), bad, Buffer.from('"]')]))?.field).toBe('');
    // A key of more than 200 characters is not taken for one.
    expect(at(Buffer.concat([Buffer.from(`{"id": 1, "${'k'.repeat(201)}": "`), bad, Buffer.from('"}')]))?.field).toBe('id');
    // Only the last 4 KB are looked at.
    expect(at(Buffer.concat([Buffer.from(`{"far": "${'x'.repeat(5000)}`), bad, Buffer.from('"}')]))?.field).toBe('');
    expect(refuseInvalidUtf8(Buffer.from('{"ok": "é"}'), 'f.json', { delimiter: null })).toBeUndefined();
  });
});

describe('checkId and checkText', () => {
  it('refuse in an id each control character, U+FFFD and a lone surrogate, at its character', () => {
    const cases: [string, string][] = [
      ['ab\u0000', 'a NUL byte at character 3'],
      ['a\tb', 'the control character U+0009 at character 2'],
      ['\u001f', 'the control character U+001F at character 1'],
      ['x\u007f', 'the control character U+007F at character 2'],
      ['x\u0085', 'the control character U+0085 at character 2'],
      ['x\u009f', 'the control character U+009F at character 2'],
      ['caf\uFFFD', 'U+FFFD (an undecodable byte) at character 4'],
      ['a\uD83D', 'an unpaired surrogate U+D83D at character 2'],
      ['\uDE00b', 'an unpaired surrogate U+DE00 at character 1'],
      ['\uDE00\uD83D', 'an unpaired surrogate U+DE00 at character 1'],
    ];
    for (const [v, what] of cases) {
      const e = thrown(() => checkId(v, 'r.csv', 4, 'sample_id'));
      expect([e?.file, e?.line, e?.field, e?.reason], JSON.stringify(v)).toEqual(['r.csv', 4, 'sample_id', `holds ${what}: ids and names must be printable text`]);
    }
    for (const ok of ['q1', 'vidéo 7', '\u{1F600}', '\u00a0x', '\u00a0', 'a-b_c.d'])
      expect(
        thrown(() => checkId(ok, 'r.csv', 4, 'id')),
        JSON.stringify(ok),
      ).toBeNull();
  });

  it('refuse in free text only a NUL', () => {
    const e = thrown(() => checkText('line one\nline\u0000two', 'r.jsonl', 9, 'pred'));
    expect([e?.file, e?.line, e?.field, e?.reason]).toEqual(['r.jsonl', 9, 'pred', 'holds a NUL byte at character 14']);
    for (const ok of ['tab\there', '\uFFFD', '\uD83D', null, undefined, '']) expect(thrown(() => checkText(ok, 'r', 1, 'f'))).toBeNull();
  });
});
