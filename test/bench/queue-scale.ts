/**
 * Queue at lab scale. `node --import tsx test/bench/queue-scale.ts` prints the JSON;
 * test/bench/run.ts calls benchQueueScale(). The generated per_item.csv at 1× and 10× (the
 * release matrix and ten times its items) is imported through the app's import path into a
 * fresh project; then the real backend answers queue:page as the queue view asks: the first
 * page (cold: rows derived from the matrices), a filter change, a page deep in the list, and
 * typing a search term. The goal (docs/architecture.md "The queue at lab scale"): from 1× to
 * 10× the first page grows at most 2× and a filter change at 10× answers in ≤ 100 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EMPTY_FILTER, type QueueFilter, type QueueSort } from '../../shared/api/queue-filter';
import type { Res } from '../../shared/api/contract';
import { createBackend } from '../../electron/services/create-backend';
import { dispatch } from '../../electron/services/dispatch';
import { applyImportFiles, readImportFiles } from '../../electron/services/import-files';
import { openProject } from '../../electron/store/project';
import { generatePerItemCsv } from './generate-per-item';

const round = (x: number) => Math.round(x * 10) / 10;
const SORT: QueueSort = { key: 'default', desc: false };

async function atScale(work: string, scale: number): Promise<Record<string, number>> {
  const csv = path.join(work, `per_item_${scale}x.csv`);
  const gen = generatePerItemCsv(csv, undefined, scale);
  const file = path.join(work, `q${scale}.flipbook`);
  const t0 = performance.now();
  const p = openProject(file, { create: true });
  try {
    applyImportFiles(p, await readImportFiles([csv], {}), {});
  } finally {
    p.close();
  }
  const importMs = performance.now() - t0;
  rmSync(csv, { force: true });
  const backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
  try {
    backend.open(file);
    const page = async (filter: QueueFilter, offset = 0, sort = SORT): Promise<{ ms: number; v: Res<'queue:page'> }> => {
      const t = performance.now();
      const r = await dispatch(backend.handlers, 'queue:page', { filter, sort, offset, limit: 100, annotator: 'bench' });
      if (!r.ok) throw new Error(r.error.message);
      return { ms: performance.now() - t, v: r.value as Res<'queue:page'> };
    };
    const first = await page(EMPTY_FILTER);
    const model = (await page({ ...EMPTY_FILTER, model: 'Qwen2.5-VL-7B' })).ms;
    const all = await page({ ...EMPTY_FILTER, preset: 'all' }, 0, { key: 'sampleId', desc: false });
    const deep = (await page({ ...EMPTY_FILTER, preset: 'all' }, Math.floor(all.v.total / 2), { key: 'sampleId', desc: false })).ms;
    const term = 'mlvu 0001';
    let worstKey = 0;
    for (let i = 1; i <= term.length; i++) worstKey = Math.max(worstKey, (await page({ ...EMPTY_FILTER, preset: 'all', search: term.slice(0, i) })).ms);
    return {
      csvRows: gen.rows,
      queueRows: first.v.all,
      importMs: round(importMs),
      firstPageColdMs: round(first.ms),
      filterChangeModelMs: round(model),
      filterChangeAllRowsNewSortMs: round(all.ms),
      deepPageMs: round(deep),
      searchKeystrokeWorstMs: round(worstKey),
    };
  } finally {
    backend.close();
  }
}

export async function benchQueueScale(): Promise<Record<string, unknown>> {
  const work = mkdtempSync(path.join(tmpdir(), 'fb-bench-queue-'));
  try {
    const x1 = await atScale(work, 1);
    const x10 = await atScale(work, 10);
    const worstFilter10 = Math.max(x10.filterChangeModelMs ?? 0, x10.filterChangeAllRowsNewSortMs ?? 0, x10.searchKeystrokeWorstMs ?? 0);
    const growth = round(((x10.firstPageColdMs ?? 0) / Math.max(1, x1.firstPageColdMs ?? 1)) * 10) / 10;
    return {
      x1,
      x10,
      firstPageGrowth1to10: growth,
      worstFilterChangeAt10xMs: worstFilter10,
      goals: { firstPageGrowthAtMost: 2, filterChangeAt10xMsAtMost: 100 },
      met: growth <= 2 && worstFilter10 <= 100,
      note: 'backend only (queue:page through the real dispatcher); the first page is cold: it derives every row from the matrices once per import',
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void benchQueueScale().then((r) => process.stdout.write(`${JSON.stringify(r, null, 2)}\n`));
}
