/**
 * Writes of the annotation store, each ONE transaction (docs/architecture.md "Data", "Live
 * views"): an edit (checked against what its user saw), undo and redo, a merge of another
 * annotator's events, a reissued uuid. The event is appended and its key's current state
 * updated in the same transaction: stepped once for a new edit, replayed otherwise
 * (annotation-replay.ts).
 */
import { randomUUID } from 'node:crypto';
import {
  annotationEditSchema,
  annotationEventSchema,
  emptyAnnotationState,
  type AnnotationEdit,
  type AnnotationEditParsed,
  type AnnotationEvent,
  type AnnotationState,
  type MergeSummary,
  type UndoRedoResult,
} from '../../shared/domain/annotations';
import { checkEdit, staleMessage } from '../../shared/domain/edit-check';
import { currentCodebookVersion } from './annotation-codebooks';
import { undoStacks } from './annotation-reads';
import { KeyState, replay } from './annotation-replay';
import { fromStateRow, toEvent, toSpan, type AnnotationDb, type AnnotationStatements, type ItemKey, type Key } from './annotation-tables';

/** An edit refused because the field it changes was changed since the user saw it (its message says how). */
export class EditConflictError extends Error {
  override readonly name = 'EditConflict';
}

/** Writes the key's current state (and its spans); null = no edit takes effect. */
function storeState(q: AnnotationStatements, k: Key, state: AnnotationState | null): AnnotationState | null {
  q.deleteSpans.run(k.model, k.split, k.sampleId, k.annotator);
  if (!state) {
    q.deleteState.run(k.model, k.split, k.sampleId, k.annotator);
    return null;
  }
  q.upsertState.run({ ...state, pathways: JSON.stringify(state.pathways) });
  for (const s of state.spans) {
    q.insertSpan.run(s.id, k.model, k.split, k.sampleId, k.annotator, s.startS, s.endS, s.label, JSON.stringify(s.coveredBy), s.createdAt, s.updatedAt);
  }
  return state;
}

/** The key's state as stored (the replay of all its events so far), or null. */
function storedState(q: AnnotationStatements, k: Key): AnnotationState | null {
  const row = q.stateOfKey.get(k.model, k.split, k.sampleId, k.annotator);
  return row ? fromStateRow(row, q.spansOfKey.all(k.model, k.split, k.sampleId, k.annotator).map(toSpan)) : null;
}

/** Replays all of the key's events (after undo/redo and merges, which can change earlier events' effect). */
function recompute(q: AnnotationStatements, k: Key): AnnotationState | null {
  return storeState(q, k, replay(k, q.eventsOfKey.all(k.model, k.split, k.sampleId, k.annotator).map(toEvent)));
}

function insertEvent(q: AnnotationStatements, e: AnnotationEvent, origin: 'local' | 'merged'): boolean {
  return q.insertEvent.run({ ...e, payload: JSON.stringify(e.payload), origin }).changes > 0;
}

/** Records an edit of `annotator` (docs/architecture.md "Live views": `seen` is its precondition). */
export function applyEdit(a: AnnotationDb, edit: AnnotationEdit, annotator: string): AnnotationState {
  const { db, q, options } = a;
  options.assertWritable();
  if (!annotator.trim()) throw new Error('an annotation needs an annotator name');
  const parsed: AnnotationEditParsed = annotationEditSchema.parse(edit);
  return db.transaction((): AnnotationState => {
    const at = a.clock.next();
    const key: Key = { model: parsed.model, split: parsed.split, sampleId: parsed.sampleId, annotator };
    let kind: AnnotationEvent['kind'];
    let payload: Record<string, unknown>;
    // `seen` is the edit's precondition, not part of what it records.
    const { op: _op, model: _m, split: _s, sampleId: _id, seen: _seen, ...rest } = parsed as typeof parsed & { seen?: unknown };
    const current = storedState(q, key);
    // An edit made on a view older than the saved state (shared/domain/edit-check.ts):
    // refused when it would overwrite a change the user had not seen, a no-op when the saved
    // state already is what it asks for.
    const check = checkEdit(current, parsed);
    if (check.kind === 'stale') throw new EditConflictError(staleMessage(check, parsed));
    if (check.kind === 'already') return current ?? emptyAnnotationState(key, at);
    q.annotatorInsert.run(annotator, at);
    if (parsed.op === 'addSpan') {
      kind = 'addSpan';
      payload = { span: { ...parsed.span, id: parsed.span.id ?? randomUUID() } };
    } else {
      kind = parsed.op;
      payload = rest;
    }
    const event: AnnotationEvent = { uuid: randomUUID(), at, ...key, kind, payload, codebookVersion: currentCodebookVersion(q, options), targetUuid: null };
    insertEvent(q, event, 'local');
    // `at` is later than every stored event (EventClock.next), so the new event replays last: when the
    // stored state already reflects every earlier event (its updatedAt is their latest
    // `at`), one step gives what a full replay would. A key with no stored state (never
    // edited, or every edit undone) or a merged event stamped later is replayed.
    if (current !== null && at > current.updatedAt) {
      const b = new KeyState(key, current);
      b.step(event, true);
      const next = b.finish()!;
      q.upsertState.run({ ...next, pathways: JSON.stringify(next.pathways) });
      // Only the spans the edit changed are written.
      const before = new Map(current.spans.map((sp) => [sp.id, sp]));
      for (const sp of next.spans) {
        const old = before.get(sp.id);
        before.delete(sp.id);
        if (old && JSON.stringify(old) === JSON.stringify(sp)) continue;
        q.insertSpan.run(sp.id, key.model, key.split, key.sampleId, annotator, sp.startS, sp.endS, sp.label, JSON.stringify(sp.coveredBy), sp.createdAt, sp.updatedAt);
      }
      for (const id of before.keys()) q.deleteSpan.run(key.model, key.split, key.sampleId, annotator, id);
      return next;
    }
    return recompute(q, key) ?? emptyAnnotationState(key, at);
  })();
}

