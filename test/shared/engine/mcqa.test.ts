import { beforeAll, describe, expect, it } from 'vitest';
import { isLowerBudget, makeConfigSpec, configOrder } from '../../../shared/engine/config';
import { mcnemarExact, mcqaMetrics, metricsFromTrajectories, pairwiseWins, transitions } from '../../../shared/engine/mcqa';
import { trajectoryColumns } from '../../../shared/engine/trajectories';
import { exactMcnemar, fromPatterns, randomPatterns } from './helpers';

const LADDER = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

describe('mcqaMetrics: hand-computed', () => {
  // rows over textonly,16f,32f,64f
  const m = fromPatterns(LADDER, ['0111', '1000', '0101', '1111', '0000', '0110', '1.11']);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let r!: ReturnType<typeof mcqaMetrics>;
  beforeAll(() => {
    r = mcqaMetrics(m);
  });
  it('counts only complete rows', () => {
    expect(r.n).toBe(6);
    expect(r.nExcluded).toBe(1);
    expect(r.configs).toEqual(LADDER);
  });
  it('accuracy, best fixed with earliest tie, oracle and headroom', () => {
    // correct per config: text 2, 16f 4, 32f 3, 64f 3
    expect(r.correctCounts).toEqual({ textonly: 2, '16f_151k': 4, '32f_151k': 3, '64f_151k': 3 });
    expect(r.accuracy['16f_151k']).toBeCloseTo(4 / 6, 15);
    expect(r.bestFixed).toBe('16f_151k');
    expect(r.oracleAccuracy).toBeCloseTo(5 / 6, 15);
    expect(r.oracleHeadroomPts).toBeCloseTo(100 / 6, 12);
    // a tie for best → earliest in config order
    expect(mcqaMetrics(fromPatterns(LADDER, ['0011', '0110'])).bestFixed).toBe('32f_151k');
    expect(mcqaMetrics(fromPatterns(['64f_151k', '32f_151k'], ['10', '01'])).bestFixed).toBe('32f_151k');
  });
  it('confusion, overwrite and terminal regression', () => {
    // confused: 1000 (text>16f), 0101 (16f>32f), 0110 (32f>64f) → 3; visual-only: 0101, 0110 → 2
    expect(r.visualConfusionRate).toBeCloseTo(3 / 6, 15);
    expect(r.visualConfusionRateVisualOnly).toBeCloseTo(2 / 6, 15);
    // overwritten: 1000 only (1111 has no wrong visual)
    expect(r.textOverwriteRate).toBeCloseTo(1 / 6, 15);
    expect(r.textOverwriteRateOfTextCorrect).toBeCloseTo(1 / 2, 15);
    expect(r.terminalConfig).toBe('64f_151k');
    // terminal wrong and something below right: 1000, 0110
    expect(r.terminalRegressionRate).toBeCloseTo(2 / 6, 15);
  });
  it('transitions: ladder pairs with rescued/harmed/churn/net and McNemar', () => {
    const t = transitions(m);
    expect(t.map((x) => `${x.from}>${x.to}`)).toEqual(['textonly>16f_151k', '16f_151k>32f_151k', '32f_151k>64f_151k', 'textonly>32f_151k', 'textonly>64f_151k']);
    expect(t[0]).toMatchObject({ rescued: 3, harmed: 1, churn: 4 });
    expect(t[0]!.mcnemarP).toBeCloseTo(10 / 16, 15);
    expect(t[0]!.churnRate).toBeCloseTo(4 / 6, 15);
    expect(t[0]!.netPts).toBeCloseTo(200 / 6, 12);
    expect(t[0]!.netPts).toBeCloseTo(100 * (r.accuracy['16f_151k']! - r.accuracy['textonly']!), 12);
    expect(t[1]).toMatchObject({ rescued: 0, harmed: 1, churn: 1, mcnemarP: 1 });
    expect(t[2]).toMatchObject({ rescued: 1, harmed: 1, churn: 2 });
    expect(t[3]).toMatchObject({ rescued: 2, harmed: 1 });
  });
  it('pairwise wins', () => {
    const w = pairwiseWins(m);
    expect(w.n).toBe(6);
    // text right & 16f wrong: 1000 → 1 ; 16f right & text wrong: 0111, 0101, 0110 → 3
    expect(w.wins[0]![1]).toBe(2 - 1);
    expect(w.wins[1]![0]).toBe(3);
    expect(w.wins[2]![2]).toBe(0);
  });
});

