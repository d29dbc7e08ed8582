/**
 * The audit queue's orders: each sort key's ascending permutation of the rows (a stable
 * counting sort on a small rank per row, kept until the inputs change), the filter's rows in
 * that order, and the opening pages of the default order found without a pass over every row.
 * Every order ends with (model, split, sample id), so it is total (queue-table.ts).
 */
import type { QueueFilter, SortKey } from '../../shared/api/queue-filter';
import { compareCodePoints } from '../../shared/engine/config';
import { type Codes, FLAG_TO, FLAG_TR, FLAG_VC, type QueueData } from './queue-data';
import { matchOf } from './queue-match';
import { effectiveOf, STATUS_ORDER, type States, type View } from './queue-view';

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

/** The default sort's rank per shape: terminal regressions first, then other confused items (the audit's priority order). */
const PRIORITIES = 4;
const priorityOf = (d: QueueData): Int32Array => Int32Array.from(d.shapeFlags, (f) => (f & FLAG_TR ? 0 : f & FLAG_VC ? 1 : f & FLAG_TO ? 2 : 3));

/**
 * Pages this near the top of the default order, under a filter only shapes decide, are found
 * by walking the rows of the leading priorities (the queue as it opens: six pages around what
 * the renderer shows, docs/architecture.md "The queue at lab scale"); deeper ones from the
 * whole ordered list, built once and kept.
 */
export const OPENING_ROWS = 1000;

/**
 * Rows [offset, end) of the default order among the rows whose shape passes (`shapeOk`), and
 * how many pass: counts from the stored per-shape row counts, rows by a walk in key order
 * through the priorities the page reaches only, stopping at the page's last row.
 */
export function openingRows(d: QueueData, shapeOk: Uint8Array, offset: number, limit: number): { rows: number[]; offset: number; total: number } {
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

/** The ascending order of a sort key: the key's rank per row, ties in (model, split, sample id) order. */
function permOf(v: View, st: States, key: SortKey, annotator: string | undefined): Int32Array | null {
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
    p = orderBy(
      d.n,
      d.rowItem,
      Int32Array.from(d.itemTask, (t) => s.rank[t + 1]!),
      s.size,
    );
  } else {
    const s = ranks(['', ...d.classes]);
    p = orderBy(
      d.n,
      d.rowShape,
      Int32Array.from(d.shapeClass, (c) => s.rank[c + 1]!),
      s.size,
    );
  }
  v.perms.set(key, p);
  return p;
}

/** The filter's rows in the sort key's ascending order (kept while pages of it are asked). */
export function listOf(v: View, st: States, f: QueueFilter, key: SortKey, annotator: string | undefined): Int32Array {
  const k = JSON.stringify([f, annotator ?? null, key]);
  if (v.list?.key === k) return v.list.rows;
  const { mask, total } = matchOf(v, st, f, annotator);
  const perm = permOf(v, st, key, annotator);
  const rows = new Int32Array(total);
  let at = 0;
  if (perm === null) for (let r = 0; r < mask.length; r++) mask[r] === 1 && (rows[at++] = r);
  else for (let j = 0; j < perm.length; j++) mask[perm[j]!] === 1 && (rows[at++] = perm[j]!);
  v.list = { key: k, rows };
  return rows;
}
