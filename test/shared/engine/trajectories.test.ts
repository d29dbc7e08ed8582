import { beforeAll, describe, expect, it } from 'vitest';
import { classifyTrajectory, TRAJECTORY_CLASSES, trajectories, trajectoryColumns } from '../../../shared/engine/trajectories';
import { anyHarm, isTerminalRegression, isTextOverwritten, loadRow, planGrid } from '../../../shared/engine/grid-plan';
import { fromPatterns, randomPatterns } from './helpers';

const LADDER = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

describe('classifyTrajectory', () => {
  it('classifies by switches along config order', () => {
    expect(classifyTrajectory([1, 1, 1])).toBe('always_correct');
    expect(classifyTrajectory([0, 0, 0])).toBe('always_wrong');
    expect(classifyTrajectory([0, 0, 1])).toBe('monotonic_increasing');
    expect(classifyTrajectory([1, 0, 0])).toBe('monotonic_decreasing');
    expect(classifyTrajectory([0, 1, 0])).toBe('oscillating');
    expect(classifyTrajectory([1, 0, 1, 1])).toBe('oscillating');
    expect(classifyTrajectory([1])).toBe('always_correct');
    expect(classifyTrajectory([0])).toBe('always_wrong');
  });
});

describe('trajectories', () => {
  // written in code-point column order on purpose: patterns come back in config order
  const m = fromPatterns(['16f_151k', '32f_151k', '64f_151k', 'textonly', '128f_151k'], ['01101', '1.110', '00000', '11110'], ['a', 'b', 'c', 'd']);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let t!: ReturnType<typeof trajectories>;
  beforeAll(() => {
    t = trajectories(m, { matchedGrid: LADDER });
  });
  it('patterns in config order with . for missing, class for complete rows only', () => {
    expect(t.map((x) => x.pattern)).toEqual(['00111', '11.10', '00000', '11110']);
    expect(t.map((x) => x.complete)).toEqual([true, false, true, true]);
    expect(t.map((x) => x.trajectoryClass)).toEqual(['monotonic_increasing', null, 'always_wrong', 'monotonic_decreasing']);
  });
  it('flags', () => {
    expect(t.map((x) => x.isVisuallyConfused)).toEqual([false, true, false, true]);
    expect(t.map((x) => x.isTextOverwritten)).toEqual([false, true, false, true]);
    expect(t.map((x) => x.terminalRegression)).toEqual([false, true, false, true]);
  });
  it('best config: first correct in config order, else the first config; matched grid likewise', () => {
    expect(t.map((x) => x.bestConfig)).toEqual(['32f_151k', 'textonly', 'textonly', 'textonly']);
    expect(t.map((x) => x.matchedGridBestConfig)).toEqual(['32f_151k', 'textonly', 'textonly', 'textonly']);
    const only64 = trajectories(fromPatterns(['textonly', '64f_151k', '128f_151k'], ['001']), { matchedGrid: ['textonly', '64f_151k'] });
    expect(only64[0]!.bestConfig).toBe('128f_151k');
    expect(only64[0]!.matchedGridBestConfig).toBe('textonly');
  });
  it('matched grid best is null when the model lacks a matched config or none is set', () => {
    const llava = fromPatterns(['textonly', '8f_151k', '16f_151k', '32f_151k'], ['0111']);
    expect(trajectories(llava, { matchedGrid: LADDER })[0]!.matchedGridBestConfig).toBeNull();
    expect(trajectories(llava)[0]!.matchedGridBestConfig).toBeNull();
  });
  it('sub-grid option and a single config', () => {
    const s = trajectories(m, { grid: ['64f_151k', '16f_151k'] });
    expect(s.map((x) => x.pattern)).toEqual(['01', '11', '00', '11']);
    const one = trajectories(fromPatterns(['16f'], ['1', '0', '.']));
    expect(one.map((x) => [x.pattern, x.trajectoryClass, x.bestConfig])).toEqual([
      ['1', 'always_correct', '16f'],
      ['0', 'always_wrong', '16f'],
      ['.', null, '16f'],
    ]);
  });
});

