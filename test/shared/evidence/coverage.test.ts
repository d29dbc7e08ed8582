import { describe, expect, it } from 'vitest';
import { evidenceCoverage } from '../../../shared/evidence/coverage';
import { frameTimestamps, sampleFrames } from '../../../shared/samplers/index';

describe('evidenceCoverage', () => {
  const configs = [
    { config: 'textonly', timestamps: [] },
    { config: '8f', timestamps: [0, 10, 20, 30] },
    { config: '16f', timestamps: [25, 5, 15, 0, 10, 20, 30, 35] }, // unsorted on purpose
  ];

  it('lists the configs with a sampled frame inside each span, in config order', () => {
    const out = evidenceCoverage(
      [
        { startS: 4, endS: 6 },
        { startS: 11, endS: 14 },
        { startS: 9, endS: 11 },
      ],
      configs,
    );
    expect(out).toEqual([
      { span: 0, coveredBy: ['16f'] },
      { span: 1, coveredBy: [] },
      { span: 2, coveredBy: ['8f', '16f'] },
    ]);
  });

  it('treats span boundaries as inclusive, including a zero-length span', () => {
    expect(evidenceCoverage([{ startS: 30, endS: 35 }], configs)[0]!.coveredBy).toEqual(['8f', '16f']);
    expect(evidenceCoverage([{ startS: 20, endS: 20 }], configs)[0]!.coveredBy).toEqual(['8f', '16f']);
    expect(evidenceCoverage([{ startS: 35.0001, endS: 99 }], configs)[0]!.coveredBy).toEqual([]);
  });

  it('handles no spans and no configs', () => {
    expect(evidenceCoverage([], configs)).toEqual([]);
    expect(evidenceCoverage([{ startS: 0, endS: 1 }], [])).toEqual([{ span: 0, coveredBy: [] }]);
  });

  it('rejects reversed or non-finite spans', () => {
    expect(() => evidenceCoverage([{ startS: 5, endS: 4 }], configs)).toThrow(/span #0: end 4 is before start 5/);
    expect(() => evidenceCoverage([{ startS: Number.NaN, endS: 4 }], configs)).toThrow(/span #0/);
  });

  it('agrees with a brute-force scan on sampler output', () => {
    const fps = 25;
    const total = 750;
    const cfgs = [4, 8, 16, 32, 64].map((n) => ({
      config: `${n}f`,
      timestamps: frameTimestamps(sampleFrames('uniform-linspace-round', { total, n }), { fps }),
    }));
    for (let start = 0; start < 30; start += 0.37) {
      for (const len of [0, 0.2, 0.5, 1, 3]) {
        const got = evidenceCoverage([{ startS: start, endS: start + len }], cfgs)[0]!.coveredBy;
        const brute = cfgs.filter((c) => c.timestamps.some((t) => t >= start && t <= start + len)).map((c) => c.config);
        expect(got).toEqual(brute);
      }
    }
  });
});
