import { describe, expect, it } from 'vitest';
import { cohenKappa, tagKappas } from '../../../shared/engine/kappa';

describe("Cohen's κ: what counts as labelled (docs/metrics.md §9)", () => {
  it('an absent entry (a hole in a list filled by index) is not a label, exactly like null', () => {
    // Labels are often written as labels[itemIndex] = …; an item never written leaves a hole.
    const withHoleA: (string | null)[] = [];
    withHoleA[0] = 'x';
    withHoleA[2] = 'y';
    withHoleA[3] = 'x';
    const withHoleB: (string | null)[] = [];
    withHoleB[0] = 'x';
    withHoleB[1] = 'y';
    withHoleB[3] = 'y';
    withHoleB.length = 5;
    withHoleA.length = 5;
    const full = ['x', 'y', 'y', 'x', 'x'];
    // Items 1 and 4 are unlabelled by A: n = 3 over items 0, 2, 3 — x/x, y/y, x/x → po 1,
    // pe = (2·2 + 1·1) / 9 = 5/9, κ = (1 − 5/9)/(1 − 5/9) = 1.
    expect(cohenKappa(withHoleA, full)).toEqual(cohenKappa(['x', null, 'y', 'x', null], full));
    expect(cohenKappa(withHoleA, full).n).toBe(3);
    expect(cohenKappa(withHoleA, full).kappa).toBeCloseTo(1, 15);
    // B labels items 0, 1, 3 (x, y, y); against `full` (x, y, x): po 2/3, pe = (1·2 + 2·1)/9 = 4/9,
    // κ = (2/3 − 4/9)/(5/9) = 0.4.
    expect(cohenKappa(full, withHoleB)).toEqual(cohenKappa(full, ['x', 'y', null, 'y', null]));
    expect(cohenKappa(full, withHoleB).n).toBe(3);
    expect(cohenKappa(full, withHoleB).kappa).toBeCloseTo(0.4, 14);
  });
});

describe('per-tag κ (docs/metrics.md §9)', () => {
  it('rejects lists of different lengths, naming both lengths', () => {
    expect(() => tagKappas([['a']], [])).toThrow('per-tag κ needs parallel lists (got 1 and 0)');
  });
  it('an item the second annotator did not label is dropped for every tag', () => {
    // Item 0 is labelled by A only, so every tag is computed on items 1 and 2.
    const r = tagKappas([['x'], ['x'], []], [null, ['x'], ['y']]);
    expect(Object.keys(r)).toEqual(['x', 'y']);
    // x: A = 1, 0 ; B = 1, 0 → po 1, pe = (1·1 + 1·1)/4 = 1/2 → κ 1.
    expect(r['x']).toEqual({ n: 2, rawAgreement: 1, kappa: 1 });
    // y: A = 0, 0 ; B = 0, 1 → po 1/2, pe = (2·1)/4 = 1/2 → κ 0.
    expect(r['y']).toEqual({ n: 2, rawAgreement: 0.5, kappa: 0 });
  });
});
