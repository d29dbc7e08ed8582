/**
 * Annotations as an append-only event log plus a current-state table (docs/architecture.md, Data).
 * Every edit is ONE transaction: the event is appended and the current state of its
 * (model, split, sample, annotator) key is updated in the same transaction. The state is
 * always what replaying that key's events in (at, uuid) order gives: a new edit sorts after
 * every event of its key, so it steps the stored state once (constant cost per edit); undo,
 * redo and merges of other annotators' bundles, which can change earlier events' effect,
 * replay the key's events. Either way restarts, merges and exports see the same answer.
 */
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import {
  annotationEditSchema,
  annotationEventSchema,
  CLOCK_SKEW_BOUND_MS,
  codebookSchema,
  emptyAnnotationState,
  EMPTY_CODEBOOK,
  type AnnotationEdit,
  type AnnotationEditParsed,
  type AnnotationEvent,
  type AnnotationFilter,
  type AnnotationHistoryEntry,
  type AnnotationState,
  type AnnotationStatus,
  type Codebook,
  type Conflict,
  type Resolution,
  type EvidenceSpan,
  type MergeSummary,
  type UndoRedoResult,
} from '../../shared/domain/annotations';
import { checkEdit, staleMessage } from '../../shared/domain/edit-check';

/** An edit refused because the field it changes was changed since the user saw it (its message says how). */
export class EditConflictError extends Error {
  override readonly name = 'EditConflict';
}

interface Key {
  model: string;
  split: string;
  sampleId: string;
  annotator: string;
}

interface EventRow {
  seq: number;
  uuid: string;
  at: string;
  annotator: string;
  model: string;
  split: string;
  sample_id: string;
  kind: string;
  payload: string;
  codebook_version: number | null;
  target_uuid: string | null;
  origin: 'local' | 'merged';
}

interface StateRow {
  model: string;
  split: string;
  sample_id: string;
  annotator: string;
  status: string;
  primary_pathway: string | null;
  pathways: string;
  transition: string | null;
  notes: string;
  confidence: number | null;
  codebook_version: number | null;
  created_at: string;
  updated_at: string;
}

interface SpanRow {
  id: string;
  model: string;
  split: string;
  sample_id: string;
  annotator: string;
  start_s: number;
  end_s: number;
  label: string;
  covered_by: string;
  created_at: string;
  updated_at: string;
}

/** An event with the local sequence number it has in this project (a team space's push cursor). */
export type SequencedEvent = AnnotationEvent & { seq: number };

/** One stored codebook version, as a team space carries it (docs/team-sync.md §1). */
export interface StoredCodebook {
  version: number;
  codebook: Codebook;
  createdAt: string;
}

/** A codebook version arriving from elsewhere conflicts with the stored one of the same number. */
export class CodebookConflictError extends Error {}

/** Key order and zod defaults aside, whether two codebooks say the same thing (id, version, pathways). */
export function sameCodebook(a: Codebook, b: Codebook): boolean {
  return canonicalJson(codebookSchema.parse(a)) === canonicalJson(codebookSchema.parse(b));
}

/** A JSON value's text with object keys sorted: two values are the same JSON when these are equal. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** One item (of one model's grid): the scope of an undo in the app. */
export interface ItemKey {
  model: string;
  split: string;
  sampleId: string;
}

