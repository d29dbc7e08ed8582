/**
 * Three small parts of a project, on real project files: saved views
 * (electron/store/saved-views.ts), the protocols its grids hold (protocols.ts), and the small
 * page cache a scan runs under, which gives the connection its own back (page-cache.ts).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import { withSmallPageCache } from '../../../electron/store/page-cache';
import { knownProtocol, projectProtocols } from '../../../electron/store/protocols';
import { batch, config, response, tempDir } from './helpers';

const file = () => path.join(tempDir('flipbook-views-'), 'p.flipbook');

describe('saved views', () => {
  it('listed by name; saving a name again replaces its value and keeps its id and creation time', async () => {
    const p = openProject(file(), { create: true });
    const b = p.views.save('b-view', { sort: 'delta' });
    p.views.save('a-view', { sort: 'id' });
    await new Promise((r) => setTimeout(r, 5));
    const again = p.views.save('b-view', { sort: 'churn' });
    expect([again.id, again.createdAt, again.value]).toEqual([b.id, b.createdAt, { sort: 'churn' }]);
    expect(again.updatedAt > b.updatedAt).toBe(true);
    expect(p.views.list().map((v) => [v.name, v.value])).toEqual([
      ['a-view', { sort: 'id' }],
      ['b-view', { sort: 'churn' }],
    ]);
  });

  it('a blank name is refused, saving and renaming alike, and nothing changes', () => {
    const p = openProject(file(), { create: true });
    const v = p.views.save('kept', 1);
    for (const name of ['', '  ']) {
      expect(() => p.views.save(name, 2)).toThrow('a saved view needs a name');
      expect(() => p.views.rename(v.id, name)).toThrow('a saved view needs a name');
    }
    expect(p.views.list().map((x) => [x.name, x.value])).toEqual([['kept', 1]]);
  });

  it('a renamed view is newer; a read-only project lists views and changes none', () => {
    const f = file();
    const p = openProject(f, { create: true });
    const v = p.views.save('old', 1);
    p.views.rename(v.id, 'new');
    const [renamed] = p.views.list();
    expect([renamed!.name, renamed!.createdAt, renamed!.updatedAt >= v.updatedAt]).toEqual(['new', v.createdAt, true]);
    p.close();
    const ro = openProject(f, { readOnly: true });
    expect(ro.views.list().map((x) => x.name)).toEqual(['new']);
    expect(() => ro.views.save('x', 1)).toThrow();
    expect(() => ro.views.rename(v.id, 'x')).toThrow();
    expect(() => ro.views.delete(v.id)).toThrow();
    expect(ro.views.list().map((x) => x.name)).toEqual(['new']);
    ro.close();
  });
});

describe("a project's protocols", () => {
  function withProtocols(): Project {
    const p = openProject(file(), { create: true });
    const configs = [config('textonly', 0), config('16f', 16), config('16f@random', 16), config('16f@cached', 16)];
    p.applyImport(batch('run.csv', { configs, responses: configs.map((c, i) => response({ sampleId: 'q1', config: c.key, line: i + 2, pred: 'A' })) }));
    return p;
  }

  it('every protocol of its grids, untagged first, then in code-point order', () => {
    expect(projectProtocols(withProtocols())).toEqual(['', 'cached', 'random']);
    expect(projectProtocols(openProject(file(), { create: true }))).toEqual([]);
  });

  it('a protocol as a user writes it, or why the project has no such protocol', () => {
    const p = withProtocols();
    expect(knownProtocol(p, '@random')).toBe('random');
    expect(knownProtocol(p, 'random')).toBe('random');
    expect(knownProtocol(p, 'untagged')).toBe('');
    expect(knownProtocol(p, '@uniform')).toEqual({ error: '@uniform: the project has no such protocol (it has untagged, @cached, @random)' });
    expect(knownProtocol(openProject(file(), { create: true }), 'x')).toEqual({ error: 'x: the project has no such protocol (it has none)' });
  });
});

describe('the small page cache', () => {
  it('is in force during the work, and the connection gets its own back after it, also when the work throws', () => {
    const { db } = openProject(file(), { create: true });
    db.pragma('cache_size = -4000');
    expect(withSmallPageCache(db, () => db.pragma('cache_size', { simple: true }))).toBe(-256);
    expect(db.pragma('cache_size', { simple: true })).toBe(-4000);
    expect(() =>
      withSmallPageCache(db, () => {
        throw new Error('work failed');
      }),
    ).toThrow('work failed');
    expect(db.pragma('cache_size', { simple: true })).toBe(-4000);
  });
});
