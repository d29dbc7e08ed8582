/**
 * Reads of the annotation store that change nothing: states, history, events, the annotator's
 * undo and redo stacks (rebuilt from the log), adjudications and conflicting primaries.
 */
import type Database from 'better-sqlite3';
import type { AnnotationEvent, AnnotationFilter, AnnotationHistoryEntry, AnnotationState, Conflict, EvidenceSpan, Resolution } from '../../shared/domain/annotations';
import { activeSet, str } from './annotation-replay';
import {
  compareEvents,
  fromStateRow,
  toEvent,
  toSpan,
  type AnnotationDb,
  type AnnotationStatements,
  type EventRow,
  type ItemKey,
  type SpanRow,
  type StateRow,
} from './annotation-tables';

/** The SQL condition of a filter, and its arguments. */
function whereOf(f: AnnotationFilter, cols: { sampleId: string } = { sampleId: 'sample_id' }): { sql: string; args: string[] } {
  const parts: string[] = [];
  const args: string[] = [];
  if (f.model !== undefined) (parts.push('model = ?'), args.push(f.model));
  if (f.split !== undefined) (parts.push('split = ?'), args.push(f.split));
  if (f.sampleId !== undefined) (parts.push(`${cols.sampleId} = ?`), args.push(f.sampleId));
  if (f.annotator !== undefined) (parts.push('annotator = ?'), args.push(f.annotator));
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
}

/** The states matching `filter`, with their spans, in key order. */
export function listStates(db: Database.Database, filter: AnnotationFilter = {}): AnnotationState[] {
  const w = whereOf(filter);
  let sql = `SELECT * FROM annotation_state ${w.sql}`;
  const args: string[] = [...w.args];
  if (filter.status !== undefined) {
    sql += `${w.sql ? ' AND' : ' WHERE'} status = ?`;
    args.push(filter.status);
  }
  const rows = db.prepare(`${sql} ORDER BY model, split, sample_id, annotator`).all(...args) as StateRow[];
  const spans = new Map<string, EvidenceSpan[]>();
  for (const s of db.prepare(`SELECT * FROM evidence_spans ${w.sql} ORDER BY start_s, end_s, id`).all(...w.args) as SpanRow[]) {
    const k = JSON.stringify([s.model, s.split, s.sample_id, s.annotator]);
    let list = spans.get(k);
    if (!list) spans.set(k, (list = []));
    list.push(toSpan(s));
  }
  return rows.map((r) => fromStateRow(r, spans.get(JSON.stringify([r.model, r.split, r.sample_id, r.annotator])) ?? []));
}

/**
 * The annotator's undo and redo stacks, rebuilt from the persisted log (survives restarts);
 * of one item's events when `item` is given (undo/redo events carry their target's item).
 */
export function undoStacks(q: AnnotationStatements, annotator: string, item?: ItemKey): { done: string[]; undone: string[] } {
  const done: string[] = [];
  let undone: string[] = [];
  const events = item ? q.localEventsOfItem.iterate(annotator, item.model, item.split, item.sampleId) : q.localEventsOf.iterate(annotator);
  for (const e of events) {
    if (e.kind === 'undo') {
      const t = done.pop();
      if (t) undone.push(t);
    } else if (e.kind === 'redo') {
      const t = undone.pop();
      if (t) done.push(t);
    } else {
      done.push(e.uuid);
      undone = [];
    }
  }
  return { done, undone };
}

