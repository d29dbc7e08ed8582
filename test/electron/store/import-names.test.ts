/**
 * assertSafeNames (electron/store/import-names.ts): the gate every batch's model and split
 * names pass before a project is written: names only items carry (a metadata file), names of
 * responses as rows and as columns, and the --model and --split that replace them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportBatch, ItemMeta } from '../../../shared/domain/types';
import { ImportError } from '../../../electron/importers/errors';
import { readImport } from '../../../electron/importers/index';
import { assertSafeNames } from '../../../electron/store/import-names';
import { response, tempDir } from './helpers';

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

describe('model and split names of responses', () => {
  const rows = (...r: [string, string, number][]): ImportBatch => ({
    ...batch([]),
    run: { ...batch([]).run, sourcePath: 'run.jsonl' },
    responses: r.map(([model, split, line]) => response({ model, split, sampleId: 'q1', config: '16f', line })),
  });
  const refused = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return e instanceof ImportError ? [e.file, e.line, e.field] : String(e);
    }
    return null;
  };

  it('each name where it first appears, model and split alike, after any number of safe rows', () => {
    expect(refused(() => assertSafeNames([rows(['M', 'S', 2], ['M', 'S', 3], ['a/b', 'S', 4])]))).toEqual(['run.jsonl', 4, 'model']);
    expect(refused(() => assertSafeNames([rows(['M', 'S', 2], ['M', 'CON', 3])]))).toEqual(['run.jsonl', 3, 'split']);
    // A name that comes back after another is checked again (and passes).
    expect(refused(() => assertSafeNames([rows(['M', 'S', 2], ['N', 'T', 3], ['M', 'S', 4])]))).toBeNull();
    expect(refused(() => assertSafeNames([rows(['M', 'S', 2]), rows(['M', 'nul', 7])]))).toEqual(['run.jsonl', 7, 'split']);
  });

  it('--model and --split replace the names: theirs are checked, the file’s are not', () => {
    const bad = rows(['../m', '../s', 2]);
    expect(refused(() => assertSafeNames([bad], { model: 'M', split: 'S' }))).toBeNull();
    expect(refused(() => assertSafeNames([bad], { model: 'M' }))).toEqual(['run.jsonl', 2, 'split']);
    expect(refused(() => assertSafeNames([bad], { split: 'S' }))).toEqual(['run.jsonl', 2, 'model']);
    expect(refused(() => assertSafeNames([], { model: 'a/b' }))).toEqual(['--model', 0, 'model']);
    expect(refused(() => assertSafeNames([], { split: 'CON' }))).toEqual(['--split', 0, 'split']);
  });

  it('a batch of columns (per_item.csv): each column’s names, at its first line', async () => {
    const dir = tempDir('flipbook-names-');
    const csv = path.join(dir, 'per_item.csv');
    fs.writeFileSync(
      csv,
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n' +
        'q1,M,S,16f_151k,16,150528,A,A,1,,\nq2,M,S,16f_151k,16,150528,A,A,1,,\nq1,M,bad:split,16f_151k,16,150528,A,A,1,,\n',
    );
    const [b] = await readImport(csv, { format: 'per-item-csv' });
    expect(b!.columns?.length).toBe(2);
    expect(refused(() => assertSafeNames([b!]))).toEqual([csv, 4, 'split']);
    expect(refused(() => assertSafeNames([b!], { split: 'S' }))).toBeNull();
  });
});
