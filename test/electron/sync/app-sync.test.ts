/**
 * The app's Sync panel operations (sync:configure, sync:run, sync:status) through the real
 * backend and dispatch against a real PostgreSQL: offline the status says so in words and
 * counts the edits not yet synced, nothing blocks; once the server is back a sync pushes them,
 * and labels pulled from a colleague reach the Team view's operations with a data:changed event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../../shared/api/contract';
import type { SyncStatus } from '../../../shared/api/sync-contract';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/index';
import { runSync } from '../../../electron/sync/sync';
import { annotate } from '../../../electron/jobs/annotate';
import { tempDir } from '../store/helpers';
import { copies, makeReleaseProject, firstTime } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
let files: Record<string, string>;
let backend: Backend;
const events: { name: EventName; payload: unknown }[] = [];

async function call<T>(name: string, req: unknown): Promise<T> {
  const r = await dispatch(backend.handlers, name, req);
  if (!r.ok) throw new Error(`${name}: ${r.error.code}: ${r.error.message}`);
  return r.value as T;
}

beforeAll(async () => {
  server = await startPgServer();
  files = copies(makeReleaseProject(tempDir('flipbook-app-sync-'), 12), ['lead', 'ann', 'ben']);
  await server.createRole('ann', 'annotator');
  await server.createRole('ben', 'annotator');
  backend = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => `/media/${id}` });
  await call('project:open', { path: files.ann! });
}, 120_000);

afterAll(() => {
  backend?.close();
  server?.stop();
});

/** The space, made by its owner's first sync (`firstTime`). */
const spaceReady = firstTime(async () => {
  const lead = openProject(files.lead!);
  try {
    await runSync(lead, { server: server.url(ADMIN), space: 'app', password: server.password });
  } finally {
    lead.close();
  }
});

/** Ann's Sync settings as the first test leaves them, so that each later test may run alone. */
const online = (): Promise<SyncStatus> => call<SyncStatus>('sync:configure', { server: server.url('ann'), space: 'app', intervalMinutes: 5, password: server.password });

describe('the Sync panel operations', () => {
  it('offline: edits are counted as not yet synced and the error is in words; back online they are pushed', async () => {
    await spaceReady();
    const edit = { op: 'setPrimary', model: 'm1', split: 'S', sampleId: 'q1', pathway: 'evidence-missed' };
    await call('annotation:apply', { edit, annotator: 'ann' });
    const down = await call<SyncStatus>('sync:configure', { server: 'postgresql://ann@127.0.0.1:1/lab', space: 'app', intervalMinutes: 0, password: server.password });
    expect(down).toMatchObject({ server: 'postgresql://ann@127.0.0.1:1/lab', space: 'app', pending: 1, hasPassword: true, lastError: null });
    const failed = await call<SyncStatus>('sync:run', {});
    expect(failed.lastError).toMatch(/cannot reach 127\.0\.0\.1:1 \(connection refused\): the server is down or you are offline/);
    expect(failed.pending).toBe(1);
    // Nothing blocks: another edit while offline.
    await call('annotation:apply', { edit: { op: 'setStatus', model: 'm1', split: 'S', sampleId: 'q1', status: 'done' }, annotator: 'ann' });
    expect((await call<SyncStatus>('sync:status', {})).pending).toBe(2);

    const up = await call<SyncStatus>('sync:configure', { server: server.url('ann'), space: 'app', intervalMinutes: 5 });
    expect(up).toMatchObject({ intervalMinutes: 5, hasPassword: true });
    const ok = await call<SyncStatus>('sync:run', {});
    expect(ok).toMatchObject({ lastError: null, pending: 0, last: { pushed: 2, pulled: 0, role: 'ann' } });
    expect(ok.lastSyncAt).not.toBeNull();
  });

  it("a colleague's labels pulled by a sync reach the Team view's operations with data:changed", async () => {
    await spaceReady();
    await online();
    await call('annotation:apply', { edit: { op: 'setPrimary', model: 'm1', split: 'S', sampleId: 'q2', pathway: 'evidence-missed' }, annotator: 'ann' });
    const ben = openProject(files.ben!);
    try {
      annotate(ben, [{ row: { model: 'm1', split: 'S', item: 'q2', annotator: 'ben', primary: 'resolution-loss' }, where: 'test' }]);
      await runSync(ben, { server: server.url('ben'), space: 'app', password: server.password });
    } finally {
      ben.close();
    }
    events.length = 0;
    const r = await call<SyncStatus>('sync:run', {});
    expect(r.last).toMatchObject({ pulled: 1, conflicts: 1, openConflicts: 1 });
    expect(events).toContainEqual({ name: 'data:changed', payload: { scope: 'annotations', item: null } });
    const item = await call<{ labels: { annotator: string; primaryPathway: string | null }[] }>('team:item', { model: 'm1', split: 'S', sampleId: 'q2' });
    expect(item.labels.map((l) => [l.annotator, l.primaryPathway])).toEqual([
      ['ann', 'evidence-missed'],
      ['ben', 'resolution-loss'],
    ]);
    const conflicts = await call<{ conflicts: unknown[] }>('team:conflicts', {});
    expect(conflicts.conflicts).toHaveLength(1);
  });

  it('a codebook version pulled by a sync reaches the app (codebook:get) with data:changed for the project', async () => {
    await spaceReady();
    await online();
    const lead = openProject(files.lead!);
    try {
      const cb = lead.annotations.getCodebook();
      lead.annotations.setCodebook({ ...cb, pathways: [...cb.pathways, { id: 'audio-needed', label: 'Audio needed', description: '' }] });
      expect((await runSync(lead, { server: server.url(ADMIN), space: 'app', password: server.password })).codebooks).toEqual({ pushed: 1, pulled: 0 });
    } finally {
      lead.close();
    }
    const before = await call<{ version: number }>('codebook:get', {});
    events.length = 0;
    await call<SyncStatus>('sync:run', {});
    expect(events).toContainEqual({ name: 'data:changed', payload: { scope: 'project', item: null } });
    const after = await call<{ version: number; pathways: { id: string }[] }>('codebook:get', {});
    expect(after.version).toBe(before.version + 1);
    expect(after.pathways.map((x) => x.id)).toContain('audio-needed');
  });

  it('refuses a URL with a password and never stores one', async () => {
    await spaceReady();
    const r = await dispatch(backend.handlers, 'sync:configure', { server: 'postgresql://ann:secret@127.0.0.1/lab', space: 'app', intervalMinutes: 0 });
    expect(r).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    const p = backend.project()!;
    const settings = p.db.prepare('SELECT key, value FROM settings').all() as { key: string; value: string }[];
    expect(settings.some((s) => s.value.includes(server.password) || s.value.includes('secret'))).toBe(false);
  });
});
