/**
 * The desktop app's backend thread (electron/host/backend-host.ts) driven from this thread
 * as Electron's main process drives it (backend-client.ts), under plain Node: the real
 * backend, a real SQLite project and the bench's 145k-row per_item.csv, with the import's own
 * worker thread nested inside. There is no Electron binary here; main.ts only adds the window.
 */
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, Res } from '../../../shared/api/contract';
import { startBackendHost, type BackendClient } from '../../../electron/host/backend-client';
import { dispatch } from '../../../electron/api/dispatch';
import { applyImportFiles, readImportFiles } from '../../../electron/jobs/import-files';
import { createProjectWith } from '../../../electron/store/project';
import { generatePerItemCsv } from '../../bench/generate-per-item';
import { tempDir } from '../../temp-dir';

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';

describe('the backend in its own thread (Electron main drives it)', () => {
  let dir: string;
  let client: BackendClient;
  const events: { event: EventName; payload: unknown }[] = [];
  const recentAdded: string[] = [];
  const annotators: string[] = [];
  const picked: string[] = [];

  beforeAll(() => {
    dir = tempDir('fb-host-');
    client = startBackendHost(
      { recent: [], annotator: 'earlier' },
      {
        emit: (event, payload) => events.push({ event, payload }),
        pickPaths: async (kind) => (picked.push(kind), [path.join(dir, 'picked.csv')]),
        recentAdded: (p) => recentAdded.push(p),
        annotatorSet: (name) => annotators.push(name),
      },
    );
  });
  afterAll(async () => {
    await client.close();
  });

  const call = async <T>(op: string, req: unknown): Promise<T> => {
    const r = await dispatch(client.handlers, op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code}: ${r.error.message}`);
    return r.value as T;
  };

  it('opens a project, answers calls, relays dialogs, settings and events, and imports while this thread stays free', async () => {
    const csv = path.join(dir, 'small.csv');
    fs.writeFileSync(csv, `${HEADER}\n${['a', 'b', 'c'].map((id) => `${id},Tiny-1B,T_split,16f_151k,16,150528,A,A,1,,`).join('\n')}\n`);
    const file = path.join(dir, 'p.flipbook');
    const read = await readImportFiles([csv], {});
    createProjectWith(file, (p) => applyImportFiles(p, read, {}));

    await client.open(file);
    const info = await call<Res<'project:info'>>('project:info', {});
    expect(info?.models).toEqual(['Tiny-1B']);
    expect(recentAdded).toEqual([file]);
    expect(await call('annotator:get', {})).toBe('earlier');
    await call('annotator:set', { name: 'ann' });
    expect(annotators).toEqual(['ann']);
    expect(await call('dialog:pick', { kind: 'import' })).toEqual({ paths: [path.join(dir, 'picked.csv')] });
    expect(picked).toEqual(['import']);

    // An import error keeps its code and file:line: field across both thread boundaries.
    const bad = path.join(dir, 'bad.csv');
    fs.writeFileSync(bad, `${HEADER}\nx,New-2B,T_split,16f_151k,16,150528,B,A,maybe,,\n`);
    const refused = await dispatch(client.handlers, 'import:run', { jobId: 'bad', paths: [bad] });
    expect(refused.ok ? null : refused.error.code).toBe('import-error');
    expect(refused.ok ? '' : refused.error.message).toContain(`${bad}:2: correct: `);

    // A 145k-row import: this thread's timers keep firing (nothing here waits on SQLite).
    const big = path.join(dir, 'per_item.csv');
    generatePerItemCsv(big);
    let last = performance.now();
    let worstGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worstGap = Math.max(worstGap, now - last);
      last = now;
    }, 10);
    try {
      const r = await call<Res<'import:run'>>('import:run', { jobId: 'big', paths: [big] });
      expect(r.summary.responsesAdded).toBeGreaterThan(140_000);
      await call('overview:get', {});
    } finally {
      clearInterval(timer);
    }
    expect(worstGap, 'the longest pause of this thread while the backend imported and computed the overview').toBeLessThan(1000);
    expect(events.some((e) => e.event === 'job:progress' && (e.payload as { jobId: string }).jobId === 'big')).toBe(true);
    expect(events.some((e) => e.event === 'data:changed')).toBe(true);
  }, 180_000);

  it('an unknown project is refused with its reason, and the thread keeps serving', async () => {
    await expect(client.open(path.join(dir, 'missing.flipbook'))).rejects.toThrow(/no such project file/);
    expect(await call('recent:list', {})).toEqual([path.join(dir, 'p.flipbook')]);
  });
});
