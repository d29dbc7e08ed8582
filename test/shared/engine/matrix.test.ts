import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { completeRows, configIndex, createMatrix, gridColumns, subMatrix, commonConfigKeys } from '../../../shared/engine/matrix';
import { fromPatterns } from './helpers';

describe('response matrix', () => {
  it('createMatrix: config order, all cells missing, duplicates rejected', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: ['a', 'b'], configs: ['32f_151k', 'textonly', '16f_151k'].map((k) => makeConfigSpec(k)) });
    expect(m.configs.map((c) => c.key)).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(Array.from(m.correct)).toEqual([-1, -1, -1, -1, -1, -1]);
    expect(Number.isNaN(m.score[5]!)).toBe(true);
    expect(() => createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: ['a', 'a'], configs: [] })).toThrow(/"a" appears twice/);
    expect(() => createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: [], configs: [makeConfigSpec('16f'), makeConfigSpec('16f')] })).toThrow(/"16f" appears twice/);
  });
  it('completeRows over all configs or a sub-grid', () => {
    const m = fromPatterns(['textonly', '16f', '32f'], ['1.1', '111', '..0', '000']);
    expect(completeRows(m)).toEqual({ rows: Int32Array.from([1, 3]), nExcluded: 2 });
    expect(completeRows(m, ['textonly', '32f'])).toEqual({ rows: Int32Array.from([0, 1, 3]), nExcluded: 1 });
    expect(() => completeRows(m, ['64f'])).toThrow(/"64f" is not in M \/ S/);
    expect(() => gridColumns(m, ['16f', '16f'])).toThrow(/twice/);
    expect(Array.from(gridColumns(m, ['32f', 'textonly']))).toEqual([0, 2]);
  });
  it('open-ended matrices use NaN scores as missing', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'open', itemIds: ['a', 'b'], configs: [makeConfigSpec('16f')] });
    m.score[0] = 0.5;
    expect(completeRows(m).rows).toEqual(Int32Array.from([0]));
  });
  it('subMatrix copies the chosen configs and rows', () => {
    const m = fromPatterns(['textonly', '16f', '32f'], ['101', '011', '110']);
    m.confidence[configIndex(m, '32f')] = 0.7;
    const s = subMatrix(m, ['32f', 'textonly'], [0, 2]);
    expect(s.itemIds).toEqual(['q000', 'q002']);
    expect(s.configs.map((c) => c.key)).toEqual(['textonly', '32f']);
    expect(Array.from(s.correct)).toEqual([1, 1, 1, 0]);
    expect(s.confidence[1]).toBe(0.7);
    expect(commonConfigKeys([m, s])).toEqual(['textonly', '32f']);
  });
});
