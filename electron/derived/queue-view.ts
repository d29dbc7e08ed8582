/**
 * What the audit queue keeps per inputs version (queue-table.ts): the rows, the lookups built on
 * them, and the annotation state as the queue reads it — who set which status on which row,
 * read again when an annotation event was written (docs/architecture.md "The queue at lab
 * scale").
 */
import type Database from 'better-sqlite3';
import type { AnnotationStatus } from '../../shared/api/contract';
import type { SortKey } from '../../shared/api/queue-filter';
import { ANNOTATION_STATUSES } from '../../shared/domain/annotations';
import { compareCodePoints } from '../../shared/engine/config';
import { sampleIdOf, type QueueData } from './queue-data';

/** Statuses in their sort order (ASCII names: code-point order is JS order). */
export const STATUS_ORDER: readonly AnnotationStatus[] = [...ANNOTATION_STATUSES].sort();
export const TODO = STATUS_ORDER.indexOf('todo');

/** The annotation state as the queue reads it: who set which status on which row. */
export interface States {
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
export interface View {
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

/** The kept state of a fresh inputs version of the rows `d`: nothing computed from them yet. */
export function newView(inputs: number, d: QueueData): View {
  const gridOf = new Map<string, number>();
  d.gridModel.forEach((m, g) => gridOf.set(`${m}\u0000${d.gridSplit[g]}`, g));
  return { inputs, d, perms: new Map(), gridOf, states: null, match: null, list: null };
}

/**
 * The first position p in [lo, hi) whose sample id, `idAt(p)`, is not below `id` (hi when
 * none): positions in sample id order, as items are and as a grid's rows are.
 */
export function firstAtOrAfter(lo: number, hi: number, id: string, idAt: (p: number) => string): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(idAt(mid), id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The row of an item, or −1: a binary search within its grid's rows (sample id order). */
export function rowOf(v: View, model: string, split: string, sampleId: string): number {
  const g = v.gridOf.get(`${model}\u0000${split}`);
  if (g === undefined) return -1;
  const d = v.d;
  const idAt = (r: number) => sampleIdOf(d, d.rowItem[r]!);
  const end = d.gridStart[g + 1]!;
  const r = firstAtOrAfter(d.gridStart[g]!, end, sampleId, idAt);
  return r < end && idAt(r) === sampleId ? r : -1;
}

/** The annotation tables as the queue reads them (prepared once by createQueueTable). */
export interface StateStatements {
  /** The latest annotation event's sequence number (0 without events). */
  seq: Database.Statement<[], number>;
  /** Every annotation state: model, split, sample id, annotator, status, updated at. */
  states: Database.Statement<[], [string, string, string, string, string, string]>;
}

export function statesOf(v: View, stmts: StateStatements): States {
  const seq = stmts.seq.get() ?? 0;
  if (v.states?.seq === seq) return v.states;
  const byRow = new Map<number, { annotator: string; status: number; updatedAt: string }[]>();
  const annotators = new Set<string>();
  for (const [model, split, sampleId, annotator, status, updatedAt] of stmts.states.raw(true).iterate()) {
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
}

/**
 * The status a row shows: the asked annotator's, or without one the latest written (ties:
 * the first annotator in code-point order); 'todo' when there is none.
 */
export function shownState(list: { annotator: string; status: number; updatedAt: string }[] | undefined, annotator: string | undefined) {
  if (!list) return undefined;
  if (annotator !== undefined) return list.find((x) => x.annotator === annotator);
  let best = list[0];
  for (const x of list) if (best && x.updatedAt > best.updatedAt) best = x;
  return best;
}
export function effectiveOf(v: View, st: States, annotator: string | undefined): Uint8Array {
  const k = annotator ?? '\u0000latest';
  let e = st.effective.get(k);
  if (!e) {
    e = new Uint8Array(v.d.n).fill(TODO);
    for (const [r, list] of st.byRow) e[r] = shownState(list, annotator)?.status ?? TODO;
    st.effective.set(k, e);
  }
  return e;
}
export function annotatedBy(v: View, st: States, annotator: string): Uint8Array {
  let a = st.annotated.get(annotator);
  if (!a) {
    a = new Uint8Array(v.d.n);
    for (const [r, list] of st.byRow) if (list.some((x) => x.annotator === annotator)) a[r] = 1;
    st.annotated.set(annotator, a);
  }
  return a;
}
