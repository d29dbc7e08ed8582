/**
 * The audit queue in the backend (docs/architecture.md "The queue at lab scale"): the rows are
 * derived once per import into a compact columnar value (queue-data.ts) stored in the project,
 * and queue:page answers from it in memory. A filter is one scan over the rows' small integer
 * codes (the search text is matched once per item and once per model, not per row); each sort
 * order is a permutation of the rows, computed when first asked and kept until the inputs
 * change; statuses come from the small annotation state, read again when an annotation event
 * was written. Only a page's rows ever become objects.
 *
 * Strings sort in code-point order (compareCodePoints, which is SQLite's BINARY order of their
 * UTF-8 bytes); every order ends with (model, split, sample id), so it is total, and a
 * descending order is the ascending one reversed.
 */
import type { AnnotationStatus, ItemRef, QueueRow } from '../../shared/api/contract';
import type { QueueFilter, QueueSort, SortKey } from '../../shared/api/queue-filter';
import { ANNOTATION_STATUSES } from '../../shared/domain/annotations';
import { compareCodePoints } from '../../shared/engine/config';
import type { Project } from '../store/project';
import { derivedEntry } from './derived-entry';
import { type Codes, decodeQueueData, deriveQueueData, encodeQueueData, FLAG_TO, FLAG_TR, FLAG_VC, gridOfRow, itemTextOf, sampleIdOf, type QueueData } from './queue-data';

export interface QueuePage {
  rows: QueueRow[];
  offset: number;
  total: number;
  done: number;
  all: number;
  position: number;
  facets: { taskTypes: string[]; transitions: string[]; annotators: string[] };
}

export interface QueuePageRequest {
  filter: QueueFilter;
  sort: QueueSort;
  offset: number;
  limit: number;
  annotator?: string | undefined;
  at?: ItemRef | undefined;
}

export interface QueueTable {
  /** Derives and stores the rows when an import or a setting changed what they derive from (else a no-op). */
  refresh(): void;
  page(req: QueuePageRequest): QueuePage;
}

export interface QueueTableOptions {
  /**
   * True while a job's worker thread holds the project's write transaction (an import: it
   * derives the rows itself once committed, background-jobs.ts). Meanwhile the rows as they
   * were answer: deriving them here would stop this thread and contend with the worker's
   * writes. The job's end emits data:changed, and views ask again.
   */
  deferRefresh?: () => boolean;
}

const FLAG_BITS = { terminalRegression: FLAG_TR, visuallyConfused: FLAG_VC, textOverwritten: FLAG_TO } as const;
/** Statuses in their sort order (ASCII names: code-point order is JS order). */
const STATUS_ORDER: readonly AnnotationStatus[] = [...ANNOTATION_STATUSES].sort();
const TODO = STATUS_ORDER.indexOf('todo');

/**
 * The n rows in the order of a small integer key per row, ties in row (key) order: a stable
 * counting sort. Row r's key is table[via[r]] (a rank per item, grid or shape), or table[r]
 * without `via`. One function for every sort key, so it is optimised once.
 */
function orderBy(n: number, via: Codes | null, table: Codes, size: number): Int32Array {
  const start = new Int32Array(size + 1);
  for (let r = 0; r < n; r++) {
    const k = table[via === null ? r : via[r]!]! + 1;
    start[k] = start[k]! + 1;
  }
  for (let k = 0; k < size; k++) start[k + 1] = start[k + 1]! + start[k]!;
  const out = new Int32Array(n);
  for (let r = 0; r < n; r++) out[start[table[via === null ? r : via[r]!]!]!++] = r;
  return out;
}

/** Code-point rank of each string of `xs` (equal strings share a rank), and how many ranks. */
function ranks(xs: readonly string[]): { rank: Int32Array; size: number } {
  const sorted = [...new Set(xs)].sort(compareCodePoints);
  const at = new Map(sorted.map((x, i) => [x, i] as const));
  return { rank: Int32Array.from(xs, (x) => at.get(x)!), size: sorted.length };
}

/** The annotation state as the queue reads it: who set which status on which row. */
interface States {
  seq: number;
  /** Every annotator with a state, in code-point order. */
  annotators: string[];
  /** Per annotated row: its states (annotator order). */
  byRow: Map<number, { annotator: string; status: number; updatedAt: string }[]>;
  /** Effective status per row, per asked annotator ('' = the latest written), built when asked. */
  effective: Map<string, Uint8Array>;
  /** Rows with a state of an annotator, built when asked. */
  annotated: Map<string, Uint8Array>;
}