describe('mcqaMetrics: edge cases', () => {
  it('all correct / all wrong', () => {
    const a = mcqaMetrics(fromPatterns(LADDER, ['1111', '1111']));
    expect([a.oracleAccuracy, a.oracleHeadroomPts, a.visualConfusionRate, a.textOverwriteRate, a.terminalRegressionRate]).toEqual([1, 0, 0, 0, 0]);
    const b = mcqaMetrics(fromPatterns(LADDER, ['0000', '0000']));
    expect([b.oracleAccuracy, b.visualConfusionRate, b.textOverwriteRate, b.textOverwriteRateOfTextCorrect]).toEqual([0, 0, 0, null]);
    expect(b.bestFixed).toBe('textonly');
  });
  it('a single config', () => {
    const r = mcqaMetrics(fromPatterns(['128f_input224'], ['1', '0', '0', '.']));
    expect(r).toMatchObject({ n: 3, nExcluded: 1, bestFixed: '128f_input224', terminalConfig: '128f_input224', textOverwriteRate: null });
    expect(r.oracleHeadroomPts).toBe(0);
    expect(r.visualConfusionRate).toBe(0);
    expect(transitions(fromPatterns(['128f_input224'], ['1']))).toEqual([]);
  });
  it('text not in the grid: overwrite null, sub-grid picks its columns', () => {
    const m = fromPatterns(LADDER, ['1001', '1100']);
    const r = mcqaMetrics(m, ['64f_151k', '16f_151k']);
    expect(r.configs).toEqual(['16f_151k', '64f_151k']);
    expect(r.textOverwriteRate).toBeNull();
    expect(r.textOverwriteRateOfTextCorrect).toBeNull();
    expect(r.visualConfusionRate).toBeCloseTo(0.5, 15);
    expect(() => mcqaMetrics(m, ['8f_151k'])).toThrow(/"8f_151k" is not in M \/ S/);
  });
  it('missing cells exclude the item; no items gives NaN rates', () => {
    const r = mcqaMetrics(fromPatterns(LADDER, ['1.11', '...0']));
    expect(r.n).toBe(0);
    expect(r.nExcluded).toBe(2);
    expect(r.visualConfusionRate).toBeNaN();
  });
  it('iso-compute pairs and unknown-vs-known ppf are never confusion', () => {
    // 32f_302k right, 128f_76k wrong: same compute, not ordered
    const iso = mcqaMetrics(fromPatterns(['32f_302k', '128f_76k'], ['10', '01']));
    expect(iso.visualConfusionRate).toBe(0);
    const mixed = mcqaMetrics(fromPatterns(['16f', '32f_151k'], ['10']));
    expect(mixed.visualConfusionRate).toBe(0);
    const unknown = mcqaMetrics(fromPatterns(['16f', '32f', 'textonly'], ['100', '001']));
    expect(unknown.visualConfusionRate).toBe(1); // 16f>32f, then text>16f
    expect(unknown.visualConfusionRateVisualOnly).toBe(0.5);
    // a config at lower ppf and fewer frames is lower: 32f_76k right, 64f_151k wrong
    expect(mcqaMetrics(fromPatterns(['32f_76k', '64f_151k'], ['10'])).visualConfusionRate).toBe(1);
  });
  it('matches a brute-force dominance check on random mixed-resolution grids', () => {
    const keys = ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_76k', '32f_302k', '64f_76k', '16f', '32f'];
    const specs = keys.map((k) => makeConfigSpec(k));
    const pats = randomPatterns(400, keys.length, 7, 0.03);
    const r = mcqaMetrics(fromPatterns(keys, pats));
    let n = 0,
      conf = 0,
      vis = 0,
      ow = 0,
      tr = 0;
    const term = keys.indexOf('64f_151k'); // 64×151k = 9.664M vs 128×76k = 9.728M → 128f_76k is terminal
    const t2 = keys.indexOf('128f_76k');
    expect(r.terminalConfig).toBe('128f_76k');
    for (const p of pats) {
      if (p.includes('.')) continue;
      n++;
      const y = [...p].map(Number);
      let c = false,
        v = false,
        w = false,
        t = false;
      for (let a = 0; a < keys.length; a++)
        for (let b = 0; b < keys.length; b++) {
          if (y[a] === 1 && y[b] === 0 && isLowerBudget(specs[a]!, specs[b]!)) {
            c = true;
            if (a !== 0) v = true;
          }
        }
      if (y[0] === 1 && y.slice(1).some((x) => x === 0)) w = true;
      if (y[t2] === 0 && y.some((x, a) => x === 1 && isLowerBudget(specs[a]!, specs[t2]!))) t = true;
      conf += +c;
      vis += +v;
      ow += +w;
      tr += +t;
    }
    expect(term).toBeGreaterThan(0);
    expect(r.n).toBe(n);
    expect(r.counts.visuallyConfused).toBe(conf);
    expect(r.counts.visuallyConfusedVisualOnly).toBe(vis);
    expect(r.counts.textOverwritten).toBe(ow);
    expect(r.counts.terminalRegressions).toBe(tr);
  });
  it('transitions list the ladder first, then text → other visual configs in config order', () => {
    const keys = ['textonly', '16f_151k', '32f_151k', '64f_76k', '32f_302k'];
    const m = fromPatterns(keys, ['01010']);
    expect(configOrder(keys.map((k) => makeConfigSpec(k))).map((c) => c.key)).toEqual(['textonly', '16f_151k', '32f_151k', '32f_302k', '64f_76k']);
    expect(transitions(m).map((t) => `${t.from}>${t.to}`)).toEqual(['textonly>16f_151k', '16f_151k>32f_151k', 'textonly>32f_151k', 'textonly>32f_302k', 'textonly>64f_76k']);
    expect(transitions(m, ['32f_302k', '64f_76k']).map((t) => `${t.from}>${t.to}`)).toEqual([]); // one per ppf: ladder of one, no text
  });
  it('rejects open-ended matrices', () => {
    const m = fromPatterns(LADDER, ['1111']);
    m.kind = 'open';
    expect(() => mcqaMetrics(m)).toThrow(/multiple-choice/);
  });
});