describe('trajectoryColumns', () => {
  const m = fromPatterns(['16f_151k', '32f_151k', '64f_151k', 'textonly', '128f_151k'], ['01101', '1.110', '00000', '11110'], ['a', 'b', 'c', 'd']);
  it('holds the same per-row values as trajectories, as typed arrays over key lists', () => {
    const c = trajectoryColumns(m, { matchedGrid: LADDER });
    expect(c.keys).toEqual(['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k']);
    expect(c.matchedKeys).toEqual(LADDER);
    expect([...c.complete]).toEqual([1, 0, 1, 1]);
    expect([...c.trajectoryClass].map((i) => (i < 0 ? null : TRAJECTORY_CLASSES[i]))).toEqual(['monotonic_increasing', null, 'always_wrong', 'monotonic_decreasing']);
    expect([...c.visuallyConfused]).toEqual([0, 1, 0, 1]);
    expect([...c.textOverwritten]).toEqual([0, 1, 0, 1]);
    expect([...c.terminalRegression]).toEqual([0, 1, 0, 1]);
    expect([...c.best].map((j) => c.keys[j])).toEqual(['32f_151k', 'textonly', 'textonly', 'textonly']);
    expect([...c.matchedBest]).toEqual([2, 0, 0, 0]);
  });
  it('matchedBest is −1 without an applicable matched grid', () => {
    const c = trajectoryColumns(fromPatterns(['textonly', '8f_151k'], ['01']), { matchedGrid: LADDER });
    expect(c.matchedKeys).toBeNull();
    expect([...c.matchedBest]).toEqual([-1]);
  });
});

describe('trajectoryColumns against the grid-plan flag tests', () => {
  // Random grids (missing cells, mixed resolutions, text only) checked row by row against
  // loadRow / anyHarm / isTextOverwritten / isTerminalRegression / classifyTrajectory.
  // Up to 9 configs each outcome pattern is evaluated once (a table); wider grids row by row.
  const narrow = ['16f_151k', 'textonly', '32f_151k', '64f_151k', '32f_302k', '128f_76k'];
  const wide = [...narrow, '8f_151k', '16f_302k', '64f_302k', '128f_151k', '256f_76k'];
  const MATCHED = ['textonly', '16f_151k', '32f_151k'];
  for (const [seed, missing, grid, keys] of [
    [1, 0, null, narrow],
    [2, 0.15, null, narrow],
    [3, 0.05, ['textonly', '32f_151k', '128f_76k'], narrow],
    [4, 0.05, null, wide],
    [5, 0.1, ['textonly', '32f_151k', '128f_76k', '16f_302k', '64f_302k', '128f_151k', '256f_76k', '8f_151k', '32f_302k'], wide],
  ] as const) {
    it(`seed ${seed}, missing ${missing}, ${keys.length} configs, grid ${grid ? grid.join('+') : 'all'}`, () => {
      const m = fromPatterns(keys, randomPatterns(300, keys.length, seed, missing));
      const c = trajectoryColumns(m, { grid, matchedGrid: MATCHED });
      const plan = planGrid(m, grid);
      const matched = planGrid(m, MATCHED);
      const ym = new Int8Array(matched.cols.length);
      const y = new Int8Array(plan.cols.length);
      for (let i = 0; i < m.itemIds.length; i++) {
        loadRow(m, plan, i, y);
        const complete = !y.includes(-1);
        const first = y.indexOf(1);
        expect([c.complete[i], c.trajectoryClass[i], c.visuallyConfused[i], c.textOverwritten[i], c.terminalRegression[i], c.best[i]], `row ${i}`).toEqual([
          complete ? 1 : 0,
          complete ? TRAJECTORY_CLASSES.indexOf(classifyTrajectory(y)) : -1,
          anyHarm(y, plan.lowerPairs) ? 1 : 0,
          isTextOverwritten(y, plan) ? 1 : 0,
          isTerminalRegression(y, plan) ? 1 : 0,
          first < 0 ? 0 : first,
        ]);
        // The matched grid's configs may lie outside the grid (seed 3).
        loadRow(m, matched, i, ym);
        expect(c.matchedBest[i], `row ${i} matched best`).toBe(Math.max(0, ym.indexOf(1)));
      }
    });
  }
});
