// Edges of the §3 trajectories the main suite leaves open: grids the engine refuses, an empty
// matched grid, wide grids (evaluated row by row) without a matched grid, and a grid at the
// width limit of the packed row flags. Everything is computed inside `it` so a failing call fails
// its test (not the file's collection).
import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { TRAJECTORY_CLASSES, trajectories, trajectoryColumns } from '../../../shared/engine/trajectories';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { fromPatterns } from './helpers';

const LADDER = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

/** One item per pattern over `frames.length` configs `<f>f_151k` (one resolution, so ordered by frames). */
function framesMatrix(frames: number, rows: ((j: number) => number)[]): { m: ResponseMatrix; keys: string[] } {
  const keys = Array.from({ length: frames }, (_, j) => `${j + 1}f_151k`);
  const m = createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: rows.map((_, i) => `w${i}`), configs: keys.map((k) => makeConfigSpec(k)) });
  const C = m.configs.length;
  const cols = keys.map((k) => configIndex(m, k));
  rows.forEach((f, i) => cols.forEach((c, j) => (m.correct[i * C + c] = f(j))));
  return { m, keys };
}

describe('trajectoryColumns: refused inputs', () => {
  it('an empty grid or an open-ended matrix, with messages that say so', () => {
    const m = fromPatterns(LADDER, ['0101']);
    expect(() => trajectoryColumns(m, { grid: [] })).toThrow(/^trajectories need at least one config \(M \/ S has none in the grid\)$/);
    expect(() => trajectories(m, { grid: [] })).toThrow(/at least one config/);
    m.kind = 'open';
    expect(() => trajectoryColumns(m)).toThrow(/^trajectories needs a multiple-choice matrix; M \/ S is open$/);
  });
});

describe('matched grid (docs/metrics.md §3 matched_grid_best_config)', () => {
  it('an empty matched grid is no matched grid', () => {
    const m = fromPatterns(LADDER, ['0101', '0000']);
    const c = trajectoryColumns(m, { matchedGrid: [] });
    expect(c.matchedKeys).toBeNull();
    expect([...c.matchedBest]).toEqual([-1, -1]);
    expect(trajectories(m, { matchedGrid: [] }).map((t) => t.matchedGridBestConfig)).toEqual([null, null]);
  });

  it('wide grids (row by row) keep matchedBest at −1 without a matched grid', () => {
    const wide = ['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '16f_302k', '32f_302k', '64f_302k', '128f_76k', '256f_76k'];
    // config order: textonly, the 151k configs by frames, then 128f_76k, 16f_302k, 256f_76k, 32f_302k, 64f_302k
    const m = fromPatterns(wide, ['00100000000', '00000000000', '0000000001.']);
    for (const opts of [{}, { matchedGrid: null }, { matchedGrid: [] }, { matchedGrid: ['textonly', '1f_151k'] }]) {
      const c = trajectoryColumns(m, opts);
      expect(c.matchedKeys).toBeNull();
      expect([...c.matchedBest]).toEqual([-1, -1, -1]);
      expect(trajectories(m, opts).map((t) => t.matchedGridBestConfig)).toEqual([null, null, null]);
    }
    // …and fill it when there is one: the first correct matched config in config order, else the first
    const c = trajectoryColumns(m, { matchedGrid: ['16f_151k', 'textonly', '128f_76k', '32f_151k'] });
    expect(c.matchedKeys).toEqual(['textonly', '16f_151k', '32f_151k', '128f_76k']);
    expect([...c.matchedBest]).toEqual([1, 0, 3]);
    expect([...c.best].map((j) => c.keys[j])).toEqual(['16f_151k', 'textonly', '128f_76k']);
  });

  it('a matched grid that is the grid itself, first config included, on a small grid (pattern table)', () => {
    const m = fromPatterns(LADDER, ['1000', '0001', '0000', '.100']);
    const c = trajectoryColumns(m, { matchedGrid: LADDER });
    expect(c.matchedKeys).toEqual(LADDER);
    expect([...c.matchedBest]).toEqual([0, 3, 0, 1]);
    expect([...c.best]).toEqual([0, 3, 0, 1]);
  });
});

describe('trajectories: no items', () => {
  it('an empty matrix has no trajectories and empty columns', () => {
    const m = fromPatterns(LADDER, []);
    expect(trajectories(m, { matchedGrid: LADDER })).toEqual([]);
    const c = trajectoryColumns(m);
    expect(c.complete.length).toBe(0);
    expect([...c.tallies]).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('the width limit of the packed row flags (positions in 10 bits)', () => {
  it('1023 configs: best and matched best at the last position still come back', () => {
    const G = 1023;
    const { m, keys } = framesMatrix(G, [
      (j) => (j === G - 1 ? 1 : 0), // only the terminal config right: increasing, nothing harmed
      () => 0, // always wrong
      (j) => (j === 0 ? 1 : 0), // only the lowest right: decreasing, confused, terminal regression
      (j) => (j === 5 ? -1 : 1), // incomplete
    ]);
    // the grid's first and last configs as the matched grid (both already grid columns)
    const matchedGrid = [keys[G - 1]!, keys[0]!];
    const c = trajectoryColumns(m, { matchedGrid });
    expect(c.keys).toEqual(keys);
    expect(c.matchedKeys).toEqual([keys[0], keys[G - 1]]);
    expect([...c.complete]).toEqual([1, 1, 1, 0]);
    expect([...c.trajectoryClass].map((k) => (k < 0 ? null : TRAJECTORY_CLASSES[k]))).toEqual(['monotonic_increasing', 'always_wrong', 'monotonic_decreasing', null]);
    expect([...c.best]).toEqual([G - 1, 0, 0, 0]);
    expect([...c.matchedBest]).toEqual([1, 0, 0, 0]);
    expect([...c.visuallyConfused]).toEqual([0, 0, 1, 0]);
    expect([...c.terminalRegression]).toEqual([0, 0, 1, 0]);
    expect([...c.textOverwritten]).toEqual([0, 0, 0, 0]);
    const t = trajectories(m, { matchedGrid });
    expect(t.map((x) => [x.bestConfig, x.matchedGridBestConfig])).toEqual([
      [keys[G - 1], keys[G - 1]],
      [keys[0], keys[0]],
      [keys[0], keys[0]],
      [keys[0], keys[0]],
    ]);
    expect(t[3]!.pattern).toBe('11111.' + '1'.repeat(G - 6));
  });

  it('1024 configs are refused', () => {
    const { m } = framesMatrix(1024, [() => 1]);
    expect(() => trajectoryColumns(m)).toThrow(/^trajectories: M \/ S has more than 1023 configs$/);
  });
});
