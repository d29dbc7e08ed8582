import { describe, expect, it } from 'vitest';
import { cohenKappa, fleissKappa, tagKappas } from '../../../shared/engine/kappa';

const rep = (v: string, n: number) => Array.from({ length: n }, () => v);

describe("Cohen's κ", () => {
  it('textbook 2×2 example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no → po 0.7, pe 0.5, κ 0.4', () => {
    const a = [...rep('yes', 25), ...rep('no', 25)];
    const b = [...rep('yes', 20), ...rep('no', 5), ...rep('yes', 10), ...rep('no', 15)];
    const r = cohenKappa(a, b);
    expect(r.n).toBe(50);
    expect(r.rawAgreement).toBeCloseTo(0.7, 15);
    expect(r.kappa).toBeCloseTo(0.4, 15);
  });
  it('drops unlabelled items; null when expected agreement is 1 or no items', () => {
    expect(cohenKappa(['x', null, 'y'], ['x', 'y', null])).toEqual({ n: 1, rawAgreement: 1, kappa: null });
    expect(cohenKappa(['a', 'a'], ['a', 'a'])).toEqual({ n: 2, rawAgreement: 1, kappa: null });
    expect(cohenKappa([], [])).toEqual({ n: 0, rawAgreement: null, kappa: null });
    expect(cohenKappa(['a', 'b'], ['b', 'a']).kappa).toBeCloseTo(-1, 15);
    expect(() => cohenKappa(['a'], [])).toThrow(/parallel/);
  });
  it('per tag (present/absent)', () => {
    const r = tagKappas([['ocr', 'count'], ['count'], null, []], [['ocr'], ['count'], ['ocr'], ['ocr']]);
    expect(Object.keys(r)).toEqual(['count', 'ocr']);
    // ocr on items 0,1,3: a = 1,0,0 ; b = 1,0,1 → po 2/3, pe = (1/3·2/3 + 2/3·1/3) = 4/9 → κ = (2/3−4/9)/(5/9) = 0.4
    expect(r['ocr']!.n).toBe(3);
    expect(r['ocr']!.kappa).toBeCloseTo(0.4, 14);
    // count: a = 1,1,0 ; b = 0,1,0 → po 2/3, pe = 2/3·1/3 + 1/3·2/3 = 4/9 → 0.4
    expect(r['count']!.kappa).toBeCloseTo(0.4, 14);
  });
});

describe("Fleiss' κ", () => {
  it('Fleiss (1971) / Wikipedia example: 10 items, 14 raters, 5 categories → κ ≈ 0.210', () => {
    const table = [
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ];
    const items = table.map((row) => row.flatMap((n, j) => rep(`c${j + 1}`, n)));
    const r = fleissKappa(items);
    expect(r.nItems).toBe(10);
    expect(r.nRaters).toBe(14);
    expect(r.observedAgreement).toBeCloseTo(0.378, 3);
    // exact: P̄ = 0.37802…, P̄e = 0.21344 → κ = 0.20993
    expect(r.kappa!).toBeCloseTo(0.20993, 4);
  });
  it('null when everyone always picks one category; errors on ragged input', () => {
    expect(
      fleissKappa([
        ['a', 'a', 'a'],
        ['a', 'a', 'a'],
      ]).kappa,
    ).toBeNull();
    expect(fleissKappa([]).kappa).toBeNull();
    expect(
      fleissKappa([
        ['a', 'b'],
        ['b', 'a'],
      ]).kappa,
    ).toBeCloseTo(-1, 15);
    expect(() => fleissKappa([['a', 'b'], ['a']])).toThrow(/same number/);
    expect(() => fleissKappa([['a']])).toThrow(/at least 2/);
  });
});
