/**
 * queue:page on a real SQLite project through the real dispatcher: every page equals the slice
 * of the full queue (every page of the key order) filtered and sorted by the shared filter code, for several
 * filters and sorts; statuses follow annotation edits; an import rebuilds the cached rows; a
 * page never carries more than QUEUE_PAGE_MAX rows; `at` finds an item's neighbours.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_PAGE_MAX, type QueueRow, type Res } from '../../../shared/api/contract';
import { EMPTY_FILTER, filterQueue, rowKey, type QueueFilter, type QueueSort } from '../../../shared/api/queue-filter';
import { createBackend, type Backend } from '../../../electron/services/create-backend';
import { dispatch } from '../../../electron/services/dispatch';
import { openProject } from '../../../electron/store/project';
import { createQueueTable } from '../../../electron/services/queue-table';
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
});