/** Events matching `filter`, newest first, each marked active unless undone. */
export function history(a: AnnotationDb, filter: AnnotationFilter & { limit?: number } = {}): AnnotationHistoryEntry[] {
  const { db, q } = a;
  const w = whereOf(filter);
  const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(0, Math.floor(filter.limit))}` : '';
  const rows = db.prepare(`SELECT * FROM annotation_events ${w.sql} ORDER BY at DESC, uuid DESC${limit}`).all(...w.args) as EventRow[];
  // Activity needs all events of each key, not just the listed ones.
  const byKey = new Map<string, Map<string, boolean>>();
  return rows.map((r) => {
    const k = JSON.stringify([r.model, r.split, r.sample_id, r.annotator]);
    let active = byKey.get(k);
    if (!active) {
      active = activeSet(q.eventsOfKey.all(r.model, r.split, r.sample_id, r.annotator).map(toEvent));
      byKey.set(k, active);
    }
    return { ...toEvent(r), origin: r.origin, active: active.get(r.uuid) ?? true };
  });
}

/** All events matching `filter` (for bundles), in (at, uuid) order. */
export function exportEvents(db: Database.Database, filter: AnnotationFilter = {}): AnnotationEvent[] {
  const w = whereOf(filter);
  return (db.prepare(`SELECT * FROM annotation_events ${w.sql} ORDER BY at, uuid`).all(...w.args) as EventRow[]).map(toEvent);
}

/** The resolution of each adjudicated item (latest adjudication not undone). */
export function resolutions(db: Database.Database, filter: Pick<AnnotationFilter, 'model' | 'split' | 'sampleId'> = {}): Resolution[] {
  const w = whereOf(filter);
  const adj = (db.prepare(`SELECT * FROM annotation_events ${w.sql}${w.sql ? ' AND' : ' WHERE'} kind = 'adjudicate' ORDER BY at, uuid`).all(...w.args) as EventRow[]).map(toEvent);
  if (adj.length === 0) return [];
  // Undo/redo of an adjudication are events of the adjudicator that name it: an undo by
  // anyone else has no effect (docs/team-sync.md §3, "Ownership"), as in every key's replay.
  const targets = (
    db
      .prepare(
        `SELECT u.* FROM annotation_events u JOIN annotation_events a ON a.uuid = u.target_uuid AND a.kind = 'adjudicate' AND a.annotator = u.annotator
       WHERE u.kind IN ('undo', 'redo') ORDER BY u.at, u.uuid`,
      )
      .all() as EventRow[]
  ).map(toEvent);
  const active = activeSet([...adj, ...targets].sort(compareEvents));
  const latest = new Map<string, Resolution>();
  for (const e of adj) {
    if (!active.get(e.uuid)) continue;
    const p = e.payload;
    latest.set(JSON.stringify([e.model, e.split, e.sampleId]), {
      model: e.model,
      split: e.split,
      sampleId: e.sampleId,
      adjudicator: e.annotator,
      primary: str(p.primary),
      pathways: Array.isArray(p.pathways) ? p.pathways.filter((x): x is string => typeof x === 'string').sort() : [],
      note: str(p.note) ?? '',
      at: e.at,
      uuid: e.uuid,
    });
  }
  return [...latest.values()].sort((a, b) => (a.model + '\u0000' + a.split + '\u0000' + a.sampleId < b.model + '\u0000' + b.split + '\u0000' + b.sampleId ? -1 : 1));
}

/** Items whose annotators set different primary pathways, resolved or not, in key order. */
export function conflicts(db: Database.Database): Conflict[] {
  const byItem = new Map<string, Conflict>();
  for (const st of listStates(db)) {
    if (st.primaryPathway === null) continue;
    const k = JSON.stringify([st.model, st.split, st.sampleId]);
    let c = byItem.get(k);
    if (!c) byItem.set(k, (c = { model: st.model, split: st.split, sampleId: st.sampleId, primaries: {}, resolution: null }));
    c.primaries[st.annotator] = st.primaryPathway;
  }
  const out = [...byItem.values()].filter((c) => new Set(Object.values(c.primaries)).size > 1);
  if (out.length === 0) return out;
  const res = new Map(resolutions(db).map((r) => [JSON.stringify([r.model, r.split, r.sampleId]), r]));
  for (const c of out) c.resolution = res.get(JSON.stringify([c.model, c.split, c.sampleId])) ?? null;
  return out;
}
