/**
 * The queue's filter and sort: their types, and the rules in plain TypeScript over whole rows.
 * The backend answers queue:page with the same rules over its columnar rows
 * (electron/derived/queue-table.ts, docs/architecture.md "The queue at lab scale"); the
 * tests hold it to filterQueue here.
 */
import { compareCodePoints } from '../engine/config';
import type { AnnotationStatus, QueueRow } from './contract';

export type FlagName = 'visuallyConfused' | 'textOverwritten' | 'terminalRegression';

export interface QueueFilter {
  /** `default`: terminal regressions and visually confused items (the rows worth auditing). */
  preset: 'default' | 'all';
  model: string | null;
  split: string | null;
  taskType: string | null;
  trajectoryClass: string | null;
  flags: FlagName[];
  /** A harmed or rescued transition `a>b`. */
  transition: string | null;
  /** Narrows `transition` to its harmed (or rescued) items only; null = either. */
  transitionKind?: 'harmed' | 'rescued' | null;
  /** Exactly these sample ids (the items behind an overview mark); `label` says which mark. */
  itemSet?: { label: string; ids: string[] } | null;
  status: AnnotationStatus | null;
  annotator: string | null;
  hasVideo: boolean | null;
  search: string;
}

export type SortKey = 'default' | 'sampleId' | 'model' | 'split' | 'taskType' | 'status' | 'class';
export interface QueueSort {
  key: SortKey;
  desc: boolean;
}

export const EMPTY_FILTER: QueueFilter = {
  preset: 'default',
  model: null,
  split: null,
  taskType: null,
  trajectoryClass: null,
  flags: [],
  transition: null,
  transitionKind: null,
  itemSet: null,
  status: null,
  annotator: null,
  hasVideo: null,
  search: '',
};

// One Set per item-set array, so 30k rows test membership in O(1) without rebuilding it per row.
const idSets = new WeakMap<readonly string[], Set<string>>();
function idSet(ids: readonly string[]): Set<string> {
  let s = idSets.get(ids);
  if (!s) {
    s = new Set(ids);
    idSets.set(ids, s);
  }
  return s;
}

export function matchesFilter(r: QueueRow, f: QueueFilter, terms: string[]): boolean {
  if (f.preset === 'default' && !(r.flags.terminalRegression || r.flags.visuallyConfused)) return false;
  if (f.model !== null && r.model !== f.model) return false;
  if (f.split !== null && r.split !== f.split) return false;
  if (f.taskType !== null && r.taskType !== f.taskType) return false;
  if (f.trajectoryClass !== null && r.trajectoryClass !== f.trajectoryClass) return false;
  for (const flag of f.flags) if (!r.flags[flag]) return false;
  if (f.transition !== null) {
    const harmed = r.harmed.includes(f.transition);
    const rescued = r.rescued.includes(f.transition);
    if (f.transitionKind === 'harmed' ? !harmed : f.transitionKind === 'rescued' ? !rescued : !harmed && !rescued) return false;
  }
  if (f.itemSet && !idSet(f.itemSet.ids).has(r.sampleId)) return false;
  if (f.status !== null && r.status !== f.status) return false;
  if (f.annotator !== null && !r.annotators.includes(f.annotator)) return false;
  if (f.hasVideo !== null && r.hasVideo !== f.hasVideo) return false;
  for (const t of terms) if (!r.searchText.includes(t)) return false;
  return true;
}

// Terminal regressions first, then other confused items: the audit's priority order.
function priority(r: QueueRow): number {
  return r.flags.terminalRegression ? 0 : r.flags.visuallyConfused ? 1 : r.flags.textOverwritten ? 2 : 3;
}

// Code-point order (SQLite's BINARY order of UTF-8), the order the backend sorts by; null sorts as ''.
function cmpStr(a: string | null, b: string | null): number {
  return compareCodePoints(a ?? '', b ?? '');
}

function keyCompare(key: SortKey): (a: QueueRow, b: QueueRow) => number {
  const tie = (a: QueueRow, b: QueueRow) => cmpStr(a.model, b.model) || cmpStr(a.split, b.split) || cmpStr(a.sampleId, b.sampleId);
  switch (key) {
    case 'default':
      return (a, b) => priority(a) - priority(b) || tie(a, b);
    case 'sampleId':
      return (a, b) => cmpStr(a.sampleId, b.sampleId) || tie(a, b);
    case 'model':
      return tie;
    case 'split':
      return (a, b) => cmpStr(a.split, b.split) || tie(a, b);
    case 'taskType':
      return (a, b) => cmpStr(a.taskType, b.taskType) || tie(a, b);
    case 'status':
      return (a, b) => cmpStr(a.status, b.status) || tie(a, b);
    case 'class':
      return (a, b) => cmpStr(a.trajectoryClass, b.trajectoryClass) || tie(a, b);
  }
}

/** Indices of the rows that pass the filter, in sort order (total: model, split and id break ties). */
export function filterQueue(rows: readonly QueueRow[], f: QueueFilter, sort: QueueSort): number[] {
  const terms = f.search
    .toLowerCase()
    .split(/\s+/)
    .filter((t) => t.length > 0);
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    if (r !== undefined && matchesFilter(r, f, terms)) out.push(i);
  }
  const cmp = keyCompare(sort.key);
  const sign = sort.desc ? -1 : 1;
  out.sort((a, b) => sign * cmp(rows[a] as QueueRow, rows[b] as QueueRow));
  return out;
}

export function rowKey(r: { model: string; split: string; sampleId: string }): string {
  return `${r.model}\u0000${r.split}\u0000${r.sampleId}`;
}
