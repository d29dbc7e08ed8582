/** Continuous trajectories (docs/metrics.md §4) on hand-worked rows: steps, classes, flags, best config, transitions. */
import { beforeAll, describe, expect, it } from 'vitest';
import { continuousTrajectories } from '../../../shared/engine/continuous';
import { fromScores } from './helpers';

describe('continuousTrajectories', () => {
  // Config order: textonly, 8f, 16f, 32f (one resolution: the ladder); terminal 32f.
  const keys = ['textonly', '8f', '16f', '32f'];
  const m = fromScores(keys, [
    [0.2, 0.5, 0.52, 0.9], //  + = +   increasing; no regression
    [0.9, 0.5, 0.5, 0.5], //   − = =   decreasing; regressed; terminal 0.5 < 0.9 − ε
    [0.3, 0.8, 0.4, 0.8], //   + − +   oscillating; regressed (8f → 16f); terminal 0.8 = best: no
    [0.5, 0.53, 0.49, 0.52], // = = =  flat (steps within ε); 0.49 vs 0.53: not below 0.53 − 0.05
    [0.4, null, 0.6, 0.3], //  . . −   incomplete: no class; terminal 0.3 < 0.6 − ε still flagged
  ]);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let t!: ReturnType<typeof continuousTrajectories>;
  beforeAll(() => {
    t = continuousTrajectories(m);
  });
  const row = (i: number) => t.rows[i]!;

  it('steps, classes and the first score beside the pattern', () => {
    expect(t.rows.map((r) => r.pattern)).toEqual(['+=+', '\u2212==', '+\u2212+', '===', '..\u2212']);
    expect(t.rows.map((r) => r.trajectoryClass)).toEqual(['monotonic_increasing', 'monotonic_decreasing', 'oscillating', 'flat', null]);
    expect(t.rows.map((r) => r.first)).toEqual([0.2, 0.9, 0.3, 0.5, 0.4]);
    expect(t.rows.map((r) => r.complete)).toEqual([true, true, true, true, false]);
  });

  it('regression with budget, terminal regressions and best configs', () => {
    expect(t.terminalConfig).toBe('32f');
    expect(t.rows.map((r) => r.regressed)).toEqual([false, true, true, false, true]);
    expect(t.rows.map((r) => r.terminalRegression)).toEqual([false, true, false, false, true]);
    expect(t.rows.map((r) => r.bestConfig)).toEqual(['32f', 'textonly', '8f', '8f', '16f']);
    expect(t.tallies).toEqual({ complete: 4, regressed: 2, terminalRegressions: 1, classes: { flat: 1, monotonic_increasing: 1, monotonic_decreasing: 1, oscillating: 1 } });
  });

  it('improved / regressed transitions (§2’s list: the ladder, then text → c not on it)', () => {
    expect(row(0)).toMatchObject({ improvedOn: ['textonly>8f', '16f>32f', 'textonly>16f', 'textonly>32f'], regressedOn: [] });
    expect(row(1)).toMatchObject({ improvedOn: [], regressedOn: ['textonly>8f', 'textonly>16f', 'textonly>32f'] });
    expect(row(2)).toMatchObject({ improvedOn: ['textonly>8f', '16f>32f', 'textonly>16f', 'textonly>32f'], regressedOn: ['8f>16f'] });
    expect(row(4)).toMatchObject({ improvedOn: ['textonly>16f'], regressedOn: ['16f>32f', 'textonly>32f'] });
  });

  it('ε is a parameter, and a bad one is refused', () => {
    expect(continuousTrajectories(m, { eps: 0 }).rows[3]!.pattern).toBe('+\u2212+');
    expect(() => continuousTrajectories(m, { eps: -1 })).toThrow(/ε/);
  });
});
