import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, csvText, formatNumber, JsonFloat, jsonText, noneNeedQuotes } from '../../../electron/release/format';

describe('csvText', () => {
  it('quotes commas, quotes and newlines per RFC 4180 with \\n line ends, and parses back', () => {
    const rows = [
      ['a,b', 'say "hi"', 'line1\nline2', 'plain', ''],
      ['ünïcödé-✓', '𝔘', ' lead', 'trail ', 'x\r\ny'],
    ];
    const text = csvText(['c1', 'c2', 'c3', 'c4', 'c5'], rows);
    expect(text.startsWith('c1,c2,c3,c4,c5\n')).toBe(true);
    expect(text).toContain('"a,b","say ""hi""","line1\nline2",plain,\n');
    expect(text.endsWith('\n')).toBe(true);
    expect(parse(text)).toEqual([['c1', 'c2', 'c3', 'c4', 'c5'], ...rows]);
  });

  it('quotes a field exactly when it holds a comma, a quote, a CR or an LF (RFC 4180), quotes doubled', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['a', 'a'],
      [',', '","'],
      ['"', '""""'],
      ['""', '""""""'],
      ['\n', '"\n"'],
      ['\r\n', '"\r\n"'],
      // A lone CR is quoted too: a reader that accepts CR line ends would otherwise split the record.
      ['x\ry', '"x\ry"'],
      [' ', ' '],
      ['a b', 'a b'],
      ['é', 'é'],
      ['𝔘', '𝔘'],
      ['\t', '\t'],
      ["'", "'"],
      [';', ';'],
      ['x,"y"\nz', '"x,""y""\nz"'],
      ['=1+2', '=1+2'],
      ['#', '#'],
    ];
    for (const [value, field] of cases) expect(csvText(['h'], [[value]]), JSON.stringify(value)).toBe(`h\n${field}\n`);
    expect(csvText(['h,1', 'h"2'], [])).toBe('"h,1","h""2"\n');
    // Every pair of them in one record, read back by an independent parser (csv-parse).
    const atoms = cases.map(([v]) => v);
    const rows: string[][] = [];
    for (const a of atoms) for (const b of atoms) rows.push([a, b, a + b]);
    expect(parse(csvText(['h,1', 'h"2', 'h3'], rows))).toEqual([['h,1', 'h"2', 'h3'], ...rows]);
  });

  it('prints numbers so they parse back to the same double', () => {
    for (const x of [0, 1, 0.1, 1 / 3, 123456.789, 5e-7, 0.30000000000000004]) {
      expect(Number(formatNumber(x))).toBe(x);
    }
    expect(formatNumber(-0)).toBe('0');
    expect(formatNumber(Number.NaN)).toBe('');
    expect(csvText(['n', 'm'], [[null, 2.5]])).toBe('n,m\n,2.5\n');
  });
});

describe('jsonText', () => {
  it("prints like Python's json.dumps(indent=2): floats keep .0, no trailing newline", () => {
    const v = { n: 786, configs: ['textonly', '16f_151k'], rate: new JsonFloat(0), acc: new JsonFloat(75.827), empty: [], o: {} };
    expect(jsonText(v)).toBe('{\n  "n": 786,\n  "configs": [\n    "textonly",\n    "16f_151k"\n  ],\n  "rate": 0.0,\n  "acc": 75.827,\n  "empty": [],\n  "o": {}\n}');
  });
});

describe('compareCodePoints', () => {
  it('orders astral characters after the BMP private-use area, unlike UTF-16 order', () => {
    const a = '\uE000';
    const b = '𝔘'; // U+1D518, a surrogate pair in UTF-16
    expect(a < b).toBe(false); // UTF-16 code units disagree with code points here
    expect(compareCodePoints(a, b)).toBeLessThan(0);
    expect(['b', 'B', '128f', '16f', 'a'].sort(compareCodePoints)).toEqual(['128f', '16f', 'B', 'a', 'b']);
  });
});

describe('noneNeedQuotes', () => {
  it('is true only when no value holds a comma, a quote or a line break', () => {
    expect(noneNeedQuotes(['a', 'b-1', 'ü 𝔘'])).toBe(true);
    expect(noneNeedQuotes([])).toBe(true);
    for (const bad of ['a,b', 'say "x"', 'l\n', 'r\r']) expect(noneNeedQuotes(['ok', bad])).toBe(false);
  });
});
