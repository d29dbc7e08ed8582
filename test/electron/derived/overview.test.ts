/**
 * The overview and saved-view operations on a real SQLite project through the real dispatcher:
 * numbers equal the engine's, click-through item sets equal the queue's filter and the items
 * the marks count, a matched grid names the model it leaves out, a grid without confidence gets
 * a note, views persist; the answer stays the same size when the items grow tenfold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASCADE_PARETO_POINTS, HEATMAP_PATTERN_ROWS, type Overview, type OverviewMark, type SavedViewDto, type SavedViewValue } from '../../../shared/api/overview';
import { headroomCount } from '../../../shared/api/overview-marks';
import { EMPTY_FILTER, filterQueue } from '../../../shared/api/queue-filter';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { checkedHandlers } from '../api/checked-handlers';
import { allQueueRows } from './queue-rows';
import { openProject } from '../../../electron/store/project';
import { pairwiseWins, transitions } from '../../../shared/engine/mcqa';
import { cascade } from '../../../shared/engine/cascade';
import { mulberry32 } from '../../../shared/engine/prng';
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
      const patterns = PATTERNS.map((s) => s.slice(0, model === 'A' ? 4 : 3));
      // A small grid lists its items one by one, and its patterns with their counts.
      expect(g.heatmap.items!.map((r) => r.pattern).sort()).toEqual([...patterns].sort());
      const counts = new Map<string, number>();
      for (const x of patterns) counts.set(x, (counts.get(x) ?? 0) + 1);
      expect(new Map(g.heatmap.patterns.map((r) => [r.pattern, r.n]))).toEqual(counts);
      expect(g.heatmap.rest).toBeNull();
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
    expect(JSON.parse(stored()!.json)).toEqual({ format: 4, overview: first });
    // The matched grid setting changes the figures: the stored copy is stale and recomputed.
    await call('settings:set', { key: 'matchedGrid', value: 'textonly,8f,16f' });
    const narrower = await call<Overview>('overview:get', {});
    expect(narrower.matchedGrid.configs).toEqual(['textonly', '8f', '16f']);
    expect(stored()?.inputs).toBe(p.inputsVersion());
    await call('settings:set', { key: 'matchedGrid', value: 'textonly,8f,16f,32f' });
    expect(await call<Overview>('overview:get', {})).toEqual(first);
  });

  it('a harmed flow’s queue filter selects exactly the items the overview counts and overview:items lists', async () => {
    const o = await call<Overview>('overview:get', {});
    const rows = await allQueueRows(call);
    const g = o.grids.find((x) => x.model === 'A')!;
    const items = (mark: OverviewMark) => call<{ ids: string[] }>('overview:items', { model: 'A', split: SPLIT, mark }).then((r) => [...r.ids].sort());
    for (const t of g.transitions) {
      for (const kind of ['harmed', 'rescued'] as const) {
        const f = { ...EMPTY_FILTER, preset: 'all' as const, model: 'A', split: SPLIT, transition: `${t.from}>${t.to}`, transitionKind: kind };
        const got = filterQueue(rows, f, { key: 'sampleId', desc: false }).map((i) => rows[i]!.sampleId);
        // harmed a → b: correct under a, wrong under b (the flip matrix's cell); rescued the reverse.
        const want = await items(kind === 'harmed' ? { kind: 'wins', a: t.from, b: t.to } : { kind: 'wins', a: t.to, b: t.from });
        expect(got, `${kind} ${t.from}>${t.to}`).toEqual(want);
        expect(want.length).toBe(kind === 'harmed' ? t.harmed : t.rescued);
      }
    }
    const ids = await items({ kind: 'wins', a: '8f', b: '32f' });
    const f = { ...EMPTY_FILTER, preset: 'all' as const, model: 'A', split: SPLIT, itemSet: { label: 'w', ids } };
    expect(filterQueue(rows, f, { key: 'sampleId', desc: false }).map((i) => rows[i]!.sampleId)).toEqual([...ids].sort());
    expect(ids.length).toBe(g.wins.wins[1]![3]);
  });

  it('overview:items lists exactly the items each mark counts, from the patterns themselves', async () => {
    const o = await call<Overview>('overview:get', {});
    const g = o.grids.find((x) => x.model === 'A')!;
    const m = g.metrics!;
    const configs = ['textonly', '8f', '16f', '32f'];
    const items = (mark: OverviewMark) => call<{ ids: string[] }>('overview:items', { model: 'A', split: SPLIT, mark }).then((r) => [...r.ids].sort());
    const where = (keep: (p: string) => boolean) => PATTERNS.flatMap((p, i) => (keep(p) ? [`q${i}`] : [])).sort();
    for (const [j, c] of configs.entries()) {
      const want = where((p) => p[j] === '1');
      expect(await items({ kind: 'correct', config: c })).toEqual(want);
      expect(want.length).toBe(m.correctCounts[c]);
    }
    const best = configs.indexOf(m.bestFixed!);
    const headroom = where((p) => p.includes('1') && p[best] === '0');
    expect(await items({ kind: 'headroom' })).toEqual(headroom);
    expect(headroom.length).toBe(headroomCount(g));
    // Flags as the overview counts them: §2 on the ladder textonly ≺ 8f ≺ 16f ≺ 32f.
    const harm = (p: string) => [...p].some((v, a) => v === '1' && [...p].some((w, b) => b > a && w === '0'));
    expect(await items({ kind: 'flag', flag: 'visuallyConfused' })).toEqual(where(harm));
    expect((await items({ kind: 'flag', flag: 'visuallyConfused' })).length).toBe(m.counts.visuallyConfused);
    expect(await items({ kind: 'flag', flag: 'textOverwritten' })).toEqual(where((p) => p[0] === '1' && p.slice(1).includes('0')));
    expect(await items({ kind: 'flag', flag: 'terminalRegression' })).toEqual(where((p) => p[3] === '0' && p.slice(0, 3).includes('1')));
    for (const r of g.heatmap.patterns) expect(await items({ kind: 'pattern', pattern: r.pattern })).toEqual(where((p) => p === r.pattern));
    expect(await items({ kind: 'otherPatterns', shown: ['0111', '1111'] })).toEqual(where((p) => p !== '0111' && p !== '1111'));
    const bad = await dispatch(backend.handlers, 'overview:items', { model: 'A', split: SPLIT, mark: { kind: 'correct', config: '64f' } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const none = await dispatch(backend.handlers, 'overview:items', { model: 'Z', split: SPLIT, mark: { kind: 'headroom' } });
    expect(none).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('recomputes a kept overview of an older shape instead of serving it', async () => {
    const p = backend.project()!;
    const fresh = await call<Overview>('overview:get', {});
    // What an older version kept (same inputs version): the overview itself, one row per item
    // instead of the heatmap's summary.
    const old = { ...fresh, grids: fresh.grids.map(({ heatmap, ...g }) => ({ ...g, rows: heatmap.items })) };
    p.db.prepare("UPDATE derived SET json = ? WHERE name = 'overview'").run(JSON.stringify(old));
    backend.close();
    backend.open(file);
    // checkedHandlers parses the answer with the contract: the old shape would fail it.
    expect(await call<Overview>('overview:get', {})).toEqual(fresh);
    const q = backend.project()!;
    expect(JSON.parse((q.db.prepare("SELECT json FROM derived WHERE name = 'overview'").get() as { json: string }).json)).toEqual({ format: 4, overview: fresh });
  });

  it('recomputes the cascade for a chosen reference and refuses an unknown or text-only one', async () => {
    const r = await call<{ cascade: { reference: string; referenceFrames: number } | null }>('overview:cascade', {
      model: 'A',
      split: SPLIT,
      budgets: ['8f', '16f'],
      reference: '16f',
    });
    expect(r.cascade).toMatchObject({ reference: '16f', referenceFrames: 16 });
    const bad = await dispatch(backend.handlers, 'overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: '64f' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const text = await dispatch(backend.handlers, 'overview:cascade', { model: 'A', split: SPLIT, budgets: ['8f', '16f'], reference: 'textonly' });
    expect(text).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  it('lists the items behind each cascade point: as many as the point counts correct', async () => {
    const r = await call<{ cascade: { pareto: { tau: number | null; correct: number }[] } | null }>('overview:cascade', {
      model: 'A',
      split: SPLIT,
      budgets: ['8f', '16f'],
      reference: '16f',
    });
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

/** A one-grid project of `n` items over seven configs with seeded random outcomes and confidences. */
function manyItemsProject(dir: string, n: number): string {
  const file = path.join(dir, `many-${n}.flipbook`);
  const configs = [config('textonly', 0), config('8f', 8), config('16f', 16), config('32f', 32), config('64f', 64), config('128f', 128), config('32f_302k', 32, 301056)];
  const rnd = mulberry32(n);
  const items = Array.from({ length: n }, (_, i) => ({ split: SPLIT, sampleId: `m${String(i).padStart(6, '0')}`, question: 'q', options: ['a', 'b'], answer: 'A' }));
  let line = 1;
  const responses = items.flatMap((it) => {
    const skill = rnd();
    return configs.map((c, j) => {
      const ok = rnd() < 0.3 + 0.5 * skill + 0.03 * j;
      return response({
        model: 'M',
        split: SPLIT,
        sampleId: it.sampleId,
        config: c.key,
        line: line++,
        pred: ok ? 'A' : 'B',
        correct: ok,
        groundTruth: 'A',
        confidence: c.frames === 0 ? null : Math.round(rnd() * 1e6) / 1e6,
      });
    });
  });
  const p = openProject(file, { create: true });
  p.applyImports([{ run: { sourcePath: 'many', sha256: String(n).padStart(64, '0'), format: 'test', toolkit: null, modelArgs: null }, items, responses, configs, warnings: [] }]);
  p.close();
  return file;
}

