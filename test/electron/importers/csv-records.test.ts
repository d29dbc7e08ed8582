import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { readCsvRecords } from '../../../electron/importers/csv-records';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

async function records(path: string, delimiter = ','): Promise<[string[], number][]> {
  const out: [string[], number][] = [];
  await readCsvRecords(path, path, (r, l) => out.push([r, l]), delimiter);
  return out;
}

describe('readCsvRecords', () => {
  it('gives what csv-parse gives, on plain rows and after the first quote', async () => {
    const text =
      'a,b,c\n1,2,3\n\n4,,6\n"x, y","he said ""hi""","multi\nline"\n7,8,9\nlast,row,"no newline"';
    const p = scratch.write('mixed.csv', text);
    const got = await records(p);
    const want = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
    expect(got.map(([r]) => r)).toEqual(want);
    // lines: header 1, "1,2,3" 2, empty 3 skipped, "4,,6" 4, the quoted record ends on line 6
    expect(got.map(([, l]) => l)).toEqual([1, 2, 4, 6, 7, 8]);
  });

  it('streams across chunk boundaries (a 3 MB file, quote late in the file)', async () => {
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

  it('reports an unclosed quote as malformed CSV with a line', async () => {
    const p = scratch.write('bad.csv', 'a,b\n1,2\n"open,3\n');
    await expect(records(p)).rejects.toThrow(/bad\.csv:\d+: malformed CSV/);
  });
});
