import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { matchedGridMetrics, proposeMatchedGrid, type GridDescription } from '../../../shared/engine/matched-grid';
import { createMatrix } from '../../../shared/engine/matrix';
import { mulberry32 } from '../../../shared/engine/prng';
import { fromPatterns } from './helpers';

const g = (model: string, split: string, keys: readonly string[]): GridDescription => ({ model, split, configs: keys.map((k) => makeConfigSpec(k)) });
const L4 = ['textonly', '16f_151k', '32f_151k', '64f_151k'];
/** `textonly` plus n…m frames at 151k: a long ladder, to make one key set clearly worth more than others. */
const frames = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}f_151k`);
const score = (p: { configs: string[]; models: string[] }): number => p.configs.length * p.models.length;

/** Compares model lists element by element in code-unit order; shorter prefix first. */
function compareLists(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return a.length - b.length;
}

/**
 * The proposal rule of docs/release-format.md ("matched grid") by brute force over config sets
 * rather than model sets: the key set K maximising |K| × |models having every key of K on every
 * split|, ties to more models, then (the engine's documented last resort) the first model list.
 * Only for grids whose configs are all on the ladder (text only and one pixel budget).
 */
function bruteProposal(grids: readonly GridDescription[]): { configs: string[]; models: string[] } {
  const keys = [...new Set(grids.flatMap((x) => x.configs.map((c) => c.key)))];
  const splits = [...new Set(grids.map((x) => x.split))];
  const models = [...new Set(grids.map((x) => x.model))].sort();
  const has = (m: string, k: string) => splits.every((s) => grids.some((x) => x.model === m && x.split === s && x.configs.some((c) => c.key === k)));
  let best = { keys: [] as string[], models: [] as string[] };
  for (let mask = 1; mask < 1 << keys.length; mask++) {
    const K = keys.filter((_, i) => mask & (1 << i));
    const ms = models.filter((m) => K.every((k) => has(m, k)));
    const d = K.length * ms.length - best.keys.length * best.models.length || ms.length - best.models.length || -compareLists(ms, best.models);
    if (ms.length > 0 && d > 0) best = { keys: K, models: ms };
  }
  return { configs: best.keys, models: best.models };
}

describe('proposeMatchedGrid: the rule against brute force (docs/release-format.md "matched grid")', () => {
  it('random single-protocol grids, 2–7 models over 1–2 splits (seed 20240611)', () => {
    const rnd = mulberry32(20240611);
    const ladder = ['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k', '128f_151k'];
    // Names where a prefix is itself a name, so list order and joined-string order could differ.
    const names = ['A', 'AB', 'B', 'BA', 'C', 'CA', 'AC'];
    for (let t = 0; t < 400; t++) {
      const nModels = 2 + Math.floor(rnd() * 6);
      const splits = rnd() < 0.5 ? ['s'] : ['s2', 's1'];
      const grids: GridDescription[] = [];
      for (const model of names.slice(0, nModels)) {
        for (const split of splits) {
          if (splits.length > 1 && rnd() < 0.15) continue; // no results on that split
          const ks = ladder.filter(() => rnd() < 0.6);
          grids.push(g(model, split, ks.length > 0 ? ks : ['textonly']));
        }
      }
      const want = bruteProposal(grids);
      const got = proposeMatchedGrid(grids);
      const ctx = JSON.stringify(grids.map((x) => [x.model, x.split, x.configs.map((c) => c.key).join(' ')]));
      expect(got.models, ctx).toEqual(want.models);
      expect([...got.configs].sort(), ctx).toEqual([...want.configs].sort());
      expect(
        got.leftOut.map((x) => x.model),
        ctx,
      ).toEqual(
        names
          .slice(0, nModels)
          .filter((m) => grids.some((x) => x.model === m) && !want.models.includes(m))
          .sort(),
      );
    }
  });
});

describe('proposeMatchedGrid: ties', () => {
  it('on a score tie with as many models, takes the first model list, whichever is found first', () => {
    // [A, BD] × {t,8,16} = 6 and [AB, C] × {t,32,64} = 6; {A} alone is 4 × 1, everyone × {t} 4.
    const p = proposeMatchedGrid([
      g('A', 's', ['textonly', '8f_151k', '16f_151k', '32f_151k']),
      g('AB', 's', ['textonly', '64f_151k', '128f_151k']),
      g('BD', 's', ['textonly', '8f_151k', '16f_151k']),
      g('C', 's', ['textonly', '64f_151k', '128f_151k']),
    ]);
    expect(p.models).toEqual(['A', 'BD']);
    expect(p.configs).toEqual(['textonly', '8f_151k', '16f_151k']);
    // [A, B] × {t,8,16} = 6 ties [A, C] × {t,32,64} = 6 (A has all five: alone 5 × 1).
    const q = proposeMatchedGrid([
      g('A', 's', ['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k']),
      g('B', 's', ['textonly', '8f_151k', '16f_151k']),
      g('C', 's', ['textonly', '32f_151k', '64f_151k']),
    ]);
    expect(q.models).toEqual(['A', 'B']);
    expect(q.configs).toEqual(['textonly', '8f_151k', '16f_151k']);
  });
  it('on a score tie prefers more models even when the fewer-model grid comes later', () => {
    // {A, B} × {t,8,16} = 6 ties {B} × {t,8,16,32,64,128} = 6.
    const p = proposeMatchedGrid([g('A', 's', ['textonly', '8f_151k', '16f_151k']), g('B', 's', ['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k', '128f_151k'])]);
    expect(p.models).toEqual(['A', 'B']);
    expect(p.configs).toEqual(['textonly', '8f_151k', '16f_151k']);
  });
});

describe('proposeMatchedGrid: exact up to 16 models', () => {
  // A and B share 21 keys (score 42); every other model has only text (score = models × 1), and
  // dropping one model at a time from everyone never raises the score until only A and B are left.
  const trap = (nFillers: number): GridDescription[] => [
    g('A', 's', ['textonly', ...frames(2, 21)]),
    g('B', 's', ['textonly', '1f_151k', ...frames(2, 21)]),
    ...Array.from({ length: nFillers }, (_, i) => g(`F${String(i).padStart(2, '0')}`, 's', ['textonly', '1f_151k'])),
  ];
  it('finds the optimum that a one-model-at-a-time search misses (5 and 16 models)', () => {
    for (const n of [3, 14]) {
      const p = proposeMatchedGrid(trap(n));
      expect(p.models, `${n + 2} models`).toEqual(['A', 'B']);
      expect(p.configs).toEqual(['textonly', ...frames(2, 21)]);
    }
  });
});

describe('proposeMatchedGrid: beyond 16 models (greedy pass)', () => {
  it('drops models while that helps and finds a pair worth more than everyone on text only', () => {
    // 15 text-only models and X, Y sharing 21 keys: everyone × {t} = 17, X alone 22 × 1, {X, Y} 21 × 2 = 42.
    const grids = [
      ...Array.from({ length: 15 }, (_, i) => g(`F${String(i).padStart(2, '0')}`, 's', ['textonly'])),
      g('X', 's', ['textonly', ...frames(1, 20), '21f_151k']),
      g('Y', 's', ['textonly', ...frames(1, 20), '22f_151k']),
    ];
    const p = proposeMatchedGrid(grids);
    expect(p.models).toEqual(['X', 'Y']);
    expect(p.configs).toEqual(['textonly', ...frames(1, 20)]);
    expect(p.leftOut).toHaveLength(15);
  });
  it('nested ladders: keeps the models with at least 8 frames (9 keys × 10 models = 90, the maximum)', () => {
    // Model i has text and 1…i frames: a grid of text and 1…j frames is held by 18 − j models,
    // (j + 1)(18 − j) peaks at 90 for j = 8 and 9; ties go to more models (j = 8).
    const grids = Array.from({ length: 17 }, (_, i) => g(`M${String(i + 1).padStart(2, '0')}`, 's', ['textonly', ...frames(1, i + 1)]));
    const p = proposeMatchedGrid(grids);
    expect(p.configs).toEqual(['textonly', ...frames(1, 8)]);
    expect(p.models).toEqual(Array.from({ length: 10 }, (_, i) => `M${String(i + 8).padStart(2, '0')}`));
  });
  it('weighs a candidate drop by configs × models having them (a fixed 17-model instance, checked against brute force)', () => {
    // Picked because the greedy pass reaches the optimum here (text + 16f × 9 models = 18);
    // weighing drops any other way (e.g. configs per model) strays from it.
    const sets = ['012', '1', '01', '0', '01', '2', '012', '12', '012', '0', '012', '01', '01', '0', '02', '01', '12'];
    const key = ['textonly', '16f_151k', '32f_151k'];
    const grids = sets.map((s, i) =>
      g(
        `M${String(i).padStart(2, '0')}`,
        's',
        [...s].map((c) => key[Number(c)]!),
      ),
    );
    const want = bruteProposal(grids);
    expect(want).toEqual({ configs: ['textonly', '16f_151k'], models: ['M00', 'M02', 'M04', 'M06', 'M08', 'M10', 'M11', 'M12', 'M15'] });
    const p = proposeMatchedGrid(grids);
    expect(p.models).toEqual(want.models);
    expect(p.configs).toEqual(want.configs);
  });
  it('models with nothing in common: some single model with its one config (score 1), not an empty grid', () => {
    const p = proposeMatchedGrid(Array.from({ length: 17 }, (_, i) => g(`M${String(i + 1).padStart(2, '0')}`, 's', [`${i + 1}f_151k`])));
    expect(score(p)).toBe(1);
    expect(p.leftOut).toHaveLength(16);
  });
});

describe('proposeMatchedGrid: pixel budgets (docs/release-format.md "matched grid")', () => {
  const A = (split: string) => g('A', split, ['textonly', '16f_151k', '32f_151k']);
  it('a split with text-only results is not another protocol: the model lacks the visual configs there', () => {
    const p = proposeMatchedGrid([A('s1'), A('s2'), g('C', 's1', ['textonly', '16f_151k', '32f_151k']), g('C', 's2', ['textonly', '128f_input224'])]);
    expect(p.models).toEqual(['A']);
    expect(p.leftOut).toEqual([{ model: 'C', reason: 'lacks 16f_151k, 32f_151k on s2' }]);
  });
  it('a split with visual results only at the common budget counts against a model that lacks configs there', () => {
    const p = proposeMatchedGrid([A('s1'), A('s2'), g('C', 's1', ['textonly', '16f_151k', '32f_151k']), g('C', 's2', ['32f_151k'])]);
    expect(p.models).toEqual(['A']);
    expect(p.leftOut).toEqual([{ model: 'C', reason: 'lacks textonly, 16f_151k on s2' }]);
  });
  it('a model whose only results are at another budget has none of the common configs', () => {
    const p = proposeMatchedGrid([A('s'), g('C', 's', ['128f_input224'])]);
    expect(p.models).toEqual(['A']);
    expect(p.configs).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(p.leftOut).toEqual([{ model: 'C', reason: 'lacks textonly, 16f_151k, 32f_151k on s' }]);
  });
  it('with text-only grids, an empty grid on a split means no results there', () => {
    const p = proposeMatchedGrid([g('A', 's1', ['textonly']), g('A', 's2', []), g('B', 's1', ['textonly']), g('B', 's2', ['textonly'])]);
    expect(p.models).toEqual(['B']);
    expect(p.configs).toEqual(['textonly']);
  });
  it('with visual grids too, an empty grid on a split means no results there, not another protocol', () => {
    // [].every(…) is true: an empty grid must not pass for "all results at another budget".
    const p = proposeMatchedGrid([g('A', 's1', ['textonly', '16f_151k']), g('A', 's2', []), g('B', 's1', ['textonly', '16f_151k']), g('B', 's2', ['textonly', '16f_151k'])]);
    expect(p.models).toEqual(['B']);
    expect(p.configs).toEqual(['textonly', '16f_151k']);
    expect(p.leftOut).toEqual([{ model: 'A', reason: expect.stringContaining('lacks textonly, 16f_151k on s2') as string }]);
  });
});

describe('proposeMatchedGrid: reasons for leaving a model out', () => {
  it('lists each split in code-point order, joined by "; ", and notes a ceiling only when every missing config is above it', () => {
    const grids = [
      g('A', 's2', L4),
      g('A', 's1', L4),
      g('C', 's2', L4),
      g('C', 's1', L4),
      // B: 16f is below its 32 frames, 64f above: not a context ceiling.
      g('B', 's2', ['textonly', '32f_151k']),
      g('B', 's1', ['textonly', '32f_151k']),
    ];
    const p = proposeMatchedGrid(grids);
    expect(p.models).toEqual(['A', 'C']); // 4 × 2 = 8 beats {t, 32f} × 3 = 6
    expect(p.leftOut).toEqual([{ model: 'B', reason: 'lacks 16f_151k, 64f_151k on s1; lacks 16f_151k, 64f_151k on s2' }]);
  });
  it('no ceiling note when a missing config has exactly as many frames as the most the model has there', () => {
    const p = proposeMatchedGrid([g('A', 's', L4), g('C', 's', L4), g('B', 's', ['textonly', '16f_151k', '32f_76k'])]);
    expect(p.models).toEqual(['A', 'C']); // 4 × 2 = 8 beats {t, 16f} × 3 = 6
    expect(p.leftOut).toEqual([{ model: 'B', reason: 'lacks 32f_151k, 64f_151k on s' }]);
  });
  it('when no model has any common config on every split, no grid is formed and everyone is left out', () => {
    const p = proposeMatchedGrid([g('A', 's1', ['16f_151k']), g('B', 's2', ['16f_151k'])]);
    expect(p.configs).toEqual([]);
    expect(p.models).toEqual([]);
    expect(p.leftOut.map((x) => x.model)).toEqual(['A', 'B']);
    for (const x of p.leftOut) expect(x.reason).toBe(`${x.model}: no matched grid could be formed`);
  });
});

describe('matchedGridMetrics edges', () => {
  it('no matrices: an empty result over the grid as given', () => {
    expect(matchedGridMetrics([], L4)).toEqual({ split: '', configs: L4, itemIds: [], perModel: [], leftOut: [] });
  });
  it('every model lacking a grid config: all left out, no items, the grid as given', () => {
    const a = fromPatterns(['textonly', '16f_151k'], ['11']);
    const r = matchedGridMetrics([a], L4);
    expect(r).toEqual({ split: 'S', configs: L4, itemIds: [], perModel: [], leftOut: [{ model: 'M', missing: ['32f_151k', '64f_151k'] }] });
  });
  it('takes multiple-choice matrices only, saying what needs them', () => {
    const open = createMatrix({ model: 'O', split: 'S', kind: 'open', itemIds: ['a'], configs: L4.map((k) => makeConfigSpec(k)) });
    expect(() => matchedGridMetrics([open], L4)).toThrow('matched-grid metrics needs a multiple-choice matrix; O / S is open');
  });
  it('names both splits when they differ', () => {
    const a = fromPatterns(L4, ['1111']);
    const b = fromPatterns(L4, ['1111']);
    b.split = 'X';
    expect(() => matchedGridMetrics([a, b], L4)).toThrow('a matched grid is per split: got S and X');
  });
  it('matched items come in code-point order of their ids (docs/release-format.md row order), whatever the rows order', () => {
    const a = fromPatterns(L4, ['1111', '0000', '1010', '0101'], ['q2', 'q10', 'q1', '\u{1F600}']);
    a.model = 'A';
    const b = fromPatterns(L4, ['1111', '1111', '1111', '1111'], ['\u{1F600}', 'q1', 'q2', 'q10']);
    b.model = 'B';
    const r = matchedGridMetrics([a, b], L4);
    expect(r.itemIds).toEqual(['q1', 'q10', 'q2', '\u{1F600}']);
    expect(r.perModel.map((x) => x.metrics.n)).toEqual([4, 4]);
  });
});
