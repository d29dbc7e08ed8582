/**
 * Config specs during an import (electron/store/import-configs.ts, docs/formats.md "One config
 * identity"): frames read from a key, the spec of a key only responses name, a stored config
 * checked and filled by a later one, and the warning for a config that looks like another
 * under a different key.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createConfigUpserter, framesFromKey, nearDuplicateConfigWarnings, specFromKey } from '../../../electron/store/import-configs';
import { openProject } from '../../../electron/store/index';
import type { ConfigSpec } from '../../../shared/domain/types';
import { config, importRefusal, tempDir } from './helpers';

const db = () => openProject(path.join(tempDir('flipbook-configs-'), 'p.flipbook'), { create: true }).db;
const refusal = (f: () => unknown): string => importRefusal(f).message;
const stored = (d: ReturnType<typeof db>, key: string) => d.prepare('SELECT * FROM configs WHERE key = ?').get(key);

describe('frames from a key', () => {
  it('text only (any protocol) is 0, `<n>f` and `<n>f_…` are n, anything else names none', () => {
    const cases: [string, number | null][] = [
      ['textonly', 0],
      ['textonly@subs', 0],
      ['16f', 16],
      ['16f_151k', 16],
      ['128f_input224@random', 128],
      ['16f@random', null],
      ['x16f', null],
      ['16fps', null],
      ['textonly_x', null],
      ['mytextonly@a', null],
      ['', null],
    ];
    for (const [key, frames] of cases) expect(framesFromKey(key), key).toBe(frames);
  });
});

describe('the spec of a key only responses name', () => {
  it('takes its frames from the key and its toolkit and arguments from the run; text only has 0 pixels', () => {
    const run = { toolkit: 'lmms-eval', modelArgs: 'max_pixels=151200' };
    expect(specFromKey('32f_151k', run, 'a.jsonl', 3)).toEqual({
      key: '32f_151k',
      frames: 32,
      pixelCount: null,
      width: null,
      height: null,
      sampling: { policy: null, seed: null, fps: null },
      pipeline: null,
      toolkit: 'lmms-eval',
      modelArgs: 'max_pixels=151200',
      notes: null,
    });
    expect(specFromKey('textonly', run, 'a.jsonl', 3)).toMatchObject({ frames: 0, pixelCount: 0 });
  });

  it('a key that names no frame count is refused, naming file and line', () => {
    expect(refusal(() => specFromKey('default', { toolkit: null, modelArgs: null }, 'a.jsonl', 4))).toBe(
      'a.jsonl:4: config: config "default" does not name its frame count and the file gives none (use --config)',
    );
  });
});

describe('a config stored, then met again', () => {
  it('a new one is stored whole; a key whose frames contradict its name is refused', () => {
    const d = db();
    const upsert = createConfigUpserter(d);
    const spec: ConfigSpec = {
      ...config('16f_151k', 16, 151000),
      width: 448,
      height: 336,
      sampling: { policy: 'uniform-center', seed: 7, fps: null },
      pipeline: 'raw',
      notes: 'n',
    };
    const id = upsert(spec, 'a.csv', 2);
    expect(stored(d, '16f_151k')).toMatchObject({
      id,
      frames: 16,
      pixel_count: 151000,
      width: 448,
      height: 336,
      sampling_policy: 'uniform-center',
      sampling_seed: 7,
      pipeline: 'raw',
      notes: 'n',
    });
    expect(refusal(() => upsert(config('16f_151k', 32), 'b.csv', 5))).toBe('b.csv:5: config: config "16f_151k" names 16 frames but its frame count is 32');
  });

  it('a later spec fills what the stored one lacks and changes nothing it has', () => {
    const d = db();
    const upsert = createConfigUpserter(d);
    const id = upsert(config('16f', 16, null), 'a.csv', 2);
    expect(upsert({ ...config('16f', 16, 50176), width: 224, toolkit: 'vlmevalkit' }, 'b.csv', 2)).toBe(id);
    expect(upsert({ ...config('16f', 16, null), width: 999, toolkit: 'other' }, 'c.csv', 2)).toBe(id);
    expect(stored(d, '16f')).toMatchObject({ pixel_count: 50176, width: 224, toolkit: 'vlmevalkit' });
  });

  it('other frames, or another pixel count, than the stored config is refused — unless both round to its `<n>k` label', () => {
    const d = db();
    const upsert = createConfigUpserter(d);
    upsert(config('16f', 16, 50176), 'a.csv', 2);
    upsert({ ...config('x', 0), key: 'custom', frames: 8, pixelCount: 1000 }, 'a.csv', 2);
    expect(refusal(() => upsert({ ...config('x', 0), key: 'custom', frames: 9, pixelCount: 1000 }, 'b.csv', 3))).toBe(
      'b.csv:3: config: config "custom" has 9 frames here but 8 in the project',
    );
    expect(refusal(() => upsert(config('16f', 16, 50000), 'b.csv', 4))).toBe('b.csv:4: pixel_count: config "16f" has 50000 pixels per frame here but 50176 in the project');
    // `151k`: 151000 stored, lmms-eval's 151200 is the same budget; the stored count stays.
    const id = upsert(config('32f_151k', 32, 151000), 'a.csv', 2);
    expect(upsert(config('32f_151k', 32, 151200), 'c.csv', 2)).toBe(id);
    expect(stored(d, '32f_151k')).toMatchObject({ pixel_count: 151000 });
    expect(refusal(() => upsert(config('32f_151k', 32, 152000), 'c.csv', 6))).toBe(
      'c.csv:6: pixel_count: config "32f_151k" has 152000 pixels per frame here but 151000 in the project',
    );
    // Not a `<n>k` label: no rounding.
    upsert(config('8f_50176', 8, 50176), 'a.csv', 2);
    expect(refusal(() => upsert(config('8f_50176', 8, 50177), 'd.csv', 7))).toMatch(/^d\.csv:7: pixel_count: /);
  });
});

describe('near-duplicate configs', () => {
  const warning = (key: string, px: number, other: string, otherPx: number) =>
    `config ${key} (${px} pixels per frame) is a near-duplicate of ${other} (${otherPx}): the same frames and a pixel budget within 1%, under another key, so their grids do not join; if they are one setting, import with --config ${other}`;

  it('the same frames and protocol with a budget within 1% of a stored config, under another key', () => {
    const d = db();
    const upsert = createConfigUpserter(d);
    upsert(config('32f_151k', 32, 151000), 'a.csv', 2);
    upsert(config('32f_151k@random', 32, 151000), 'a.csv', 2);
    upsert(config('32f_input224', 32, null), 'a.csv', 2);
    const warnings = nearDuplicateConfigWarnings(d, [{ configs: [config('32f_151200', 32, 151200), config('32f_151k', 32, 151000)] }]);
    expect(warnings).toEqual([warning('32f_151200', 151200, '32f_151k', 151000)]);
  });

  it('none for other frames, another protocol, a budget beyond 1%, an unknown budget, or text only', () => {
    const d = db();
    const upsert = createConfigUpserter(d);
    upsert(config('32f_151k', 32, 151000), 'a.csv', 2);
    upsert(config('textonly', 0), 'a.csv', 2);
    const candidates = [
      config('16f_151200', 16, 151200),
      config('32f_151200@random', 32, 151200),
      config('32f_153k', 32, 153000),
      config('32f_x', 32, null),
      { ...config('textonly@subs', 0), pixelCount: 0 },
    ];
    expect(nearDuplicateConfigWarnings(d, [{ configs: candidates }])).toEqual([]);
    // Exactly 1% off is still near.
    expect(nearDuplicateConfigWarnings(d, [{ configs: [config('32f_152510', 32, 152510)] }])).toEqual([warning('32f_152510', 152510, '32f_151k', 151000)]);
  });

  it('within one import too, each pair said once', () => {
    const d = db();
    const warnings = nearDuplicateConfigWarnings(d, [{ configs: [config('8f_50176', 8, 50176), config('8f_50k', 8, 50000)] }, { configs: [config('8f_50k', 8, 50000)] }]);
    expect(warnings).toEqual([warning('8f_50k', 50000, '8f_50176', 50176)]);
  });
});
