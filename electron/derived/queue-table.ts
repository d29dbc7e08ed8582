/**
 * The audit queue in the backend (docs/architecture.md "The queue at lab scale"): the rows are
 * derived once per import into a compact columnar value (queue-data.ts) stored in the project,
 * and queue:page answers from it in memory. A filter is one scan over the rows' small integer
 * codes (the search text is matched once per item and once per model, not per row); each sort
 * order is a permutation of the rows, computed when first asked and kept until the inputs
 * change; statuses come from the small annotation state, read again when an annotation event
 * was written. Only a page's rows ever become objects.
 *
 * Strings sort in code-point order (compareCodePoints, which is SQLite's BINARY order of their
 * UTF-8 bytes); every order ends with (model, split, sample id), so it is total, and a
 * descending order is the ascending one reversed.
 */
import type { Project } from '../store/project';
import { derivedEntry } from './derived-entry';
import { decodeQueueData, deriveQueueData, encodeQueueData, type QueueData } from './queue-data';
import { pageOf, type QueuePage, type QueuePageRequest } from './queue-page';
import { newView, statesOf, type StateStatements, type View } from './queue-view';

export interface QueueTable {
  /** Derives and stores the rows when an import or a setting changed what they derive from (else a no-op). */
  refresh(): void;
  page(req: QueuePageRequest): QueuePage;
}

export interface QueueTableOptions {
  /**
   * True while a job's worker thread holds the project's write transaction (an import: it
   * derives the rows itself once committed, background-jobs.ts). Meanwhile the rows as they
   * were answer: deriving them here would stop this thread and contend with the worker's
   * writes. The job's end emits data:changed, and views ask again.
   */
  deferRefresh?: () => boolean;
}

/**
 * The queue of `project`. Its parts, by job: queue-view.ts (what is kept per inputs version,
 * and the annotation state), queue-match.ts (the filter), queue-order.ts (the sort orders),
 * queue-page.ts (a page's rows). This wires them to the stored rows.
 */
export function createQueueTable(project: Project, opts: QueueTableOptions = {}): QueueTable {
  const db = project.db;
  const stored = derivedEntry(db, 'queue');
  const stmts: StateStatements = {
    seq: db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM annotation_events').pluck(true),
    states: db.prepare<[], [string, string, string, string, string, string]>(
      'SELECT model, split, sample_id, annotator, status, updated_at FROM annotation_state ORDER BY annotator',
    ),
  };
  let view: View | null = null;

  const viewOf = (inputs: number, d: QueueData): View => (view = newView(inputs, d));
  const storedData = (): { inputs: number; d: QueueData } | null => {
    const s = stored.readData();
    const d = s ? decodeQueueData(s.data) : null;
    return s && d ? { inputs: s.inputs, d } : null;
  };

  /** The rows of the current inputs: kept, stored (by this or another process), or derived now. */
  const current = (): View => {
    const inputs = project.inputsVersion();
    if (view?.inputs === inputs) return view;
    if (stored.inputs() === inputs) {
      const s = storedData();
      if (s) return viewOf(inputs, s.d);
    }
    if (opts.deferRefresh?.()) {
      if (view) return view;
      const s = storedData();
      if (s) return viewOf(s.inputs, s.d);
    }
    // The inputs version and the rows from one read transaction, so the stamp is the rows' own.
    const fresh = db.transaction(() => ({ inputs: project.inputsVersion(), d: deriveQueueData(project) }))();
    // A read-only project derives in memory only, again whenever it finds the inputs changed.
    if (!project.readOnly) stored.writeData(fresh.inputs, encodeQueueData(fresh.d));
    return viewOf(fresh.inputs, fresh.d);
  };

  return {
    refresh: () => void current(),
    page: (req) => {
      const v = current();
      return pageOf(v, statesOf(v, stmts), req);
    },
  };
}
