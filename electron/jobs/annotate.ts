/**
 * Scripted annotation edits (`flipbook annotate`, docs/team-sync.md): each row becomes the
 * same edits the app makes (AnnotationStore.apply — one event per change), so a pre-labelled
 * item is indistinguishable from a hand-labelled one and syncs and merges the same way.
 * Every row is checked against the project (model, split, item, codebook, configs) before
 * anything is written, and all rows are written in ONE transaction: a bad row changes nothing.
 */
import { ANNOTATION_STATUSES, type AnnotationEdit, type AnnotationStatus } from '../../shared/domain/annotations';
import { readCsvRecords } from '../importers/csv-records';
import { namingStorage } from '../store/errors';
import type { Project } from '../store/project';

export interface AnnotateRow {
  model: string;
  split: string;
  item: string;
  annotator: string;
  tags?: string[];
  primary?: string;
  status?: string;
  transition?: string;
  note?: string;
  /** As given (text from the command line or a CSV cell); checked to be an integer 1–5. */
  confidence?: string;
}

export interface AnnotateResult {
  rows: number;
  /** Events written: one per change (a tag, the primary, the status, …). */
  events: number;
  annotators: string[];
}

/** A refused row: `where: field: reason` (where = `file:line` or `--option`). */
export class AnnotateError extends Error {}

const fail = (where: string, field: string, reason: string): never => {
  throw new AnnotateError(`${where}: ${field}: ${reason}`);
};

interface ProjectFacts {
  models: Set<string>;
  splits: Set<string>;
  grids: Map<string, Set<string>>;
  pathways: Set<string>;
}

function factsOf(project: Project): ProjectFacts {
  const grids = new Map<string, Set<string>>();
  for (const g of project.listGrids()) grids.set(`${g.model}\u0000${g.split}`, new Set(g.configs.map((c) => c.key)));
  return {
    models: new Set(project.listModels()),
    splits: new Set(project.listSplits()),
    grids,
    pathways: new Set(project.annotations.getCodebook().pathways.map((p) => p.id)),
  };
}

const list = (s: Set<string>): string => [...s].sort().join(', ') || '(none)';

/** The edits of one row, checked; `where` names the row in errors. */
function editsOf(project: Project, facts: ProjectFacts, row: AnnotateRow, where: string): AnnotationEdit[] {
  if (!row.annotator.trim()) fail(where, 'annotator', 'is empty');
  if (!facts.models.has(row.model)) fail(where, 'model', `'${row.model}' is not in the project (models: ${list(facts.models)})`);
  if (!facts.splits.has(row.split)) fail(where, 'split', `'${row.split}' is not in the project (splits: ${list(facts.splits)})`);
  const configs = facts.grids.get(`${row.model}\u0000${row.split}`);
  if (!configs) fail(where, 'split', `model '${row.model}' has no responses on split '${row.split}'`);
  if (!project.getItem(row.split, row.item)) fail(where, 'item', `'${row.item}' is not an item of split '${row.split}'`);
  const target = { model: row.model, split: row.split, sampleId: row.item };
  const edits: AnnotationEdit[] = [];
  const pathway = (field: string, id: string): string => {
    if (!facts.pathways.has(id)) fail(where, field, `'${id}' is not a pathway of the codebook (${list(facts.pathways)})`);
    return id;
  };
  for (const t of row.tags ?? []) edits.push({ op: 'setPathway', ...target, pathway: pathway('tag', t), on: true });
  if (row.primary !== undefined) edits.push({ op: 'setPrimary', ...target, pathway: pathway('primary', row.primary) });
  if (row.status !== undefined) {
    if (!(ANNOTATION_STATUSES as readonly string[]).includes(row.status)) fail(where, 'status', `'${row.status}' is not one of ${ANNOTATION_STATUSES.join(', ')}`);
    edits.push({ op: 'setStatus', ...target, status: row.status as AnnotationStatus });
  }
  if (row.transition !== undefined) {
    const m = /^([^>]+)>([^>]+)$/.exec(row.transition);
    if (!m) fail(where, 'transition', `'${row.transition}' is not FROM>TO (two config keys)`);
    for (const k of [m![1]!, m![2]!]) if (!configs!.has(k)) fail(where, 'transition', `'${k}' is not a config of ${row.model} on ${row.split} (${list(configs!)})`);
    edits.push({ op: 'setTransition', ...target, transition: row.transition });
  }
  if (row.note !== undefined) edits.push({ op: 'setNotes', ...target, notes: row.note });
  if (row.confidence !== undefined) {
    const c = row.confidence.trim();
    if (!/^[1-5]$/.test(c)) fail(where, 'confidence', `'${row.confidence}' is not an integer from 1 to 5`);
    edits.push({ op: 'setConfidence', ...target, confidence: Number(c) });
  }
  if (edits.length === 0) fail(where, 'edit', 'nothing to change (give a tag, primary, status, transition, note or confidence)');
  return edits;
}

/** Checks every row, then writes all their edits in one transaction. */
export function annotate(project: Project, rows: readonly { row: AnnotateRow; where: string }[]): AnnotateResult {
  const facts = factsOf(project);
  const planned = rows.map(({ row, where }) => ({ annotator: row.annotator, edits: editsOf(project, facts, row, where) }));
  let events = 0;
  namingStorage(project.path, `annotating ${rows.length} row${rows.length === 1 ? '' : 's'}`, () =>
    project.db.transaction(() => {
      for (const p of planned) {
        for (const e of p.edits) {
          project.annotations.apply(e, p.annotator);
          events++;
        }
      }
    })(),
  );
  return { rows: rows.length, events, annotators: [...new Set(planned.map((p) => p.annotator))].sort() };
}

const CSV_COLUMNS = ['model', 'split', 'item', 'annotator', 'tags', 'primary', 'status', 'transition', 'note', 'confidence'] as const;

/**
 * Rows of an annotate CSV: a header naming some of CSV_COLUMNS (model, split, item required),
 * tags separated by `;`; an empty cell means "leave as is". `annotator` defaults to `fallback`.
 */
export async function readAnnotateCsv(file: string, fallbackAnnotator: string): Promise<{ row: AnnotateRow; where: string }[]> {
  let header: string[] | null = null;
  const out: { row: AnnotateRow; where: string }[] = [];
  const records: { fields: string[]; line: number }[] = [];
  await readCsvRecords(file, file, (fields, line) => void records.push({ fields, line }));
  for (const { fields, line } of records) {
    if (header === null) {
      header = fields.map((f) => f.trim());
      for (const h of header) if (!(CSV_COLUMNS as readonly string[]).includes(h)) fail(`${file}:${line}`, h, `unknown column (columns: ${CSV_COLUMNS.join(', ')})`);
      for (const need of ['model', 'split', 'item']) if (!header.includes(need)) fail(`${file}:${line}`, need, 'missing column');
      continue;
    }
    const cell = (name: string): string | undefined => {
      const i = header!.indexOf(name);
      const v = i < 0 ? undefined : fields[i];
      return v === undefined || v === '' ? undefined : v;
    };
    const tags = cell('tags')
      ?.split(';')
      .map((t) => t.trim())
      .filter(Boolean);
    const row: AnnotateRow = { model: cell('model') ?? '', split: cell('split') ?? '', item: cell('item') ?? '', annotator: cell('annotator') ?? fallbackAnnotator };
    if (tags?.length) row.tags = tags;
    for (const k of ['primary', 'status', 'transition', 'note', 'confidence'] as const) {
      const v = cell(k);
      if (v !== undefined) row[k] = v;
    }
    out.push({ row, where: `${file}:${line}` });
  }
  return out;
}
