/**
 * The audit queue in the backend: every (model, split, item) row derived once per import from
 * the audit index, statuses overlaid once per annotation change, one sort per sort key, and a
 * filter change answered by one scan of a presorted order (shared/api/queue-filter.ts, the
 * only filter implementation). The renderer asks for pages (queue:page) and never holds the
 * project's rows; see docs/architecture.md "The queue at lab scale".
 */
import type { AnnotationStatus, ItemRef, QueueRow } from '../../shared/api/contract';
import { filterOrder, queueFacets, rowKey, sortOrder, type QueueFilter, type QueueSort } from '../../shared/api/queue-filter';
import type { AnnotationState } from '../../shared/domain/annotations';
import type { Project } from '../store/project';
import type { AuditIndex } from './audit-index';
import { projectVideoResolver } from './item-frames';

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

export interface QueueCache {
  /** Every row with `annotator`'s statuses (tests and tools; the app pages). */
  rows(annotator: string | undefined): QueueRow[];
  page(req: QueuePageRequest): QueuePage;
}

interface Base {
  generation: number;
  rows: QueueRow[];
  /** rowKey → index into rows. */
  index: Map<string, number>;
  facets: { taskTypes: string[]; transitions: string[] };
}

interface Overlay {
  annotator: string | undefined;
  annotationSeq: number;
  rows: QueueRow[];
  annotators: string[];
  sorted: Map<string, number[]>;
}

function baseRows(p: Project, audit: AuditIndex): QueueRow[] {
  const video = projectVideoResolver(p);
  const metaCache = new Map<string, { taskType: string | null; question: string | null; hasVideo: boolean }>();
  const metaOf = (split: string, id: string) => {
    const k = `${split}\u0000${id}`;
    let m = metaCache.get(k);
    if (!m) {
      const it = p.getItem(split, id);
      m = {
        taskType: it?.taskType ?? null,
        question: it?.question ?? null,
        hasVideo: video(it?.videoFile).file !== null,
      };
      metaCache.set(k, m);
    }
    return m;
  };
  const rows: QueueRow[] = [];
  for (const g of audit.all()) {
    for (const [sampleId, a] of g.items) {
      const m = metaOf(g.split, sampleId);
      rows.push({
        model: g.model,
        split: g.split,
        sampleId,
        taskType: m.taskType,
        trajectoryClass: a.trajectoryClass,
        pattern: a.pattern,
        flags: { visuallyConfused: a.visuallyConfused, textOverwritten: a.textOverwritten, terminalRegression: a.terminalRegression },
        harmed: a.harmed,
        rescued: a.rescued,
        status: 'todo',
        annotators: [],
        hasVideo: m.hasVideo,
        searchText: `${sampleId} ${g.model} ${m.taskType ?? ''} ${m.question ?? ''}`.toLowerCase(),
      });
    }
  }
  return rows;
}

/** The rows with statuses: the base array copied (pointers only) and annotated rows replaced. */
function overlay(base: Base, states: AnnotationState[], annotator: string | undefined): { rows: QueueRow[]; annotators: string[] } {
  const byRow = new Map<number, AnnotationState[]>();
  const names = new Set<string>();
  for (const st of states) {
    names.add(st.annotator);
    const i = base.index.get(rowKey(st));
    if (i === undefined) continue;
    const list = byRow.get(i);
    if (list) list.push(st);
    else byRow.set(i, [st]);
  }
  const rows = base.rows.slice();
  for (const [i, sts] of byRow) {
    const mine = annotator ? sts.find((x) => x.annotator === annotator) : [...sts].sort((x, y) => (x.updatedAt < y.updatedAt ? 1 : -1))[0];
    const status: AnnotationStatus = mine?.status ?? 'todo';
    rows[i] = { ...(base.rows[i] as QueueRow), status, annotators: sts.map((x) => x.annotator).sort() };
  }
  return { rows, annotators: [...names].sort() };
}

export function createQueueCache(project: Project, audit: AuditIndex): QueueCache {
  let base: Base | null = null;
  // One overlay per annotator asked recently (the app asks for one; tests and tools for none).
  const overlays: Overlay[] = [];
  let last: { key: string; rows: QueueRow[]; order: number[]; done: number } | null = null;
  const seqStmt = project.db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM annotation_events');

  const baseNow = (): Base => {
    if (base && base.generation === audit.generation()) return base;
    const generation = audit.generation();
    const rows = baseRows(project, audit);
    const index = new Map<string, number>();
    rows.forEach((r, i) => index.set(rowKey(r), i));
    const f = queueFacets(rows);
    base = { generation, rows, index, facets: { taskTypes: f.taskTypes, transitions: f.transitions } };
    overlays.length = 0;
    last = null;
    return base;
  };

  const overlayNow = (annotator: string | undefined): Overlay => {
    const b = baseNow();
    // Every annotation write (edit, undo, redo, merge, sync) appends an event: its seq says
    // whether the statuses changed, also when another process wrote them.
    const seq = (seqStmt.get() as { seq: number }).seq;
    const hit = overlays.find((o) => o.annotator === annotator);
    if (hit && hit.annotationSeq === seq) return hit;
    const o = overlay(b, project.annotations.listStates(), annotator);
    const fresh: Overlay = { annotator, annotationSeq: seq, rows: o.rows, annotators: o.annotators, sorted: new Map() };
    if (hit) overlays.splice(overlays.indexOf(hit), 1);
    overlays.unshift(fresh);
    overlays.length = Math.min(overlays.length, 4);
    return fresh;
  };

  const sortedOf = (o: Overlay, sort: QueueSort): number[] => {
    const k = `${sort.key}:${sort.desc}`;
    let s = o.sorted.get(k);
    if (!s) {
      s = sortOrder(o.rows, sort);
      o.sorted.set(k, s);
    }
    return s;
  };

  return {
    rows: (annotator) => overlayNow(annotator).rows,
    page(req) {
      const b = baseNow();
      const o = overlayNow(req.annotator);
      // Scrolling asks for many pages of one filter: the filtered order is kept for the last one.
      const key = JSON.stringify([req.filter, req.sort]);
      if (!last || last.rows !== o.rows || last.key !== key) {
        const order = filterOrder(o.rows, sortedOf(o, req.sort), req.filter);
        let done = 0;
        for (const i of order) {
          const st = o.rows[i]?.status;
          if (st === 'done' || st === 'skipped') done++;
        }
        last = { key, rows: o.rows, order, done };
      }
      const { order, done } = last;
      let position = -1;
      let offset = req.offset;
      if (req.at) {
        const i = b.index.get(rowKey(req.at));
        position = i === undefined ? -1 : order.indexOf(i);
        offset = Math.max(0, position - 1);
      }
      offset = Math.min(offset, order.length);
      const rows = order.slice(offset, offset + req.limit).map((i) => o.rows[i] as QueueRow);
      return {
        rows,
        offset,
        total: order.length,
        done,
        all: o.rows.length,
        position,
        facets: { ...b.facets, annotators: o.annotators },
      };
    },
  };
}
