/**
 * Config keys as the importers make and check them (docs/formats.md "One config identity",
 * "File names"): parsing without throwing, keys from a file's frames and pixels, a `--config`
 * that contradicts the file, and the `@variant` a file name adds.
 */
import { describe, expect, it } from 'vitest';
import { guessWarning, keyFor, parseKey, pixelLabelFor, resolveConfigKey, specFor, withVariant } from '../../../electron/importers/config-keys';
import { refusalOf, whereOf } from './helpers';
import { config } from '../../config-spec';

describe('parseKey, keyFor, pixelLabelFor, specFor', () => {
  it('parses a key into frames and pixels, and gives null for what is not one', () => {
    expect(parseKey('16f_151k')).toEqual({ frames: 16, pixelLabel: '151k', pixelCount: 151000 });
    expect(parseKey('8f')).toEqual({ frames: 8, pixelLabel: null, pixelCount: null });
    expect(parseKey('textonly')).toEqual({ frames: 0, pixelLabel: null, pixelCount: 0 });
    expect(parseKey('8f@subs')).toEqual({ frames: 8, pixelLabel: null, pixelCount: null });
    for (const bad of ['', '0f', 'f16', '16', 'sixteen', '16f_', '8f@']) expect(parseKey(bad)).toBeNull();
  });

  it('makes a key from frames and a pixel label', () => {
    expect([keyFor(16), keyFor(16, null), keyFor(16, '151k'), keyFor(0), keyFor(0, '151k')]).toEqual(['16f', '16f', '16f_151k', 'textonly', 'textonly']);
  });

  it('labels a positive whole pixel count, and nothing else', () => {
    expect([pixelLabelFor(151000), pixelLabelFor(151200), pixelLabelFor(50176), pixelLabelFor(999), pixelLabelFor(1)]).toEqual(['151k', '151k', '50k', '999', '1']);
    expect([pixelLabelFor(0), pixelLabelFor(-5), pixelLabelFor(1.5), pixelLabelFor(Number.NaN), pixelLabelFor(2 ** 60), pixelLabelFor(null), pixelLabelFor(undefined)]).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('fills a spec from its key, unknown fields null', () => {
    expect(specFor('16f_151k')).toEqual(config('16f_151k', 16, 151000));
    expect(specFor('8f', { toolkit: 'avsd', sampling: { policy: 'random', seed: 1, fps: null } })).toMatchObject({
      key: '8f',
      toolkit: 'avsd',
      sampling: { policy: 'random', seed: 1, fps: null },
    });
  });
});

describe('resolveConfigKey', () => {
  it("makes the key from the file's frames and pixels", () => {
    expect(resolveConfigKey('r.json', { frames: 32, pixels: 151200 }, undefined)).toBe('32f_151k');
    expect(resolveConfigKey('r.json', { frames: 32, pixels: null }, undefined)).toBe('32f');
    expect(resolveConfigKey('r.json', { frames: 0, pixels: null }, undefined)).toBe('textonly');
    expect(resolveConfigKey('r.json', { frames: 32, pixels: null }, '')).toBe('32f');
  });

  it('takes a --config that agrees with the file, or any when the file says nothing', () => {
    expect(resolveConfigKey('r.json', { frames: 32, pixels: 151000 }, '32f_input224')).toBe('32f_input224');
    expect(resolveConfigKey('r.json', { frames: null, pixels: null }, '8f@subs')).toBe('8f@subs');
    expect(resolveConfigKey('r.json', { frames: 0, pixels: null }, 'textonly@subs')).toBe('textonly@subs');
  });

  it('refuses a --config that is no key or says other frames, and a file without frames and --config', () => {
    expect(whereOf(refusalOf(() => resolveConfigKey('runs/r.json', { frames: 32, pixels: null, line: 4 }, 'lots')))).toEqual([
      'runs/r.json',
      4,
      'config',
      '--config lots is not textonly, <frames>f or <frames>f_<pixels>',
    ]);
    expect(whereOf(refusalOf(() => resolveConfigKey('runs/r.json', { frames: 32, pixels: null, line: 4, field: 'nframes', what: 'its nframes' }, '16f_151k')))).toEqual([
      'runs/r.json',
      4,
      'nframes',
      'config 16f_151k means 16 frames but its nframes says 32',
    ]);
    expect(whereOf(refusalOf(() => resolveConfigKey('runs/r.json', { frames: 0, pixels: null }, '8f')))).toEqual([
      'runs/r.json',
      0,
      'config',
      'config 8f means 8 frames but the source says 0',
    ]);
    expect(whereOf(refusalOf(() => resolveConfigKey('runs/r.json', { frames: null, pixels: 100, line: 2, field: 'x' }, undefined)))).toEqual([
      'runs/r.json',
      2,
      'config',
      'frame budget unknown: the file does not state it; pass --config (e.g. 16f)',
    ]);
  });
});

describe('withVariant and guessWarning', () => {
  it("adds a file name's variant unless the key names one, and refuses one that is no variant", () => {
    expect([
      withVariant('f', '8f', 'subs'),
      withVariant('f', '8f', null),
      withVariant('f', '8f', ''),
      withVariant('f', '8f@x', 'subs'),
      withVariant('f', 'textonly', 'subs'),
    ]).toEqual(['8f@subs', '8f', '8f', '8f@x', 'textonly@subs']);
    expect(whereOf(refusalOf(() => withVariant('runs/M_X_8frame_a b.xlsx', '8f', 'a b')))).toEqual([
      'runs/M_X_8frame_a b.xlsx',
      0,
      'config',
      'the file name\'s suffix "a b" is not a config variant (letters, digits, _ . -); pass --config',
    ]);
  });

  it('says where a guessed model name came from', () => {
    expect(guessWarning('runs/Foo_Bar_8frame.xlsx', 'Foo')).toBe(
      'runs/Foo_Bar_8frame.xlsx: model "Foo" is the file name\'s first "_" part (the dataset part is not one Flipbook knows); pass --model if the model\'s name has underscores',
    );
  });
});
