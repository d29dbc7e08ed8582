/**
 * Continuous flows everywhere MCQA has them (docs/metrics.md §4): an MLVU generation run in
 * MLVU's own layouts (metadata + predictions at three budgets) imported through the import path
 * the CLI and the app share, then its overview figures, its queue rows (patterns, classes,
 * flags, improved/regressed transitions, the default "terminal regressions and confused"
 * preset) and its overview marks, each against an independent computation from the files.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OverviewGrid, OverviewOpen } from '../../../shared/api/overview';
import { EMPTY_FILTER, type QueueFilter } from '../../../shared/api/queue-filter';
import type { QueueRow } from '../../../shared/api/contract';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import { applyImportFiles, readImportFiles } from '../../../electron/jobs/import-files';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { expectedFlows, MODEL, writeMlvuGeneration, type ExpectedFlows } from '../../mlvu-generation';
import { tempDir } from '../../temp-dir';
import { checkedHandlers } from '../api/checked-handlers';

describe('continuous flows on an MLVU generation run', () => {
  let dir: string;
  let backend: Backend;
  let want: ExpectedFlows;
  const ids = new Map<string, ExpectedFlows['items'][number]>();
  const call = async <T>(op: string, req: unknown): Promise<T> => {
    const r = await dispatch(checkedHandlers(backend.handlers), op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };
  const rows = async (filter: QueueFilter): Promise<QueueRow[]> =>
    (await call<{ rows: QueueRow[] }>('queue:page', { filter, sort: { key: 'sampleId', desc: false }, offset: 0, limit: 1000 })).rows;

  beforeAll(async () => {
    dir = tempDir('fb-continuous-');
    const run = writeMlvuGeneration(path.join(dir, 'mlvu'));
    want = expectedFlows(run);
    for (const x of want.items) ids.set(mlvuSampleId(x.key.video, x.key.question), x);
    const file = path.join(dir, 'p.flipbook');
    const project = openProject(file, { create: true });
    try {
      const read = [...(await readImportFiles(run.meta, {})), ...(await Promise.all(run.results.map((r) => readImportFiles([r.path], r.opts)))).flat()];
      applyImportFiles(project, read, {});
    } finally {
      project.close();
    }
    backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => backend?.close());

  it('the run exercises every rule, away from the ε boundary', () => {
    expect(want.margin).toBeGreaterThan(1e-6);
    expect(want.items.length).toBe(24);
    for (const cls of ['flat', 'monotonic_increasing', 'monotonic_decreasing', 'oscillating']) expect(want.classes[cls] ?? 0, cls).toBeGreaterThan(0);
    expect(want.items.filter((x) => x.terminalRegression).length).toBeGreaterThan(0);
    expect(want.items.filter((x) => x.regressed && !x.terminalRegression).length).toBeGreaterThan(0);
    expect(want.transitions.every((t) => t.improved > 0 && t.regressed > 0)).toBe(true);
  });

  it('the overview’s figures equal the independent computation (counts exactly, rates and points to 1e-9)', async () => {
    const info = await call<{ grids: { model: string; split: string; kind: string; score: string }[] }>('project:info', {});
    expect(info.grids).toEqual([expect.objectContaining({ model: MODEL, split: 'MLVU_gen', kind: 'open', score: 'token_f1' })]);
    const ov = await call<{ grids: OverviewGrid[] }>('overview:get', {});
    const g = ov.grids.find((x) => x.model === MODEL)!;
    const o = g.open as OverviewOpen;
    expect(o.configs).toEqual(want.configs);
    expect(o.n).toBe(want.items.length);
    want.configs.forEach((c, j) => expect(Math.abs(o.mean[c]! - want.mean[j]!)).toBeLessThan(1e-9));
    expect(o.bestFixed).toBe(want.bestFixed);
    expect(Math.abs(o.oracleGapPts - want.oracleGapPts)).toBeLessThan(1e-9);
    expect(Math.abs(o.regressionRate - want.regressionRate)).toBeLessThan(1e-9);
    expect(Math.abs(o.terminalRegressionRate - want.terminalRegressionRate)).toBeLessThan(1e-9);
    expect(o.transitions.map(({ from, to, improved, regressed }) => ({ from, to, improved, regressed }))).toEqual(
      want.transitions.map(({ from, to, improved, regressed }) => ({ from, to, improved, regressed })),
    );
    o.transitions.forEach((t, k) => expect(Math.abs(t.netPts - want.transitions[k]!.netPts)).toBeLessThan(1e-9));
    expect(g.classes).toEqual(want.classes);
    // Each config's distribution holds every complete item once, in the band of its score.
    want.configs.forEach((c, j) => {
      const bins = new Array<number>(10).fill(0);
      for (const x of want.items) bins[Math.min(9, Math.floor(x.scores[j]! * 10))]!++;
      expect(o.distribution[j]).toEqual({ config: c, bins });
    });
  });

  it('the queue lists every item with its pattern, class, flags and transitions; its default preset is the terminal regressions and regressed items', async () => {
    const all = await rows({ ...EMPTY_FILTER, preset: 'all' });
    expect(all.length).toBe(want.items.length);
    for (const r of all) {
      const x = ids.get(r.sampleId)!;
      expect(x, r.sampleId).toBeDefined();
      expect({ pattern: r.pattern, cls: r.trajectoryClass, tr: r.flags.terminalRegression, vc: r.flags.visuallyConfused, harmed: r.harmed, rescued: r.rescued }).toEqual({
        pattern: x.pattern,
        cls: x.cls,
        tr: x.terminalRegression,
        vc: x.regressed,
        harmed: x.regressedOn,
        rescued: x.improvedOn,
      });
    }
    const byDefault = (await rows(EMPTY_FILTER)).map((r) => r.sampleId).sort();
    const expectDefault = [...ids]
      .filter(([, x]) => x.terminalRegression || x.regressed)
      .map(([id]) => id)
      .sort();
    expect(byDefault).toEqual(expectDefault);
    expect(byDefault.length).toBeLessThan(all.length);
    // A transition's regressed items, as the flows chart opens them.
    const t = want.transitions[0]!;
    const regressed = (await rows({ ...EMPTY_FILTER, preset: 'all', model: MODEL, split: 'MLVU_gen', transition: `${t.from}>${t.to}`, transitionKind: 'harmed' }))
      .map((r) => r.sampleId)
      .sort();
    expect(regressed).toEqual(
      [...ids]
        .filter(([, x]) => x.regressedOn.includes(`${t.from}>${t.to}`))
        .map(([id]) => id)
        .sort(),
    );
    expect(regressed.length).toBe(t.regressed);
  });

  it('the item view and the overview marks give the same items', async () => {
    const [id, x] = [...ids].find(([, v]) => v.terminalRegression)!;
    const d = await call<{
      pattern: string;
      trajectoryClass: string;
      flags: { terminalRegression: boolean };
      terminalConfig: string;
      defaultTransition: string | null;
      harmed: string[];
    }>('item:get', { model: MODEL, split: 'MLVU_gen', sampleId: id });
    expect(d).toMatchObject({ pattern: x.pattern, trajectoryClass: x.cls, flags: { terminalRegression: true }, terminalConfig: '32f', harmed: x.regressedOn });
    const mark = async (m: unknown) => (await call<{ ids: string[] }>('overview:items', { model: MODEL, split: 'MLVU_gen', mark: m })).ids.sort();
    expect(await mark({ kind: 'flag', flag: 'terminalRegression' })).toEqual(
      [...ids]
        .filter(([, v]) => v.terminalRegression)
        .map(([k]) => k)
        .sort(),
    );
    expect(await mark({ kind: 'flag', flag: 'visuallyConfused' })).toEqual(
      [...ids]
        .filter(([, v]) => v.regressed)
        .map(([k]) => k)
        .sort(),
    );
    const p = x.pattern;
    expect(await mark({ kind: 'pattern', pattern: p })).toEqual(
      [...ids]
        .filter(([, v]) => v.pattern === p)
        .map(([k]) => k)
        .sort(),
    );
    expect(await mark({ kind: 'scoreBin', config: '8f', bin: 0 })).toEqual(
      [...ids]
        .filter(([, v]) => Math.floor(v.scores[0]! * 10) === 0)
        .map(([k]) => k)
        .sort(),
    );
  });
});