describe('overview at lab scale (real projects)', () => {
  let dir: string;
  const answers = new Map<number, { overview: Overview; backend: Backend }>();
  const call = async <T>(b: Backend, op: string, req: unknown): Promise<T> => {
    const r = await dispatch(checkedHandlers(b.handlers), op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(async () => {
    dir = tempDir('fb-overview-many-');
    for (const n of [2000, 20000]) {
      const backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
      backend.open(manyItemsProject(dir, n));
      answers.set(n, { backend, overview: await call<Overview>(backend, 'overview:get', {}) });
    }
  }, 60_000);
  afterAll(() => {
    for (const a of answers.values()) a.backend.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers the same size for ten times the items: patterns and a rest row, no item rows', () => {
    const small = answers.get(2000)!.overview;
    const large = answers.get(20000)!.overview;
    const bytes = (o: Overview) => JSON.stringify(o).length;
    expect(large.grids[0]!.metrics!.n).toBeGreaterThan(15000);
    expect(bytes(large), `${bytes(small)} bytes at 2000 items, ${bytes(large)} at 20000`).toBeLessThan(1.1 * bytes(small));
    expect(bytes(large)).toBeLessThan(60_000);
    for (const o of [small, large]) {
      const g = o.grids[0]!;
      expect(g.heatmap.items).toBeNull();
      expect(g.heatmap.patterns).toHaveLength(HEATMAP_PATTERN_ROWS);
      // Every complete item is in a pattern row or the rest row, whose per-config counts add up.
      const rest = g.heatmap.rest!;
      expect(g.heatmap.patterns.reduce((s, r) => s + r.n, 0) + rest.n).toBe(g.metrics!.n);
      g.metrics!.configs.forEach((c, j) => {
        const inRows = g.heatmap.patterns.reduce((s, r) => s + (r.pattern[j] === '1' ? r.n : 0), 0);
        expect(inRows + rest.correct[j]!, c).toBe(g.metrics!.correctCounts[c]);
      });
      // Most frequent first; the rest are rarer than any listed pattern.
      const ns = g.heatmap.patterns.map((r) => r.n);
      expect(ns).toEqual([...ns].sort((a, b) => b - a));
    }
  });

  it('a pattern row and the rest row open exactly their items', async () => {
    const { backend, overview } = answers.get(20000)!;
    const g = overview.grids[0]!;
    const m = backend.project()!.loadMatrix('M', SPLIT);
    const C = m.configs.length;
    const keys = g.metrics!.configs;
    const cols = keys.map((k) => m.configs.findIndex((c) => c.key === k));
    const patternOf = (r: number) => cols.map((c) => String(m.correct[r * C + c])).join('');
    const byPattern = (keep: (p: string) => boolean) => m.itemIds.filter((_, r) => keep(patternOf(r))).sort();
    const items = (mark: OverviewMark) => call<{ ids: string[] }>(backend, 'overview:items', { model: 'M', split: SPLIT, mark }).then((r) => [...r.ids].sort());
    const top = g.heatmap.patterns[0]!;
    const got = await items({ kind: 'pattern', pattern: top.pattern });
    expect(got).toEqual(byPattern((p) => p === top.pattern));
    expect(got).toHaveLength(top.n);
    const shown = new Set(g.heatmap.patterns.map((r) => r.pattern));
    const rest = await items({ kind: 'otherPatterns', shown: [...shown] });
    expect(rest).toEqual(byPattern((p) => !shown.has(p)));
    expect(rest).toHaveLength(g.heatmap.rest!.n);
  });

  it('sends at most CASCADE_PARETO_POINTS of a long Pareto front, the engine’s own points with both ends', () => {
    const { backend, overview } = answers.get(20000)!;
    const c = overview.grids[0]!.cascade!;
    const engine = cascade(backend.project()!.loadMatrix('M', SPLIT), { budgets: c.budgets, reference: c.reference });
    expect(engine.pareto.length).toBeGreaterThan(CASCADE_PARETO_POINTS);
    expect(c.paretoPoints).toBe(engine.pareto.length);
    expect(c.pareto).toHaveLength(CASCADE_PARETO_POINTS);
    const key = (p: { tau: number | null; correct: number; meanSharedCost: number }) => `${p.tau === null ? 'inf' : p.tau}/${p.correct}/${p.meanSharedCost}`;
    const all = new Set(engine.pareto.map((p) => key({ ...p, tau: Number.isFinite(p.tau) ? p.tau : null })));
    for (const p of c.pareto) expect(all.has(key(p))).toBe(true);
    expect(c.pareto[0]!.correct).toBe(engine.pareto[0]!.correct);
    expect(c.pareto.at(-1)!.correct).toBe(engine.pareto.at(-1)!.correct);
    expect(c.operatingPoint?.tau ?? null).toBe(engine.operatingPoint ? (Number.isFinite(engine.operatingPoint.tau) ? engine.operatingPoint.tau : null) : null);
  });
});

describe('checkedHandlers', () => {
  it('fails a call whose handler output drifts from the contract', async () => {
    const drifting = { 'recent:list': () => [42] } as unknown as import('../../../electron/api/dispatch').Handlers;
    const r = await dispatch(checkedHandlers(drifting), 'recent:list', {});
    expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(r.ok ? '' : r.error.message).toMatch(/recent:list: the handler's output does not match the contract's response schema: 0: /);
  });
});
