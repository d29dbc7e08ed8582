/**
 * The contract declares what each operation does to the project (shared/api/op.ts), and
 * dispatch's withEffects acts on it: an operation that writes is refused on a read-only
 * project before its handler runs, one that changes something announces it once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type EventName, type OpName } from '../../../shared/api/contract';
import { EMPTY_FILTER } from '../../../shared/api/queue-filter';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch, withEffects, type Handlers } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { config, response, tempDir } from '../store/helpers';

const names = Object.keys(operations) as OpName[];

describe('withEffects over every operation of the contract', () => {
  const calls: string[] = [];
  const changed: unknown[] = [];
  let reason: string | null = null;
  let answer: unknown = { model: 'm', split: 's', sampleId: 'i' };
  const fake = Object.fromEntries(names.map((n) => [n, () => (calls.push(n), answer)])) as unknown as Handlers;
  const handlers = withEffects(fake, { readOnlyReason: () => reason, writesIdle: async () => {}, changed: (p) => changed.push(p) });
  const call = (n: OpName): Promise<unknown> => Promise.resolve((handlers[n] as (r: unknown) => unknown)({}));

  it('declares writes and changes on the operations that have them', () => {
    const writes = names.filter((n) => operations[n].effects.writes);
    expect(writes).toEqual(
      expect.arrayContaining([
        'annotation:apply',
        'annotation:undo',
        'annotation:redo',
        'settings:set',
        'import:run',
        'codebook:set',
        'team:adjudicate',
        'team:merge',
        'views:save',
        'sync:run',
      ]),
    );
    expect(names.filter((n) => operations[n].effects.changes && !operations[n].effects.writes)).toEqual([]);
  });

  it('runs no handler that writes while the project is read-only, and runs every other one', async () => {
    reason = 'opened read-only';
    for (const n of names) {
      calls.length = 0;
      const run = call(n);
      if (operations[n].effects.writes) {
        await expect(run).rejects.toMatchObject({ code: 'read-only', message: 'the project is open read-only: opened read-only' });
        expect(calls, n).toEqual([]);
      } else {
        await run;
        expect(calls, n).toEqual([n]);
      }
    }
    reason = null;
  });

  it('announces a change once per successful call, with the item its answer names; nothing for null', async () => {
    for (const n of names) {
      changed.length = 0;
      answer = { item: { model: 'm', split: 's', sampleId: 'i' }, state: {} };
      await call(n);
      const declared = operations[n].effects.changes as string | ((req: unknown) => string) | undefined;
      const scope = typeof declared === 'function' ? declared({}) : declared;
      expect(changed, n).toEqual(scope ? [{ scope, item: { model: 'm', split: 's', sampleId: 'i' } }] : []);
      changed.length = 0;
      answer = null;
      await call(n);
      expect(changed, n).toEqual([]);
      answer = [1, 2];
      await call(n);
      expect(changed, n).toEqual(scope ? [{ scope, item: null }] : []);
    }
  });
});

describe('writes on a project open read-only elsewhere (real backend, real SQLite)', () => {
  let dir: string;
  let file: string;
  let first: Backend;
  let second: Backend;
  const events: { name: EventName; payload: unknown }[] = [];

  beforeAll(() => {
    dir = tempDir('fb-effects-');
    file = path.join(dir, 'p.flipbook');
    const p = openProject(file, { create: true });
    const configs = [config('textonly', 0), config('8f', 8)];
    p.applyImports([
      {
        run: { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null },
        items: [{ split: 'S', sampleId: 'i', question: 'q', options: ['a', 'b'], answer: 'A' }],
        responses: configs.map((c, k) => response({ model: 'M', split: 'S', sampleId: 'i', config: c.key, line: k + 1, pred: 'A', correct: true, groundTruth: 'A' })),
        configs,
        warnings: [],
      },
    ]);
    p.close();
    first = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => id });
    first.open(file);
    second = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => id, readOnlyWhenLocked: true });
    second.open(file);
  });
  afterAll(() => {
    second?.close();
    first?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the codebook, a saved view and an adjudication with the read-only reason, and writes nothing', async () => {
    const codebook = (await dispatch(second.handlers, 'codebook:get', {})) as { ok: true; value: unknown };
    events.length = 0;
    const attempts: [string, unknown][] = [
      ['codebook:set', { codebook: codebook.value }],
      ['views:save', { name: 'mine', value: { filter: EMPTY_FILTER, sort: { key: 'default', desc: false }, columns: [] } }],
      ['team:adjudicate', { model: 'M', split: 'S', sampleId: 'i', adjudicator: 'lead', primary: null, pathways: [], note: '' }],
    ];
    for (const [op, req] of attempts) {
      const r = await dispatch(second.handlers, op, req);
      expect(r.ok ? 'ok' : r.error.code, `${op}: ${JSON.stringify(r)}`).toBe('read-only');
      expect(r.ok ? '' : r.error.message).toContain('another Flipbook');
    }
    expect(events.filter((e) => e.name === 'data:changed')).toEqual([]);
    const views = (await dispatch(second.handlers, 'views:list', {})) as { ok: true; value: unknown[] };
    expect(views.value).toEqual([]);
  });

  it('announces an edit, an undo and a redo once each, naming the item', async () => {
    const item = { model: 'M', split: 'S', sampleId: 'i' };
    events.length = 0;
    const apply = await dispatch(first.handlers, 'annotation:apply', { annotator: 'ann', edit: { op: 'setNotes', ...item, notes: 'seen' } });
    expect(apply.ok, JSON.stringify(apply)).toBe(true);
    for (const op of ['annotation:undo', 'annotation:redo']) expect((await dispatch(first.handlers, op, { annotator: 'ann', item })).ok).toBe(true);
    expect(events.filter((e) => e.name === 'data:changed').map((e) => e.payload)).toEqual([
      { scope: 'annotations', item },
      { scope: 'annotations', item },
      { scope: 'annotations', item },
    ]);
  });
});
