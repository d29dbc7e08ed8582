/**
 * The grid plan (docs/metrics.md §1 dominance, §2 flags) against a brute-force reading of the spec:
 * every pair a ≺ b, the text column, the visual columns, the terminal config and the configs below it.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigSpec, OutcomeMatrix } from '../../../shared/domain/types';
import { makeConfigSpec, terminalConfig } from '../../../shared/engine/config';
import { anyHarm, assertKind, isTerminalRegression, isTextOverwritten, loadRow, planGrid } from '../../../shared/engine/grid-plan';
import { configIndex } from '../../../shared/engine/matrix';
import { fromPatterns, randomPatterns } from './helpers';

/** a ≺ b straight from docs/metrics.md §1. */
function lowerBySpec(a: ConfigSpec, b: ConfigSpec): boolean {
  if (a.frames === 0 || b.frames === 0) return a.frames === 0 && b.frames > 0;
  const [pa, pb] = [a.pixelCount, b.pixelCount];
  if (pa === null && pb === null) return a.frames < b.frames;
  if (pa === null || pb === null) return false;
  return a.frames <= b.frames && pa <= pb && (a.frames < b.frames || pa < pb);
}

const GRIDS: readonly (readonly string[])[] = [
  ['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '256f_151k', '128f_76k', '32f_302k', '64f_235k', '64f_360k', '64f_76k'],
  ['16f_151k', '32f_151k', '64f_151k@random', '64f_151k'],
  ['textonly', '16f', '32f', '64f'],
  ['32f_302k', '128f_76k'],
  ['64f_151k'],
  ['textonly'],
];

describe('planGrid', () => {
  for (const grid of GRIDS) {
    it(`matches the spec on ${grid.join(', ')}`, () => {
      const m = fromPatterns(grid, []);
      const plan = planGrid(m, grid);
      const specs = plan.specs;
      expect(specs.map((c) => c.key).sort()).toEqual([...grid].sort());
      expect(plan.keys).toEqual(specs.map((c) => c.key));
      expect(Array.from(plan.cols)).toEqual(specs.map((c) => configIndex(m, c.key)));
      const lower: number[] = [];
      const visual: number[] = [];
      for (let a = 0; a < specs.length; a++) {
        for (let b = 0; b < specs.length; b++) {
          if (!lowerBySpec(specs[a]!, specs[b]!)) continue;
          lower.push(a, b);
          if (specs[a]!.frames > 0) visual.push(a, b);
        }
      }
      expect(Array.from(plan.lowerPairs)).toEqual(lower);
      expect(Array.from(plan.visualPairs)).toEqual(visual);
      expect(plan.textPos).toBe(specs.findIndex((c) => c.frames === 0));
      expect(Array.from(plan.visualPos)).toEqual(specs.flatMap((c, i) => (c.frames > 0 ? [i] : [])));
      const term = terminalConfig(specs)!;
      expect(plan.terminalPos).toBe(specs.indexOf(term));
      expect(Array.from(plan.belowTerminal)).toEqual(specs.flatMap((c, i) => (lowerBySpec(c, term) ? [i] : [])));
    });
  }

  it('a one-config grid has no pairs and nothing below its terminal', () => {
    const plan = planGrid(fromPatterns(['textonly', '64f_151k'], []), ['64f_151k']);
    expect(plan.terminalPos).toBe(0);
    expect(Array.from(plan.belowTerminal)).toEqual([]);
    expect(Array.from(plan.visualPos)).toEqual([0]);
    expect(plan.textPos).toBe(-1);
  });

  it('an empty grid has no text, no terminal and no pairs', () => {
    const plan = planGrid(fromPatterns(['textonly', '16f'], []), []);
    expect(plan.textPos).toBe(-1);
    expect(plan.terminalPos).toBe(-1);
    expect(plan.lowerPairs.length + plan.visualPairs.length + plan.visualPos.length + plan.belowTerminal.length).toBe(0);
    const y = new Int8Array(0);
    expect(isTextOverwritten(y, plan)).toBe(false);
    expect(isTerminalRegression(y, plan)).toBe(false);
  });
});

describe('row flags (docs/metrics.md §2)', () => {
  it('loadRow writes the grid cells only, in grid order', () => {
    const keys = ['64f', 'textonly', '16f', '32f'];
    const m = fromPatterns(keys, ['1.01', '0110']);
    const plan = planGrid(m, ['32f', 'textonly', '16f']);
    expect(plan.keys).toEqual(['textonly', '16f', '32f']);
    const y = new Int8Array(4).fill(7);
    loadRow(m, plan, 0, y);
    expect(Array.from(y)).toEqual([-1, 0, 1, 7]);
    loadRow(m, plan, 1, y);
    expect(Array.from(y)).toEqual([1, 1, 0, 7]);
  });

  it('text overwrite and terminal regression on hand-made rows', () => {
    const plan = planGrid(fromPatterns(['textonly', '16f', '32f'], []), null);
    const flags = (row: number[]) => {
      const y = Int8Array.from(row);
      return [isTextOverwritten(y, plan), isTerminalRegression(y, plan), anyHarm(y, plan.lowerPairs), anyHarm(y, plan.visualPairs)];
    };
    expect(flags([1, 1, 0])).toEqual([true, true, true, true]);
    expect(flags([1, 0, 1])).toEqual([true, false, true, false]);
    expect(flags([0, 1, 0])).toEqual([false, true, true, true]);
    expect(flags([1, 1, 1])).toEqual([false, false, false, false]);
    expect(flags([1, -1, -1])).toEqual([false, false, false, false]);
    expect(flags([-1, 1, 0])).toEqual([false, true, true, true]);
  });

  it('terminal regression and text overwrite need the terminal / text column itself', () => {
    // A text-free grid: no text overwrite whatever the row.
    const noText = planGrid(fromPatterns(['16f', '32f'], []), null);
    expect(isTextOverwritten(Int8Array.from([1, 0]), noText)).toBe(false);
    // The terminal config placed first (a matrix whose configs are not in config order).
    const m: OutcomeMatrix = {
      model: 'M',
      split: 'S',
      kind: 'mcqa',
      itemIds: ['q'],
      configs: [makeConfigSpec('32f'), makeConfigSpec('textonly')],
      correct: Int8Array.from([0, 1]),
    };
    const plan = planGrid(m, null);
    expect(plan.terminalPos).toBe(0);
    expect(Array.from(plan.belowTerminal)).toEqual([1]);
    expect(isTerminalRegression(Int8Array.from([0, 1]), plan)).toBe(true);
    expect(isTerminalRegression(Int8Array.from([1, 1]), plan)).toBe(false);
  });

  it('agree with brute force over the Qwen grid on seeded rows with missing cells (seed 99)', () => {
    const grid = GRIDS[0]!;
    const rows = randomPatterns(300, grid.length, 99, 0.1);
    const m = fromPatterns(grid, rows);
    const plan = planGrid(m, grid);
    const y = new Int8Array(grid.length);
    const text = plan.specs.findIndex((c) => c.frames === 0);
    const term = terminalConfig(plan.specs)!;
    const t = plan.specs.indexOf(term);
    rows.forEach((_, i) => {
      loadRow(m, plan, i, y);
      const at = (c: ConfigSpec) => y[plan.specs.indexOf(c)];
      const harm = (visualOnly: boolean) => plan.specs.some((a) => (!visualOnly || a.frames > 0) && at(a) === 1 && plan.specs.some((b) => lowerBySpec(a, b) && at(b) === 0));
      expect(anyHarm(y, plan.lowerPairs)).toBe(harm(false));
      expect(anyHarm(y, plan.visualPairs)).toBe(harm(true));
      expect(isTextOverwritten(y, plan)).toBe(y[text] === 1 && plan.specs.some((c) => c.frames > 0 && at(c) === 0));
      expect(isTerminalRegression(y, plan)).toBe(y[t] === 0 && plan.specs.some((c) => lowerBySpec(c, term) && at(c) === 1));
    });
  });
});

describe('assertKind', () => {
  const mcqa = { model: 'M', split: 'S', kind: 'mcqa' as const };
  const open = { model: 'M', split: 'S', kind: 'open' as const };
  it('passes the right kind and names the needed kind otherwise', () => {
    expect(() => assertKind(mcqa, 'mcqa', 'X')).not.toThrow();
    expect(() => assertKind(open, 'open', 'X')).not.toThrow();
    expect(() => assertKind(open, 'mcqa', 'MCQA metrics')).toThrow(/^MCQA metrics needs a multiple-choice matrix; M \/ S is open$/);
    expect(() => assertKind(mcqa, 'open', 'Token-F1')).toThrow(/^Token-F1 needs an open-ended matrix; M \/ S is mcqa$/);
  });
});
