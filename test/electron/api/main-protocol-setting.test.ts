/**
 * The main protocol through the app's contract (docs/metrics.md §6), on a real project and the
 * real dispatcher: settings:set mainProtocol changes which grid the overview's numbers come
 * from and tells every view the project changed; an unknown protocol is refused and changes
 * nothing; the protocol marks of overview:items answer with the engine's item lists.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Overview } from '../../../shared/api/overview';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { compareProtocols } from '../../../shared/engine/protocols';
import { checkedHandlers } from './checked-handlers';
import { config, response, tempDir } from '../store/helpers';

// Per item: textonly, 16f, 32f, 32f@random.
const PATTERNS = ['0101', '1100', '1011', '0110', '1101', '0010'];

describe('main protocol setting (real project)', () => {
  let backend: Backend;
  const events: unknown[] = [];
  const call = async <T>(op: string, req: unknown): Promise<T> => {
    const r = await dispatch(checkedHandlers(backend.handlers), op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(() => {
    const file = path.join(tempDir('fb-main-protocol-'), 'p.flipbook');
    const all = [config('textonly', 0), config('16f', 16), config('32f', 32), config('32f@random', 32)];
    let line = 1;
    const p = openProject(file, { create: true });
    p.applyImport({
      run: { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null },
      items: [],
      configs: all,
      warnings: [],
      responses: PATTERNS.flatMap((pat, i) =>
        all.map((c, j) =>
          response({ model: 'M', split: 'S', sampleId: `q${i}`, config: c.key, line: line++, pred: pat[j] === '1' ? 'A' : 'B', correct: pat[j] === '1', groundTruth: 'A' }),
        ),
      ),
    });
    p.close();
    backend = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => backend?.close());

  it('the overview follows the setting; a protocol no grid has is refused', async () => {
    let o = await call<Overview>('overview:get', {});
    expect(o.mainProtocol).toEqual({ name: '', source: 'default', available: ['', 'random'] });
    expect(o.grids[0]!.metrics!.configs).toEqual(['textonly', '16f', '32f']);
    expect(o.grids[0]!.protocols.map((x) => x.protocol)).toEqual(['random']);

    const bad = await dispatch(checkedHandlers(backend.handlers), 'settings:set', { key: 'mainProtocol', value: 'raw' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    expect(!bad.ok && bad.error.message).toMatch(/raw: the project has no such protocol \(it has untagged, @random\)/);
    expect((await call<Overview>('overview:get', {})).mainProtocol.source).toBe('default');

    events.length = 0;
    await call('settings:set', { key: 'mainProtocol', value: '@random' });
    expect(events).toContainEqual({ name: 'data:changed', payload: { scope: 'project', item: null } });
    o = await call<Overview>('overview:get', {});
    expect(o.mainProtocol).toMatchObject({ name: 'random', source: 'setting' });
    expect(o.grids[0]!.metrics!.configs).toEqual(['textonly', '32f@random']);
    expect(await call('settings:get', { key: 'mainProtocol' })).toBe('random');
    await call('settings:set', { key: 'mainProtocol', value: null });
    expect((await call<Overview>('overview:get', {})).mainProtocol).toMatchObject({ name: '', source: 'default' });
  });

  it("protocol marks answer with the engine's items", async () => {
    const p = backend.project()!;
    const r = compareProtocols(p.loadMatrix('M', 'S', { allProtocols: true }), '')!;
    const v = r.variants[0]!;
    const items = (mark: unknown) => call<{ ids: string[] }>('overview:items', { model: 'M', split: 'S', mark }).then((x) => x.ids);
    expect(await items({ kind: 'protocolMoved', protocol: 'random', set: 'confused', side: 'onlyMain' })).toEqual(v.agreement!.confused.onlyMain);
    expect(await items({ kind: 'protocolMoved', protocol: 'random', set: 'confused', side: 'onlyVariant' })).toEqual(v.agreement!.confused.onlyVariant);
    expect(await items({ kind: 'recovered', protocol: 'random' })).toEqual(v.recovery.recoveredItems);
    expect(await items({ kind: 'recovered', protocol: null })).toEqual(r.anyRecovery!.recoveredItems);
    expect(v.recovery.recoveredItems.length + v.agreement!.confused.onlyMain.length + v.agreement!.confused.onlyVariant.length).toBeGreaterThan(0);
    const none = await dispatch(checkedHandlers(backend.handlers), 'overview:items', { model: 'M', split: 'S', mark: { kind: 'recovered', protocol: 'raw' } });
    expect(none).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });
});
