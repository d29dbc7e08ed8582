// Edges of the §4 open-ended metrics the main suite leaves open: the ε argument, strictness of the
// ε comparisons, ties for best_fixed, net points per transition, one-config and empty grids.
// Scores are multiples of 1/8 and ε a multiple of 1/8, so every sum and every `s ± ε` is exact
// and boundary cases (s(b) = s(a) − ε exactly) really occur. Everything is computed inside `it`
// so a failing call fails its test (not the file's collection).
import { describe, expect, it } from 'vitest';
import { configOrder, isLowerBudget, makeConfigSpec } from '../../../shared/engine/config';
import { planGrid } from '../../../shared/engine/grid-plan';
import { transitionPairs } from '../../../shared/engine/mcqa';
import { openMetrics } from '../../../shared/engine/open-ended';
import { mulberry32 } from '../../../shared/engine/prng';
import { fromScores } from './helpers';

const TRIPLE = ['textonly', '16f_151k', '32f_151k'];

describe('openMetrics: ε', () => {
  it('defaults to 0.05, accepts 0, refuses a negative or non-number ε', () => {
    const m = fromScores(TRIPLE, [[0.5, 0.25, 0.75]]);
    expect(openMetrics(m).eps).toBe(0.05);
    expect(openMetrics(m, null, 0).eps).toBe(0);
    expect(() => openMetrics(m, null, -0.01)).toThrow(/^ε must be a number ≥ 0 \(got -0\.01\)$/);
    expect(() => openMetrics(m, null, Number.NaN)).toThrow(/^ε must be a number ≥ 0 \(got NaN\)$/);
  });

  it('the ε comparisons are strict: a change of exactly ε is neither an improvement nor a regression', () => {
    // text 0.5 → 16f 0.25 is exactly −ε; 16f → 32f is +0.5; text → 32f is exactly +ε
    const m = fromScores(TRIPLE, [[0.5, 0.25, 0.75]]);
    const r = openMetrics(m, null, 0.25);
    expect(r.regressionRate).toBe(0);
    expect(r.transitions.map((t) => [`${t.from}>${t.to}`, t.improved, t.regressed])).toEqual([
      ['textonly>16f_151k', 0, 0],
      ['16f_151k>32f_151k', 1, 0],
      ['textonly>32f_151k', 0, 0],
    ]);
    // with ε = 0 the same steps all count
    const z = openMetrics(m, null, 0);
    expect(z.regressionRate).toBe(1);
    expect(z.transitions.map((t) => [t.improved, t.regressed])).toEqual([
      [0, 1],
      [1, 0],
      [1, 0],
    ]);
  });

  it('a regression between configs that are not adjacent still counts (text ≺ 32f only)', () => {
    // 16f is within ε of text and of 32f, but 32f < text − ε
    const r = openMetrics(fromScores(TRIPLE, [[0.5, 0.46, 0.42]]), null, 0.05);
    expect(r.regressionRate).toBe(1);
    expect(r.transitions.map((t) => [t.improved, t.regressed])).toEqual([
      [0, 0],
      [0, 0],
      [0, 1],
    ]);
  });
});