/** Undoes or redoes the annotator's last edit (of `item` only when given); null when there is none. */
export function undoRedo(a: AnnotationDb, annotator: string, kind: 'undo' | 'redo', item?: ItemKey): UndoRedoResult | null {
  const { db, q, options } = a;
  options.assertWritable();
  return db.transaction((): UndoRedoResult | null => {
    const { done, undone } = undoStacks(q, annotator, item);
    const targetUuid = kind === 'undo' ? done[done.length - 1] : undone[undone.length - 1];
    if (!targetUuid) return null;
    const target = toEvent(q.eventByUuid.get(targetUuid)!);
    insertEvent(
      q,
      {
        uuid: randomUUID(),
        at: a.clock.next(),
        annotator,
        model: target.model,
        split: target.split,
        sampleId: target.sampleId,
        kind,
        payload: {},
        codebookVersion: target.codebookVersion,
        targetUuid,
      },
      'local',
    );
    const state = recompute(q, { model: target.model, split: target.split, sampleId: target.sampleId, annotator });
    return { target, state };
  })();
}

/** Merges another annotator's bundle by event uuid: idempotent, nothing lost. */
export function importEvents(a: AnnotationDb, events: unknown[]): MergeSummary {
  const { db, q, options } = a;
  options.assertWritable();
  // Validate everything before writing anything.
  const parsed = events.map((e, i) => {
    const r = annotationEventSchema.safeParse(e);
    if (!r.success) throw new Error(`annotation event ${i + 1}: ${r.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')}`);
    return r.data;
  });
  return db.transaction((): MergeSummary => {
    let added = 0;
    const keys = new Map<string, Key>();
    for (const e of parsed) {
      if (!insertEvent(q, e, 'merged')) continue;
      added++;
      q.annotatorInsert.run(e.annotator, e.at);
      const k: Key = { model: e.model, split: e.split, sampleId: e.sampleId, annotator: e.annotator };
      keys.set(JSON.stringify([k.model, k.split, k.sampleId, k.annotator]), k);
      a.clock.saw(e.at);
    }
    for (const k of keys.values()) recompute(q, k);
    return { added, skipped: parsed.length - added, keysRecomputed: keys.size };
  })();
}

/**
 * Gives one of this project's events a fresh uuid (and the undo/redo events of its author that
 * name it), in one transaction; returns the new uuid.
 */
export function reissue(a: AnnotationDb, uuid: string): string {
  const { db, q, options } = a;
  options.assertWritable();
  return db.transaction((): string => {
    const row = q.eventByUuid.get(uuid);
    if (!row) throw new Error(`no annotation event ${uuid}`);
    const fresh = randomUUID();
    db.prepare('UPDATE annotation_events SET uuid = ? WHERE uuid = ?').run(fresh, uuid);
    db.prepare('UPDATE annotation_events SET target_uuid = ? WHERE target_uuid = ? AND annotator = ?').run(fresh, uuid, row.annotator);
    // Only the (at, uuid) order of events stamped in the same millisecond can change.
    recompute(q, { model: row.model, split: row.split, sampleId: row.sample_id, annotator: row.annotator });
    return fresh;
  })();
}
