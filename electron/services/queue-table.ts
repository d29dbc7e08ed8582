/**
 * The audit queue in the backend (docs/architecture.md "The queue at lab scale"): every
 * (model, split, item) row is derived once per import from the audit index into the project's
 * `queue_rows` table (with one index per sort order), and queue:page answers with indexed SQL:
 * a page is an index walk, a filter change one count over the table, statuses a join on the
 * annotation state (so an annotation edit costs nothing here). Nothing here holds every row.
 */
import type Database from 'better-sqlite3';
import type { AnnotationStatus, ItemRef, QueueRow } from '../../shared/api/contract';
import { EMPTY_FILTER, type QueueFilter, type QueueSort, type SortKey } from '../../shared/api/queue-filter';
import { ANNOTATION_STATUSES } from '../../shared/domain/annotations';
import type { Project } from '../store/project';
import { computeGridAudit } from './audit-index';
import { projectVideoResolver } from './item-frames';
import { derivedEntry } from './derived-entry';

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

export interface QueueTable {
  /** Rebuilds the rows when an import or a setting changed what they derive from (else a no-op). */
  refresh(): void;
  page(req: QueuePageRequest): QueuePage;
}

const FLAG_TR = 1;
const FLAG_VC = 2;
const FLAG_TO = 4;
const FLAG_BITS = { terminalRegression: FLAG_TR, visuallyConfused: FLAG_VC, textOverwritten: FLAG_TO } as const;

interface Derived {
  all: number;
  /** Rows of the default preset (terminal regressions and confused): the queue as it first opens, counted once. */
  defaultPreset?: number;
  taskTypes: string[];
  transitions: string[];
}

const COLS = ['id', 'model', 'split', 'sample_id', 'task_type', 'trajectory_class', 'pattern', 'flags', 'priority', 'harmed', 'rescued', 'has_video', 'search_text'] as const;
const NCOLS = COLS.length;

/** Every queue row's values, row after row in COLS order (one flat array: no array per row). */
interface Rows {
  values: unknown[];
  count: number;
}

/** harmed/rescued as stored: most rows have none, and a grid's few transitions repeat, so each distinct list is serialised once. */
function jsonListCache(): (xs: string[]) => string {
  const memo = new Map<string, string>();
  return (xs) => {
    if (xs.length === 0) return '[]';
    const key = xs.join('\u0000');
    let s = memo.get(key);
    if (s === undefined) memo.set(key, (s = JSON.stringify(xs)));
    return s;
  };
}

/** Every queue row of the project, from the engine's per-grid audit (electron/services/audit-index.ts). */
function deriveRows(project: Project): { rows: Rows; derived: Derived } {
  const video = projectVideoResolver(project);
  // Per split, per item: what its rows share, the item's part of search_text lower-cased once
  // (not once per model row). Lower-casing the space-separated parts one by one gives the same
  // text as lower-casing their join: a space is no cased or case-ignorable letter, so no
  // context-dependent mapping (the final sigma) looks across it.
  const bySplit = new Map<string, Map<string, { taskType: string | null; hasVideo: number; searchTail: string; idLower: string }>>();
  for (const it of project.listItems()) {
    let items = bySplit.get(it.split);
    if (!items) bySplit.set(it.split, (items = new Map()));
    const taskType = it.taskType ?? null;
    items.set(it.sampleId, {
      taskType,
      hasVideo: video(it.videoFile).file !== null ? 1 : 0,
      searchTail: `${(taskType ?? '').toLowerCase()} ${(it.question ?? '').toLowerCase()}`,
      idLower: it.sampleId.toLowerCase(),
    });
  }
  const values: unknown[] = [];
  let count = 0;
  let defaultPreset = 0;
  const taskTypes = new Set<string>();
  const transitions = new Set<string>();
  const json = jsonListCache();
  for (const g of project.listGrids()) {
    const audit = computeGridAudit(project, g.model, g.split);
    const items = bySplit.get(g.split);
    const modelLower = g.model.toLowerCase();
    for (const [sampleId, a] of audit.items) {
      const m = items?.get(sampleId);
      const taskType = m?.taskType ?? null;
      if (taskType) taskTypes.add(taskType);
      for (const t of a.harmed) transitions.add(t);
      for (const t of a.rescued) transitions.add(t);
      const flags = (a.terminalRegression ? FLAG_TR : 0) | (a.visuallyConfused ? FLAG_VC : 0) | (a.textOverwritten ? FLAG_TO : 0);
      const priority = a.terminalRegression ? 0 : a.visuallyConfused ? 1 : a.textOverwritten ? 2 : 3;
      if ((flags & (FLAG_TR | FLAG_VC)) !== 0) defaultPreset++;
      count++;
      values.push(
        count,
        g.model,
        g.split,
        sampleId,
        taskType,
        a.trajectoryClass,
        a.pattern,
        flags,
        priority,
        json(a.harmed),
        json(a.rescued),
        m?.hasVideo ?? 0,
        `${m?.idLower ?? sampleId.toLowerCase()} ${modelLower} ${m?.searchTail ?? ' '}`,
      );
    }
  }
  return { rows: { values, count }, derived: { all: count, defaultPreset, taskTypes: [...taskTypes].sort(), transitions: [...transitions].sort() } };
}

