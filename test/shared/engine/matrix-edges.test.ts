import { describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { commonConfigKeys, configIndex, createMatrix, gridColumns, sortedItemOrder, subMatrix } from '../../../shared/engine/matrix';
import { fromPatterns } from './helpers';

// docs/metrics.md §1: the response matrix holds one cell per (item, config); here cell (i, c) is at
// i × configs + c in every per-cell array, so every such array has exactly items × configs entries.
const cellArrays = (m: ReturnType<typeof createMatrix>) => [m.correct, m.score, m.confidence, m.margin, m.latencyMs, m.frameIndices];

describe('response matrix edges', () => {
  it('createMatrix gives every per-cell array, frame indices included, one empty entry per cell', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: ['a', 'b', 'c'], configs: ['textonly', '16f'].map((k) => makeConfigSpec(k)) });
    for (const arr of cellArrays(m)) expect(arr.length).toBe(6);
    expect(m.frameIndices).toEqual([null, null, null, null, null, null]);
  });
  it('errors name the missing key, the matrix and the configs it has', () => {
    const m = fromPatterns(['textonly', '16f', '32f'], ['111']);
    expect(() => configIndex(m, '64f')).toThrow('config "64f" is not in M / S (it has textonly, 16f, 32f)');
    const empty = createMatrix({ model: 'E', split: 'T', kind: 'mcqa', itemIds: ['a'], configs: [] });
    expect(() => configIndex(empty, '16f')).toThrow('config "16f" is not in E / T (it has no configs)');
    expect(() => gridColumns(m, ['16f', 'textonly', '16f'])).toThrow('grid lists a config twice: 16f, textonly, 16f');
  });
  it('subMatrix copies frame indices, keeps the layout, and rejects rows outside the matrix', () => {
    const m = fromPatterns(['textonly', '16f', '32f'], ['101', '011', '110']);
    const C = m.configs.length;
    const f16 = Int32Array.from([0, 5, 10, 15]);
    const f32 = Int32Array.from([0, 2, 4]);
    m.frameIndices[2 * C + configIndex(m, '16f')] = f16;
    m.frameIndices[0 * C + configIndex(m, '32f')] = f32;
    m.frameIndices[2 * C + configIndex(m, '32f')] = undefined; // a cell may lack the field entirely
    const s = subMatrix(m, ['32f', '16f'], [2, 0]);
    expect(s.itemIds).toEqual(['q002', 'q000']);
    expect(s.configs.map((c) => c.key)).toEqual(['16f', '32f']);
    for (const arr of cellArrays(s)) expect(arr.length).toBe(4);
    // row q002: 16f → f16, 32f → (undefined → null); row q000: 16f → null, 32f → f32
    expect(s.frameIndices).toEqual([f16, null, null, f32]);
    expect(Array.from(s.correct)).toEqual([1, 0, 0, 1]);
    expect(() => subMatrix(m, ['16f'], [0, 3])).toThrow('row 3 is outside M / S');
    expect(() => subMatrix(m, ['16f'], [-1])).toThrow('row -1 is outside M / S');
  });
  it('commonConfigKeys: none for no matrices; a key must be in every matrix, not just one other', () => {
    expect(commonConfigKeys([])).toEqual([]);
    const a = fromPatterns(['textonly', '16f', '32f'], ['111']);
    const b = fromPatterns(['textonly', '16f'], ['11']);
    const c = fromPatterns(['textonly', '32f'], ['11']);
    expect(commonConfigKeys([a, b, c])).toEqual(['textonly']);
    expect(commonConfigKeys([a])).toEqual(['textonly', '16f', '32f']);
  });
  it('sortedItemOrder sorts item ids by code point, not UTF-16 code unit', () => {
    // U+FF61 < U+1F600 by code point, but U+1F600's first code unit (0xD83D) is below 0xFF61.
    const m = createMatrix({ model: 'M', split: 'S', kind: 'mcqa', itemIds: ['b', '\u{1F600}', 'a', '\uFF61'], configs: [] });
    expect(Array.from(sortedItemOrder(m))).toEqual([2, 0, 3, 1]);
  });
});
