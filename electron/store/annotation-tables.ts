/**
 * The annotation tables as the store reads and writes them (docs/architecture.md "Data"): their
 * rows, the statements the store prepares once per connection, the conversion of rows to the
 * domain's events, spans and states, and what the store's parts share.
 */
import type Database from 'better-sqlite3';
import type { AnnotationEvent, AnnotationState, AnnotationStatus, Codebook, EvidenceSpan } from '../../shared/domain/annotations';
import type { EventClock } from './annotation-clock';

export interface Key {
  model: string;
  split: string;
  sampleId: string;
  annotator: string;
}

export interface EventRow {
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

export interface StateRow {
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

export interface SpanRow {
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

/** One item (of one model's grid): the scope of an undo in the app. */
export interface ItemKey {
  model: string;
  split: string;
  sampleId: string;
}

export interface AnnotationStoreOptions {
  readOnly: boolean;
  assertWritable: () => void;
  defaultCodebook: () => Codebook | null;
}

/** The statements of the annotation store, prepared once per connection. */
/** The statements of the annotation store (named: the declarations tsc -b emits must name them). */
export interface AnnotationStatements {
  insertEvent: Database.Statement<unknown[], unknown>;
  eventsOfKey: Database.Statement<[string, string, string, string], EventRow>;
  eventByUuid: Database.Statement<[string], EventRow>;
  localEventsOf: Database.Statement<[string], { uuid: string; kind: string; target_uuid: string | null }>;
  localEventsOfItem: Database.Statement<[string, string, string, string], { uuid: string; kind: string; target_uuid: string | null }>;
  maxAt: Database.Statement<[], { at: string | null }>;
  stateOfKey: Database.Statement<[string, string, string, string], StateRow>;
  spansOfKey: Database.Statement<[string, string, string, string], SpanRow>;
  deleteState: Database.Statement<unknown[], unknown>;
  upsertState: Database.Statement<unknown[], unknown>;
  deleteSpan: Database.Statement<unknown[], unknown>;
  deleteSpans: Database.Statement<unknown[], unknown>;
  insertSpan: Database.Statement<unknown[], unknown>;
  annotatorInsert: Database.Statement<unknown[], unknown>;
  annotators: Database.Statement<[], { name: string }>;
  codebookCurrent: Database.Statement<[], { version: number; json: string }>;
  codebookInsert: Database.Statement<unknown[], unknown>;
  codebookVersions: Database.Statement<[], { version: number; created_at: string }>;
  codebookHistory: Database.Statement<[], { version: number; json: string; created_at: string }>;
  eventsAfter: Database.Statement<[number, string], EventRow>;
  countAfter: Database.Statement<[number, string], { n: number }>;
  maxSeq: Database.Statement<[], { s: number }>;
  localCountsExcept: Database.Statement<[string], { annotator: string; n: number }>;
}

export function prepareAnnotationStatements(db: Database.Database): AnnotationStatements {
  return {
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
    stateOfKey: db.prepare<[string, string, string, string], StateRow>('SELECT * FROM annotation_state WHERE model = ? AND split = ? AND sample_id = ? AND annotator = ?'),
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
}

/** What the store's parts share: the connection, its statements, the options and the events' clock. */
export interface AnnotationDb {
  readonly db: Database.Database;
  readonly q: AnnotationStatements;
  readonly options: AnnotationStoreOptions;
  readonly clock: EventClock;
}

export const compareEvents = (a: { at: string; uuid: string }, b: { at: string; uuid: string }): number =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;

export function toEvent(r: EventRow): AnnotationEvent {
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

export function toSpan(r: SpanRow): EvidenceSpan {
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

export function fromStateRow(r: StateRow, spans: EvidenceSpan[]): AnnotationState {
  return {
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
  };
}
