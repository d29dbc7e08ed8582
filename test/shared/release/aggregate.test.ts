import { describe, expect, it } from 'vitest';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';
import { aggregatedJson, aggregatedOpenJson, derivedRows, manifestCells, matchedGridStatus, table2, DERIVED_COLUMNS } from '../../../shared/release/aggregate';
import { fromPatterns } from '../engine/helpers';

const L4 = ['textonly', '16f_151k', '32f_151k', '64f_151k'];

describe('aggregatedJson', () => {
  const m = fromPatterns(L4, ['0111', '1000', '0101', '1111', '0000', '0110', '1.11'], ['b', 'a', 'c', 'e', 'd', 'f', 'g']);
  const j = aggregatedJson(m, { matchedGrid: L4 });
  it("has the release's shape and key order, percentages rounded to 4 decimals", () => {
    expect(Object.keys(j)).toEqual([
      'n',
      'configs',
      'accuracy_by_config',
      'best_fixed',
      'oracle',
      'headroom',
      'visual_confusion_rate',
      'overwrite_rate',
      'matched_grid_status',
      'n_excluded',
    ]);
    expect(j).toEqual({
      n: 6,
      configs: L4,
      accuracy_by_config: { textonly: 33.3333, '16f_151k': 66.6667, '32f_151k': 50, '64f_151k': 50 },
      best_fixed: 66.6667,
      oracle: 83.3333,
      headroom: 16.6667,
      visual_confusion_rate: 50,
      overwrite_rate: 16.6667,
      matched_grid_status: 'complete',
      n_excluded: 1,
    });
  });
  it('matched-grid status and a grid without text (overwrite 0 as the release writes it)', () => {
    expect(aggregatedJson(m, { matchedGrid: [...L4, '128f_151k'] }).matched_grid_status).toBe('incomplete_matched_grid');
    expect(aggregatedJson(m, { matchedGrid: null }).matched_grid_status).toBeNull();
    expect(matchedGridStatus(m, [])).toBeNull();
    const v2 = aggregatedJson(fromPatterns(['128f_input224'], ['1', '0', '0']), { matchedGrid: L4 });
    expect(v2).toMatchObject({ configs: ['128f_input224'], headroom: 0, visual_confusion_rate: 0, overwrite_rate: 0, matched_grid_status: 'incomplete_matched_grid' });
    expect(v2.accuracy_by_config['128f_input224']).toBe(33.3333);
  });
  it('no complete items gives nulls, not NaN', () => {
    const e = aggregatedJson(fromPatterns(L4, ['1.11']), { matchedGrid: null });
    expect(e).toMatchObject({ n: 0, n_excluded: 1, oracle: null, visual_confusion_rate: null, overwrite_rate: null });
  });
});

describe('aggregatedOpenJson', () => {
  it('mean_by_config in place of accuracy_by_config, same ×100 scale', () => {
    const m: ResponseMatrix = createMatrix({ model: 'M', split: 'MLVU', kind: 'open', itemIds: ['x', 'y'], configs: ['textonly', '16f'].map((k) => makeConfigSpec(k)) });
    const C = m.configs.length;
    [
      [0.5, 0.25],
      [0.1, 0.9],
    ].forEach((r, i) =>
      r.forEach((v, j) => {
        m.score[i * C + j] = v;
      }),
    );
    const j = aggregatedOpenJson(m, { matchedGrid: null, metric: 'token_f1' });
    expect(j).toMatchObject({ n: 2, metric: 'token_f1', mean_by_config: { textonly: 30, '16f': 57.5 }, best_fixed: 57.5, oracle: 70, headroom: 12.5, regression_epsilon: 0.05 });
    expect(j.visual_confusion_rate).toBe(50);
    expect(j.overwrite_rate).toBeNull();
  });
});

describe('derivedRows', () => {
  it('one row per complete item, sorted by sample_id code points, CSV values', () => {
    const m = fromPatterns(L4, ['0111', '1000', '1.11', '0011'], ['10-2', '10-10', 'zz', '9-1']);
    const rows = derivedRows(m, ['textonly', '16f_151k']);
    expect(rows.map((r) => r.sample_id)).toEqual(['10-10', '10-2', '9-1']);
    expect(Object.keys(rows[0]!)).toEqual([...DERIVED_COLUMNS]);
    expect(rows[0]).toEqual({
      sample_id: '10-10',
      model: 'M',
      split: 'S',
      is_visually_confused: '1',
      is_text_overwritten: '1',
      trajectory_class: 'monotonic_decreasing',
      best_config: 'textonly',
      matched_grid_best_config: 'textonly',
    });
    expect(rows[1]).toMatchObject({ is_visually_confused: '0', trajectory_class: 'monotonic_increasing', best_config: '16f_151k', matched_grid_best_config: '16f_151k' });
    expect(rows[2]).toMatchObject({ best_config: '32f_151k', matched_grid_best_config: 'textonly' });
    expect(derivedRows(m, ['textonly', '8f_151k'])[0]!.matched_grid_best_config).toBe('');
  });
});

describe('manifestCells and table2', () => {
  it('totals count recorded cells per config, with provenance from the lookup', () => {
    const m = fromPatterns(L4, ['0111', '1.00', '....']);
    const cells = manifestCells(m, (c) => (c === 'textonly' ? { sourceTag: 'official:M:S:textonly', protocolNote: 'note' } : null));
    expect(cells.map((c) => [c.config, c.total, c.correct])).toEqual([
      ['textonly', 2, 1],
      ['16f_151k', 1, 1],
      ['32f_151k', 2, 1],
      ['64f_151k', 2, 1],
    ]);
    expect(cells[0]).toMatchObject({ model: 'M', split: 'S', source_tag: 'official:M:S:textonly', protocol_note: 'note' });
    expect(cells[1]).toMatchObject({ source_tag: '', protocol_note: '' });
  });
  it('table2 orders splits by the given order then code points, models by code points', () => {
    const t = table2(
      [
        { model: 'b', split: 'MLVU', json: 1 },
        { model: 'a', split: 'V1_short', json: 2 },
        { model: 'c', split: 'V1_medium', json: 3 },
        { model: 'a', split: 'V1_medium', json: 4 },
        { model: 'a', split: 'Z', json: 5 },
      ],
      ['V1_medium', 'V1_short'],
    );
    expect(Object.keys(t)).toEqual(['V1_medium', 'V1_short', 'MLVU', 'Z']);
    expect(Object.keys(t['V1_medium']!)).toEqual(['a', 'c']);
    expect(() =>
      table2([
        { model: 'a', split: 's', json: 1 },
        { model: 'a', split: 's', json: 2 },
      ]),
    ).toThrow(/twice/);
  });
});

it('configIndex is exported for callers building matrices', () => {
  expect(configIndex(fromPatterns(L4, ['1111']), '32f_151k')).toBe(2);
});
