/**
 * One page of the audit queue (queue:page): its rows as objects (only a page's rows ever
 * become objects), the filter's total, the progress under it and the facets.
 */
import type { ItemRef, QueueRow } from '../../shared/api/contract';
import type { QueueFilter, QueueSort } from '../../shared/api/queue-filter';
import { FLAG_TO, FLAG_TR, FLAG_VC, gridOfRow, itemTextOf, sampleIdOf } from './queue-data';
import { decidedByShapes, matchOf, shapeOkOf } from './queue-match';
import { listOf, OPENING_ROWS, openingRows } from './queue-order';
import { effectiveOf, rowOf, shownState, STATUS_ORDER, TODO, type States, type View } from './queue-view';

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

function toRow(v: View, st: States, r: number, annotator: string | undefined): QueueRow {
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
}

/** The page `req` asks for, of the rows of `v` with the annotation state `st`. */
export function pageOf(v: View, st: States, req: QueuePageRequest): QueuePage {
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
}