describe('openMetrics: best fixed and net points', () => {
  it('the first config in config order can be the strict best', () => {
    const r = openMetrics(
      fromScores(TRIPLE, [
        [1, 0.5, 0.25],
        [0.75, 0.75, 0.5],
      ]),
    );
    expect(r.mean).toEqual({ textonly: 0.875, '16f_151k': 0.625, '32f_151k': 0.375 });
    expect(r.bestFixed).toBe('textonly');
    expect(r.oracleMean).toBe(0.875);
    expect(r.oracleGapPts).toBe(0);
    // net points are 100 × (mean[b] − mean[a])
    expect(r.transitions.map((t) => t.netPts)).toEqual([-25, -25, -50]);
  });

  it('a tie for the highest mean goes to the earliest config in config order', () => {
    // 32f and 16f tie at 0.5, text below; the keys are given out of config order
    const m = fromScores(
      ['32f_151k', 'textonly', '16f_151k'],
      [
        [0.25, 0.25, 0.75],
        [0.75, 0, 0.25],
      ],
    );
    const r = openMetrics(m);
    expect(r.configs).toEqual(TRIPLE);
    expect(r.bestFixed).toBe('16f_151k');
    expect(r.oracleMean).toBe(0.75);
    expect(r.oracleGapPts).toBe(25);
    expect(r.transitions.map((t) => [`${t.from}>${t.to}`, t.netPts])).toEqual([
      ['textonly>16f_151k', 37.5],
      ['16f_151k>32f_151k', 0],
      ['textonly>32f_151k', 37.5],
    ]);
  });

  it('one config: it is the best, and the oracle gains nothing over it', () => {
    const r = openMetrics(fromScores(['64f_151k'], [[0.25], [0.5], [null]]));
    expect(r).toMatchObject({ n: 2, nExcluded: 1, configs: ['64f_151k'], bestFixed: '64f_151k', oracleMean: 0.375, oracleGapPts: 0, regressionRate: 0, transitions: [] });
  });

  it('an empty grid has no best config and no gap', () => {
    const r = openMetrics(fromScores(TRIPLE, [[0.5, 0.25, 0.75]]), []);
    expect(r.configs).toEqual([]);
    expect(r.mean).toEqual({});
    expect(r.bestFixed).toBeNull();
    expect(r.oracleGapPts).toBeNaN();
    expect(r.transitions).toEqual([]);
  });
});

describe('openMetrics against a brute-force recomputation of docs/metrics.md §4', () => {
  const KEYS = ['32f_302k', 'textonly', '16f_151k', '64f_151k', '32f_151k', '128f_76k'];
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    for (const eps of [0, 0.125, 0.25]) {
      it(`seed ${seed}, ε ${eps}`, () => {
        const rnd = mulberry32(seed);
        // few rows and few score levels so means tie and steps of exactly ε occur
        const rows = Array.from({ length: 10 }, () => KEYS.map(() => (rnd() < 0.04 ? null : Math.floor(rnd() * 9) / 8)));
        const m = fromScores(KEYS, rows);
        const r = openMetrics(m, null, eps);

        const specs = KEYS.map((k) => makeConfigSpec(k));
        const order = configOrder(specs).map((c) => KEYS.indexOf(c.key));
        expect(r.configs).toEqual(order.map((j) => KEYS[j]));
        const items = rows.filter((row) => row.every((v) => v !== null)) as number[][];
        const N = items.length;
        expect([r.n, r.nExcluded]).toEqual([N, rows.length - N]);

        const sums = order.map((j) => items.reduce((s, row) => s + row[j]!, 0));
        order.forEach((j, p) => expect(r.mean[KEYS[j]!], KEYS[j]).toBe(sums[p]! / N));
        let best = 0;
        sums.forEach((s, p) => {
          if (s > sums[best]!) best = p;
        });
        expect(r.bestFixed).toBe(KEYS[order[best]!]);
        const oracle = items.reduce((s, row) => s + Math.max(...row), 0) / N;
        expect(r.oracleMean).toBe(oracle);
        expect(r.oracleGapPts).toBeCloseTo(100 * (oracle - sums[best]! / N), 9);

        let regressions = 0;
        for (const row of items) {
          let hit = false;
          for (let a = 0; a < KEYS.length; a++) for (let b = 0; b < KEYS.length; b++) if (isLowerBudget(specs[a]!, specs[b]!) && row[b]! < row[a]! - eps) hit = true;
          regressions += +hit;
        }
        expect(r.regressionRate).toBe(regressions / N);

        const plan = planGrid(m);
        const pairs = transitionPairs(plan);
        expect(r.transitions.map((t) => `${t.from}>${t.to}`)).toEqual(pairs.map(([a, b]) => `${plan.keys[a]}>${plan.keys[b]}`));
        r.transitions.forEach((t) => {
          const a = KEYS.indexOf(t.from);
          const b = KEYS.indexOf(t.to);
          const improved = items.filter((row) => row[b]! > row[a]! + eps).length;
          const regressed = items.filter((row) => row[b]! < row[a]! - eps).length;
          expect([t.improved, t.regressed], `${t.from}>${t.to}`).toEqual([improved, regressed]);
          expect(t.netPts).toBeCloseTo(100 * (r.mean[t.to]! - r.mean[t.from]!), 9);
        });
      });
    }
  }
});
