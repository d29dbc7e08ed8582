// Edges of the §2 MCQA metrics the main suite leaves open: per-item transitions, the full
// pairwise-wins matrix, the empty grid, text outside the grid, error messages, and results that
// must not alias the caller's inputs. Everything is computed inside `it` so a failing call fails
// its test (not the file's collection).
import { describe, expect, it } from 'vitest';
import { planGrid } from '../../../shared/engine/grid-plan';
import {
  argmaxFirst,
  gridFlags,
  itemTransitions,
  mcqaMetrics,
  metricsFromFlags,
  metricsFromTrajectories,
  pairwiseWins,
  transitionPairs,
  transitions,
} from '../../../shared/engine/mcqa';
import { mulberry32 } from '../../../shared/engine/prng';
import { trajectoryColumns } from '../../../shared/engine/trajectories';
import { fromPatterns } from './helpers';

const LADDER = ['textonly', '16f_151k', '32f_151k', '64f_151k'];
// The §2 pair list on LADDER: the adjacent ladder pairs, then text → each visual config not yet listed.
const LADDER_PAIRS = ['textonly>16f_151k', '16f_151k>32f_151k', '32f_151k>64f_151k', 'textonly>32f_151k', 'textonly>64f_151k'];

/** Seeded 0/1/. patterns (mulberry32). */
function seededPatterns(nRows: number, nCols: number, seed: number, missingRate: number): string[] {
  const rnd = mulberry32(seed);
  return Array.from({ length: nRows }, () => Array.from({ length: nCols }, () => (rnd() < missingRate ? '.' : rnd() < 0.5 ? '1' : '0')).join(''));
}

const cell = (ch: string): number => (ch === '1' ? 1 : ch === '0' ? 0 : -1);

describe('itemTransitions (docs/metrics.md §2 transitions, one item)', () => {
  it('hand values: harmed is right → wrong, rescued wrong → right, a missing cell is neither', () => {
    const plan = planGrid(fromPatterns(LADDER, ['1111']));
    const pairs = transitionPairs(plan);
    expect(pairs.map(([a, b]) => `${plan.keys[a]}>${plan.keys[b]}`)).toEqual(LADDER_PAIRS);
    // text 1, 16f 0, 32f 1, 64f missing
    expect(itemTransitions(plan, pairs, [1, 0, 1, -1])).toEqual({ harmed: ['textonly>16f_151k'], rescued: ['16f_151k>32f_151k'] });
    // 0 1 0 1: rescued on text>16f, 32f>64f, text>64f; harmed on 16f>32f; text>32f is 0 → 0
    expect(itemTransitions(plan, pairs, [0, 1, 0, 1])).toEqual({ harmed: ['16f_151k>32f_151k'], rescued: ['textonly>16f_151k', '32f_151k>64f_151k', 'textonly>64f_151k'] });
    // no flow at all: all right, all wrong, all missing, right/missing and missing/wrong mixes
    for (const y of [
      [1, 1, 1, 1],
      [0, 0, 0, 0],
      [-1, -1, -1, -1],
      [1, -1, 1, -1],
      [-1, 0, -1, 0],
    ]) {
      expect(itemTransitions(plan, pairs, y), y.join(',')).toEqual({ harmed: [], rescued: [] });
    }
  });

  it('summed over the complete items, gives the rescued and harmed counts of transitions()', () => {
    const keys = ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_76k', '32f_302k'];
    const pats = seededPatterns(200, keys.length, 4242, 0.05);
    const m = fromPatterns(keys, pats);
    const plan = planGrid(m);
    const pairs = transitionPairs(plan);
    const names = pairs.map(([a, b]) => `${plan.keys[a]}>${plan.keys[b]}`);
    const rescued = new Map<string, number>(names.map((n) => [n, 0]));
    const harmed = new Map<string, number>(names.map((n) => [n, 0]));
    const y = new Int8Array(plan.keys.length);
    for (let i = 0; i < pats.length; i++) {
      // the row's outcomes in the plan's config order
      plan.keys.forEach((k, j) => {
        y[j] = cell(pats[i]![keys.indexOf(k)]!);
      });
      if (y.includes(-1)) continue;
      const t = itemTransitions(plan, pairs, y);
      for (const n of t.rescued) rescued.set(n, rescued.get(n)! + 1);
      for (const n of t.harmed) harmed.set(n, harmed.get(n)! + 1);
      expect(
        t.rescued.filter((n) => t.harmed.includes(n)),
        `row ${i}`,
      ).toEqual([]);
    }
    const want = transitions(m);
    expect(want.map((t) => `${t.from}>${t.to}`)).toEqual(names);
    for (const t of want) {
      expect([rescued.get(`${t.from}>${t.to}`), harmed.get(`${t.from}>${t.to}`)], `${t.from}>${t.to}`).toEqual([t.rescued, t.harmed]);
    }
  });
});

