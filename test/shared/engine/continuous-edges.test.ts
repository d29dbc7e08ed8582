/**
 * Continuous trajectories at their edges (docs/metrics.md §4): ε exactly at a step, a regression
 * or a transition (strict inequalities), missing and all-missing rows, an empty grid, a terminal
 * config first in config order, the ε parameter, and every field against a brute-force
 * recomputation from §4's definitions on seeded random scores.
 */
import { describe, expect, it } from 'vitest';
import { isLowerBudget, ladder, terminalConfig } from '../../../shared/engine/config';
import { checkEps, type ContinuousClass, continuousTrajectories, DEFAULT_EPS } from '../../../shared/engine/continuous';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { mulberry32 } from '../../../shared/engine/prng';
import { fromScores } from './helpers';

const UP = '+';
const DOWN = '\u2212';

describe('checkEps', () => {
  it('accepts every finite ε ≥ 0 and refuses the rest', () => {
    for (const eps of [0, 0.05, 1, 7]) expect(() => checkEps(eps)).not.toThrow();
    for (const eps of [-0.01, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(() => checkEps(eps)).toThrow(/ε must be a finite number ≥ 0/);
  });
});

describe('continuousTrajectories', () => {
  it('ε defaults to 0.05 and the value used is written in the result (§4)', () => {
    const m = fromScores(['textonly', '8f'], [[0.5, 0.56]]);
    const byDefault = continuousTrajectories(m);
    expect(DEFAULT_EPS).toBe(0.05);
    expect(byDefault.eps).toBe(0.05);
    expect(byDefault.rows[0]!.pattern).toBe(UP); // 0.56 > 0.5 + 0.05
    const wide = continuousTrajectories(m, { eps: 0.1 });
    expect(wide.eps).toBe(0.1);
    expect(wide.rows[0]!.pattern).toBe('=');
    expect(continuousTrajectories(m, { eps: 0 }).eps).toBe(0);
    expect(() => continuousTrajectories(m, { eps: Number.NaN })).toThrow(/ε/);
  });

  it('a difference of exactly ε is neither a step, a regression, a terminal regression nor a transition', () => {
    // ε = 0.25 and scores in quarters/eighths: every sum below is exact in binary, so each
    // comparison sits exactly on §4's strict inequality. Ladder textonly → 8f → 16f; terminal 16f.
    const m = fromScores(
      ['textonly', '8f', '16f'],
      [
        [0.25, 0.5, 0.75], // up by exactly ε twice
        [0.75, 0.5, 0.5], // down by exactly ε; terminal exactly ε below the max
        [0.5, 0.875, 0.5], // just past ε each way
      ],
    );
    const t = continuousTrajectories(m, { eps: 0.25 });
    expect(t.rows.map((r) => r.pattern)).toEqual(['==', '==', UP + DOWN]);
    expect(t.rows.map((r) => r.trajectoryClass)).toEqual(['flat', 'flat', 'oscillating']);
    // Row 2: 8f → 16f falls by 0.375 > ε, and 16f ends 0.375 below the best; textonly → 16f is level.
    expect(t.rows.map((r) => r.regressed)).toEqual([false, false, true]);
    expect(t.rows.map((r) => r.terminalRegression)).toEqual([false, false, true]);
    expect(t.rows.map((r) => r.bestConfig)).toEqual(['16f', 'textonly', '8f']);
    // Row 0: textonly → 16f rises by 0.5 > ε; its two ladder steps rise by exactly ε.
    expect(t.rows.map((r) => [r.improvedOn, r.regressedOn])).toEqual([
      [['textonly>16f'], []],
      [[], []],
      [['textonly>8f'], ['8f>16f']],
    ]);
    expect(t.tallies).toEqual({ complete: 3, regressed: 1, terminalRegressions: 1, classes: { flat: 2, monotonic_increasing: 0, monotonic_decreasing: 0, oscillating: 1 } });
  });

  it('missing cells: `.` steps, no class, no first score, flags from the cells present only', () => {
    const m = fromScores(
      ['textonly', '8f', '16f'],
      [
        [null, null, null],
        [null, 0.5, 0.9],
        [0.9, null, 0.2],
        [0.1, 0.14, 0.18],
      ],
    );
    const t = continuousTrajectories(m);
    expect(t.rows.map((r) => r.pattern)).toEqual(['..', '.+', '..', '==']);
    expect(t.rows.map((r) => r.first)).toEqual([null, null, 0.9, 0.1]);
    expect(t.rows.map((r) => r.complete)).toEqual([false, false, false, true]);
    expect(t.rows.map((r) => r.trajectoryClass)).toEqual([null, null, null, 'flat']);
    expect(t.rows.map((r) => r.regressed)).toEqual([false, false, true, false]);
    expect(t.rows.map((r) => r.terminalRegression)).toEqual([false, false, true, false]);
    expect(t.rows.map((r) => r.bestConfig)).toEqual([null, '16f', 'textonly', '16f']);
    // Row 3: textonly → 16f rises by 0.08 > ε although each step is within ε.
    expect(t.rows.map((r) => [r.improvedOn, r.regressedOn])).toEqual([
      [[], []],
      [['8f>16f'], []],
      [[], ['textonly>16f']],
      [['textonly>16f'], []],
    ]);
    expect(t.tallies).toEqual({ complete: 1, regressed: 0, terminalRegressions: 0, classes: { flat: 1, monotonic_increasing: 0, monotonic_decreasing: 0, oscillating: 0 } });
  });

  it('an empty grid: no steps, no terminal config, no complete rows', () => {
    const m = createMatrix({ model: 'M', split: 'GEN', kind: 'open', itemIds: ['g0', 'g1'], configs: [] });
    const t = continuousTrajectories(m);
    expect(t.terminalConfig).toBeNull();
    expect(t.rows).toEqual(
      ['g0', 'g1'].map((sampleId, row) => ({
        sampleId,
        row,
        pattern: '',
        first: null,
        complete: false,
        trajectoryClass: null,
        regressed: false,
        terminalRegression: false,
        bestConfig: null,
        improvedOn: [],
        regressedOn: [],
      })),
    );
    expect(t.tallies).toEqual({ complete: 0, regressed: 0, terminalRegressions: 0, classes: { flat: 0, monotonic_increasing: 0, monotonic_decreasing: 0, oscillating: 0 } });
  });

  it('a terminal config first in config order still counts', () => {
    // 64f_100k (6.4M pixels) and 4f_1000k (4M): one config at each ppf, so the smaller ppf leads the
    // config order (§1), while the terminal config is the largest frames × ppf (§2): the first one.
    // The two are not ordered either way, so nothing regresses and there is no transition.
    const m = fromScores(
      ['64f_100k', '4f_1000k'],
      [
        [0.2, 0.9],
        [0.9, 0.2],
      ],
    );
    const t = continuousTrajectories(m);
    expect(t.plan.keys).toEqual(['64f_100k', '4f_1000k']);
    expect(t.terminalConfig).toBe('64f_100k');
    expect(t.rows.map((r) => r.terminalRegression)).toEqual([true, false]);
    expect(t.rows.map((r) => r.regressed)).toEqual([false, false]);
    expect(t.rows.map((r) => r.pattern)).toEqual([UP, DOWN]);
    expect(t.rows.map((r) => [r.improvedOn, r.regressedOn])).toEqual([
      [[], []],
      [[], []],
    ]);
    expect(t.tallies.terminalRegressions).toBe(1);
  });

  it('a one-config grid is its own terminal config and never regresses', () => {
    const t = continuousTrajectories(fromScores(['16f'], [[0.4], [null]]));
    expect(t.terminalConfig).toBe('16f');
    expect(t.rows.map((r) => [r.pattern, r.first, r.complete, r.trajectoryClass, r.terminalRegression, r.bestConfig])).toEqual([
      ['', 0.4, true, 'flat', false, '16f'],
      ['', null, false, null, false, null],
    ]);
  });

  for (const [seed, eps] of [
    [7, 0.25],
    [20240611, 0.125],
    [99, 0.05],
  ] as const) {
    it(`every field matches §4 recomputed by brute force (seed ${seed}, ε = ${eps})`, () => {
      // Mixed resolutions: a ladder at 151k, an iso-compute pair off it, an unknown-ppf config.
      const keys = ['textonly', '8f_151k', '16f_151k', '32f_151k', '32f_302k', '64f_76k', '24f'];
      const rand = mulberry32(seed);
      // Scores in eighths so that many differences land exactly on ε (exact in binary).
      const rows = Array.from({ length: 80 }, () => keys.map(() => (rand() < 0.08 ? null : Math.floor(rand() * 9) / 8)));
      const m = fromScores(keys, rows);
      const t = continuousTrajectories(m, { eps });
      const specs = m.configs;
      const G = specs.length;
      const order = specs.map((c) => c.key);
      expect(t.plan.keys).toEqual(order);
      const term = terminalConfig(specs)!;
      expect(t.terminalConfig).toBe(term.key);
      // §2's transition list: adjacent ladder rungs, then text → every other visual config.
      const rungs = ladder(specs).map((c) => c.key);
      const transitions = rungs.slice(1).map((b, i) => [rungs[i]!, b] as const);
      for (const c of order.slice(1)) if (!transitions.some(([a, b]) => a === 'textonly' && b === c)) transitions.push(['textonly', c]);
      expect(transitions.length).toBeGreaterThan(rungs.length - 1);

      const tallies = { complete: 0, regressed: 0, terminalRegressions: 0, classes: { flat: 0, monotonic_increasing: 0, monotonic_decreasing: 0, oscillating: 0 } };
      const seen = { up: 0, down: 0, same: 0, missing: 0, regressed: 0, terminal: 0, allMissing: 0 };
      m.itemIds.forEach((id, r) => {
        const s = order.map((k) => {
          const v = m.score[r * G + configIndex(m, k)]!;
          return Number.isNaN(v) ? null : v;
        });
        const present = s.filter((v): v is number => v !== null);
        const complete = present.length === G;
        const steps = s.slice(1).map((b, j) => {
          const a = s[j]!;
          return a === null || b === null ? '.' : b > a + eps ? UP : b < a - eps ? DOWN : '=';
        });
        const up = steps.includes(UP);
        const down = steps.includes(DOWN);
        const cls: ContinuousClass | null = !complete ? null : up && down ? 'oscillating' : up ? 'monotonic_increasing' : down ? 'monotonic_decreasing' : 'flat';
        let regressed = false;
        specs.forEach((a, i) =>
          specs.forEach((b, j) => {
            if (isLowerBudget(a, b) && s[i] !== null && s[j] !== null && s[j]! < s[i]! - eps) regressed = true;
          }),
        );
        const max = Math.max(...present);
        const sT = s[order.indexOf(term.key)] ?? null;
        const terminal = sT !== null && sT < max - eps;
        const best = present.length === 0 ? null : order[s.indexOf(max)]!;
        const improvedOn: string[] = [];
        const regressedOn: string[] = [];
        for (const [a, b] of transitions) {
          const sa = s[order.indexOf(a)]!;
          const sb = s[order.indexOf(b)]!;
          if (sa === null || sb === null) continue;
          if (sb > sa + eps) improvedOn.push(`${a}>${b}`);
          else if (sb < sa - eps) regressedOn.push(`${a}>${b}`);
        }
        expect(t.rows[r]).toEqual({
          sampleId: id,
          row: r,
          pattern: steps.join(''),
          first: s[0],
          complete,
          trajectoryClass: cls,
          regressed,
          terminalRegression: terminal,
          bestConfig: best,
          improvedOn,
          regressedOn,
        });
        if (complete) {
          tallies.complete++;
          if (regressed) tallies.regressed++;
          if (terminal) tallies.terminalRegressions++;
          tallies.classes[cls!]++;
        }
        seen.up += steps.filter((x) => x === UP).length;
        seen.down += steps.filter((x) => x === DOWN).length;
        seen.same += steps.filter((x) => x === '=').length;
        seen.missing += steps.filter((x) => x === '.').length;
        if (regressed) seen.regressed++;
        if (terminal) seen.terminal++;
        if (present.length === 0) seen.allMissing++;
      });
      expect(t.rows).toHaveLength(rows.length);
      expect(t.tallies).toEqual(tallies);
      // The draw exercises every kind of step and both flags (a guard against a vacuous check).
      expect(Math.min(seen.up, seen.down, seen.same, seen.missing, seen.regressed, seen.terminal)).toBeGreaterThan(0);
    });
  }
});
