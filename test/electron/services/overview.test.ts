/**
 * The overview and saved-view operations on a real SQLite project through the real dispatcher:
 * numbers equal the engine's, click-through item sets equal the queue's filter, a matched grid
 * names the model it leaves out, a grid without confidence gets a note, views persist.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Overview, SavedViewDto, SavedViewValue } from '../../../shared/api/overview';
import { transitionItems, winsItems } from '../../../shared/api/overview-marks';
import { EMPTY_FILTER, filterQueue } from '../../../shared/api/queue-filter';
import { createBackend, type Backend } from '../../../electron/services/create-backend';
import { dispatch } from '../../../electron/services/dispatch';
import { checkedHandlers } from './checked-handlers';
import { allQueueRows } from './queue-rows';
import { openProject } from '../../../electron/store/project';
import { pairwiseWins, transitions } from '../../../shared/engine/mcqa';
import { config, response, tempDir } from '../store/helpers';

const SPLIT = 'S';
// Per item: correctness at textonly, 8f, 16f, 32f (A) — B has no 32f (its context ceiling).
const PATTERNS = ['0111', '0110', '1001', '0011', '1111', '0000', '0101', '1100'];

describe('overview and saved views (real project)', () => {
  let dir: string;
  let file: string;
  let backend: Backend;
  const call = async <T>(op: string, req: unknown): Promise<T> => {
    const r = await dispatch(checkedHandlers(backend.handlers), op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(() => {
    dir = tempDir('fb-overview-');
    file = path.join(dir, 'p.flipbook');
    const all = [config('textonly', 0), config('8f', 8), config('16f', 16), config('32f', 32)];
    const items = PATTERNS.map((_, i) => ({ split: SPLIT, sampleId: `q${i}`, question: `q${i}`, options: ['a', 'b'], answer: 'A' }));
    let line = 1;
    const rows = (model: string, keys: number, withConfidence: boolean) =>
      PATTERNS.flatMap((p, i) =>
        all.slice(0, keys).map((c, j) =>
          response({
            model,
            split: SPLIT,
            sampleId: `q${i}`,
            config: c.key,
            line: line++,
            pred: p[j] === '1' ? 'A' : 'B',
            correct: p[j] === '1',
            groundTruth: 'A',
            confidence: withConfidence ? (p[j] === '1' ? 0.9 : 0.4) - j * 0.01 : null,
          }),
        ),
      );
    const p = openProject(file, { create: true });
    const run = { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null };
    p.applyImports([
      { run, items, responses: rows('A', 4, true), configs: all, warnings: [] },
      { run: { ...run, sha256: '1'.repeat(64) }, items, responses: rows('B', 3, false), configs: all.slice(0, 3), warnings: [] },
    ]);
    p.setSetting('matchedGrid', ['textonly', '8f', '16f', '32f']);
    p.close();
    backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => {
    backend?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reports the engine’s transitions and wins, and the matched grid leaves B out for lacking 32f', async () => {
    const o = await call<Overview>('overview:get', {});
    const p = backend.project()!;
    for (const model of ['A', 'B']) {
      const g = o.grids.find((x) => x.model === model)!;
      const m = p.loadMatrix(model, SPLIT);
      expect(g.transitions).toEqual(transitions(m));
      expect(g.wins.wins).toEqual(pairwiseWins(m).wins);
      expect(g.rows.map((r) => r.pattern).sort()).toEqual(PATTERNS.map((s) => s.slice(0, model === 'A' ? 4 : 3)).sort());
    }
    expect(o.matchedGrid.source).toBe('setting');
    expect(o.matchedGrid.splits[0]!.perModel.map((x) => x.model)).toEqual(['A']);
    expect(o.matchedGrid.splits[0]!.leftOut).toEqual([{ model: 'B', missing: ['32f'] }]);
    // A recorded confidence: a cascade over 8f → 16f → 32f against 32f; B did not: a note instead.
    const a = o.grids.find((x) => x.model === 'A')!;
    expect(a.cascade?.budgets).toEqual(['8f', '16f', '32f']);
    expect(a.cascade?.reference).toBe('32f');
    const b = o.grids.find((x) => x.model === 'B')!;
    expect(b.cascade).toBeNull();
    expect(b.cascadeNote).toMatch(/no confidence or margin/);
  });

  it('is computed once per import: kept in the project, reused by a new backend, recomputed after a settings change', async () => {
    const first = await call<Overview>('overview:get', {});
    const p = backend.project()!;
    const stored = () => p.db.prepare("SELECT inputs, json FROM derived WHERE name = 'overview'").get() as { inputs: number; json: string } | undefined;
    expect(stored()?.inputs).toBe(p.inputsVersion());
    expect(JSON.parse(stored()!.json)).toEqual(first);
    // The matched grid setting changes the figures: the stored copy is stale and recomputed.
    await call('settings:set', { key: 'matchedGrid', value: 'textonly,8f,16f' });
    const narrower = await call<Overview>('overview:get', {});
    expect(narrower.matchedGrid.configs).toEqual(['textonly', '8f', '16f']);
    expect(stored()?.inputs).toBe(p.inputsVersion());
    await call('settings:set', { key: 'matchedGrid', value: 'textonly,8f,16f,32f' });
    expect(await call<Overview>('overview:get', {})).toEqual(first);
  });

  it('a harmed flow’s queue filter selects exactly the items the overview counts', async () => {
    const o = await call<Overview>('overview:get', {});
    const rows = await allQueueRows(call);
    const g = o.grids.find((x) => x.model === 'A')!;
    for (const t of g.transitions) {
      for (const kind of ['harmed', 'rescued'] as const) {
        const f = { ...EMPTY_FILTER, preset: 'all' as const, model: 'A', split: SPLIT, transition: `${t.from}>${t.to}`, transitionKind: kind };
        const got = filterQueue(rows, f, { key: 'sampleId', desc: false }).map((i) => rows[i]!.sampleId);
        const want = transitionItems(g, t, kind).sort();
        expect(got, `${kind} ${t.from}>${t.to}`).toEqual(want);
        expect(want.length).toBe(kind === 'harmed' ? t.harmed : t.rescued);
      }
    }
    const ids = winsItems(g, '8f', '32f');
    const f = { ...EMPTY_FILTER, preset: 'all' as const, model: 'A', split: SPLIT, itemSet: { label: 'w', ids } };
    expect(filterQueue(rows, f, { key: 'sampleId', desc: false }).map((i) => rows[i]!.sampleId)).toEqual([...ids].sort());
    expect(ids.length).toBe(g.wins.wins[1]![3]);
  });

  it('recomputes the cascade for a chosen reference and refuses an unknown or text-only one', async () => {
    const r = await call<{ cascade: { reference: string; referenceFrames: number } | null }>('overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: '16f' });
    expect(r.cascade).toMatchObject({ reference: '16f', referenceFrames: 16 });
    const bad = await dispatch(backend.handlers, 'overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: '64f' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const text = await dispatch(backend.handlers, 'overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: 'textonly' });
    expect(text).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  it('lists the items behind each cascade point: as many as the point counts correct', async () => {
    const r = await call<{ cascade: { pareto: { tau: number | null; correct: number }[] } | null }>('overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: '16f' });
    expect(r.cascade?.pareto.length).toBeGreaterThan(0);
    for (const p of r.cascade!.pareto) {
      const items = await call<{ correct: string[] }>('overview:cascade-items', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: '16f', tau: p.tau });
      expect(items.correct.length).toBe(p.correct);
      expect(new Set(items.correct).size).toBe(p.correct);
    }
    const none = await dispatch(backend.handlers, 'overview:cascade-items', { model: 'Z', split: SPLIT, budgets: ['8f', '16f'], reference: '16f', tau: null });
    expect(none).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('saves, lists, renames and deletes views, which survive reopening the project', async () => {
    const value: SavedViewValue = {
      filter: { ...EMPTY_FILTER, preset: 'all', model: 'A', transition: '8f>16f', transitionKind: 'harmed', itemSet: null },
      sort: { key: 'class', desc: true },
      columns: ['item', 'pattern'],
    };
    const saved = await call<SavedViewDto>('views:save', { name: 'harmed 8→16', value });
    expect(saved.value).toEqual(value);
    backend.close();
    backend.open(file);
    const list = await call<SavedViewDto[]>('views:list', {});
    expect(list.map((v) => [v.name, v.value])).toEqual([['harmed 8→16', value]]);
    await call('views:save', { name: 'other', value });
    const dup = await dispatch(backend.handlers, 'views:rename', { id: saved.id, name: 'other' });
    expect(dup).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const renamed = await call<SavedViewDto[]>('views:rename', { id: saved.id, name: 'renamed' });
    expect(renamed.map((v) => v.name)).toEqual(['other', 'renamed']);
    const left = await call<SavedViewDto[]>('views:delete', { id: saved.id });
    expect(left.map((v) => v.name)).toEqual(['other']);
    const invalid = await dispatch(backend.handlers, 'views:save', { name: 'x', value: { filter: {}, sort: {}, columns: ['nope'] } });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });
});

describe('checkedHandlers', () => {
  it('fails a call whose handler output drifts from the contract', async () => {
    const drifting = { 'recent:list': () => [42] } as unknown as import('../../../electron/services/dispatch').Handlers;
    const r = await dispatch(checkedHandlers(drifting), 'recent:list', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(r.ok ? '' : r.error.message).toMatch(/recent:list: the handler's output does not match the contract's response schema: 0: /);
  });
});
