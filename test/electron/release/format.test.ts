import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { compareCodePoints, compareKeys, csvText, formatNumber, JsonFloat, jsonText, type JsonValue, noneNeedQuotes } from '../../../electron/release/format';
import { mulberry32 } from '../../../shared/engine/prng';
import { pythonAvailable, runPython } from '../../shared/samplers/python-reference';

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

/** A JSON value as Python is told it: floats as their JS text (Python's float() of it is the same double). */
type Tagged = { f: string } | { i: number } | { s: string } | { b: boolean } | { n: null } | { a: Tagged[] } | { o: [string, Tagged][] };

/** A seeded random value and its tagged form (finite numbers only: Python prints NaN where the release prints null). */
function randomValue(next: () => number, depth: number): [JsonValue, Tagged] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const floats = [
    0,
    -0,
    1,
    -1,
    12,
    0.5,
    75.827,
    1 / 3,
    1e-4,
    9.99e-5,
    1e-5,
    5e-7,
    1.5e-300,
    123456.789,
    1e15,
    9999999999999998,
    1e16,
    1.5e17,
    123456789012345680,
    1e21,
    1e100,
    -2.5e-8,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
  ];
  const strings = ['', 'plain', 'say "hi"', 'back\\slash', 'line\nbreak\ttab\r', '\u0001\u001f\u007f', 'ünïcödé ✓', '𝔘 astral', '\u2028'];
  const kind = depth > 2 ? Math.floor(next() * 5) : Math.floor(next() * 7);
  switch (kind) {
    case 0: {
      const base = pick(floats);
      const scaled = base * (next() < 0.2 ? Math.floor(next() * 1000) + 1 : 1);
      const x = Number.isFinite(scaled) ? scaled : base;
      return [new JsonFloat(x), { f: Object.is(x, -0) ? '-0.0' : String(x) }];
    }
    case 1: {
      const x = pick([0, 1, -7, 786, 2 ** 53 - 1]);
      return [x, { i: x }];
    }
    case 2: {
      const x = pick(strings);
      return [x, { s: x }];
    }
    case 3: {
      const x = next() < 0.5;
      return [x, { b: x }];
    }
    case 4:
      return [null, { n: null }];
    case 5: {
      const n = Math.floor(next() * 4);
      const parts = Array.from({ length: n }, () => randomValue(next, depth + 1));
      return [parts.map((p) => p[0]), { a: parts.map((p) => p[1]) }];
    }
    default: {
      const n = Math.floor(next() * 4);
      // Never integer-like: a JS object lists those first, whatever the insertion order.
      const keys = Array.from({ length: n }, (_, i) => `${pick(strings)}#${i}`);
      const parts = keys.map((k) => [k, randomValue(next, depth + 1)] as const);
      return [Object.fromEntries(parts.map(([k, p]) => [k, p[0]])), { o: parts.map(([k, p]) => [k, p[1]]) }];
    }
  }
}

describe('jsonText against Python', () => {
  it("prints what Python's json.dumps(indent=2, ensure_ascii=False) prints, floats as Python's repr", () => {
    const why = pythonAvailable();
    if (why !== null) throw new Error(`python3 is the oracle here: ${why}`);
    const seed = 20260601;
    const next = mulberry32(seed);
    const values = Array.from({ length: 300 }, () => randomValue(next, 0));
    const script = [
      'import json, sys',
      'def build(t):',
      '    k, v = next(iter(t.items()))',
      "    if k == 'f': return float(v)",
      "    if k == 'a': return [build(x) for x in v]",
      "    if k == 'o': return {kk: build(vv) for kk, vv in v}",
      '    return v',
      'print(json.dumps([json.dumps(build(t), indent=2, ensure_ascii=False) for t in json.load(sys.stdin)]))',
    ].join('\n');
    const want = runPython<string[]>(
      script,
      values.map((v) => v[1]),
    );
    values.forEach(([v], i) => expect(jsonText(v), `seed ${seed}, value ${i}`).toBe(want[i]));
  });

  it('prints a float at the edges of positional notation as Python does, by hand', () => {
    const cases: [number, string][] = [
      [0, '0.0'],
      [-0, '-0.0'],
      [2, '2.0'],
      [-12, '-12.0'],
      [1e-4, '0.0001'],
      [9.99e-5, '9.99e-05'],
      [1e-5, '1e-05'],
      [-5e-7, '-5e-07'],
      [9999999999999998, '9999999999999998.0'],
      [1e16, '1e+16'],
      [1.5e17, '1.5e+17'],
      [1e21, '1e+21'],
      [1e100, '1e+100'],
      [75.827, '75.827'],
    ];
    for (const [x, text] of cases) expect(jsonText(new JsonFloat(x)), String(x)).toBe(text);
  });

  it('prints non-finite numbers as null (the release leaves undefined values null)', () => {
    expect(jsonText([new JsonFloat(Number.NaN), new JsonFloat(Infinity), Number.NaN, -Infinity, 3])).toBe('[\n  null,\n  null,\n  null,\n  null,\n  3\n]');
    expect(jsonText({ a: [], b: {}, c: [[]], d: { e: {} } })).toBe('{\n  "a": [],\n  "b": {},\n  "c": [\n    []\n  ],\n  "d": {\n    "e": {}\n  }\n}');
  });
});

describe('compareKeys', () => {
  it('orders key tuples column by column, each in code-point order', () => {
    const keys = [
      ['v2', '001'],
      ['v1', '𝔘'],
      ['v1', '\uE000'],
      ['v10', '000'],
      ['v1', '002'],
      ['v1', '001'],
      ['V1', 'z'],
    ];
    expect(keys.slice().sort(compareKeys)).toEqual([
      ['V1', 'z'],
      ['v1', '001'],
      ['v1', '002'],
      ['v1', '\uE000'],
      ['v1', '𝔘'],
      ['v10', '000'],
      ['v2', '001'],
    ]);
    expect(compareKeys(['a', 'b'], ['a', 'b'])).toBe(0);
    expect(compareKeys(['a', 'b'], ['a', 'c'])).toBeLessThan(0);
    expect(compareKeys(['b', 'a'], ['a', 'c'])).toBeGreaterThan(0);
    // A missing column counts as empty.
    expect(compareKeys(['a', 'b'], ['a'])).toBeGreaterThan(0);
    expect(compareKeys(['a', ''], ['a'])).toBe(0);
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