/** Rows per INSERT: 13 values each, well under SQLite's 32766 bound variables per statement. */
const INSERT_BATCH = 1024;
/** cache_size while the indexes are built: 256 MiB (negative: KiB, as SQLite's pragma takes it). */
const INDEX_BUILD_CACHE_KIB = -262144;

function writeRows(db: Database.Database, rows: Rows, schema: 'main' | 'temp'): void {
  const one = `(${COLS.map(() => '?').join(', ')})`;
  // Bulk load without the indexes, then build each index in one sort: far cheaper than
  // updating six B-trees per row. The index definitions are the migration's (sqlite_schema).
  const indexes = db
    .prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM ${schema}.sqlite_schema WHERE type = 'index' AND tbl_name = 'queue_rows' AND sql IS NOT NULL`)
    .all();
  for (const ix of indexes) db.exec(`DROP INDEX ${schema}."${ix.name}"`);
  db.prepare(`DELETE FROM ${schema}.queue_rows`).run();
  const insert = (n: number) => db.prepare(`INSERT INTO ${schema}.queue_rows (${COLS.join(', ')}) VALUES ${new Array<string>(n).fill(one).join(', ')}`);
  const many = insert(INSERT_BATCH);
  // One parameter array, refilled per batch (no array allocated per batch or per row).
  const params = new Array<unknown>(INSERT_BATCH * NCOLS);
  const { values, count } = rows;
  let i = 0;
  for (; i + INSERT_BATCH <= count; i += INSERT_BATCH) {
    const base = i * NCOLS;
    for (let k = 0; k < params.length; k++) params[k] = values[base + k];
    many.run(params);
  }
  if (i < count) insert(count - i).run(values.slice(i * NCOLS, count * NCOLS));
  // Each index build sorts every row, in at most cache_size of memory before it spills to
  // temporary files: at a lab's size (10x bench, 259k rows) the default 16 MiB spills, and a
  // larger bound for the builds alone cut their CPU by a third. Pages are taken as needed. The
  // sorter reads main's cache_size, also when the rows are temp's (a read-only project).
  const cacheSize = db.pragma('main.cache_size', { simple: true }) as number;
  db.pragma(`main.cache_size = ${INDEX_BUILD_CACHE_KIB}`);
  try {
    for (const ix of indexes) db.exec(ix.sql);
  } finally {
    db.pragma(`main.cache_size = ${cacheSize}`);
  }
}

/**
 * The rows' order per sort key: the key, then model, split and sample id (a total order, the
 * one each index of migrations/0030-derived.sql walks).
 */
const ORDER: Record<Exclude<SortKey, 'status'>, string[]> = {
  default: ['q.priority', 'q.model', 'q.split', 'q.sample_id'],
  sampleId: ['q.sample_id', 'q.model', 'q.split'],
  model: ['q.model', 'q.split', 'q.sample_id'],
  split: ['q.split', 'q.model', 'q.sample_id'],
  taskType: ["coalesce(q.task_type, '')", 'q.model', 'q.split', 'q.sample_id'],
  class: ["coalesce(q.trajectory_class, '')", 'q.model', 'q.split', 'q.sample_id'],
};
const KEY_ORDER = ORDER.model;
const STATUS_ORDER = [...ANNOTATION_STATUSES].sort();

interface Where {
  sql: string;
  args: unknown[];
  /** The filter names the statuses (needs the `eff` table of effective statuses). */
  eff: boolean;
}

/** The filter as SQL over `queue_rows q` (the same rules as shared/api/queue-filter.ts matchesFilter). */
function whereOf(f: QueueFilter): Where {
  const c: string[] = [];
  const args: unknown[] = [];
  let eff = false;
  if (f.preset === 'default') c.push(`(q.flags & ${FLAG_TR | FLAG_VC}) != 0`);
  if (f.model !== null) (c.push('q.model = ?'), args.push(f.model));
  if (f.split !== null) (c.push('q.split = ?'), args.push(f.split));
  if (f.taskType !== null) (c.push('q.task_type = ?'), args.push(f.taskType));
  if (f.trajectoryClass !== null) (c.push('q.trajectory_class = ?'), args.push(f.trajectoryClass));
  const mask = f.flags.reduce((m, x) => m | FLAG_BITS[x], 0);
  if (mask !== 0) c.push(`(q.flags & ${mask}) = ${mask}`);
  if (f.transition !== null) {
    // harmed/rescued are JSON arrays: the quoted name matches one element exactly.
    const t = JSON.stringify(f.transition);
    if (f.transitionKind === 'harmed') (c.push('instr(q.harmed, ?) > 0'), args.push(t));
    else if (f.transitionKind === 'rescued') (c.push('instr(q.rescued, ?) > 0'), args.push(t));
    else (c.push('(instr(q.harmed, ?) > 0 OR instr(q.rescued, ?) > 0)'), args.push(t, t));
  }
  if (f.itemSet) (c.push('q.sample_id IN (SELECT value FROM json_each(?))'), args.push(JSON.stringify(f.itemSet.ids)));
  if (f.hasVideo !== null) (c.push('q.has_video = ?'), args.push(f.hasVideo ? 1 : 0));
  for (const t of f.search.toLowerCase().split(/\s+/).filter((x) => x.length > 0)) (c.push('instr(q.search_text, ?) > 0'), args.push(t));
  if (f.annotator !== null) {
    c.push('q.id IN (SELECT r.id FROM annotation_state a JOIN queue_rows r ON r.model = a.model AND r.split = a.split AND r.sample_id = a.sample_id WHERE a.annotator = ?)');
    args.push(f.annotator);
  }
  if (f.status !== null) {
    eff = true;
    if (f.status === 'todo') c.push("q.id NOT IN (SELECT qid FROM eff WHERE status != 'todo')");
    else (c.push('q.id IN (SELECT qid FROM eff WHERE status = ?)'), args.push(f.status));
  }
  return { sql: c.length > 0 ? c.join(' AND ') : '1', args, eff };
}

/**
 * `eff(qid, status)`: the status each annotated row shows — the asked annotator's, or without
 * one the latest written (SQLite takes the bare column from the row of max(updated_at)).
 */
function effOf(annotator: string | undefined): { sql: string; args: unknown[] } {
  const join = 'JOIN queue_rows r ON r.model = a.model AND r.split = a.split AND r.sample_id = a.sample_id';
  if (annotator !== undefined) return { sql: `WITH eff(qid, status) AS (SELECT r.id, a.status FROM annotation_state a ${join} WHERE a.annotator = ?) `, args: [annotator] };
  return {
    sql: `WITH eff(qid, status) AS (SELECT r.id, a.status FROM (SELECT model, split, sample_id, status, max(updated_at) FROM annotation_state GROUP BY model, split, sample_id) a ${join}) `,
    args: [],
  };
}

interface Counts {
  total: number;
  /** Rows per effective status under the filter ('todo' includes rows nobody annotated). */
  byStatus: Map<string, number>;
}

interface RawRow {
  id: number;
  model: string;
  split: string;
  sample_id: string;
  task_type: string | null;
  trajectory_class: string | null;
  pattern: string;
  flags: number;
  harmed: string;
  rescued: string;
  has_video: number;
  search_text: string;
}

export interface QueueTableOptions {
  /**
   * True while a job's worker thread holds the project's write transaction (an import: it
   * derives the rows itself once committed, background-jobs.ts). Meanwhile the rows as they
   * were answer: rebuilding them here would stop this thread for seconds and contend with
   * the worker's writes. The job's end emits data:changed, and views ask again.
   */
  deferRefresh?: () => boolean;
}

export function createQueueTable(project: Project, opts: QueueTableOptions = {}): QueueTable {
  const db = project.db;
  // A read-only project cannot store rows it finds stale: it builds them once into a TEMP
  // table (which shadows main's) — its snapshot never changes while open (immutable URI).
  let tempBuilt = false;
  let derivedMemo: { inputs: number; value: Derived } | null = null;
  let countsMemo: { key: string; counts: Counts } | null = null;
  const stored = derivedEntry(db, 'queue');
  const seqStmt = db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM annotation_events').pluck(true);
  const statesOf = db.prepare<[string, string, string], { annotator: string; status: string; updated_at: string }>(
    'SELECT annotator, status, updated_at FROM annotation_state WHERE model = ? AND split = ? AND sample_id = ?',
  );
  const annotatorsStmt = db.prepare<[], string>('SELECT DISTINCT annotator FROM annotation_state ORDER BY annotator').pluck(true);

  const refresh = (): Derived => {
    const inputs = project.inputsVersion();
    if (derivedMemo && derivedMemo.inputs === inputs) return derivedMemo.value;
    const s = stored.read();
    if (s && s.inputs === inputs && s.json !== null && !tempBuilt) {
      derivedMemo = { inputs, value: JSON.parse(s.json) as Derived };
      return derivedMemo.value;
    }
    if (tempBuilt && derivedMemo) return derivedMemo.value;
    if (opts.deferRefresh?.()) {
      if (derivedMemo) return derivedMemo.value;
      if (s && s.json !== null) return JSON.parse(s.json) as Derived;
    }
    const { rows, derived } = deriveRows(project);
    if (project.readOnly) {
      db.exec('DROP TABLE IF EXISTS temp.queue_rows; CREATE TEMP TABLE queue_rows AS SELECT * FROM main.queue_rows WHERE 0');
      writeRows(db, rows, 'temp');
      tempBuilt = true;
    } else {
      db.transaction(() => {
        writeRows(db, rows, 'main');
        stored.write(inputs, derived);
      })();
    }
    derivedMemo = { inputs, value: derived };
    countsMemo = null;
    return derived;
  };

  const countsOf = (f: QueueFilter, annotator: string | undefined, inputs: number, derived: Derived): Counts => {
    // Scrolling asks many pages of one filter: its counts are kept until the data or a status changes.
    const key = JSON.stringify([f, annotator ?? null, inputs, seqStmt.get()]);
    if (countsMemo?.key === key) return countsMemo.counts;
    const w = whereOf(f);
    const e = effOf(annotator);
    // A preset alone (how the queue first opens) is counted at derivation, not by a scan per opening.
    const w0 = whereOf({ ...EMPTY_FILTER, preset: f.preset });
    const presetOnly = w.sql === w0.sql && JSON.stringify(w.args) === JSON.stringify(w0.args);
    const stored = f.preset === 'all' ? derived.all : derived.defaultPreset;
    const total =
      presetOnly && stored !== undefined
        ? stored
        : ((db.prepare(`${w.eff ? e.sql : ''}SELECT count(*) FROM queue_rows q WHERE ${w.sql}`).pluck(true).get(...(w.eff ? e.args : []), ...w.args) as number | undefined) ?? 0);
    const byStatus = new Map<string, number>();
    // Driven from the (few) annotated rows, never a join over every row.
    const grouped = db
      .prepare(`${e.sql}SELECT e.status AS status, count(*) AS n FROM eff e CROSS JOIN queue_rows q ON q.id = e.qid WHERE ${w.sql} GROUP BY e.status`)
      .all(...e.args, ...w.args) as { status: string; n: number }[];
    let annotated = 0;
    for (const g of grouped) {
      if (g.status === 'todo') continue;
      byStatus.set(g.status, g.n);
      annotated += g.n;
    }
    byStatus.set('todo', total - annotated);
    const counts = { total, byStatus };
    countsMemo = { key, counts };
    return counts;
  };

  const toRow = (r: RawRow, annotator: string | undefined): QueueRow => {
    const states = statesOf.all(r.model, r.split, r.sample_id);
    const mine = annotator !== undefined ? states.find((x) => x.annotator === annotator) : [...states].sort((x, y) => (x.updated_at < y.updated_at ? 1 : -1))[0];
    return {
      model: r.model,
      split: r.split,
      sampleId: r.sample_id,
      taskType: r.task_type,
      trajectoryClass: r.trajectory_class,
      pattern: r.pattern,
      flags: { terminalRegression: (r.flags & FLAG_TR) !== 0, visuallyConfused: (r.flags & FLAG_VC) !== 0, textOverwritten: (r.flags & FLAG_TO) !== 0 },
      harmed: JSON.parse(r.harmed) as string[],
      rescued: JSON.parse(r.rescued) as string[],
      status: (mine?.status ?? 'todo') as AnnotationStatus,
      annotators: states.map((x) => x.annotator).sort(),
      hasVideo: r.has_video === 1,
      searchText: r.search_text,
    };
  };

  /** Rows [offset, offset+limit) of one order, by an index walk. */
  const slice = (cols: string[], desc: boolean, where: Where, extra: { sql: string; args: unknown[] } | null, annotator: string | undefined, offset: number, limit: number): RawRow[] => {
    if (limit <= 0) return [];
    const e = effOf(annotator);
    const needEff = where.eff || (extra?.sql.includes('eff') ?? false);
    const order = cols.map((c) => `${c}${desc ? ' DESC' : ''}`).join(', ');
    const sql = `${needEff ? e.sql : ''}SELECT q.* FROM queue_rows q WHERE ${where.sql}${extra ? ` AND ${extra.sql}` : ''} ORDER BY ${order} LIMIT ? OFFSET ?`;
    return db.prepare(sql).all(...(needEff ? e.args : []), ...where.args, ...(extra?.args ?? []), limit, offset) as RawRow[];
  };

  /** The status sort: one segment per status (in status order), each in key order. */
  const statusSegments = (counts: Counts, desc: boolean): { status: string; start: number; n: number }[] => {
    const order = desc ? [...STATUS_ORDER].reverse() : STATUS_ORDER;
    let start = 0;
    return order.map((status) => {
      const n = counts.byStatus.get(status) ?? 0;
      const seg = { status, start, n };
      start += n;
      return seg;
    });
  };
  const statusCond = (status: string) =>
    status === 'todo' ? { sql: "q.id NOT IN (SELECT qid FROM eff WHERE status != 'todo')", args: [] } : { sql: 'q.id IN (SELECT qid FROM eff WHERE status = ?)', args: [status] };

  return {
    refresh: () => void refresh(),
    page(req) {
      const derived = refresh();
      const inputs = derivedMemo?.inputs ?? 0;
      const { filter, sort, annotator } = req;
      const counts = countsOf(filter, annotator, inputs, derived);
      const where = whereOf(filter);
      const e = effOf(annotator);
      let position = -1;
      let offset = req.offset;
      if (req.at) {
        const at = req.at;
        const key = { sql: 'q.model = ? AND q.split = ? AND q.sample_id = ?', args: [at.model, at.split, at.sampleId] };
        if (sort.key === 'status') {
          const hit = db
            .prepare(`${e.sql}SELECT coalesce((SELECT status FROM eff WHERE qid = q.id), 'todo') AS status FROM queue_rows q WHERE ${where.sql} AND ${key.sql}`)
            .get(...e.args, ...where.args, ...key.args) as { status: string } | undefined;
          if (hit) {
            const seg = statusSegments(counts, sort.desc).find((s) => s.status === hit.status);
            const cond = statusCond(hit.status);
            const before = db
              .prepare(`${e.sql}SELECT count(*) FROM queue_rows q WHERE ${where.sql} AND ${cond.sql} AND (${KEY_ORDER.join(', ')}) ${sort.desc ? '>' : '<'} (?, ?, ?)`)
              .pluck(true)
              .get(...e.args, ...where.args, ...cond.args, ...key.args) as number;
            position = (seg?.start ?? 0) + before;
          }
        } else {
          const cols = ORDER[sort.key];
          const needEff = where.eff;
          const hit = db
            .prepare(`${needEff ? e.sql : ''}SELECT ${cols.map((c, i) => `${c} AS k${i}`).join(', ')} FROM queue_rows q WHERE ${where.sql} AND ${key.sql}`)
            .raw(true)
            .get(...(needEff ? e.args : []), ...where.args, ...key.args) as unknown[] | undefined;
          if (hit) {
            position = db
              .prepare(`${needEff ? e.sql : ''}SELECT count(*) FROM queue_rows q WHERE ${where.sql} AND (${cols.join(', ')}) ${sort.desc ? '>' : '<'} (${cols.map(() => '?').join(', ')})`)
              .pluck(true)
              .get(...(needEff ? e.args : []), ...where.args, ...hit) as number;
          }
        }
        offset = Math.max(0, position - 1);
      }
      offset = Math.min(offset, counts.total);
      let raw: RawRow[];
      if (sort.key !== 'status') raw = slice(ORDER[sort.key], sort.desc, where, null, annotator, offset, req.limit);
      else {
        raw = [];
        const end = Math.min(counts.total, offset + req.limit);
        for (const seg of statusSegments(counts, sort.desc)) {
          const from = Math.max(offset, seg.start);
          const to = Math.min(end, seg.start + seg.n);
          if (to > from) raw.push(...slice(KEY_ORDER, sort.desc, where, statusCond(seg.status), annotator, from - seg.start, to - from));
        }
      }
      return {
        rows: raw.map((r) => toRow(r, annotator)),
        offset,
        total: counts.total,
        done: (counts.byStatus.get('done') ?? 0) + (counts.byStatus.get('skipped') ?? 0),
        all: derived.all,
        position,
        facets: { taskTypes: derived.taskTypes, transitions: derived.transitions, annotators: annotatorsStmt.all() },
      };
    },
  };
}