export interface AnnotationStore {
  apply(edit: AnnotationEdit, annotator: string): AnnotationState;
  /**
   * Undo the annotator's last edit — of `item` only when given (the app passes the item on
   * screen, so an undo never changes what the user cannot see; README, Keyboard shortcuts).
   */
  undo(annotator: string, item?: ItemKey): UndoRedoResult | null;
  redo(annotator: string, item?: ItemKey): UndoRedoResult | null;
  canUndo(annotator: string, item?: ItemKey): boolean;
  canRedo(annotator: string, item?: ItemKey): boolean;
  /** Every annotator's state of one item. */
  state(model: string, split: string, sampleId: string): AnnotationState[];
  listStates(filter?: AnnotationFilter): AnnotationState[];
  history(filter?: AnnotationFilter & { limit?: number }): AnnotationHistoryEntry[];
  /** All events (for bundles), in (at, uuid) order. */
  exportEvents(filter?: AnnotationFilter): AnnotationEvent[];
  /** Merge another annotator's bundle by event uuid: idempotent, nothing lost. */
  importEvents(events: unknown[]): MergeSummary;
  listAnnotators(): string[];
  getCodebook(): Codebook;
  /** Stores the codebook; a changed definition bumps the version. Returns what is now current. */
  setCodebook(cb: unknown): Codebook;
  codebookVersions(): { version: number; createdAt: string }[];
  /** The resolution of each adjudicated item (latest adjudication not undone). */
  resolutions(filter?: Pick<AnnotationFilter, 'model' | 'split' | 'sampleId'>): Resolution[];
  /** Items whose annotators set different primary pathways, resolved or not, in key order. */
  conflicts(): Conflict[];
  /** Total number of events (merge checks: importing a bundle twice adds none). */
  eventCount(): number;
  /** `annotator`'s events after local sequence number `seq`, in sequence order (what a sync pushes). */
  eventsAfter(seq: number, annotator: string): SequencedEvent[];
  /** How many of `annotator`'s events come after local sequence number `seq` (edits not yet synced). */
  countAfter(seq: number, annotator: string): number;
  /** The highest local sequence number (0 without events). */
  maxSeq(): number;
  /** Edits made in this project (not merged) per annotator, except `annotator`'s. */
  localCountsExcept(annotator: string): Record<string, number>;
  /** Every stored codebook version, oldest first. */
  codebookHistory(): StoredCodebook[];
  /**
   * Adds the codebook versions this project lacks (from a team space) in one transaction; a
   * version it has with other content is refused (CodebookConflictError) and nothing changes.
   */
  importCodebooks(versions: StoredCodebook[]): { added: number };
  /** The stored events of these uuids (absent ones are not in the map), with their sequence number and origin. */
  eventsByUuid(uuids: readonly string[]): Map<string, SequencedEvent & { origin: 'local' | 'merged' }>;
  /**
   * Gives one of this project's events a fresh uuid (and the undo/redo events of its author
   * that name it), in one transaction; returns the new uuid. For an edit that never left the
   * project whose uuid a team space holds for another event (docs/team-sync.md §3).
   */
  reissue(uuid: string): string;
  /**
   * Another connection (a job's worker thread: an import with annotations, a merge) added
   * events: later local edits must still be stamped after every stored one.
   */
  resync(): void;
}

const compareEvents = (a: { at: string; uuid: string }, b: { at: string; uuid: string }): number =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;

function toEvent(r: EventRow): AnnotationEvent {
  return {
    uuid: r.uuid,
    at: r.at,
    annotator: r.annotator,
    model: r.model,
    split: r.split,
    sampleId: r.sample_id,
    kind: r.kind as AnnotationEvent['kind'],
    payload: JSON.parse(r.payload) as Record<string, unknown>,
    codebookVersion: r.codebook_version,
    targetUuid: r.target_uuid,
  };
}

