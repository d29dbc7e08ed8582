/**
 * Audit-workspace benchmark. `node --import tsx test/bench/workspace.ts`
 * prints the JSON; test/bench/run.ts calls benchWorkspace().
 *
 * 1. Queue: a generated project of ≥ 30k (model, split, item) rows (ImportBatch → store), the
 *    real backend's queue:page (cold = the queue rows derived into the project from the
 *    matrices, warm = the same page again), then one page per filter change and keystroke.
 * 2. Item open: the real backend (createBackend) + frame service on a real 10-minute 720p H.264
 *    video (the frames bench's generator and cache file): item:get then frames:strips, timed
 *    until every tile of every strip shows at least its approximate frame (and until all are
 *    exact). Cold = fresh project (fresh frame cache, never probed); warm = the same item again
 *    in the same session, and after a restart (new backend, same project: probe and frames
 *    come from the project's media table and the frame cache).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { EventName, EventPayload, QueueRow, Strip } from '../../shared/api/contract';
import { EMPTY_FILTER, type QueueFilter, type QueueSort } from '../../shared/api/queue-filter';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow } from '../../shared/domain/types';
import { createBackend, type Backend } from '../../electron/api/create-backend';
import { dispatch } from '../../electron/api/dispatch';
import { openProject } from '../../electron/store/project';
import { mulberry32 } from '../../shared/engine/prng';
import { ensureVideo } from './frames';

const repoRoot = path.resolve(fileURLToPath(import.meta.url), '../../..');

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

function spec(key: string, frames: number, policy: ConfigSpec['sampling']['policy']): ConfigSpec {
  return {
    key,
    frames,
    pixelCount: frames === 0 ? 0 : 150528,
    width: null,
    height: null,
    sampling: { policy: frames === 0 ? null : policy, seed: null, fps: null },
    pipeline: frames === 0 ? null : 'raw',
    toolkit: 'bench',
    modelArgs: null,
    notes: null,
  };
}

function batchOf(name: string, items: ItemMeta[], responses: ResponseRow[], configs: ConfigSpec[]): ImportBatch {
  return {
    run: { sourcePath: name, sha256: createHash('sha256').update(name).digest('hex'), format: 'bench', toolkit: 'bench', modelArgs: null },
    items,
    responses,
    configs,
    warnings: [],
  };
}

// ------------------------------------------------------------------ 1. queue

const Q_MODELS = ['InternVL3-8B', 'InternVL3.5-8B', 'LLaVA-NeXT-Video-7B', 'Qwen2.5-VL-7B', 'Qwen3-VL-8B', 'MiniCPM-V-4'];
const Q_SPLITS = ['V1_short', 'V1_medium', 'V2_medium', 'MLVU'];
const Q_ITEMS = 1280; // 6 × 4 × 1280 = 30,720 rows
const Q_CONFIGS = [
  spec('textonly', 0, null),
  spec('16f', 16, 'uniform-linspace'),
  spec('32f', 32, 'uniform-linspace'),
  spec('64f', 64, 'uniform-linspace'),
  spec('128f', 128, 'uniform-linspace'),
];
const TASKS = ['counting', 'action order', 'object recognition', 'temporal reasoning', 'OCR', 'spatial'];
const WORDS = ['red', 'square', 'person', 'count', 'before', 'after', 'door', 'kitchen', 'ball', 'screen', 'many', 'times', 'first', 'last'];

function queueBatches(): ImportBatch[] {
  const rnd = mulberry32(20240611);
  const out: ImportBatch[] = [];
  for (const split of Q_SPLITS) {
    const items: ItemMeta[] = [];
    const gts: string[] = [];
    const diff: number[] = [];
    for (let i = 0; i < Q_ITEMS; i++) {
      const q = Array.from({ length: 10 }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
      const gt = 'ABCD'[Math.floor(rnd() * 4)] as string;
      gts.push(gt);
      diff.push(rnd() - 0.5);
      items.push({
        split,
        sampleId: `${split}-${String(i).padStart(5, '0')}`,
        question: `How ${q}?`,
        options: ['a', 'b', 'c', 'd'],
        answer: gt,
        taskType: TASKS[i % TASKS.length] ?? null,
        videoFile: `v${i}.mp4`,
      });
    }
    out.push(batchOf(`items-${split}`, items, [], []));
    for (const model of Q_MODELS) {
      const responses: ResponseRow[] = [];
      let line = 1;
      for (let i = 0; i < Q_ITEMS; i++) {
        const gt = gts[i] as string;
        Q_CONFIGS.forEach((c, ci) => {
          const ok = rnd() < 0.4 + 0.06 * ci - (diff[i] as number) * 0.8;
          const pred = ok ? gt : ('ABCD'[('ABCD'.indexOf(gt) + 1 + Math.floor(rnd() * 3)) % 4] as string);
          responses.push({
            model,
            split,
            sampleId: `${split}-${String(i).padStart(5, '0')}`,
            config: c.key,
            pred,
            correct: ok,
            score: null,
            groundTruth: gt,
            confidence: null,
            margin: null,
            latencyMs: null,
            frameIndices: null,
            sourceTag: null,
            protocolNote: null,
            line: line++,
          });
        });
      }
      out.push(batchOf(`${model}-${split}`, [], responses, Q_CONFIGS));
    }
  }
  return out;
}

async function benchQueue(work: string): Promise<Record<string, unknown>> {
  const file = path.join(work, 'queue.flipbook');
  const t0 = performance.now();
  const batches = queueBatches();
  const project = openProject(file, { create: true });
  project.applyImports(batches);
  project.close();
  const buildMs = round(performance.now() - t0);

  const backend = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}` });
  try {
    backend.open(file);
    const page = async (filter: QueueFilter, sort: QueueSort) => {
      const t = performance.now();
      const r = await dispatch(backend.handlers, 'queue:page', { filter, sort, offset: 0, limit: 100 });
      if (!r.ok) throw new Error(r.error.message);
      return { ms: round(performance.now() - t), total: (r.value as { total: number }).total, rows: (r.value as { rows: QueueRow[] }).rows };
    };
    const sortDefault: QueueSort = { key: 'default', desc: false };
    // The store's own import does not derive the queue (the app's import path does): the first page derives it.
    const cold = await page(EMPTY_FILTER, sortDefault);
    const warm = await page(EMPTY_FILTER, sortDefault);
    const transition = cold.rows.find((r) => r.harmed.length > 0)?.harmed[0] ?? null;
    const scenarios: Record<string, { filter: QueueFilter; sort: QueueSort }> = {
      allRowsSortedById: { filter: { ...EMPTY_FILTER, preset: 'all' }, sort: { key: 'sampleId', desc: false } },
      modelAndTerminalRegression: { filter: { ...EMPTY_FILTER, model: 'Qwen2.5-VL-7B', flags: ['terminalRegression'] }, sort: sortDefault },
      transition: { filter: { ...EMPTY_FILTER, preset: 'all', transition }, sort: sortDefault },
      taskTypeStatusVideo: { filter: { ...EMPTY_FILTER, preset: 'all', taskType: 'counting', status: 'todo', hasVideo: false }, sort: { key: 'status', desc: true } },
    };
    // Each filter change once (the backend keeps the last filter's counts, so a repeat measures nothing).
    const perScenario: Record<string, { ms: number; rows: number }> = {};
    for (const [name, sc] of Object.entries(scenarios)) {
      const r = await page(sc.filter, sc.sort);
      perScenario[name] = { ms: r.ms, rows: r.total };
    }
    const term = 'count before';
    const keystrokes: number[] = [];
    for (let i = 1; i <= term.length; i++) keystrokes.push((await page({ ...EMPTY_FILTER, preset: 'all', search: term.slice(0, i) }, sortDefault)).ms);
    const maxMs = Math.max(...Object.values(perScenario).map((s) => s.ms), ...keystrokes);
    const medKey = [...keystrokes].sort((x, y) => x - y)[Math.floor(keystrokes.length / 2)] as number;
    return {
      rows: cold.total,
      grids: `${Q_MODELS.length} models × ${Q_SPLITS.length} splits × ${Q_ITEMS} items × ${Q_CONFIGS.length} configs`,
      projectBuildMs: buildMs,
      backendQueuePage: { coldMs: cold.ms, warmMs: warm.ms, note: 'cold derives the queue rows (trajectories per grid) into the project' },
      filterChangeMs: perScenario,
      searchKeystrokesMs: { term, perKeystroke: keystrokes, median: medKey },
      maxFilterMs: maxMs,
      targets: { filterUnder50ms: maxMs < 50 },
    };
  } finally {
    backend.close();
  }
}

// ------------------------------------------------------------------ 2. item open

const BUDGETS = [8, 16, 32, 64, 128, 256];
const OPEN_MODEL = 'Qwen2.5-VL-7B';

function itemProject(file: string, video: string): void {
  const configs = [spec('textonly', 0, null), ...BUDGETS.map((n) => spec(`${n}f`, n, 'uniform-linspace-round'))];
  const split = 'bench';
  const items: ItemMeta[] = [0, 1, 2].map((i) => ({
    split,
    sampleId: `item-${i}`,
    question: `Question ${i}?`,
    options: ['a', 'b', 'c', 'd'],
    answer: 'A',
    taskType: 'counting',
    videoFile: path.basename(video),
  }));
  const responses: ResponseRow[] = [];
  let line = 1;
  for (const it of items)
    configs.forEach((c, ci) => {
      const ok = ci % 3 !== 2; // a few flips so the item has harmed transitions
      responses.push({
        model: OPEN_MODEL,
        split,
        sampleId: it.sampleId,
        config: c.key,
        pred: ok ? 'A' : 'B',
        correct: ok,
        score: null,
        groundTruth: 'A',
        confidence: 0.6,
        margin: 0.2,
        latencyMs: null,
        frameIndices: null,
        sourceTag: null,
        protocolNote: null,
        line: line++,
      });
    });
  const p = openProject(file, { create: true });
  p.applyImports([batchOf('items', items, [], []), batchOf('responses', [], responses, configs)]);
  p.setSetting('mediaRoot', path.dirname(video));
  p.close();
}

interface OpenTiming {
  itemGetMs: number;
  stripsResponseMs: number;
  allApproximateMs: number;
  allExactMs: number;
  tiles: number;
  strips: number;
}

/** Open one item as the item view does and time it until every tile shows something / is exact. */
async function openItem(backend: Backend, events: { on: (fn: (e: EventName, p: unknown) => void) => () => void }, sampleId: string, jobId: string): Promise<OpenTiming> {
  const item = { model: OPEN_MODEL, split: 'bench', sampleId };
  const shown = new Map<string, boolean>(); // tile key → exact?
  let need = Infinity;
  let approxAt = 0;
  let exactAt = 0;
  let resolveApprox!: () => void;
  let resolveExact!: () => void;
  const approxDone = new Promise<void>((r) => (resolveApprox = r));
  const exactDone = new Promise<void>((r) => (resolveExact = r));
  const t0 = performance.now();
  const check = () => {
    if (shown.size >= need && approxAt === 0) {
      approxAt = performance.now() - t0;
      resolveApprox();
    }
    if (shown.size >= need && exactAt === 0 && [...shown.values()].every((x) => x)) {
      exactAt = performance.now() - t0;
      resolveExact();
    }
  };
  const off = events.on((e, p) => {
    if (e !== 'frames:tile') return;
    const ev = p as EventPayload<'frames:tile'>;
    if (ev.jobId !== jobId || ev.tile.url === null) return;
    const k = `${ev.tile.config}|${ev.tile.index}`;
    shown.set(k, (shown.get(k) ?? false) || !ev.tile.approximate);
    check();
  });
  try {
    const d = await dispatch(backend.handlers, 'item:get', item);
    const itemGetMs = performance.now() - t0;
    if (!d.ok) throw new Error(d.error.message);
    const s = await dispatch(backend.handlers, 'frames:strips', { ...item, jobId });
    const stripsResponseMs = performance.now() - t0;
    if (!s.ok) throw new Error(s.error.message);
    const strips = (s.value as { strips: Strip[] }).strips;
    need = strips.reduce((n, st) => n + st.tiles.length, 0);
    check();
    await approxDone;
    await exactDone;
    return {
      itemGetMs: round(itemGetMs),
      stripsResponseMs: round(stripsResponseMs),
      allApproximateMs: round(approxAt),
      allExactMs: round(exactAt),
      tiles: need,
      strips: strips.length,
    };
  } finally {
    off();
  }
}

