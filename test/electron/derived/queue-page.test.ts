/**
 * queue:page on a real SQLite project through the real dispatcher: every page equals the slice
 * of the full queue (every page of the key order) filtered and sorted by the shared filter code, for several
 * filters and sorts; statuses follow annotation edits; an import rebuilds the cached rows; a
 * page never carries more than QUEUE_PAGE_MAX rows; `at` finds an item's neighbours. The rows
 * are stored as one value (migration 40 drops the old table): a stale or unreadable value is
 * derived again, and strings sort in code-point order (SQLite's BINARY order).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PAGE_MAX, type QueueRow, type Res } from '../../../shared/api/contract';
import { EMPTY_FILTER, filterQueue, rowKey, type QueueFilter, type QueueSort } from '../../../shared/api/queue-filter';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { loadMigrations, migrate } from '../../../electron/store/migrate';
import { createQueueTable } from '../../../electron/derived/queue-table';
import { decodeQueueData } from '../../../electron/derived/queue-data';
import { itemTransitions, transitionPairs } from '../../../shared/engine/mcqa';
import { patternOf, trajectoryColumns, TRAJECTORY_CLASSES } from '../../../shared/engine/trajectories';
import { allQueueRows } from './queue-rows';
import { config, response, tempDir } from '../store/helpers';

const CONFIGS = [config('textonly', 0), config('8f', 8), config('16f', 16), config('32f', 32)];
const N = 60;
// Deterministic correctness patterns with every trajectory shape represented.
const bit = (model: number, item: number, c: number) => ((item * 7 + model * 3 + c * 5 + ((item >> c) & 1)) % 3 !== 0 ? 1 : 0);

type Page = Res<'queue:page'>;

describe('queue:page (real project)', () => {
  let dir: string;
  let file: string;
  let backend: Backend;
  const call = async <T>(op: string, req: unknown): Promise<T> => {
    const r = await dispatch(backend.handlers, op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };
  const all = (annotator?: string) => allQueueRows(call, annotator);
  const expected = (rows: QueueRow[], f: QueueFilter, s: QueueSort) => filterQueue(rows, f, s).map((i) => rows[i]!);

  beforeAll(() => {
    dir = tempDir('fb-queue-page-');
    file = path.join(dir, 'p.flipbook');
    const items = Array.from({ length: N }, (_, i) => ({
      split: 'S',
      sampleId: `q${String(i).padStart(3, '0')}`,
      question: i % 4 === 0 ? `what colour is the ball ${i}` : `how many people ${i}`,
      options: ['a', 'b'],
      answer: 'A',
      taskType: i % 3 === 0 ? 'counting' : 'colour',
    }));
    let line = 1;
    const rows = (model: string, m: number) =>
      items.flatMap((it, i) =>
        CONFIGS.map((c, j) => {
          const ok = bit(m, i, j) === 1;
          return response({ model, split: 'S', sampleId: it.sampleId, config: c.key, line: line++, pred: ok ? 'A' : 'B', correct: ok, groundTruth: 'A' });
        }),
      );
    const p = openProject(file, { create: true });
    const run = { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null };
    p.applyImports([
      { run, items, responses: rows('A', 0), configs: CONFIGS, warnings: [] },
      { run: { ...run, sha256: '1'.repeat(64) }, items, responses: rows('B', 1), configs: CONFIGS, warnings: [] },
    ]);
    p.close();
    backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => {
    backend?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('pages are slices of the shared filter over the full queue, for every sort and several filters', async () => {
    const rows = await all();
    expect(rows.length).toBe(2 * N);
    const filters: QueueFilter[] = [
      EMPTY_FILTER,
      { ...EMPTY_FILTER, preset: 'all' },
      { ...EMPTY_FILTER, preset: 'all', model: 'B', taskType: 'counting' },
      { ...EMPTY_FILTER, preset: 'all', search: 'colour ball' },
      { ...EMPTY_FILTER, preset: 'all', flags: ['terminalRegression'] },
      { ...EMPTY_FILTER, preset: 'all', transition: '8f>16f', transitionKind: 'harmed' },
      { ...EMPTY_FILTER, preset: 'all', itemSet: { label: 'mark', ids: ['q001', 'q010', 'q033'] } },
      // A term in the model's name and one in the item's text; terms in no row.
      { ...EMPTY_FILTER, preset: 'all', search: 'b Q01' },
      { ...EMPTY_FILTER, preset: 'all', search: 'ball zebra' },
      { ...EMPTY_FILTER, preset: 'all', trajectoryClass: 'oscillating', hasVideo: false },
      { ...EMPTY_FILTER, preset: 'all', taskType: 'no such type' },
      { ...EMPTY_FILTER, transition: '16f>32f', transitionKind: 'rescued' },
      { ...EMPTY_FILTER, preset: 'all', transition: 'textonly>8f' },
      { ...EMPTY_FILTER, preset: 'all', flags: ['visuallyConfused', 'textOverwritten'] },
    ];
    const sorts: QueueSort[] = (['default', 'sampleId', 'model', 'split', 'taskType', 'status', 'class'] as const).flatMap((key) => [
      { key, desc: false },
      { key, desc: true },
    ]);
    let nonEmpty = 0;
    for (const filter of filters) {
      for (const sort of sorts) {
        const want = expected(rows, filter, sort);
        if (want.length > 0) nonEmpty++;
        const got: QueueRow[] = [];
        for (let offset = 0; ; offset += 7) {
          const page = await call<Page>('queue:page', { filter, sort, offset, limit: 7 });
          expect(page.total).toBe(want.length);
          expect(page.all).toBe(rows.length);
          expect(page.offset).toBe(Math.min(offset, want.length));
          expect(page.rows.length).toBeLessThanOrEqual(7);
          got.push(...page.rows);
          if (page.rows.length < 7) break;
        }
        expect(got.map(rowKey)).toEqual(want.map(rowKey));
      }
    }
    expect(nonEmpty).toBeGreaterThan(filters.length * sorts.length * 0.8);
    const facets = (await call<Page>('queue:page', { filter: EMPTY_FILTER, sort: { key: 'default', desc: false }, offset: 0, limit: 0 })).facets;
    expect(facets.taskTypes).toEqual(['colour', 'counting']);
    expect(facets.transitions).toEqual([...new Set(rows.flatMap((r) => [...r.harmed, ...r.rescued]))].sort());
  });

  it('statuses follow annotation edits (per annotator) without a re-import', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', status: 'done' };
    const sort: QueueSort = { key: 'sampleId', desc: false };
    const before = await call<Page>('queue:page', { filter, sort, offset: 0, limit: 50, annotator: 'ana' });
    expect(before.total).toBe(0);
    await call('annotation:apply', { annotator: 'ana', edit: { op: 'setStatus', model: 'A', split: 'S', sampleId: 'q005', status: 'done' } });
    await call('annotation:apply', { annotator: 'bo', edit: { op: 'setStatus', model: 'B', split: 'S', sampleId: 'q006', status: 'done' } });
    const ana = await call<Page>('queue:page', { filter, sort, offset: 0, limit: 50, annotator: 'ana' });
    expect(ana.rows.map(rowKey)).toEqual([rowKey({ model: 'A', split: 'S', sampleId: 'q005' })]);
    expect(ana.done).toBe(1);
    expect(ana.facets.annotators).toEqual(['ana', 'bo']);
    const bo = await call<Page>('queue:page', { filter, sort, offset: 0, limit: 50, annotator: 'bo' });
    expect(bo.rows.map((r) => r.sampleId)).toEqual(['q006']);
    // The status sort orders by the asked annotator's statuses, like the shared code over every row.
    const byStatus: QueueSort = { key: 'status', desc: false };
    const full = await call<Page>('queue:page', { filter: { ...EMPTY_FILTER, preset: 'all' }, sort: byStatus, offset: 0, limit: QUEUE_PAGE_MAX, annotator: 'bo' });
    expect(full.rows.map(rowKey)).toEqual(expected(await all('bo'), { ...EMPTY_FILTER, preset: 'all' }, byStatus).map(rowKey));
    // Status and annotator filters, with and without an asked annotator, against the shared code.
    await call('annotation:apply', { annotator: 'bo', edit: { op: 'setStatus', model: 'A', split: 'S', sampleId: 'q005', status: 'skipped' } });
    for (const annotator of [undefined, 'ana', 'bo']) {
      const rows = await all(annotator);
      for (const f of [{ status: 'todo' }, { status: 'done' }, { status: 'skipped' }, { annotator: 'ana' }, { annotator: 'bo', status: 'done' }] as const) {
        const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', ...f };
        for (const sort of [byStatus, { key: 'status', desc: true }, { key: 'sampleId', desc: false }] as const) {
          const page = await call<Page>('queue:page', { filter, sort, offset: 0, limit: QUEUE_PAGE_MAX, ...(annotator !== undefined && { annotator }) });
          const want = expected(rows, filter, sort);
          expect(page.rows.map(rowKey)).toEqual(want.map(rowKey));
          expect(page.rows.map((r) => r.status)).toEqual(want.map((r) => r.status));
          expect(page.done).toBe(want.filter((r) => r.status === 'done' || r.status === 'skipped').length);
        }
      }
    }
  });

  it('the opening page after a restart equals the shared filter, its counts from the stored per-shape row counts', async () => {
    const opening = (await all()).filter((r) => r.flags.terminalRegression || r.flags.visuallyConfused);
    expect(opening.length).toBeGreaterThan(10);
    // Statuses on rows of the default preset, so the opening page's progress counts some.
    await call('annotation:apply', { annotator: 'cy', edit: { op: 'setStatus', model: opening[0]!.model, split: 'S', sampleId: opening[0]!.sampleId, status: 'done' } });
    await call('annotation:apply', { annotator: 'cy', edit: { op: 'setStatus', model: opening[3]!.model, split: 'S', sampleId: opening[3]!.sampleId, status: 'skipped' } });
    const sort: QueueSort = { key: 'default', desc: false };
    const filters: QueueFilter[] = [
      EMPTY_FILTER,
      { ...EMPTY_FILTER, flags: ['terminalRegression'] },
      { ...EMPTY_FILTER, preset: 'all' },
      { ...EMPTY_FILTER, preset: 'all', trajectoryClass: 'oscillating' },
      { ...EMPTY_FILTER, transition: '16f>32f', transitionKind: 'rescued' },
    ];
    for (const annotator of [undefined, 'cy', 'ana']) {
      const rows = await all(annotator);
      for (const filter of filters) {
        const want = expected(rows, filter, sort);
        for (const [offset, limit] of [
          [0, 10],
          [3, 7],
          [want.length - 2, 10],
          [want.length + 5, 10],
        ] as const) {
          // A restarted backend: the first page answered from the stored value.
          backend.close();
          backend.open(file);
          const page = await call<Page>('queue:page', { filter, sort, offset, limit, ...(annotator !== undefined && { annotator }) });
          const from = Math.min(Math.max(0, offset), want.length);
          expect(page.total).toBe(want.length);
          expect(page.offset).toBe(from);
          expect(page.rows).toEqual(want.slice(from, from + limit));
          expect(page.done).toBe(want.filter((r) => r.status === 'done' || r.status === 'skipped').length);
          expect(page.all).toBe(rows.length);
        }
      }
    }
    // The stored per-shape row counts are those of a full count over the stored rows.
    const d = decodeQueueData(backend.project()!.db.prepare<[], Buffer>("SELECT data FROM derived WHERE name = 'queue'").pluck(true).get()!)!;
    const counted = new Array<number>(d.shapeRows.length).fill(0);
    for (let r = 0; r < d.n; r++) counted[d.rowShape[r]!]!++;
    expect(d.shapeRows).toEqual(counted);
    expect(counted.filter((c) => c > 0).length).toBeGreaterThan(3);
  });

  it('`at` pages from the row before an item; a hidden item has position -1', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', model: 'A' };
    const sort: QueueSort = { key: 'sampleId', desc: true };
    const want = expected(await all(), filter, sort);
    const target = want[10]!;
    const page = await call<Page>('queue:page', { filter, sort, offset: 0, limit: 4, at: { model: target.model, split: target.split, sampleId: target.sampleId } });
    expect(page.position).toBe(10);
    expect(page.offset).toBe(9);
    expect(page.rows.map(rowKey)).toEqual(want.slice(9, 13).map(rowKey));
    const hidden = await call<Page>('queue:page', { filter, sort, offset: 0, limit: 4, at: { model: 'B', split: 'S', sampleId: 'q001' } });
    expect(hidden.position).toBe(-1);
    expect(hidden.offset).toBe(0);
  });

  it('refuses a page larger than QUEUE_PAGE_MAX', async () => {
    const r = await dispatch(backend.handlers, 'queue:page', { filter: EMPTY_FILTER, sort: { key: 'default', desc: false }, offset: 0, limit: QUEUE_PAGE_MAX + 1 });
    expect(r.ok).toBe(false);
  });

  it('an import rebuilds the cached rows', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all' };
    const sort: QueueSort = { key: 'model', desc: false };
    expect((await call<Page>('queue:page', { filter, sort, offset: 0, limit: 1 })).all).toBe(2 * N);
    const csv = path.join(dir, 'per_item.csv');
    const lines = ['sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note'];
    for (let i = 0; i < 5; i++) for (const c of CONFIGS) lines.push(`q${String(i).padStart(3, '0')},C,S,${c.key},${c.frames},${c.pixelCount},A,A,1,t,`);
    fs.writeFileSync(csv, `${lines.join('\n')}\n`);
    await call('import:run', { jobId: 'j1', paths: [csv] });
    const after = await call<Page>('queue:page', { filter: { ...filter, model: 'C' }, sort, offset: 0, limit: 10 });
    expect(after.all).toBe(2 * N + 5);
    expect(after.rows.map((r) => r.sampleId)).toEqual(['q000', 'q001', 'q002', 'q003', 'q004']);
    // Derived by the import itself (in the project file), not by the first view that asks.
    const p = backend.project()!;
    expect(p.db.prepare("SELECT inputs FROM derived WHERE name = 'queue'").pluck().get()).toBe(p.inputsVersion());
  });

  it('a read-only project whose rows are stale builds them for itself and answers the same pages', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', search: 'colour' };
    const sort: QueueSort = { key: 'taskType', desc: true };
    const want = (await call<Page>('queue:page', { filter, sort, offset: 0, limit: QUEUE_PAGE_MAX })).rows.map(rowKey);
    expect(want.length).toBeGreaterThan(10);
    backend.close();
    // A settings write makes the stored rows stale (the trajectories depend on the matched grid).
    const w = openProject(file);
    w.setSetting('unrelated', 1);
    const inputs = w.inputsVersion();
    w.close();
    const ro = openProject(file, { readOnly: true });
    try {
      expect(ro.db.prepare("SELECT inputs FROM derived WHERE name = 'queue'").pluck().get()).not.toBe(inputs);
      const page = createQueueTable(ro).page({ filter, sort, offset: 0, limit: QUEUE_PAGE_MAX });
      expect(page.rows.map(rowKey)).toEqual(want);
    } finally {
      ro.close();
      backend.open(file);
    }
  });
  it('rows of an import that did not derive them (another process, an older Flipbook) are derived when asked, and stored', async () => {
    backend.close();
    const p = openProject(file);
    try {
      const run = { sourcePath: 'y', sha256: '2'.repeat(64), format: 'test', toolkit: null, modelArgs: null };
      const items = ['q900', 'q901'].map((sampleId) => ({ split: 'S', sampleId, question: 'late item', options: ['a', 'b'], answer: 'A', taskType: 'colour' }));
      // q901 has no 16f cell: its grid's columns hold different items.
      const responses = items.flatMap((it, i) =>
        CONFIGS.flatMap((c, j) =>
          i === 1 && c.key === '16f'
            ? []
            : [response({ model: 'D', split: 'S', sampleId: it.sampleId, config: c.key, line: i * 4 + j + 1, pred: j === 0 ? 'B' : 'A', correct: j !== 0, groundTruth: 'A' })],
        ),
      );
      p.applyImports([{ run, items, responses, configs: CONFIGS, warnings: [] }]);
      expect(p.db.prepare("SELECT inputs FROM derived WHERE name = 'queue'").pluck().get()).not.toBe(p.inputsVersion());
    } finally {
      p.close();
      backend.open(file);
    }
    const page = await call<Page>('queue:page', { filter: { ...EMPTY_FILTER, preset: 'all', model: 'D' }, sort: { key: 'model', desc: false }, offset: 0, limit: 10 });
    expect(page.rows.map((r) => [r.sampleId, r.pattern, r.trajectoryClass, r.rescued, r.searchText])).toEqual([
      // Rescued: each transition pair (docs/metrics.md "Transitions") wrong at a, right at b.
      ['q900', '0111', 'monotonic_increasing', ['textonly>8f', 'textonly>16f', 'textonly>32f'], 'q900 d colour late item'],
      ['q901', '01.1', null, ['textonly>8f', 'textonly>32f'], 'q901 d colour late item'],
    ]);
    const q = backend.project()!;
    expect(q.db.prepare("SELECT inputs FROM derived WHERE name = 'queue' AND data IS NOT NULL").pluck().get()).toBe(q.inputsVersion());
  });

  it('an unreadable stored value is derived again, not misread', async () => {
    const filter: QueueFilter = { ...EMPTY_FILTER, preset: 'all', search: 'ball' };
    const sort: QueueSort = { key: 'class', desc: false };
    const want = (await call<Page>('queue:page', { filter, sort, offset: 0, limit: QUEUE_PAGE_MAX })).rows.map(rowKey);
    expect(want.length).toBeGreaterThan(5);
    backend.close();
    const p = openProject(file);
    try {
      const good = p.db.prepare<[], Buffer>("SELECT data FROM derived WHERE name = 'queue'").pluck(true).get()!;
      // Same inputs version, bytes cut short or one row's item changed.
      const altered = Buffer.from(good);
      altered[altered.length - 3] = altered[altered.length - 3]! ^ 1;
      for (const bad of [good.subarray(0, good.length - 8), altered]) {
        p.db.prepare("UPDATE derived SET data = ? WHERE name = 'queue'").run(bad);
        const table = createQueueTable(p);
        expect(table.page({ filter, sort, offset: 0, limit: QUEUE_PAGE_MAX }).rows.map(rowKey)).toEqual(want);
        expect(p.db.prepare<[], Buffer>("SELECT data FROM derived WHERE name = 'queue'").pluck(true).get()).toEqual(good);
      }
    } finally {
      p.close();
      backend.open(file);
    }
  });
});

describe('queue:page string order', () => {
  it('sorts sample ids in code-point order (SQLite BINARY), also above U+FFFF, like the shared filter code', () => {
    const dir = tempDir('fb-queue-order-');
    const file = path.join(dir, 'p.flipbook');
    // U+1F600 is a surrogate pair (0xD83D 0xDE00) in UTF-16: below U+E000 by code units, above it by code points.
    const ids = ['\u{1F600}c', '\uE000b', 'a1', 'Z', '\uFFFDd', 'a\u{10000}', 'a\uFFFF'];
    const items = ids.map((sampleId) => ({ split: 'S', sampleId, question: `Q ${sampleId}`, options: ['a', 'b'], answer: 'A', taskType: null }));
    const p = openProject(file, { create: true });
    try {
      const run = { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null };
      let line = 1;
      const responses = ['M', 'N'].flatMap((model) =>
        ids.flatMap((sampleId, i) =>
          CONFIGS.map((c, j) =>
            response({ model, split: 'S', sampleId, config: c.key, line: line++, pred: (i + j) % 2 === 0 ? 'A' : 'B', correct: (i + j) % 2 === 0, groundTruth: 'A' }),
          ),
        ),
      );
      p.applyImports([{ run, items, responses, configs: CONFIGS, warnings: [] }]);
      const table = createQueueTable(p);
      const all: QueueFilter = { ...EMPTY_FILTER, preset: 'all' };
      const rows = table.page({ filter: all, sort: { key: 'model', desc: false }, offset: 0, limit: QUEUE_PAGE_MAX }).rows;
      const byId = table.page({ filter: all, sort: { key: 'sampleId', desc: false }, offset: 0, limit: QUEUE_PAGE_MAX }).rows;
      const order = ['Z', 'a1', 'a\uFFFF', 'a\u{10000}', '\uE000b', '\uFFFDd', '\u{1F600}c'];
      expect(byId.map((r) => r.sampleId)).toEqual(order.flatMap((id) => [id, id]));
      expect(p.db.prepare('SELECT sample_id FROM items ORDER BY sample_id').pluck().all()).toEqual(order);
      expect(byId.map(rowKey)).toEqual(expected(rows, all, { key: 'sampleId', desc: false }).map(rowKey));
      const desc = table.page({ filter: all, sort: { key: 'sampleId', desc: true }, offset: 0, limit: 3, at: { model: 'M', split: 'S', sampleId: '\uE000b' } });
      expect(desc.position).toBe(5);
      expect(desc.rows.map((r) => `${r.model}:${r.sampleId}`)).toEqual(['N:\uE000b', 'M:\uE000b', 'N:a\u{10000}']);
      const found = table.page({ filter: { ...all, search: '\u{1F600}' }, sort: { key: 'model', desc: false }, offset: 0, limit: 10 });
      expect(found.rows.map((r) => `${r.model}:${r.sampleId}`)).toEqual(['M:\u{1F600}c', 'N:\u{1F600}c']);
      expect(
        table
          .page({ filter: { ...all, itemSet: { label: 'x', ids: ['a\u{10000}', 'Z', 'nope'] } }, sort: { key: 'sampleId', desc: false }, offset: 0, limit: 10 })
          .rows.map((r) => r.sampleId),
      ).toEqual(['Z', 'Z', 'a\u{10000}', 'a\u{10000}']);
      // The stored value holds the same strings (UTF-8 outside the JSON header), and a new table answers from it alike.
      const stored = decodeQueueData(p.db.prepare<[], Buffer>("SELECT data FROM derived WHERE name = 'queue'").pluck(true).get()!);
      expect(stored?.ids).toBe(order.join(''));
      expect(stored?.texts).toContain('\u{1f600}c  q \u{1f600}c\n');
      expect(createQueueTable(p).page({ filter: all, sort: { key: 'sampleId', desc: false }, offset: 0, limit: QUEUE_PAGE_MAX }).rows).toEqual(byId);
    } finally {
      p.close();
    }
  });

  const expected = (rows: QueueRow[], f: QueueFilter, s: QueueSort) => filterQueue(rows, f, s).map((i) => rows[i]!);
});

describe('queue rows of grids with other configs', () => {
  it("an outcome pattern shared by two grids keeps each grid's class, flags and transitions", () => {
    // Model A's grid is text only, 8f, 16f; model B's 8f, 16f, 32f. Every item has the same
    // outcomes under both, so each pattern occurs in both grids, meaning other transitions.
    const dir = tempDir('fb-queue-configs-');
    const file = path.join(dir, 'p.flipbook');
    const grids = { A: [config('textonly', 0), config('8f', 8), config('16f', 16)], B: [config('8f', 8), config('16f', 16), config('32f', 32)] };
    const items = Array.from({ length: 16 }, (_, i) => ({
      split: 'S',
      sampleId: `i${String(i).padStart(2, '0')}`,
      question: 'q',
      options: ['a', 'b'],
      answer: 'A',
      taskType: null,
    }));
    const p = openProject(file, { create: true });
    try {
      let line = 1;
      p.applyImports(
        Object.entries(grids).map(([model, configs], k) => ({
          run: { sourcePath: model, sha256: String(k).repeat(64), format: 'test', toolkit: null, modelArgs: null },
          items,
          // Item i: bit j of i % 8 is its outcome under the grid's j-th config.
          responses: items.flatMap((it, i) =>
            configs.map((c, j) =>
              response({
                model,
                split: 'S',
                sampleId: it.sampleId,
                config: c.key,
                line: line++,
                pred: ((i % 8) >> j) & 1 ? 'A' : 'B',
                correct: (((i % 8) >> j) & 1) === 1,
                groundTruth: 'A',
              }),
            ),
          ),
          configs,
          warnings: [],
        })),
      );
      const rows = createQueueTable(p).page({ filter: { ...EMPTY_FILTER, preset: 'all' }, sort: { key: 'model', desc: false }, offset: 0, limit: QUEUE_PAGE_MAX }).rows;
      expect(rows).toHaveLength(32);
      // The engine on each whole grid, row by row (docs/metrics.md §3 and "Transitions").
      const want = p.scanOutcomes().grids.flatMap((g) => {
        const t = trajectoryColumns(g);
        const pairs = transitionPairs(t.plan);
        return g.itemIds.map((sampleId, i) => {
          const y = Array.from(t.plan.cols, (c) => g.correct[i * g.configs.length + c]!);
          const cls = t.trajectoryClass[i]!;
          return {
            model: g.model,
            sampleId,
            pattern: patternOf(y),
            trajectoryClass: cls < 0 ? null : TRAJECTORY_CLASSES[cls]!,
            flags: { visuallyConfused: t.visuallyConfused[i] === 1, textOverwritten: t.textOverwritten[i] === 1, terminalRegression: t.terminalRegression[i] === 1 },
            ...itemTransitions(t.plan, pairs, y),
          };
        });
      });
      expect(
        rows.map((r) => ({ model: r.model, sampleId: r.sampleId, pattern: r.pattern, trajectoryClass: r.trajectoryClass, flags: r.flags, harmed: r.harmed, rescued: r.rescued })),
      ).toEqual(want);
      // The same pattern, other meanings: "10" then "0" is harm between the first two configs.
      const i01 = rows.filter((r) => r.sampleId === 'i01');
      expect(i01.map((r) => [r.model, r.pattern, r.harmed])).toEqual([
        ['A', '100', ['textonly>8f', 'textonly>16f']],
        ['B', '100', ['8f>16f']],
      ]);
    } finally {
      p.close();
    }
  });
});

describe('migration 40', () => {
  it('drops queue_rows and its indexes from an existing project and keeps the queue as one value', () => {
    const dir = tempDir('fb-queue-migrate-');
    const file = path.join(dir, 'old.flipbook');
    const db = new Database(file);
    migrate(
      db,
      file,
      loadMigrations().filter((m) => m.version <= 30),
    );
    db.prepare(
      "INSERT INTO queue_rows (model, split, sample_id, pattern, flags, priority, harmed, rescued, has_video, search_text) VALUES ('A', 'S', 'x', '1', 0, 3, '[]', '[]', 0, 'x a')",
    ).run();
    db.prepare("INSERT INTO derived (name, inputs, json) VALUES ('queue', 1, '{}')").run();
    db.close();
    const p = openProject(file);
    try {
      expect(p.migration?.from).toBe(30);
      expect(p.db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'queue_rows%'").pluck().all()).toEqual([]);
      expect(p.db.prepare("SELECT count(*) FROM derived WHERE name = 'queue'").pluck().get()).toBe(0);
      expect(createQueueTable(p).page({ filter: EMPTY_FILTER, sort: { key: 'default', desc: false }, offset: 0, limit: 10 }).all).toBe(0);
      expect(p.db.prepare("SELECT inputs FROM derived WHERE name = 'queue' AND data IS NOT NULL").pluck().get()).toBe(p.inputsVersion());
    } finally {
      p.close();
    }
  });
});