describe('pairwiseWins (docs/metrics.md §2 pairwise complementarity)', () => {
  it('hand values: the whole G × G matrix', () => {
    // complete rows over LADDER: 1000, 0110, 1101 (the row with a missing cell is not an item)
    const w = pairwiseWins(fromPatterns(LADDER, ['1000', '0110', '1101', '1.00']));
    expect(w.configs).toEqual(LADDER);
    expect(w.n).toBe(3);
    expect(w.wins).toEqual([
      // text right & X wrong: 1000 (16f, 32f, 64f), 1101 (32f)
      [0, 1, 2, 1],
      // 16f right: 0110 (text, 64f), 1101 (32f)
      [1, 0, 1, 1],
      // 32f right: 0110 (text, 64f)
      [1, 0, 0, 1],
      // 64f right: 1101 (32f)
      [0, 0, 1, 0],
    ]);
  });

  it('matches a brute-force count on a seeded grid', () => {
    const keys = ['32f_151k', 'textonly', '16f', '64f_76k', '16f_151k'];
    const pats = seededPatterns(150, keys.length, 99, 0.08);
    const w = pairwiseWins(fromPatterns(keys, pats));
    const pos = w.configs.map((k) => keys.indexOf(k));
    const G = keys.length;
    const want = Array.from({ length: G }, () => new Array<number>(G).fill(0));
    let n = 0;
    for (const p of pats) {
      if (p.includes('.')) continue;
      n++;
      for (let a = 0; a < G; a++) for (let b = 0; b < G; b++) if (p[pos[a]!] === '1' && p[pos[b]!] === '0') want[a]![b]!++;
    }
    expect(w.n).toBe(n);
    expect(w.wins).toEqual(want);
  });
});

describe('mcqaMetrics: grids without text or without configs', () => {
  it('text not in the grid: no item is text-correct', () => {
    const r = mcqaMetrics(fromPatterns(LADDER, ['1010', '1111', '0001']), ['16f_151k', '32f_151k', '64f_151k']);
    expect(r.counts.textCorrect).toBe(0);
    expect(r.textOverwriteRate).toBeNull();
    expect(r.textOverwriteRateOfTextCorrect).toBeNull();
  });

  it('text in the grid but never correct: the rate of text-correct items is null, the overwrite rate 0', () => {
    const r = mcqaMetrics(fromPatterns(LADDER, ['0010', '0111', '0000']));
    expect(r.counts.textCorrect).toBe(0);
    expect(r.textOverwriteRate).toBe(0);
    expect(r.textOverwriteRateOfTextCorrect).toBeNull();
  });

  it('an empty grid: every row is an item, no config is best or terminal', () => {
    const m = fromPatterns(LADDER, ['1111', '0.10', '0000']);
    const r = mcqaMetrics(m, []);
    expect(r.n).toBe(3);
    expect(r.nExcluded).toBe(0);
    expect(r.configs).toEqual([]);
    expect(r.accuracy).toEqual({});
    expect(r.bestFixed).toBeNull();
    expect(r.terminalConfig).toBeNull();
    expect(r.textOverwriteRate).toBeNull();
    // no config, so no item is right anywhere: the oracle and the (absent) best fixed config both count 0
    expect(r.oracleAccuracy).toBe(0);
    expect(r.oracleHeadroomPts).toBe(0);
    expect(r.visualConfusionRate).toBe(0);
    expect(r.terminalRegressionRate).toBe(0);
  });
});

describe('argmaxFirst', () => {
  it('is −1 for no counts, else the first position of the highest count', () => {
    expect(argmaxFirst([])).toBe(-1);
    expect(argmaxFirst(new Int32Array(0))).toBe(-1);
    expect(argmaxFirst([0])).toBe(0);
    expect(argmaxFirst([2, 5, 5, 1])).toBe(1);
    expect(argmaxFirst([3, 3, 3])).toBe(0);
    expect(argmaxFirst([1, 2, 3])).toBe(2);
  });
});

describe('results own their lists', () => {
  it("editing a result's configs leaves the flags' or the trajectory columns' keys intact", () => {
    const m = fromPatterns(LADDER, ['0110', '1001']);
    const f = gridFlags(m);
    const r = metricsFromFlags(f);
    expect(r.configs).toEqual(LADDER);
    r.configs.reverse();
    expect(f.plan.keys).toEqual(LADDER);
    const t = trajectoryColumns(m);
    const rt = metricsFromTrajectories(t);
    rt.configs.pop();
    expect(t.keys).toEqual(LADDER);
    expect(t.plan.keys).toEqual(LADDER);
  });
});

describe('error messages name the computation', () => {
  it('an open-ended matrix is refused by each MCQA entry point', () => {
    const m = fromPatterns(LADDER, ['1111']);
    m.kind = 'open';
    expect(() => mcqaMetrics(m)).toThrow(/^MCQA metrics needs a multiple-choice matrix; M \/ S is open$/);
    expect(() => gridFlags(m)).toThrow(/^MCQA metrics needs a multiple-choice matrix/);
    expect(() => transitions(m)).toThrow(/^transitions needs a multiple-choice matrix; M \/ S is open$/);
    expect(() => pairwiseWins(m)).toThrow(/^pairwise wins needs a multiple-choice matrix; M \/ S is open$/);
  });
});
