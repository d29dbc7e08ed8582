import { beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { flipbook, makeTwoModelProject } from './cli-helpers';

// Ground truth is A everywhere. Outcomes (textonly, 16f, 32f):
//   q1 0 1 1 · q2 1 1 0 · q3 0 0 1 · q4 1 0 1
let project = '';
beforeAll(() => {
  project = makeTwoModelProject('flipbook-cli-metrics-');
});

describe('flipbook metrics', () => {
  it('prints the aggregated metrics and transitions as JSON', () => {
    const r = flipbook('metrics', '--project', project, '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const g = out.grids.find((x: { model: string }) => x.model === 'm1');
    expect(g.metrics).toMatchObject({
      n: 4,
      nExcluded: 0,
      configs: ['textonly', '16f_151k', '32f_151k'],
      accuracy: { textonly: 0.5, '16f_151k': 0.5, '32f_151k': 0.75 },
      bestFixed: '32f_151k',
      oracleAccuracy: 1,
      visualConfusionRate: 0.5,
      textOverwriteRate: 0.5,
    });
    expect(g.metrics.oracleHeadroomPts).toBeCloseTo(25, 9);
    const t = Object.fromEntries(
      g.transitions.map((x: { from: string; to: string; rescued: number; harmed: number; mcnemarP: number }) => [`${x.from}>${x.to}`, [x.rescued, x.harmed, x.mcnemarP]]),
    );
    expect(t['textonly>16f_151k']).toEqual([1, 1, 1]);
    expect(t['16f_151k>32f_151k']).toEqual([2, 1, 1]); // q3, q4 rescued; q2 harmed
    expect(t['textonly>32f_151k']?.slice(0, 2)).toEqual([2, 1]);
    // Proposed matched grid: 2 models × 2 configs (textonly,16f) beats 1 model × 3.
    expect(out.matchedGrid).toMatchObject({ source: 'proposed', configs: ['textonly', '16f_151k'] });
    expect(g.matchedGrid.status).toBe('complete');
    expect(g.matchedGrid.metrics.configs).toEqual(['textonly', '16f_151k']);
  });

  it('uses --matched-grid, then the project setting, and marks incomplete grids', () => {
    const r = flipbook('metrics', '--project', project, '--json', '--matched-grid', 'textonly,16f_151k,32f_151k');
    const out = JSON.parse(r.stdout);
    expect(out.matchedGrid).toMatchObject({ source: 'flag', configs: ['textonly', '16f_151k', '32f_151k'], models: ['m1'] });
    const m2 = out.grids.find((x: { model: string }) => x.model === 'm2');
    expect(m2.matchedGrid).toMatchObject({ status: 'incomplete_matched_grid', missing: ['32f_151k'], metrics: null });

    const p = openProject(project);
    p.setSetting('matchedGrid', ['textonly', '32f_151k']);
    p.close();
    const fromSetting = JSON.parse(flipbook('metrics', '--project', project, '--json').stdout);
    expect(fromSetting.matchedGrid).toMatchObject({ source: 'setting', configs: ['textonly', '32f_151k'] });
    const q = openProject(project);
    q.deleteSetting('matchedGrid');
    q.close();
  });

  it('prints readable tables by default and has --help', () => {
    const r = flipbook('metrics', '--project', project);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('== m1 / S (mcqa, 4 items complete, 0 excluded)');
    expect(r.stdout).toMatch(/textonly → 16f_151k\s+1\s+1/);
    expect(r.stdout).toContain('== matched grid (proposed): textonly, 16f_151k');
    expect(flipbook('metrics', '--help').stdout).toMatch(/Usage: flipbook metrics --project P/);
    expect(flipbook('metrics').code).toBe(2);
  });
});