function eventHub(): { hooks: { emit<E extends EventName>(e: E, p: EventPayload<E>): void }; on: (fn: (e: EventName, p: unknown) => void) => () => void } {
  const subs = new Set<(e: EventName, p: unknown) => void>();
  return {
    hooks: { emit: (e, p) => subs.forEach((fn) => fn(e, p)) },
    on: (fn) => {
      subs.add(fn);
      return () => subs.delete(fn);
    },
  };
}

async function benchItemOpen(work: string): Promise<Record<string, unknown>> {
  const video = ensureVideo({ name: '10min-1280x720', width: 1280, height: 720, seconds: 600 });
  const file = path.join(work, 'open.flipbook');
  itemProject(file, video);

  const hub1 = eventHub();
  const b1 = createBackend({ ...hub1.hooks, mediaUrl: (id) => `/media/${id}` });
  let cold: OpenTiming;
  let warmSame: OpenTiming;
  try {
    b1.open(file);
    cold = await openItem(b1, hub1, 'item-0', 'cold');
    warmSame = await openItem(b1, hub1, 'item-0', 'warm-same-session');
  } finally {
    b1.close();
  }
  const hub2 = eventHub();
  const b2 = createBackend({ ...hub2.hooks, mediaUrl: (id) => `/media/${id}` });
  let warmRestart: OpenTiming;
  let warmOther: OpenTiming;
  try {
    b2.open(file);
    warmRestart = await openItem(b2, hub2, 'item-0', 'warm-restart');
    // Another item on the same video: its frames are the same, so also warm.
    warmOther = await openItem(b2, hub2, 'item-1', 'warm-other');
  } finally {
    b2.close();
  }
  return {
    video: { file: path.relative(repoRoot, video), note: '10 min 1280×720 30 fps H.264, keyframe every 250 frames (the frames bench video)' },
    configs: ['textonly', ...BUDGETS.map((n) => `${n}f`)],
    policy: 'uniform-linspace-round',
    path: 'createBackend handlers item:get → frames:strips → frames:tile events (no HTTP hop)',
    cold,
    warmSameSession: warmSame,
    warmAfterRestart: warmRestart,
    warmOtherItemSameVideo: warmOther,
    ratios: { coldOverWarmApprox: round(cold.allApproximateMs / Math.max(0.1, warmRestart.allApproximateMs), 1) },
    targets: {
      coldApproxUnder2s: cold.allApproximateMs < 2000,
      warmUnder100ms: Math.max(warmSame.allExactMs, warmRestart.allExactMs) < 100,
    },
  };
}

export async function benchWorkspace(): Promise<object> {
  const work = mkdtempSync(path.join(tmpdir(), 'flipbook-bench-ws-'));
  try {
    process.stderr.write('workspace: queue (30k rows)…\n');
    const queue = await benchQueue(work);
    process.stderr.write('workspace: item open (10 min 720p)…\n');
    const itemOpen = await benchItemOpen(work);
    return { bench: 'workspace', queue, itemOpen };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await benchWorkspace(), null, 2));
}
