/**
 * The per_item.csv reader's field decoders on their own (docs/release-format.md
 * "labels/per_item.csv"): counts, numbers in a range, frame indices, and a config's frame and
 * pixel counts checked against its key and its earlier rows, each refusal as file:line: field.
 */
import { describe, expect, it } from 'vitest';
import { configError, countBytes, parseCount, parseFrameIndices, parseUnit } from '../../../electron/importers/per-item-fields';
import { refusalOf, whereOf } from './helpers';

describe('counts', () => {
  it('reads up to 12 decimal digits, from text and from bytes alike', () => {
    const cases: [string, number][] = [
      ['0', 0],
      ['7', 7],
      ['0042', 42],
      ['999999999999', 999999999999],
      ['', NaN],
      ['1234567890123', NaN],
      ['-1', NaN],
      ['1.5', NaN],
      [' 1', NaN],
      ['1a', NaN],
      ['/', NaN],
      [':', NaN],
    ];
    for (const [s, n] of cases) {
      expect(parseCount(s), JSON.stringify(s)).toBe(n);
      const buf = Buffer.from(`x,${s},y`);
      expect(countBytes(buf, 2, 2 + s.length), JSON.stringify(s)).toBe(n);
    }
  });
});

describe('parseUnit', () => {
  it('reads a number within its range, empty as none, and refuses the rest naming the field', () => {
    expect([parseUnit('f', 1, 'confidence', '0', 0, 1), parseUnit('f', 1, 'confidence', '1', 0, 1), parseUnit('f', 1, 'margin', '-0.5', -1, 1)]).toEqual([0, 1, -0.5]);
    expect(parseUnit('f', 1, 'confidence', '', 0, 1)).toBeNaN();
    for (const s of ['1.01', '-0.01', 'x', 'Infinity', 'NaN']) {
      expect(whereOf(refusalOf(() => parseUnit('runs/per_item.csv', 4, 'confidence', s, 0, 1))), s).toEqual([
        'runs/per_item.csv',
        4,
        'confidence',
        `expected a number in [0, 1], got ${JSON.stringify(s)}`,
      ]);
    }
  });
});

describe('parseFrameIndices', () => {
  it('reads space-separated integers, extra spaces ignored, empty as none', () => {
    expect(parseFrameIndices('f', 1, '0 8  16 ')).toEqual([0, 8, 16]);
    expect(parseFrameIndices('f', 1, ' ')).toEqual([]);
    expect(parseFrameIndices('f', 1, '')).toBeNull();
    expect(whereOf(refusalOf(() => parseFrameIndices('runs/per_item.csv', 5, '0 8,16')))).toEqual([
      'runs/per_item.csv',
      5,
      'frame_indices',
      'expected space-separated integers, got "8,16"',
    ]);
    expect(refusalOf(() => parseFrameIndices('f', 5, '0 -1')).reason).toBe('expected space-separated integers, got "-1"');
  });
});

describe('configError', () => {
  it("takes a config whose frame_count its key states, and keeps the first row's counts", () => {
    expect(configError('f', 2, undefined, '16f_151k', '16', '150528')).toEqual({ key: '16f_151k', frames: 16, pixelCount: 150528, line: 2 });
    expect(configError('f', 3, undefined, 'textonly', '0', '')).toEqual({ key: 'textonly', frames: 0, pixelCount: -1, line: 3 });
    const seen = { key: '8f', frames: 8, pixelCount: -1, line: 2 };
    expect(configError('f', 9, seen, '8f', '8', '')).toBe(seen);
  });

  it('refuses counts that are no counts, a key that is none, and counts that contradict the key or an earlier row', () => {
    const at = (seen: Parameters<typeof configError>[2], config: string, fc: string, pc: string) =>
      whereOf(refusalOf(() => configError('runs/per_item.csv', 7, seen, config, fc, pc)));
    expect(at(undefined, '8f', 'eight', '')).toEqual(['runs/per_item.csv', 7, 'frame_count', 'expected a non-negative integer, got "eight"']);
    expect(at(undefined, '8f', '8', '1.5')).toEqual(['runs/per_item.csv', 7, 'pixel_count', 'expected a non-negative integer or empty, got "1.5"']);
    expect(at(undefined, 'eight', '8', '')).toEqual(['runs/per_item.csv', 7, 'config', 'config "eight" is not textonly, <frames>f or <frames>f_<pixels>']);
    expect(at(undefined, '8f', '16', '')).toEqual(['runs/per_item.csv', 7, 'frame_count', 'config 8f means 8 frames but frame_count is 16']);
    expect(at({ key: '8f@x', frames: 4, pixelCount: -1, line: 2 }, '8f@x', '8', '')).toEqual([
      'runs/per_item.csv',
      7,
      'frame_count',
      'config 8f@x had frame_count 4 at line 2, here 8',
    ]);
    expect(at({ key: '8f', frames: 8, pixelCount: -1, line: 2 }, '8f', '8', '100')).toEqual([
      'runs/per_item.csv',
      7,
      'pixel_count',
      'config 8f had pixel_count null at line 2, here 100',
    ]);
    expect(at({ key: '8f', frames: 8, pixelCount: 100, line: 3 }, '8f', '8', '')).toEqual([
      'runs/per_item.csv',
      7,
      'pixel_count',
      'config 8f had pixel_count 100 at line 3, here null',
    ]);
    expect(at({ key: '8f', frames: 8, pixelCount: 0, line: 3 }, '8f', '8', '1')).toEqual(['runs/per_item.csv', 7, 'pixel_count', 'config 8f had pixel_count 0 at line 3, here 1']);
  });
});
