/**
 * The project object's own parts (electron/store/project-api.ts): the main protocol by default
 * and by setting, settings and the inputs version they bump, what a read-only project refuses,
 * name lists, media entries, the warnings and notes an import's summary carries, and a clean
 * close folding the WAL back.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ProjectReadOnlyError } from '../../../electron/store/errors';
import { openProject, type Project } from '../../../electron/store/index';
import { MAIN_PROTOCOL_SETTING } from '../../../shared/engine/protocols';
import { batch, config, response, tempDir } from './helpers';

const file = () => path.join(tempDir('flipbook-api-'), 'p.flipbook');
function withGrid(f = file()): Project {
  const p = openProject(f, { create: true });
  const configs = [config('textonly', 0), config('16f@random', 16), config('32f@random', 32), config('8f', 8)];
  p.applyImport(batch('a.csv', { configs, responses: configs.map((c, i) => response({ model: 'zeta', split: 'S2', sampleId: 'q1', config: c.key, line: i + 2, pred: 'A' })) }));
  p.applyImport(batch('b.csv', { configs: [config('8f', 8)], responses: [response({ model: 'alpha', split: 'S1', sampleId: 'q1', config: '8f', line: 2, pred: 'A' })] }));
  return p;
}

describe('the project object', () => {
  it('the main protocol: the default while none is set, the setting once set, the default again when deleted', () => {
    const p = withGrid();
    expect(p.mainProtocol()).toEqual({ name: '', source: 'default' });
    p.setSetting(MAIN_PROTOCOL_SETTING, 'random');
    expect(p.mainProtocol()).toEqual({ name: 'random', source: 'setting' });
    expect(
      p
        .listGrids()
        .find((g) => g.model === 'zeta')!
        .configs.map((c) => c.key),
    ).toEqual(['textonly', '16f@random', '32f@random']);
    p.setSetting(MAIN_PROTOCOL_SETTING, 42);
    expect(p.mainProtocol()).toEqual({ name: '', source: 'default' });
    p.deleteSetting(MAIN_PROTOCOL_SETTING);
    expect(p.mainProtocol().source).toBe('default');
  });

  it('every settings write and import bumps the inputs version; a setting of undefined is refused', () => {
    const p = openProject(file(), { create: true });
    const v0 = p.inputsVersion();
    p.setSetting('k', { a: 1 });
    expect(p.getSetting('k')).toEqual({ a: 1 });
    expect(p.inputsVersion()).toBe(v0 + 1);
    p.deleteSetting('k');
    expect(p.getSetting('k')).toBeUndefined();
    expect(p.inputsVersion()).toBe(v0 + 2);
    expect(() => p.setSetting('k', undefined)).toThrow('setting "k": undefined is not a value (use deleteSetting)');
    expect(p.inputsVersion()).toBe(v0 + 2);
    p.applyImport(batch('a.csv', { configs: [config('8f', 8)], responses: [response({ sampleId: 'q1', config: '8f', line: 2, pred: 'A' })] }));
    expect(p.inputsVersion()).toBe(v0 + 3);
  });

  it('names, configs and items as lists; unknown grids and items are empty', () => {
    const p = withGrid();
    expect(p.listModels()).toEqual(['alpha', 'zeta']);
    expect(p.listSplits()).toEqual(['S1', 'S2']);
    expect(p.listConfigs().map((c) => c.key)).toEqual(['16f@random', '32f@random', '8f', 'textonly']);
    expect(p.gridConfigs('zeta', 'S2').map((c) => c.key)).toEqual(['textonly', '8f', '16f@random', '32f@random']);
    expect(p.gridConfigs('zeta', 'S1')).toEqual([]);
    expect(p.countItems()).toBe(2);
    expect(p.getItem('S1', 'q1')).toMatchObject({ split: 'S1', sampleId: 'q1' });
    expect(p.getItem('S1', 'nope')).toBeUndefined();
  });

  it('media entries: stored, replaced, read back', () => {
    const p = openProject(file(), { create: true });
    p.putMedia({ path: 'v.mp4', size: 1, mtimeMs: 2, headTailHash: 'h1', json: { fps: 25 } });
    p.putMedia({ path: 'v.mp4', size: 3, mtimeMs: 4, headTailHash: 'h2', json: { fps: 30 } });
    expect(p.getMedia('v.mp4')).toEqual({ path: 'v.mp4', size: 3, mtimeMs: 4, headTailHash: 'h2', json: { fps: 30 } });
  });

  it('read-only: every write refused, naming the file, and nothing changed', () => {
    const f = file();
    withGrid(f).close();
    const ro = openProject(f, { readOnly: true });
    const v = ro.inputsVersion();
    const writes: (() => unknown)[] = [
      () => ro.applyImport(batch('c.csv', { responses: [response({ sampleId: 'q9', config: '8f', line: 2, pred: 'A' })] })),
      () => ro.setSetting('k', 1),
      () => ro.deleteSetting('k'),
      () => ro.putMedia({ path: 'v.mp4', size: 1, mtimeMs: 2, headTailHash: 'h', json: {} }),
    ];
    for (const w of writes) expect(w).toThrow(new ProjectReadOnlyError(f));
    expect([ro.inputsVersion(), ro.countItems(), ro.getMedia('v.mp4')]).toEqual([v, 2, undefined]);
    ro.close();
  });

  it("an import's summary carries the near-duplicate warnings and the derived-id notes", () => {
    const p = openProject(file(), { create: true });
    p.applyImport(batch('meta.json', { items: [{ split: 'S', sampleId: 'q1', question: 'Q?' }] }));
    p.applyImport(batch('a.csv', { configs: [config('32f_151k', 32, 151000)], responses: [response({ split: 'S', sampleId: 'q1', config: '32f_151k', line: 2, pred: 'A' })] }));
    const b = {
      ...batch('runs/b.tsv', { configs: [config('32f_151200', 32, 151200)], responses: [response({ split: 'S', sampleId: 'q1', config: '32f_151200', line: 2, pred: 'A' })] }),
      derivedIds: { how: 'row order', rows: [{ split: 'S', sampleId: 'q1', question: 'Q?', videoId: null, line: 2, field: 'index' }] },
    };
    expect(p.applyImport(b).warnings).toEqual([
      expect.stringMatching(/^config 32f_151200 \(151200 pixels per frame\) is a near-duplicate of 32f_151k/),
      'b.tsv: all 1 derived item id(s) agree with the question text of the items already known (metadata in the project or this import)',
    ]);
  });

  it('a clean close folds the WAL back into the project file and gives the lock back', () => {
    const f = file();
    const p = withGrid(f);
    expect(fs.existsSync(`${f}-wal`)).toBe(true);
    p.close();
    expect(fs.existsSync(`${f}-wal`) ? fs.statSync(`${f}-wal`).size : 0).toBe(0);
    expect(fs.existsSync(`${f}.lock`)).toBe(false);
    // Closing twice is harmless.
    p.close();
  });

  it('the WAL is folded back at close even while another connection keeps the file open; not for a read-only project', () => {
    const f = file();
    const p = withGrid(f);
    const other = new Database(f, { readonly: true });
    expect(other.prepare('SELECT count(*) FROM models').pluck().get()).toBe(2);
    expect(fs.statSync(`${f}-wal`).size).toBeGreaterThan(0);
    p.close();
    expect(fs.statSync(`${f}-wal`).size).toBe(0);
    const w = openProject(f);
    w.setSetting('k', 1);
    const ro = openProject(f, { readOnly: true });
    // The writer's edit is in the WAL; closing the reader leaves it there.
    const before = fs.statSync(`${f}-wal`).size;
    expect(before).toBeGreaterThan(0);
    ro.close();
    expect(fs.statSync(`${f}-wal`).size).toBe(before);
    w.close();
    other.close();
  });
});
