import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readCsvRecords } from '../../../electron/importers/csv-records';
import { Scratch } from './helpers';
import { mulberry32 } from '../../../shared/engine/prng';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

async function records(path: string, delimiter = ','): Promise<[string[], number][]> {
  const out: [string[], number][] = [];
  await readCsvRecords(path, path, (r, l) => out.push([r, l]), delimiter);
  return out;
}

describe('readCsvRecords', () => {
  it('gives what csv-parse gives, on plain rows and after the first quote', async () => {
    const text = 'a,b,c\n1,2,3\n\n4,,6\n"x, y","he said ""hi""","multi\nline"\n7,8,9\nlast,row,"no newline"';
    const p = scratch.write('mixed.csv', text);
    const got = await records(p);
    const want = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
    expect(got.map(([r]) => r)).toEqual(want);
    // lines: header 1, "1,2,3" 2, empty 3 skipped, "4,,6" 4, the quoted record ends on line 6
    expect(got.map(([, l]) => l)).toEqual([1, 2, 4, 6, 7, 8]);
  });

  it('reads a 3 MB file whose first quote comes late', async () => {
    const lines = ['id,v'];
    for (let i = 0; i < 150_000; i++) lines.push(`${i},v${i}`);
    lines.push('"q,1",2');
    const text = lines.join('\n') + '\n';
    const p = scratch.write('big.csv', text);
    const got = await records(p);
    expect(got.length).toBe(150_002);
    expect(got[150_001]).toEqual([['q,1', '2'], 150_002]);
    expect(got[77_777]).toEqual([['77776', 'v77776'], 77_778]);
  });

  it('handles CRLF files like csv-parse', async () => {
    const text = 'a,b\r\n1,2\r\n"x\r\ny",3\r\n';
    const p = scratch.write('crlf.csv', text);
    const want = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
    expect((await records(p)).map(([r]) => r)).toEqual(want);
  });

  it('handles a BOM and tab delimiters', async () => {
    const p = scratch.write('t.tsv', '\uFEFFa\tb\n"1\t2"\t3\n');
    expect(await records(p, '\t')).toEqual([
      [['a', 'b'], 1],
      [['1\t2', '3'], 2],
    ]);
  });

  it("resolves to the sha256 of the file's bytes, and takes only a one-character ASCII delimiter", async () => {
    const text = '\uFEFFa;b\n1;2\n';
    const p = scratch.write('semi.csv', text);
    expect(await records(p, ';')).toEqual([
      [['a', 'b'], 1],
      [['1', '2'], 2],
    ]);
    expect(await readCsvRecords(p, p, () => undefined, ';')).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    for (const d of ['', ',,', '\u00a7']) {
      await expect(readCsvRecords(p, p, () => undefined, d)).rejects.toThrow(`readCsvRecords: the delimiter must be one ASCII character, got ${JSON.stringify(d)}`);
    }
    expect(await records(p, '\u007f')).toEqual([
      [['a;b'], 1],
      [['1;2'], 2],
    ]);
  });

  it('reports an unclosed quote as malformed CSV with a line', async () => {
    const p = scratch.write('bad.csv', 'a,b\n1,2\n"open,3\n');
    await expect(records(p)).rejects.toThrow(/bad\.csv:\d+: malformed CSV/);
  });

  it('refuses a quote inside an unquoted field, as csv-parse does', async () => {
    const text = 'a,b\n1,x"y\n';
    expect(() => parse(text)).toThrow();
    await expect(records(scratch.write('q.csv', text))).rejects.toThrow(/q\.csv:2: malformed CSV: a quote inside an unquoted field/);
  });

  it('refuses a file that is not UTF-8 before any record, naming line and column', async () => {
    const p = scratch.write('latin1.csv', Buffer.concat([Buffer.from('id,text\n1,ok\n2,caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const seen: string[][] = [];
    await expect(readCsvRecords(p, 'latin1.csv', (r) => seen.push(r))).rejects.toThrow(/latin1\.csv:3: text: invalid UTF-8/);
    expect(seen).toEqual([]);
  });

  it('agrees with csv-parse on seeded random files (quotes, delimiters and line breaks in fields, CRLF, empty lines)', async () => {
    const seed = 0x5eed34;
    console.log(`csv-records random files: seed ${seed}`);
    const rnd = mulberry32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    for (const delimiter of [',', '\t']) {
      for (let file = 0; file < 40; file++) {
        const eol = pick(['\n', '\r\n']);
        const lines: string[] = [];
        for (let r = 0; r < 1 + Math.floor(rnd() * 12); r++) {
          if (rnd() < 0.1) {
            lines.push('');
            continue;
          }
          const fields: string[] = [];
          for (let f = 0; f < 1 + Math.floor(rnd() * 5); f++) {
            const raw = Array.from({ length: Math.floor(rnd() * 6) }, () => pick(['a', 'é', '1', ' ', delimiter, '"', '\n', '\r\n', 'x'])).join('');
            const needsQuotes = /["\n\r]/.test(raw) || raw.includes(delimiter);
            fields.push(needsQuotes || rnd() < 0.2 ? `"${raw.replace(/"/g, '""')}"` : raw);
          }
          lines.push(fields.join(delimiter));
        }
        const text = lines.join(eol) + (rnd() < 0.5 ? eol : '');
        const want = parse(text, { delimiter, relax_column_count: true, skip_empty_lines: true }) as string[][];
        const got = await records(scratch.write(`r${file}.csv`, text), delimiter);
        expect(
          got.map(([r]) => r),
          `seed ${seed}, delimiter ${JSON.stringify(delimiter)}, file ${file}: ${JSON.stringify(text)}`,
        ).toEqual(want);
      }
    }
  });
});