describe('metricsFromTrajectories', () => {
  // The release export takes a grid's aggregated numbers from its trajectory pass: they must be
  // mcqaMetrics' numbers exactly, on grids with and without text, with missing cells, mixed
  // resolutions, one config, and no complete row at all.
  const cases: [string, string[], string[]][] = [
    ['ladder with missing cells', LADDER, randomPatterns(300, 4, 11, 0.05)],
    ['mixed resolutions', ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_76k', '32f_302k', '64f_76k', '16f', '32f'], randomPatterns(400, 9, 12, 0.03)],
    ['no text', ['16f_151k', '32f_151k', '64f_76k'], randomPatterns(200, 3, 13, 0.1)],
    [
      'eleven configs (evaluated row by row, no pattern table)',
      ['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '16f_302k', '32f_302k', '64f_302k', '128f_76k', '256f_76k'],
      randomPatterns(300, 11, 15, 0.02),
    ],
    ['one config', ['32f_151k'], randomPatterns(50, 1, 14, 0.2)],
    ['no complete row', LADDER, ['1.11', '.000', '01.1']],
  ];
  for (const [name, keys, pats] of cases) {
    it(`equals mcqaMetrics: ${name}`, () => {
      const m = fromPatterns(keys, pats);
      for (const mg of [null, ['textonly', '16f_151k', '32f_151k']]) {
        expect(metricsFromTrajectories(trajectoryColumns(m, { matchedGrid: mg }))).toEqual(mcqaMetrics(m));
      }
    });
  }
});

describe('mcnemarExact', () => {
  it('is 1 with no churn and for balanced flows', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(3, 4)).toBe(1);
  });
  it('hand values', () => {
    expect(mcnemarExact(0, 1)).toBe(1);
    expect(mcnemarExact(0, 5)).toBeCloseTo(2 / 32, 15);
    expect(mcnemarExact(10, 0)).toBeCloseTo(2 / 1024, 15);
    expect(mcnemarExact(1, 9)).toBeCloseTo((2 * 11) / 1024, 15);
    // the paper's example: 18 rescued, 23 harmed
    expect(mcnemarExact(18, 23)).toBeCloseTo(exactMcnemar(18, 23), 14);
  });
  it('agrees with an exact BigInt binomial for every split of n ≤ 60', () => {
    for (let n = 0; n <= 60; n++) {
      for (let r = 0; r <= n; r++) {
        const got = mcnemarExact(r, n - r);
        const want = exactMcnemar(r, n - r);
        expect(Math.abs(got - want) / Math.max(want, 1e-300), `${r},${n - r}`).toBeLessThan(1e-12);
      }
    }
  });
  it('stays exact (relative 1e-9) for churn up to 1e5', () => {
    for (const [r, h] of [
      [480, 520],
      [4_900, 5_100],
      [49_000, 51_000],
      [49_800, 50_200],
      [100, 99_900],
    ] as const) {
      const got = mcnemarExact(r, h);
      const want = exactMcnemar(r, h);
      if (want === 0) expect(got).toBeLessThan(1e-300);
      else expect(Math.abs(got - want) / want, `${r},${h}: ${got} vs ${want}`).toBeLessThan(1e-9);
      expect(mcnemarExact(h, r)).toBe(got);
    }
  });
  it('rejects non-counts', () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(/whole numbers/);
    expect(() => mcnemarExact(1.5, 2)).toThrow(/whole numbers/);
  });
});
