/**
 * Annotations as an append-only event log plus a current-state table (docs/architecture.md, Data).
 * Every edit is ONE transaction: the event is appended and the current state of its
 * (model, split, sample, annotator) key is updated in the same transaction. The state is
 * always what replaying that key's events in (at, uuid) order gives: a new edit sorts after
 * every event of its key, so it steps the stored state once (constant cost per edit); undo,
 * redo and merges of other annotators' bundles, which can change earlier events' effect,
 * replay the key's events. Either way restarts, merges and exports see the same answer.
 *
 * The store's parts, by job: annotation-tables.ts (rows, statements, what the parts share),
 * annotation-replay.ts (a key's state from its events), annotation-writes.ts (edits, undo,
 * merges), annotation-reads.ts (states, history, resolutions, conflicts),
 * annotation-codebooks.ts (codebook versions), annotation-clock.ts (local events' stamps). This
 * file holds the store's interface and wires it.
 */
import type Database from 'better-sqlite3';
import type {
  AnnotationEdit,
  AnnotationEvent,
  AnnotationFilter,
  AnnotationHistoryEntry,
  AnnotationState,
  Codebook,
  Conflict,
  MergeSummary,
  Resolution,
  UndoRedoResult,
} from '../../shared/domain/annotations';
import { EventClock } from './annotation-clock';
import { codebookHistory, currentCodebook, importCodebooks, setCodebook, type StoredCodebook } from './annotation-codebooks';
import { conflicts, exportEvents, history, listStates, resolutions, undoStacks } from './annotation-reads';
import { prepareAnnotationStatements, toEvent, type AnnotationDb, type AnnotationStoreOptions, type ItemKey, type SequencedEvent } from './annotation-tables';
import { applyEdit, importEvents, reissue, undoRedo } from './annotation-writes';

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

export function createAnnotationStore(db: Database.Database, options: AnnotationStoreOptions): AnnotationStore {
  const q = prepareAnnotationStatements(db);
  const a: AnnotationDb = { db, q, options, clock: new EventClock(q.maxAt.get()?.at ?? null) };
  return {
    apply: (edit, annotator) => applyEdit(a, edit, annotator),
    undo: (annotator, item) => undoRedo(a, annotator, 'undo', item),
    redo: (annotator, item) => undoRedo(a, annotator, 'redo', item),
    canUndo: (annotator, item) => undoStacks(q, annotator, item).done.length > 0,
    canRedo: (annotator, item) => undoStacks(q, annotator, item).undone.length > 0,
    state: (model, split, sampleId) => listStates(db, { model, split, sampleId }),
    listStates: (filter) => listStates(db, filter),
    history: (filter) => history(a, filter),
    exportEvents: (filter) => exportEvents(db, filter),
    importEvents: (events) => importEvents(a, events),
    eventsByUuid(uuids) {
      const out = new Map<string, SequencedEvent & { origin: 'local' | 'merged' }>();
      for (const u of uuids) {
        const r = q.eventByUuid.get(u);
        if (r) out.set(u, { ...toEvent(r), seq: r.seq, origin: r.origin });
      }
      return out;
    },
    reissue: (uuid) => reissue(a, uuid),
    resync: () => a.clock.resync(q.maxAt.get()?.at ?? null),
    listAnnotators: () => q.annotators.all().map((r) => r.name),
    getCodebook: () => currentCodebook(q, options),
    setCodebook: (cb) => setCodebook(a, cb),
    codebookVersions: () => q.codebookVersions.all().map((r) => ({ version: r.version, createdAt: r.created_at })),
    resolutions: (filter) => resolutions(db, filter),
    conflicts: () => conflicts(db),
    eventCount: () => (db.prepare('SELECT count(*) AS n FROM annotation_events').get() as { n: number }).n,
    eventsAfter: (seq, annotator) => q.eventsAfter.all(seq, annotator).map((r) => ({ ...toEvent(r), seq: r.seq })),
    countAfter: (seq, annotator) => q.countAfter.get(seq, annotator)!.n,
    maxSeq: () => q.maxSeq.get()!.s,
    localCountsExcept: (annotator) => Object.fromEntries(q.localCountsExcept.all(annotator).map((r) => [r.annotator, r.n])),
    codebookHistory: () => codebookHistory(q),
    importCodebooks: (versions) => importCodebooks(a, versions),
  };
}
