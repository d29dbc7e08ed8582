/**
 * assertSafeNames (electron/store/import-names.ts): the gate every batch's model and split
 * names pass before a project is written — here for names only items carry (a metadata file).
 */
import { describe, expect, it } from 'vitest';
import type { ImportBatch, ItemMeta } from '../../../shared/domain/types';
import { ImportError } from '../../../electron/importers/errors';
import { assertSafeNames } from '../../../electron/store/import-names';

const batch = (items: ItemMeta[]): ImportBatch => ({
  run: { sourcePath: 'meta.json', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null },
  items,
  responses: [],
  configs: [],
  warnings: [],
});

const item = (split: string, sampleId: string, line: number): ItemMeta => ({ split, sampleId, line });

describe('split names of items', () => {
  it('refuses an unsafe split however many items of a safe one come first, naming its line', () => {
    const items = [...Array.from({ length: 50 }, (_, i) => item('V1_short', `q${i}`, i + 2)), item('../x', 'q50', 52), item('V1_short', 'q51', 53)];
    let caught: unknown = null;
    try {
      assertSafeNames([batch(items)]);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ImportError);
    expect(caught).toMatchObject({ file: 'meta.json', line: 52, field: 'split' });
  });

  it('checks a split that comes back after another one, and accepts safe ones', () => {
    expect(() => assertSafeNames([batch([item('A', 'q1', 2), item('B', 'q2', 3), item('A', 'q3', 4)])])).not.toThrow();
    expect(() => assertSafeNames([batch([item('A', 'q1', 2), item('nul', 'q2', 3), item('A', 'q3', 4), item('nul', 'q4', 5)])])).toThrow(/meta\.json:3: split/);
    // --split replaces every item's split: the items' own names are not checked.
    expect(() => assertSafeNames([batch([item('../x', 'q1', 2)])], { split: 'S' })).not.toThrow();
  });
});
