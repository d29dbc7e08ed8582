import { describe, expect, it } from 'vitest';
import { agreementReport, type LabelledState } from '../../../shared/team/agreement';

const st = (annotator: string, sampleId: string, primary: string | null, pathways: string[] = primary ? [primary] : [], model = 'm', split = 's'): LabelledState => ({
  model,
  split,
  sampleId,
  annotator,
  primaryPathway: primary,
  pathways,
});

describe('agreementReport', () => {
  it('two annotators: raw agreement and Cohen κ on the primary pathway and per tag, by hand', () => {
    // Primary: A = x x y y, B = x y y y → po = 3/4; pA = (½, ½), pB = (¼, ¾); pe = ½·¼ + ½·¾ = ½; κ = (¾ − ½)/(1 − ½) = ½.
    // Tag "z" (present/absent) on the same 4 items: A = 1 1 0 0, B = 1 0 0 0 → same tables → κ = ½, po = ¾.
    const states = [
      st('A', '1', 'x', ['x', 'z']),
      st('A', '2', 'x', ['x', 'z']),
      st('A', '3', 'y'),
      st('A', '4', 'y'),
      st('B', '1', 'x', ['x', 'z']),
      st('B', '2', 'y'),
      st('B', '3', 'y'),
      st('B', '4', 'y'),
      // Only A labelled item 5: it counts for nItems but for no two-annotator figure.
      st('A', '5', 'x'),
      // An unlabelled state (no primary, no tag) is ignored.
      st('B', '6', null, []),
    ];
    const r = agreementReport(states);
    expect(r.groups).toHaveLength(1);
    const g = r.groups[0]!;
    expect(g).toMatchObject({ model: 'm', split: 's', annotators: ['A', 'B'], nItems: 5, fleiss: null });
    expect(g.pairs).toHaveLength(1);
    const p = g.pairs[0]!;
    expect(p.nBoth).toBe(4);
    expect(p.primary.n).toBe(4);
    expect(p.primary.rawAgreement).toBeCloseTo(0.75, 12);
    expect(p.primary.kappa).toBeCloseTo(0.5, 12);
    expect(p.pathways.z?.n).toBe(4);
    expect(p.pathways.z?.rawAgreement).toBeCloseTo(0.75, 12);
    expect(p.pathways.z?.kappa).toBeCloseTo(0.5, 12);
    // Tag x: A = 1 1 0 0, B = 1 0 0 0 → κ = ½ as well; tag y: A = 0 0 1 1, B = 0 1 1 1 → κ = ½.
    expect(p.pathways.x?.kappa).toBeCloseTo(0.5, 12);
    expect(p.pathways.y?.kappa).toBeCloseTo(0.5, 12);
  });

  it('κ is null when expected agreement is 1 (both always say the same single label)', () => {
    const r = agreementReport([st('A', '1', 'x'), st('A', '2', 'x'), st('B', '1', 'x'), st('B', '2', 'x')]);
    expect(r.groups[0]!.pairs[0]!.primary).toEqual({ n: 2, rawAgreement: 1, kappa: null });
  });

  it('three annotators: Fleiss κ over the items all of them labelled, by hand', () => {
    // Items 1–3 labelled by all three; item 4 only by A and B (left out of Fleiss).
    // Ratings: 1 = (x, x, x), 2 = (x, x, y), 3 = (y, y, y).
    // P_i = (Σ n² − 3)/6: item 1 → (9−3)/6 = 1, item 2 → (4+1−3)/6 = ⅓, item 3 → 1; P̄ = 7/9.
    // p_x = 5/9, p_y = 4/9 → Pe = 25/81 + 16/81 = 41/81; κ = (7/9 − 41/81)/(1 − 41/81) = (63−41)/(81−41) = 22/40 = 0.55.
    const states = [
      st('A', '1', 'x'),
      st('B', '1', 'x'),
      st('C', '1', 'x'),
      st('A', '2', 'x'),
      st('B', '2', 'x'),
      st('C', '2', 'y'),
      st('A', '3', 'y'),
      st('B', '3', 'y'),
      st('C', '3', 'y'),
      st('A', '4', 'x'),
      st('B', '4', 'y'),
    ];
    const g = agreementReport(states).groups[0]!;
    expect(g.annotators).toEqual(['A', 'B', 'C']);
    expect(g.pairs.map((p) => `${p.a}-${p.b}:${p.primary.n}`)).toEqual(['A-B:4', 'A-C:3', 'B-C:3']);
    expect(g.fleiss?.nItems).toBe(3);
    expect(g.fleiss?.nRaters).toBe(3);
    expect(g.fleiss?.observedAgreement).toBeCloseTo(7 / 9, 12);
    expect(g.fleiss?.kappa).toBeCloseTo(0.55, 12);
  });

  it('groups by (model, split)', () => {
    const r = agreementReport([st('A', '1', 'x', ['x'], 'm2', 's'), st('B', '1', 'x', ['x'], 'm1', 's'), st('A', '1', 'y', ['y'], 'm1', 's')]);
    expect(r.groups.map((g) => `${g.model}/${g.split}:${g.annotators.join(',')}`)).toEqual(['m1/s:A,B', 'm2/s:A']);
    expect(r.groups[0]!.pairs[0]!.primary).toEqual({ n: 1, rawAgreement: 0, kappa: 0 });
  });
});
