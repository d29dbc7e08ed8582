import { beforeAll, describe, expect, it } from 'vitest';
import { openMetrics } from '../../../shared/engine/open-ended';
import { fromPatterns, fromScores } from './helpers';

describe('openMetrics', () => {
  const keys = ['textonly', '16f_151k', '32f_151k'];
  const m = fromScores(keys, [
    [0.2, 0.5, 0.4], // 32f < 16f − 0.05? 0.4 < 0.45 yes → regression
    [0.5, 0.5, 0.48], // within ε
    [1, 0, 1], // text>16f regression
    [0.1, null, 0.3], // excluded
  ]);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let r!: ReturnType<typeof openMetrics>;
  beforeAll(() => {
    r = openMetrics(m);
  });
  it('means, best fixed, oracle gap', () => {
    expect(r.n).toBe(3);
    expect(r.nExcluded).toBe(1);
    expect(r.eps).toBe(0.05);
    expect(r.mean['textonly']).toBeCloseTo(1.7 / 3, 14);
    expect(r.mean['16f_151k']).toBeCloseTo(1.0 / 3, 14);
    expect(r.mean['32f_151k']).toBeCloseTo(1.88 / 3, 14);
    expect(r.bestFixed).toBe('32f_151k');
    expect(r.oracleMean).toBeCloseTo((0.5 + 0.5 + 1) / 3, 14);
    expect(r.oracleGapPts).toBeCloseTo((100 * (2 - 1.88)) / 3, 10);
  });
  it('regression rate and transitions with ε', () => {
    expect(r.regressionRate).toBeCloseTo(2 / 3, 15);
    expect(r.transitions.map((t) => [t.from, t.to, t.improved, t.regressed])).toEqual([
      ['textonly', '16f_151k', 1, 1],
      ['16f_151k', '32f_151k', 1, 1],
      ['textonly', '32f_151k', 1, 0],
    ]);
    const loose = openMetrics(m, null, 0.2);
    expect(loose.regressionRate).toBeCloseTo(1 / 3, 15);
    expect(loose.eps).toBe(0.2);
    expect(() => openMetrics(m, null, -1)).toThrow(/ε/);
  });
  it('on 0/1 MCQA data equals the MCQA oracle headroom', () => {
    const q = openMetrics(fromPatterns(keys, ['010', '100', '011']));
    expect(q.oracleGapPts).toBeCloseTo(100 / 3, 12);
    expect(q.regressionRate).toBeCloseTo(2 / 3, 15);
  });
});