function toSpan(r: SpanRow): EvidenceSpan {
  return {
    id: r.id,
    startS: r.start_s,
    endS: r.end_s,
    label: r.label,
    coveredBy: JSON.parse(r.covered_by) as string[],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Which edit events take effect after the undo/redo events among `events` (sorted). */
function activeSet(events: readonly AnnotationEvent[]): Map<string, boolean> {
  const active = new Map<string, boolean>();
  for (const e of events) if (e.kind !== 'undo' && e.kind !== 'redo') active.set(e.uuid, true);
  for (const e of events) {
    if ((e.kind === 'undo' || e.kind === 'redo') && e.targetUuid && active.has(e.targetUuid)) active.set(e.targetUuid, e.kind === 'redo');
  }
  return active;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The state of one key, built event by event in (at, uuid) order. `replay` builds it from all
 * of a key's events; an edit appended after every event of its key steps the stored state once
 * (createAnnotationStore.apply), so an edit costs the same after 10 or 10,000 earlier ones.
 */
class KeyState {
  state: AnnotationState | null;
  readonly pathways: Set<string>;
  readonly spans: Map<string, EvidenceSpan>;
  lastAt: string | null;

  /** From nothing, or from a stored current state (the result of replaying every earlier event). */
  constructor(
    private readonly key: Key,
    from: AnnotationState | null = null,
  ) {
    this.state = from ? { ...from, pathways: [], spans: [] } : null;
    this.pathways = new Set(from?.pathways ?? []);
    this.spans = new Map((from?.spans ?? []).map((sp) => [sp.id, { ...sp, coveredBy: [...sp.coveredBy] }]));
    this.lastAt = from?.updatedAt ?? null;
  }

  /** Applies one event; `active` = not undone (undo/redo events themselves are never active). */
  step(e: AnnotationEvent, active: boolean): void {
    // An adjudication resolves the item for everyone; it is not the adjudicator's own label.
    if (e.kind === 'adjudicate') return;
    this.lastAt = e.at;
    if (!active) return;
    const fresh = this.state === null;
    const state = (this.state ??= emptyAnnotationState(this.key, e.at));
    const { pathways, spans } = this;
    state.updatedAt = e.at;
    state.codebookVersion = e.codebookVersion;
    const p = e.payload;
    // A span from an addSpan payload or a snapshot's list; one without an id is ignored.
    const addSpan = (raw: unknown): void => {
      const s = (raw ?? {}) as Record<string, unknown>;
      const id = str(s.id);
      if (id === null) return;
      spans.set(id, {
        id,
        startS: num(s.startS) ?? 0,
        endS: num(s.endS) ?? 0,
        label: str(s.label) ?? '',
        coveredBy: Array.isArray(s.coveredBy) ? s.coveredBy.filter((x): x is string => typeof x === 'string') : [],
        createdAt: e.at,
        updatedAt: e.at,
      });
    };
    switch (e.kind) {
      case 'setStatus':
        state.status = (str(p.status) ?? 'todo') as AnnotationStatus;
        break;
      case 'setPathway': {
        const id = str(p.pathway);
        if (id === null) break;
        if (p.on === true) pathways.add(id);
        else {
          pathways.delete(id);
          if (state.primaryPathway === id) state.primaryPathway = null;
        }
        break;
      }
      case 'setPrimary': {
        const id = str(p.pathway);
        state.primaryPathway = id;
        if (id !== null) pathways.add(id);
        break;
      }
      case 'setTransition':
        state.transition = str(p.transition);
        break;
      case 'setNotes':
        state.notes = str(p.notes) ?? '';
        break;
      case 'setConfidence':
        state.confidence = num(p.confidence);
        break;
      case 'addSpan':
        addSpan(p.span);
        break;
      case 'updateSpan': {
        const span = spans.get(str(p.spanId) ?? '');
        if (!span) break;
        const patch = (p.patch ?? {}) as Record<string, unknown>;
        if (num(patch.startS) !== null) span.startS = num(patch.startS)!;
        if (num(patch.endS) !== null) span.endS = num(patch.endS)!;
        if (str(patch.label) !== null) span.label = str(patch.label)!;
        if (Array.isArray(patch.coveredBy)) span.coveredBy = patch.coveredBy.filter((x): x is string => typeof x === 'string');
        span.updatedAt = e.at;
        break;
      }
      case 'deleteSpan':
        spans.delete(str(p.spanId) ?? '');
        break;
      case 'snapshot': {
        if (fresh && str(p.createdAt) !== null) state.createdAt = str(p.createdAt)!;
        state.status = (str(p.status) ?? 'todo') as AnnotationStatus;
        state.primaryPathway = str(p.primaryPathway);
        pathways.clear();
        if (Array.isArray(p.pathways)) for (const x of p.pathways) if (typeof x === 'string') pathways.add(x);
        if (state.primaryPathway !== null) pathways.add(state.primaryPathway);
        state.transition = str(p.transition);
        state.notes = str(p.notes) ?? '';
        state.confidence = num(p.confidence);
        spans.clear();
        for (const raw of Array.isArray(p.spans) ? p.spans : []) addSpan(raw);
        break;
      }
      default:
        break;
    }
    }

  finish(): AnnotationState | null {
    const state = this.state;
    if (!state) return null;
    if (this.lastAt !== null && this.lastAt > state.updatedAt) state.updatedAt = this.lastAt;
    state.pathways = [...this.pathways].sort();
    state.spans = [...this.spans.values()].sort((a, b) => a.startS - b.startS || a.endS - b.endS || (a.id < b.id ? -1 : 1));
    return state;
  }
}

/** The state of one key from its events (sorted by (at, uuid)); null when no edit takes effect. */
export function replay(key: Key, events: readonly AnnotationEvent[]): AnnotationState | null {
  const active = activeSet(events);
  const b = new KeyState(key);
  for (const e of events) b.step(e, active.get(e.uuid) === true);
  return b.finish();
}

export interface AnnotationStoreOptions {
  readOnly: boolean;
  assertWritable: () => void;
  defaultCodebook: () => Codebook | null;
}

export function createAnnotationStore(db: Database.Database, options: AnnotationStoreOptions): AnnotationStore {
  const q = {
    insertEvent: db.prepare(
      `INSERT INTO annotation_events (uuid, at, annotator, model, split, sample_id, kind, payload, codebook_version, target_uuid, origin)
       VALUES (@uuid, @at, @annotator, @model, @split, @sampleId, @kind, @payload, @codebookVersion, @targetUuid, @origin)
       ON CONFLICT (uuid) DO NOTHING`,
    ),
    eventsOfKey: db.prepare<[string, string, string, string], EventRow>(
      'SELECT * FROM annotation_events WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ? ORDER BY at, uuid',
    ),
    eventByUuid: db.prepare<[string], EventRow>('SELECT * FROM annotation_events WHERE uuid = ?'),
    localEventsOf: db.prepare<[string], { uuid: string; kind: string; target_uuid: string | null }>(
      "SELECT uuid, kind, target_uuid FROM annotation_events WHERE annotator = ? AND origin = 'local' ORDER BY seq",
    ),
    localEventsOfItem: db.prepare<[string, string, string, string], { uuid: string; kind: string; target_uuid: string | null }>(
      "SELECT uuid, kind, target_uuid FROM annotation_events WHERE annotator = ? AND model = ? AND split = ? AND sample_id = ? AND origin = 'local' ORDER BY seq",
    ),
    maxAt: db.prepare<[], { at: string | null }>('SELECT max(at) AS at FROM annotation_events'),
    stateOfKey: db.prepare<[string, string, string, string], StateRow>(
      'SELECT * FROM annotation_state WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ?',
    ),
    spansOfKey: db.prepare<[string, string, string, string], SpanRow>(
      'SELECT * FROM evidence_spans WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ? ORDER BY start_s, end_s, id',
    ),
    deleteState: db.prepare('DELETE FROM annotation_state WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ?'),
    upsertState: db.prepare(
      `INSERT INTO annotation_state (model, split, sample_id, annotator, status, primary_pathway, pathways, transition, notes, confidence,
         codebook_version, created_at, updated_at)
       VALUES (@model, @split, @sampleId, @annotator, @status, @primaryPathway, @pathways, @transition, @notes, @confidence,
         @codebookVersion, @createdAt, @updatedAt)
       ON CONFLICT (model, split, sample_id, annotator) DO UPDATE SET status = excluded.status, primary_pathway = excluded.primary_pathway,
         pathways = excluded.pathways, transition = excluded.transition, notes = excluded.notes, confidence = excluded.confidence,
         codebook_version = excluded.codebook_version, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    ),
    deleteSpan: db.prepare('DELETE FROM evidence_spans WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ? AND id = ?'),
    deleteSpans: db.prepare('DELETE FROM evidence_spans WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ?'),
    insertSpan: db.prepare(
      `INSERT OR REPLACE INTO evidence_spans (id, model, split, sample_id, annotator, start_s, end_s, label, covered_by, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    annotatorInsert: db.prepare('INSERT OR IGNORE INTO annotators (name, created_at) VALUES (?, ?)'),
    annotators: db.prepare<[], { name: string }>('SELECT name FROM annotators ORDER BY name'),
    codebookCurrent: db.prepare<[], { version: number; json: string }>('SELECT version, json FROM codebooks ORDER BY version DESC LIMIT 1'),
    codebookInsert: db.prepare('INSERT INTO codebooks (version, codebook_id, json, created_at) VALUES (?, ?, ?, ?)'),
    codebookVersions: db.prepare<[], { version: number; created_at: string }>('SELECT version, created_at FROM codebooks ORDER BY version'),
    codebookHistory: db.prepare<[], { version: number; json: string; created_at: string }>('SELECT version, json, created_at FROM codebooks ORDER BY version'),
    eventsAfter: db.prepare<[number, string], EventRow>('SELECT * FROM annotation_events WHERE seq > ? AND annotator = ? ORDER BY seq'),
    countAfter: db.prepare<[number, string], { n: number }>('SELECT count(*) AS n FROM annotation_events WHERE seq > ? AND annotator = ?'),
    maxSeq: db.prepare<[], { s: number }>('SELECT coalesce(max(seq), 0) AS s FROM annotation_events'),
    localCountsExcept: db.prepare<[string], { annotator: string; n: number }>(
      "SELECT annotator, count(*) AS n FROM annotation_events WHERE annotator <> ? AND origin = 'local' GROUP BY annotator ORDER BY annotator",
    ),
  };

  const codebookHistory = (): StoredCodebook[] =>
    q.codebookHistory.all().map((r) => ({ version: r.version, codebook: codebookSchema.parse(JSON.parse(r.json)), createdAt: r.created_at }));

  // `at` must increase strictly for local events so that replay order (at, uuid) equals the
  // order the user made the edits in, even within one millisecond, and a new edit comes after
  // every event the project holds — as a hybrid logical clock does, up to a bound: a stamp is
  // never later than this clock + CLOCK_SKEW_BOUND_MS, so an event stamped far ahead by a wrong
  // clock elsewhere (pulled, merged) cannot drag every later edit here into its future
  // (docs/team-sync.md §3, "Clocks").
  // Both rules hold together only if a stamp at the ceiling (clock + bound) waits for the clock:
  // once this millisecond's ceiling is taken, the next edit is stamped in the next millisecond.
  // That wait can only happen after meeting an event stamped beyond the bound, and lasts < 1 ms.
  let lastAtMs = Date.parse(q.maxAt.get()?.at ?? '') || 0;
  // No earlier local stamp is later than this (each was at most its clock + the bound).
  let lastIssuedMs = Math.min(lastAtMs, Date.now() + CLOCK_SKEW_BOUND_MS);
  const nextAt = (): string => {
    for (;;) {
      const now = Date.now();
      const at = Math.max(now, Math.min(lastAtMs + 1, now + CLOCK_SKEW_BOUND_MS));
      if (at > lastIssuedMs) {
        lastIssuedMs = at;
        if (at > lastAtMs) lastAtMs = at;
        return new Date(at).toISOString();
      }
    }
  };

  const getCodebook = (): Codebook => {
    const row = q.codebookCurrent.get();
    if (row) return codebookSchema.parse(JSON.parse(row.json));
    return options.defaultCodebook() ?? EMPTY_CODEBOOK;
  };
  const currentCodebookVersion = (): number | null => q.codebookCurrent.get()?.version ?? options.defaultCodebook()?.version ?? null;

  const fromStateRow = (r: StateRow, spans: EvidenceSpan[]): AnnotationState => ({
    model: r.model,
    split: r.split,
    sampleId: r.sample_id,
    annotator: r.annotator,
    status: r.status as AnnotationStatus,
    primaryPathway: r.primary_pathway,
    pathways: JSON.parse(r.pathways) as string[],
    transition: r.transition,
    notes: r.notes,
    confidence: r.confidence,
    codebookVersion: r.codebook_version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    spans,
  });

  /** Writes the key's current state (and its spans); null = no edit takes effect. */
  const store = (k: Key, state: AnnotationState | null): AnnotationState | null => {
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
  };

  /** The key's state as stored (the replay of all its events so far), or null. */
  const storedState = (k: Key): AnnotationState | null => {
    const row = q.stateOfKey.get(k.model, k.split, k.sampleId, k.annotator);
    return row ? fromStateRow(row, q.spansOfKey.all(k.model, k.split, k.sampleId, k.annotator).map(toSpan)) : null;
  };

  /** Replays all of the key's events (after undo/redo and merges, which can change earlier events' effect). */
  const recompute = (k: Key): AnnotationState | null => store(k, replay(k, q.eventsOfKey.all(k.model, k.split, k.sampleId, k.annotator).map(toEvent)));

  const insert = (e: AnnotationEvent, origin: 'local' | 'merged'): boolean =>
    q.insertEvent.run({ ...e, payload: JSON.stringify(e.payload), origin }).changes > 0;

  /**
   * The annotator's undo and redo stacks, rebuilt from the persisted log (survives restarts);
   * of one item's events when `item` is given (undo/redo events carry their target's item).
   */
  const stacks = (annotator: string, item?: ItemKey): { done: string[]; undone: string[] } => {
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
  };

  const undoRedo = (annotator: string, kind: 'undo' | 'redo', item?: ItemKey): UndoRedoResult | null => {
    options.assertWritable();
    return db.transaction((): UndoRedoResult | null => {
      const { done, undone } = stacks(annotator, item);
      const targetUuid = kind === 'undo' ? done[done.length - 1] : undone[undone.length - 1];
      if (!targetUuid) return null;
      const target = toEvent(q.eventByUuid.get(targetUuid)!);
      insert(
        {
          uuid: randomUUID(),
          at: nextAt(),
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
      const state = recompute({ model: target.model, split: target.split, sampleId: target.sampleId, annotator });
      return { target, state };
    })();
  };

  const whereOf = (f: AnnotationFilter, cols: { sampleId: string } = { sampleId: 'sample_id' }): { sql: string; args: string[] } => {
    const parts: string[] = [];
    const args: string[] = [];
    if (f.model !== undefined) (parts.push('model = ?'), args.push(f.model));
    if (f.split !== undefined) (parts.push('split = ?'), args.push(f.split));
    if (f.sampleId !== undefined) (parts.push(`${cols.sampleId} = ?`), args.push(f.sampleId));
    if (f.annotator !== undefined) (parts.push('annotator = ?'), args.push(f.annotator));
    return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', args };
  };

  const listStates = (filter: AnnotationFilter = {}): AnnotationState[] => {
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
  };

  return {
    apply(edit: AnnotationEdit, annotator: string): AnnotationState {
      options.assertWritable();
      if (!annotator.trim()) throw new Error('an annotation needs an annotator name');
      const parsed: AnnotationEditParsed = annotationEditSchema.parse(edit);
      return db.transaction((): AnnotationState => {
        const at = nextAt();
        const key: Key = { model: parsed.model, split: parsed.split, sampleId: parsed.sampleId, annotator };
        let kind: AnnotationEvent['kind'];
        let payload: Record<string, unknown>;
        // `seen` is the edit's precondition, not part of what it records.
        const { op: _op, model: _m, split: _s, sampleId: _id, seen: _seen, ...rest } = parsed as typeof parsed & { seen?: unknown };
        const current = storedState(key);
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
        const event: AnnotationEvent = { uuid: randomUUID(), at, ...key, kind, payload, codebookVersion: currentCodebookVersion(), targetUuid: null };
        insert(event, 'local');
        // `at` is later than every stored event (nextAt), so the new event replays last: when the
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
        return recompute(key) ?? emptyAnnotationState(key, at);
      })();
    },
    undo: (annotator, item) => undoRedo(annotator, 'undo', item),
    redo: (annotator, item) => undoRedo(annotator, 'redo', item),
    canUndo: (annotator, item) => stacks(annotator, item).done.length > 0,
    canRedo: (annotator, item) => stacks(annotator, item).undone.length > 0,
    state: (model, split, sampleId) => listStates({ model, split, sampleId }),
    listStates,
    history(filter = {}) {
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
    },
    exportEvents(filter = {}) {
      const w = whereOf(filter);
      return (db.prepare(`SELECT * FROM annotation_events ${w.sql} ORDER BY at, uuid`).all(...w.args) as EventRow[]).map(toEvent);
    },
    importEvents(events: unknown[]): MergeSummary {
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
          if (!insert(e, 'merged')) continue;
          added++;
          q.annotatorInsert.run(e.annotator, e.at);
          const k: Key = { model: e.model, split: e.split, sampleId: e.sampleId, annotator: e.annotator };
          keys.set(JSON.stringify([k.model, k.split, k.sampleId, k.annotator]), k);
          const ms = Date.parse(e.at);
          if (ms > lastAtMs) lastAtMs = ms;
        }
        for (const k of keys.values()) recompute(k);
        return { added, skipped: parsed.length - added, keysRecomputed: keys.size };
      })();
    },
    eventsByUuid(uuids) {
      const out = new Map<string, SequencedEvent & { origin: 'local' | 'merged' }>();
      for (const u of uuids) {
        const r = q.eventByUuid.get(u);
        if (r) out.set(u, { ...toEvent(r), seq: r.seq, origin: r.origin });
      }
      return out;
    },
    reissue(uuid: string): string {
      options.assertWritable();
      return db.transaction((): string => {
        const row = q.eventByUuid.get(uuid);
        if (!row) throw new Error(`no annotation event ${uuid}`);
        const fresh = randomUUID();
        db.prepare('UPDATE annotation_events SET uuid = ? WHERE uuid = ?').run(fresh, uuid);
        db.prepare('UPDATE annotation_events SET target_uuid = ? WHERE target_uuid = ? AND annotator = ?').run(fresh, uuid, row.annotator);
        // Only the (at, uuid) order of events stamped in the same millisecond can change.
        recompute({ model: row.model, split: row.split, sampleId: row.sample_id, annotator: row.annotator });
        return fresh;
      })();
    },
    resync() {
      lastAtMs = Math.max(lastAtMs, Date.parse(q.maxAt.get()?.at ?? '') || 0);
    },
    listAnnotators: () => q.annotators.all().map((r) => r.name),
    getCodebook,
    setCodebook(cb: unknown): Codebook {
      options.assertWritable();
      const next = codebookSchema.parse(cb);
      return db.transaction((): Codebook => {
        const row = q.codebookCurrent.get();
        const current = row ? codebookSchema.parse(JSON.parse(row.json)) : options.defaultCodebook();
        const definition = (c: Codebook): string => JSON.stringify({ ...c, version: 0 });
        const same = current !== null && definition(current) === definition(next);
        if (row && same) return current;
        // The default codebook (assets/) is stored as-is on first save; any change bumps it.
        const version = current ? (same ? current.version : Math.max(current.version + 1, next.version)) : next.version;
        const stored = { ...next, version };
        q.codebookInsert.run(version, stored.id, JSON.stringify(stored), new Date().toISOString());
        return stored;
      })();
    },
    codebookVersions: () => q.codebookVersions.all().map((r) => ({ version: r.version, createdAt: r.created_at })),
    resolutions,
    conflicts() {
      const byItem = new Map<string, Conflict>();
      for (const st of listStates()) {
        if (st.primaryPathway === null) continue;
        const k = JSON.stringify([st.model, st.split, st.sampleId]);
        let c = byItem.get(k);
        if (!c) byItem.set(k, (c = { model: st.model, split: st.split, sampleId: st.sampleId, primaries: {}, resolution: null }));
        c.primaries[st.annotator] = st.primaryPathway;
      }
      const out = [...byItem.values()].filter((c) => new Set(Object.values(c.primaries)).size > 1);
      if (out.length === 0) return out;
      const res = new Map(resolutions().map((r) => [JSON.stringify([r.model, r.split, r.sampleId]), r]));
      for (const c of out) c.resolution = res.get(JSON.stringify([c.model, c.split, c.sampleId])) ?? null;
      return out;
    },
    eventCount: () => (db.prepare('SELECT count(*) AS n FROM annotation_events').get() as { n: number }).n,
    eventsAfter: (seq, annotator) => q.eventsAfter.all(seq, annotator).map((r) => ({ ...toEvent(r), seq: r.seq })),
    countAfter: (seq, annotator) => q.countAfter.get(seq, annotator)!.n,
    maxSeq: () => q.maxSeq.get()!.s,
    localCountsExcept: (annotator) => Object.fromEntries(q.localCountsExcept.all(annotator).map((r) => [r.annotator, r.n])),
    codebookHistory,
    importCodebooks(versions: StoredCodebook[]): { added: number } {
      options.assertWritable();
      const incoming = versions.map((v) => ({ ...v, codebook: codebookSchema.parse(v.codebook) }));
      return db.transaction((): { added: number } => {
        const have = new Map(codebookHistory().map((v) => [v.version, v]));
        let added = 0;
        for (const v of incoming) {
          if (v.codebook.version !== v.version) throw new CodebookConflictError(`codebook version ${v.version} names itself version ${v.codebook.version}`);
          const mine = have.get(v.version);
          if (mine) {
            if (!sameCodebook(mine.codebook, v.codebook)) throw new CodebookConflictError(`codebook version ${v.version} differs from this project's version ${v.version}`);
            continue;
          }
          q.codebookInsert.run(v.version, v.codebook.id, JSON.stringify(v.codebook), v.createdAt);
          have.set(v.version, v);
          added++;
        }
        return { added };
      })();
    },
  };

  function resolutions(filter: Pick<AnnotationFilter, 'model' | 'split' | 'sampleId'> = {}): Resolution[] {
    const w = whereOf(filter);
    const adj = (db
      .prepare(`SELECT * FROM annotation_events ${w.sql}${w.sql ? ' AND' : ' WHERE'} kind = 'adjudicate' ORDER BY at, uuid`)
      .all(...w.args) as EventRow[]).map(toEvent);
    if (adj.length === 0) return [];
    // Undo/redo of an adjudication are events of the adjudicator that name it: an undo by
    // anyone else has no effect (docs/team-sync.md §3, "Ownership"), as in every key's replay.
    const targets = (db
      .prepare(
        `SELECT u.* FROM annotation_events u JOIN annotation_events a ON a.uuid = u.target_uuid AND a.kind = 'adjudicate' AND a.annotator = u.annotator
         WHERE u.kind IN ('undo', 'redo') ORDER BY u.at, u.uuid`,
      )
      .all() as EventRow[]).map(toEvent);
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

}