/** What one inputs version of the queue keeps: the rows and what was computed from them. */
interface View {
  inputs: number;
  d: QueueData;
  /** Ascending sort permutations by key, kept until the inputs change (the status order is not kept: statuses change). */
  perms: Map<Exclude<SortKey, 'status'>, Int32Array>;
  gridOf: Map<string, number>;
  states: States | null;
  /** The last filter's rows (mask) and the last (filter, sort)'s rows in order: pages of one list come from these. */
  match: { key: string; mask: Uint8Array; total: number } | null;
  list: { key: string; rows: Int32Array } | null;
}

/**
 * The first position p in [lo, hi) whose sample id, `idAt(p)`, is not below `id` (hi when
 * none): positions in sample id order, as items are and as a grid's rows are.
 */
function firstAtOrAfter(lo: number, hi: number, id: string, idAt: (p: number) => string): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(idAt(mid), id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Items whose sample id is one of `ids` (as a mask). */
function itemsNamed(d: QueueData, ids: readonly string[]): Uint8Array {
  const I = d.idRank.length;
  const out = new Uint8Array(I);
  const idAt = (i: number) => sampleIdOf(d, i);
  for (const id of new Set(ids)) {
    // The same id in several splits: consecutive items.
    for (let i = firstAtOrAfter(0, I, id, idAt); i < I && sampleIdOf(d, i) === id; i++) out[i] = 1;
  }
  return out;
}

/**
 * Sets `bit` in `into[i]` for every item whose search text holds `term`: indexOf over all the
 * texts at once, skipping to the next item after a hit (a term holds no white space, so it
 * never spans the newline between two texts).
 */
function markItems(d: QueueData, term: string, bit: number, into: Int32Array): void {
  const { texts, textStart } = d;
  let i = 0;
  for (let at = texts.indexOf(term); at >= 0; at = texts.indexOf(term, textStart[i + 1])) {
    while (textStart[i + 1]! <= at) i++;
    into[i] = into[i]! | bit;
  }
}

/** Marks rows [from, to) whose item, shape and search terms (bits `need` of terms) pass; returns how many. */
function matchRows(d: QueueData, from: number, to: number, itemOk: Uint8Array, shapeOk: Uint8Array, terms: Int32Array | null, need: number, out: Uint8Array): number {
  const { rowItem, rowShape } = d;
  let n = 0;
  for (let r = from; r < to; r++) {
    const i = rowItem[r]!;
    if (itemOk[i] === 0 || shapeOk[rowShape[r]!] === 0) continue;
    if (terms !== null && (terms[i]! & need) !== need) continue;
    out[r] = 1;
    n++;
  }
  return n;
}

/** Per shape: does it pass the parts of the filter a shape decides (preset, class, flags, transition)? */
function shapeOkOf(d: QueueData, f: QueueFilter): Uint8Array {
  const S = d.shapePattern.length;
  const shapeOk = new Uint8Array(S);
  const mask = f.flags.reduce((m, x) => m | FLAG_BITS[x], 0) | 0;
  const cls = f.trajectoryClass === null ? -2 : d.classes.indexOf(f.trajectoryClass);
  for (let s = 0; s < S; s++) {
    const flags = d.shapeFlags[s]!;
    let ok = f.preset !== 'default' || (flags & (FLAG_TR | FLAG_VC)) !== 0;
    ok &&= cls === -2 || (cls >= 0 && d.shapeClass[s] === cls);
    ok &&= (flags & mask) === mask;
    if (ok && f.transition !== null) {
      const harmed = d.lists[d.shapeHarmed[s]!]!.includes(f.transition);
      const rescued = d.lists[d.shapeRescued[s]!]!.includes(f.transition);
      ok = f.transitionKind === 'harmed' ? harmed : f.transitionKind === 'rescued' ? rescued : harmed || rescued;
    }
    shapeOk[s] = ok ? 1 : 0;
  }
  return shapeOk;
}

/** The default sort's rank per shape: terminal regressions first, then other confused items (the audit's priority order). */
const PRIORITIES = 4;
const priorityOf = (d: QueueData): Int32Array => Int32Array.from(d.shapeFlags, (f) => (f & FLAG_TR ? 0 : f & FLAG_VC ? 1 : f & FLAG_TO ? 2 : 3));

/** A filter only shapes decide: its rows' count is a sum of stored per-shape row counts. */
const decidedByShapes = (f: QueueFilter): boolean =>
  f.model === null && f.split === null && f.taskType === null && (f.itemSet ?? null) === null && f.status === null && f.annotator === null && f.hasVideo === null && f.search.trim() === '';

/**
 * Pages this near the top of the default order, under a filter only shapes decide, are found
 * by walking the rows of the leading priorities (the queue as it opens: six pages around what
 * the renderer shows, docs/architecture.md "The queue at lab scale"); deeper ones from the
 * whole ordered list, built once and kept.
 */
const OPENING_ROWS = 1000;

/**
 * Rows [offset, end) of the default order among the rows whose shape passes (`shapeOk`), and
 * how many pass: counts from the stored per-shape row counts, rows by a walk in key order
 * through the priorities the page reaches only, stopping at the page's last row.
 */
function openingRows(d: QueueData, shapeOk: Uint8Array, offset: number, limit: number): { rows: number[]; offset: number; total: number } {
  const prio = priorityOf(d);
  const count = new Array<number>(PRIORITIES).fill(0);
  for (let s = 0; s < shapeOk.length; s++) if (shapeOk[s] === 1) count[prio[s]!]! += d.shapeRows[s]!;
  const total = count.reduce((a, b) => a + b, 0);
  const from = Math.min(offset, total);
  const end = Math.min(total, from + Math.max(0, limit));
  const rows: number[] = [];
  const { rowShape } = d;
  let before = 0;
  for (let p = 0; p < PRIORITIES && before < end; before += count[p]!, p++) {
    if (before + count[p]! <= from) continue;
    let pos = before;
    for (let r = 0; r < d.n && pos < end; r++) {
      const s = rowShape[r]!;
      if (prio[s] !== p || shapeOk[s] === 0) continue;
      if (pos >= from) rows.push(r);
      pos++;
    }
  }
  return { rows, offset: from, total };
}

export function createQueueTable(project: Project, opts: QueueTableOptions = {}): QueueTable {
  const db = project.db;
  const stored = derivedEntry(db, 'queue');
  const seqStmt = db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM annotation_events').pluck(true);
  const statesStmt = db.prepare<[], [string, string, string, string, string, string]>(
    'SELECT model, split, sample_id, annotator, status, updated_at FROM annotation_state ORDER BY annotator',
  );
  let view: View | null = null;

  const viewOf = (inputs: number, d: QueueData): View => {
    const gridOf = new Map<string, number>();
    d.gridModel.forEach((m, g) => gridOf.set(`${m}\u0000${d.gridSplit[g]}`, g));
    view = { inputs, d, perms: new Map(), gridOf, states: null, match: null, list: null };
    return view;
  };
  const storedData = (): { inputs: number; d: QueueData } | null => {
    const s = stored.readData();
    const d = s ? decodeQueueData(s.data) : null;
    return s && d ? { inputs: s.inputs, d } : null;
  };

  /** The rows of the current inputs: kept, stored (by this or another process), or derived now. */
  const current = (): View => {
    const inputs = project.inputsVersion();
    if (view?.inputs === inputs) return view;
    if (stored.inputs() === inputs) {
      const s = storedData();
      if (s) return viewOf(inputs, s.d);
    }
    if (opts.deferRefresh?.()) {
      if (view) return view;
      const s = storedData();
      if (s) return viewOf(s.inputs, s.d);
    }
    // The inputs version and the rows from one read transaction, so the stamp is the rows' own.
    const fresh = db.transaction(() => ({ inputs: project.inputsVersion(), d: deriveQueueData(project) }))();
    // A read-only project derives in memory only, again whenever it finds the inputs changed.
    if (!project.readOnly) stored.writeData(fresh.inputs, encodeQueueData(fresh.d));
    return viewOf(fresh.inputs, fresh.d);
  };

  /** The row of an item, or −1: a binary search within its grid's rows (sample id order). */
  const rowOf = (v: View, model: string, split: string, sampleId: string): number => {
    const g = v.gridOf.get(`${model}\u0000${split}`);
    if (g === undefined) return -1;
    const d = v.d;
    const idAt = (r: number) => sampleIdOf(d, d.rowItem[r]!);
    const end = d.gridStart[g + 1]!;
    const r = firstAtOrAfter(d.gridStart[g]!, end, sampleId, idAt);
    return r < end && idAt(r) === sampleId ? r : -1;
  };

  const statesOf = (v: View): States => {
    const seq = seqStmt.get() ?? 0;
    if (v.states?.seq === seq) return v.states;
    const byRow = new Map<number, { annotator: string; status: number; updatedAt: string }[]>();
    const annotators = new Set<string>();
    for (const [model, split, sampleId, annotator, status, updatedAt] of statesStmt.raw(true).iterate()) {
      annotators.add(annotator);
      const r = rowOf(v, model, split, sampleId);
      if (r < 0) continue;
      const code = STATUS_ORDER.indexOf(status as AnnotationStatus);
      const s = { annotator, status: code < 0 ? TODO : code, updatedAt };
      const list = byRow.get(r);
      if (list) list.push(s);
      else byRow.set(r, [s]);
    }
    v.states = { seq, annotators: [...annotators].sort(compareCodePoints), byRow, effective: new Map(), annotated: new Map() };
    v.match = null;
    v.list = null;
    return v.states;
  };

  /**
   * The status a row shows: the asked annotator's, or without one the latest written (ties:
   * the first annotator in code-point order); 'todo' when there is none.
   */
  const shownState = (list: { annotator: string; status: number; updatedAt: string }[] | undefined, annotator: string | undefined) => {
    if (!list) return undefined;
    if (annotator !== undefined) return list.find((x) => x.annotator === annotator);
    let best = list[0];
    for (const x of list) if (best && x.updatedAt > best.updatedAt) best = x;
    return best;
  };
  const effectiveOf = (v: View, st: States, annotator: string | undefined): Uint8Array => {
    const k = annotator ?? '\u0000latest';
    let e = st.effective.get(k);
    if (!e) {
      e = new Uint8Array(v.d.n).fill(TODO);
      for (const [r, list] of st.byRow) e[r] = shownState(list, annotator)?.status ?? TODO;
      st.effective.set(k, e);
    }
    return e;
  };
  const annotatedBy = (v: View, st: States, annotator: string): Uint8Array => {
    let a = st.annotated.get(annotator);
    if (!a) {
      a = new Uint8Array(v.d.n);
      for (const [r, list] of st.byRow) if (list.some((x) => x.annotator === annotator)) a[r] = 1;
      st.annotated.set(annotator, a);
    }
    return a;
  };

  /** The rows passing `f` (the rules of shared/api/queue-filter.ts matchesFilter), as a mask. */
  const matchOf = (v: View, st: States, f: QueueFilter, annotator: string | undefined): { mask: Uint8Array; total: number } => {
    const key = JSON.stringify([f, annotator ?? null]);
    if (v.match?.key === key) return v.match;
    const d = v.d;
    const G = d.gridModel.length;
    const I = d.idRank.length;
    // Per grid, item and shape: does it pass the parts of the filter it decides?
    const gridOk = new Uint8Array(G);
    for (let g = 0; g < G; g++) gridOk[g] = (f.model === null || d.gridModel[g] === f.model) && (f.split === null || d.gridSplit[g] === f.split) ? 1 : 0;
    const shapeOk = shapeOkOf(d, f);
    const itemOk = new Uint8Array(I);
    // −2: any task type; a task type no item has matches nothing (−3, never an item's code).
    const task = f.taskType === null ? -2 : d.taskTypes.includes(f.taskType) ? d.taskTypes.indexOf(f.taskType) : -3;
    const video = f.hasVideo === null ? -1 : f.hasVideo ? 1 : 0;
    const inSet = f.itemSet ? itemsNamed(d, f.itemSet.ids) : null;
    for (let i = 0; i < I; i++) {
      itemOk[i] = (task === -2 || d.itemTask[i] === task) && (inSet === null || inSet[i] === 1) && (video < 0 || d.hasVideo[i] === video) ? 1 : 0;
    }
    // Search: every term in the row's text `<id> <model> <task type> <question>`. A term holds
    // no white space, so it lies within one part: in the item's text or in the model's name;
    // each is matched once, as bits per term (30 terms a round), not once per row.
    const terms = [...new Set(f.search.toLowerCase().split(/\s+/).filter((t) => t.length > 0))];
    const rounds: { all: number; items: Int32Array; grids: Int32Array }[] = [];
    for (let from = 0; from < terms.length; from += 30) {
      const chunk = terms.slice(from, from + 30);
      const grids = new Int32Array(G);
      for (let g = 0; g < G; g++) {
        const name = d.gridModel[g]!.toLowerCase();
        for (let k = 0; k < chunk.length; k++) if (name.includes(chunk[k]!)) grids[g] = grids[g]! | (1 << k);
      }
      const items = new Int32Array(I);
      for (let k = 0; k < chunk.length; k++) markItems(d, chunk[k]!, 1 << k, items);
      rounds.push({ all: (1 << chunk.length) - 1, items, grids });
    }
    const status = f.status === null ? -1 : STATUS_ORDER.indexOf(f.status);
    const eff = f.status !== null ? effectiveOf(v, st, annotator) : null;
    const by = f.annotator !== null ? annotatedBy(v, st, f.annotator) : null;
    const out = new Uint8Array(d.n);
    let total = 0;
    // Grid by grid (rows of a grid are contiguous): a grid the filter excludes costs nothing,
    // and the search terms its model name holds need not be in its items' text.
    for (let g = 0; g < G; g++) {
      if (gridOk[g] === 0) continue;
      const first = rounds[0];
      const terms0 = first?.items ?? null;
      const need0 = first ? first.all & ~first.grids[g]! : 0;
      total += matchRows(d, d.gridStart[g]!, d.gridStart[g + 1]!, itemOk, shapeOk, terms0, need0, out);
      if (eff === null && by === null && rounds.length <= 1) continue;
      // The rarer conditions, on the rows that passed: statuses, annotator, more than 30 terms.
      for (let r = d.gridStart[g]!; r < d.gridStart[g + 1]!; r++) {
        if (out[r] === 0) continue;
        let ok = (eff === null || eff[r] === status) && (by === null || by[r] === 1);
        for (let k = 1; ok && k < rounds.length; k++) {
          const x = rounds[k]!;
          ok = (x.items[d.rowItem[r]!]! | x.grids[g]!) === x.all;
        }
        if (!ok) ((out[r] = 0), total--);
      }
    }
    v.match = { key, mask: out, total };
    v.list = null;
    return v.match;
  };

  /** The ascending order of a sort key: the key's rank per row, ties in (model, split, sample id) order. */
  const permOf = (v: View, st: States, key: SortKey, annotator: string | undefined): Int32Array | null => {
    const d = v.d;
    if (key === 'model') return null; // the rows' own order
    if (key === 'status') return orderBy(d.n, null, effectiveOf(v, st, annotator), STATUS_ORDER.length);
    let p = v.perms.get(key);
    if (p) return p;
    if (key === 'default') {
      p = orderBy(d.n, d.rowShape, priorityOf(d), PRIORITIES);
    } else if (key === 'sampleId') {
      // Items are in sample id order: the last has the largest rank.
      p = orderBy(d.n, d.rowItem, d.idRank, d.idRank.length === 0 ? 0 : d.idRank[d.idRank.length - 1]! + 1);
    } else if (key === 'split') {
      const s = ranks(d.gridSplit);
      const rowGrid = new Int32Array(d.n);
      for (let g = 0; g < d.gridModel.length; g++) rowGrid.fill(g, d.gridStart[g], d.gridStart[g + 1]);
      p = orderBy(d.n, rowGrid, s.rank, s.size);
    } else if (key === 'taskType') {
      // A missing task type sorts as '' (as before: coalesce(task_type, '')).
      const s = ranks(['', ...d.taskTypes]);
      p = orderBy(d.n, d.rowItem, Int32Array.from(d.itemTask, (t) => s.rank[t + 1]!), s.size);
    } else {
      const s = ranks(['', ...d.classes]);
      p = orderBy(d.n, d.rowShape, Int32Array.from(d.shapeClass, (c) => s.rank[c + 1]!), s.size);
    }
    v.perms.set(key, p);
    return p;
  };

  /** The filter's rows in the sort key's ascending order (kept while pages of it are asked). */
  const listOf = (v: View, st: States, f: QueueFilter, key: SortKey, annotator: string | undefined): Int32Array => {
    const k = JSON.stringify([f, annotator ?? null, key]);
    if (v.list?.key === k) return v.list.rows;
    const { mask, total } = matchOf(v, st, f, annotator);
    const perm = permOf(v, st, key, annotator);
    const rows = new Int32Array(total);
    let at = 0;
    if (perm === null) for (let r = 0; r < mask.length; r++) (mask[r] === 1 && (rows[at++] = r));
    else for (let j = 0; j < perm.length; j++) (mask[perm[j]!] === 1 && (rows[at++] = perm[j]!));
    v.list = { key: k, rows };
    return rows;
  };

  const toRow = (v: View, st: States, r: number, annotator: string | undefined): QueueRow => {
    const d = v.d;
    const g = gridOfRow(d, r);
    const i = d.rowItem[r]!;
    const s = d.rowShape[r]!;
    const sampleId = sampleIdOf(d, i);
    const model = d.gridModel[g]!;
    const states = st.byRow.get(r);
    const flags = d.shapeFlags[s]!;
    const task = d.itemTask[i]!;
    const cls = d.shapeClass[s]!;
    const idLower = sampleId.toLowerCase();
    return {
      model,
      split: d.gridSplit[g]!,
      sampleId,
      taskType: task < 0 ? null : d.taskTypes[task]!,
      trajectoryClass: cls < 0 ? null : d.classes[cls]!,
      pattern: d.patterns[d.shapePattern[s]!]!,
      flags: { terminalRegression: (flags & FLAG_TR) !== 0, visuallyConfused: (flags & FLAG_VC) !== 0, textOverwritten: (flags & FLAG_TO) !== 0 },
      harmed: [...d.lists[d.shapeHarmed[s]!]!],
      rescued: [...d.lists[d.shapeRescued[s]!]!],
      status: STATUS_ORDER[shownState(states, annotator)?.status ?? TODO]!,
      annotators: (states ?? []).map((x) => x.annotator).sort(),
      hasVideo: d.hasVideo[i] === 1,
      // The item's text is `<id> <task type> <question>`: the row's puts its model after the id.
      searchText: `${idLower} ${model.toLowerCase()}${itemTextOf(d, i).slice(idLower.length)}`,
    };
  };

  return {
    refresh: () => void current(),
    page(req) {
      const v = current();
      const st = statesOf(v);
      const { filter, sort, annotator } = req;
      const DONE = STATUS_ORDER.indexOf('done');
      const SKIPPED = STATUS_ORDER.indexOf('skipped');
      const listKey = JSON.stringify([filter, annotator ?? null, sort.key]);
      let out: QueueRow[];
      let offset = req.offset;
      let total: number;
      let position = -1;
      let done = 0;
      if (!req.at && sort.key === 'default' && !sort.desc && decidedByShapes(filter) && offset + req.limit <= OPENING_ROWS && v.list?.key !== listKey) {
        // The queue as it opens: no pass over every row (openingRows).
        const shapeOk = shapeOkOf(v.d, filter);
        const o = openingRows(v.d, shapeOk, offset, req.limit);
        ({ offset, total } = o);
        out = o.rows.map((r) => toRow(v, st, r, annotator));
        for (const [r, list] of st.byRow) {
          const status = shownState(list, annotator)?.status ?? TODO;
          if (shapeOk[v.d.rowShape[r]!] === 1 && (status === DONE || status === SKIPPED)) done++;
        }
      } else {
        const rows = listOf(v, st, filter, sort.key, annotator);
        total = rows.length;
        // Position p of the order asked: ascending p, or descending the reverse.
        const rowAt = (p: number) => rows[sort.desc ? total - 1 - p : p]!;
        if (req.at) {
          const r = rowOf(v, req.at.model, req.at.split, req.at.sampleId);
          const j = r < 0 ? -1 : rows.indexOf(r);
          position = j < 0 ? -1 : sort.desc ? total - 1 - j : j;
          offset = Math.max(0, position - 1);
        }
        offset = Math.min(offset, total);
        const end = Math.min(total, offset + Math.max(0, req.limit));
        out = [];
        for (let p = offset; p < end; p++) out.push(toRow(v, st, rowAt(p), annotator));
        // Progress under the filter: done or skipped, from the (few) annotated rows.
        const { mask } = matchOf(v, st, filter, annotator);
        const eff = effectiveOf(v, st, annotator);
        for (const r of st.byRow.keys()) if (mask[r] === 1 && (eff[r] === DONE || eff[r] === SKIPPED)) done++;
      }
      return {
        rows: out,
        offset,
        total,
        done,
        all: v.d.n,
        position,
        facets: { taskTypes: v.d.facets.taskTypes, transitions: v.d.facets.transitions, annotators: st.annotators },
      };
    },
  };
}
