/**
 * Reads another annotator's bundle: an exported release (folder or .zip) or just its
 * `annotations/` folder. With `annotations/events.jsonl` the events merge as they are; without
 * it each pathways.csv row (with that key's evidence_spans.csv rows) becomes one `snapshot`
 * event whose uuid is a hash of its content, annotator and key, so merging the same bundle
 * twice adds nothing. Bad input is an ImportError naming file, line and field; nothing is read
 * half-way (the caller writes only after everything parsed).
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { unzipSync } from 'fflate';
import * as z from 'zod';
import { annotationEventSchema, codebookSchema, type AnnotationEvent, type Codebook } from '../../shared/domain/annotations';
import { bomLength, recordStrings, type Cursor } from './csv-tokenize';
import { ImportError } from './errors';
import { decodeText, readTextFile } from './text-input';
import { PATHWAY_COLUMNS, SPAN_COLUMNS } from '../../shared/release/annotation-columns';

export interface Bundle {
  source: 'events' | 'rows';
  events: AnnotationEvent[];
  codebook: Codebook | null;
}

const FILES = ['events.jsonl', 'pathways.csv', 'evidence_spans.csv', 'codebook.json'] as const;
type BundleFile = (typeof FILES)[number];

const nonEmpty = z.string().min(1, 'empty');
const iso = z.iso.datetime({ offset: false, message: 'expected an ISO 8601 UTC time like 2024-05-01T12:00:00.000Z' });
const PathwayRow = z.object({
  sample_id: nonEmpty,
  model: nonEmpty,
  split: nonEmpty,
  annotator: nonEmpty,
  status: z.enum(['todo', 'in_progress', 'done', 'skipped', 'needs_review']),
  primary_pathway: z.string(),
  pathways: z.string(),
  transition: z.string(),
  notes: z.string(),
  confidence: z.union([z.literal(''), z.string().regex(/^[1-5]$/, 'expected 1–5 or empty')]),
  codebook_version: z.union([z.literal(''), z.string().regex(/^\d+$/, 'expected an integer or empty')]),
  created_at: iso,
  updated_at: iso,
});
const seconds = z.string().regex(/^\d+(\.\d+)?(e[-+]?\d+)?$/i, 'expected seconds ≥ 0');
const SpanRow = z.object({
  sample_id: nonEmpty,
  model: nonEmpty,
  split: nonEmpty,
  annotator: nonEmpty,
  start_s: seconds,
  end_s: seconds,
  label: z.string(),
  covered_by: z.string(),
});

function check<T>(schema: z.ZodType<T>, value: unknown, file: string, line: number): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new ImportError(file, line, issue?.path.join('.') ?? '', issue?.message ?? 'invalid');
}

/** Rows of a CSV with exactly the given header (any order); line = the record's first line. */
function csvRows(text: string, file: string, columns: readonly string[]): { row: Record<string, string>; line: number }[] {
  const bytes = Buffer.from(text, 'utf8');
  const at: Cursor = { p: bomLength(bytes), line: 1, quote: -1 };
  const records: { record: string[]; line: number }[] = [];
  while (at.p < bytes.length) {
    const line = at.line;
    const record = recordStrings(bytes, at, file);
    if (record.length > 0) records.push({ record, line });
  }
  const head = records[0];
  if (!head) return [];
  const header = head.record;
  for (const c of header) if (!columns.includes(c)) throw new ImportError(file, 1, c, `unknown header "${c}"`);
  for (const c of columns) if (!header.includes(c)) throw new ImportError(file, 1, c, `missing required header "${c}"`);
  return records.slice(1).map(({ record, line }) => {
    if (record.length !== header.length) throw new ImportError(file, line, '', `malformed row: ${record.length} fields, header has ${header.length}`);
    const row: Record<string, string> = {};
    header.forEach((c, i) => (row[c] = record[i] ?? ''));
    return { row, line };
  });
}

const hashId = (parts: unknown[]): string => {
  const h = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
};

const list = (s: string): string[] =>
  s
    .split(';')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/** Bundle files from rows: one snapshot event per (model, split, item, annotator). */
export function eventsFromRows(pathwaysCsv: string | null, spansCsv: string | null, names: { pathways: string; spans: string }): AnnotationEvent[] {
  const keyOf = (r: { model: string; split: string; sample_id: string; annotator: string }) => JSON.stringify([r.model, r.split, r.sample_id, r.annotator]);
  const spans = new Map<string, Record<string, unknown>[]>();
  if (spansCsv !== null) {
    const seen = new Map<string, number>();
    for (const { row, line } of csvRows(spansCsv, names.spans, SPAN_COLUMNS)) {
      const r = check(SpanRow, row, names.spans, line);
      const startS = Number(r.start_s);
      const endS = Number(r.end_s);
      if (endS < startS) throw new ImportError(names.spans, line, 'end_s', `end_s ${endS} is before start_s ${startS}`);
      const k = keyOf(r);
      // Identical rows get distinct ids by their occurrence, so duplicates are kept, not collapsed.
      const content = [k, startS, endS, r.label, r.covered_by];
      const nth = seen.get(JSON.stringify(content)) ?? 0;
      seen.set(JSON.stringify(content), nth + 1);
      const span = { id: hashId(['flipbook-span-v1', ...content, nth]), startS, endS, label: r.label, coveredBy: list(r.covered_by) };
      const l = spans.get(k);
      if (l) l.push(span);
      else spans.set(k, [span]);
    }
  }
  const events: AnnotationEvent[] = [];
  const rowKeys = new Set<string>();
  if (pathwaysCsv !== null) {
    for (const { row, line } of csvRows(pathwaysCsv, names.pathways, PATHWAY_COLUMNS)) {
      const r = check(PathwayRow, row, names.pathways, line);
      const k = keyOf(r);
      if (rowKeys.has(k)) throw new ImportError(names.pathways, line, 'annotator', `a second row for ${r.model} ${r.split} ${r.sample_id} by ${r.annotator}`);
      rowKeys.add(k);
      events.push(snapshot(r, spans.get(k) ?? []));
    }
  }
  // Spans of a key that has no pathways row: a todo state holding just the spans.
  for (const [k, s] of spans) {
    if (rowKeys.has(k)) continue;
    const [model, split, sample_id, annotator] = JSON.parse(k) as [string, string, string, string];
    const epoch = '1970-01-01T00:00:00.000Z';
    events.push(
      snapshot(
        {
          model,
          split,
          sample_id,
          annotator,
          status: 'todo',
          primary_pathway: '',
          pathways: '',
          transition: '',
          notes: '',
          confidence: '',
          codebook_version: '',
          created_at: epoch,
          updated_at: epoch,
        },
        s,
      ),
    );
  }
  return events;
}

function snapshot(r: z.infer<typeof PathwayRow>, spans: Record<string, unknown>[]): AnnotationEvent {
  const payload: Record<string, unknown> = {
    status: r.status,
    primaryPathway: r.primary_pathway === '' ? null : r.primary_pathway,
    pathways: list(r.pathways).sort(),
    transition: r.transition === '' ? null : r.transition,
    notes: r.notes,
    confidence: r.confidence === '' ? null : Number(r.confidence),
    createdAt: r.created_at,
    spans: spans.slice().sort((a, b) => ((a.id as string) < (b.id as string) ? -1 : 1)),
  };
  const codebookVersion = r.codebook_version === '' ? null : Number(r.codebook_version);
  return {
    uuid: hashId(['flipbook-snapshot-v1', r.annotator, r.model, r.split, r.sample_id, r.updated_at, codebookVersion, payload]),
    at: r.updated_at,
    annotator: r.annotator,
    model: r.model,
    split: r.split,
    sampleId: r.sample_id,
    kind: 'snapshot',
    payload,
    codebookVersion,
    targetUuid: null,
  };
}

export function eventsFromJsonl(text: string, file: string): AnnotationEvent[] {
  const out: AnnotationEvent[] = [];
  text.split('\n').forEach((l, i) => {
    if (l.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(l);
    } catch (e) {
      throw new ImportError(file, i + 1, '', `malformed JSON: ${(e as Error).message}`);
    }
    out.push(check(annotationEventSchema, json, file, i + 1));
  });
  return out;
}

async function isDir(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isDirectory();
  } catch {
    return false;
  }
}

async function readOptional(p: string): Promise<string | null> {
  try {
    return await readTextFile(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** The bundle's files (text) and how to name them in errors. */
async function bundleFiles(path: string): Promise<{ files: Partial<Record<BundleFile, string>>; name: (f: BundleFile) => string }> {
  if (await isDir(path)) {
    const dir = (await isDir(join(path, 'annotations'))) ? join(path, 'annotations') : path;
    const files: Partial<Record<BundleFile, string>> = {};
    for (const f of FILES) {
      const t = await readOptional(join(dir, f));
      if (t !== null) files[f] = t;
    }
    return { files, name: (f) => join(dir, f) };
  }
  let buf: Uint8Array;
  try {
    buf = await readFile(path);
  } catch (e) {
    throw new ImportError(path, 0, '', `cannot read: ${(e as Error).message}`);
  }
  let entries: Record<string, Uint8Array>;
  try {
    // Only the annotation files are inflated: a release's per_item.csv is never needed here.
    entries = unzipSync(buf, { filter: (f) => FILES.some((n) => f.name === n || f.name.endsWith(`/${n}`)) });
  } catch (e) {
    throw new ImportError(path, 0, '', `not a folder or a readable zip: ${(e as Error).message}`);
  }
  const files: Partial<Record<BundleFile, string>> = {};
  const chosen: Partial<Record<BundleFile, string>> = {};
  for (const f of FILES) {
    // Prefer annotations/<f>; else the shallowest entry of that name.
    const names = Object.keys(entries).filter((n) => n === f || n.endsWith(`/${f}`));
    const pick = names.find((n) => n === `annotations/${f}` || n.endsWith(`/annotations/${f}`)) ?? names.sort((a, b) => a.split('/').length - b.split('/').length)[0];
    if (pick === undefined) continue;
    chosen[f] = pick;
    files[f] = decodeText(entries[pick]!, `${path}!${pick}`);
  }
  return { files, name: (f) => `${path}!${chosen[f] ?? f}` };
}

export async function readBundle(path: string): Promise<Bundle> {
  const { files, name } = await bundleFiles(path);
  if (files['events.jsonl'] === undefined && files['pathways.csv'] === undefined && files['evidence_spans.csv'] === undefined) {
    throw new ImportError(path, 0, '', `no annotations found: expected annotations/events.jsonl or annotations/pathways.csv in ${basename(path)}`);
  }
  let codebook: Codebook | null = null;
  const cbText = files['codebook.json'];
  if (cbText !== undefined) {
    let json: unknown;
    try {
      json = JSON.parse(cbText);
    } catch (e) {
      throw new ImportError(name('codebook.json'), 0, '', `malformed JSON: ${(e as Error).message}`);
    }
    // An export of a project without a codebook writes {id: null, ...}: no codebook, not an error.
    if (!(typeof json === 'object' && json !== null && (json as { id?: unknown }).id === null)) codebook = check(codebookSchema, json, name('codebook.json'), 0);
  }
  if (files['events.jsonl'] !== undefined) return { source: 'events', events: eventsFromJsonl(files['events.jsonl'], name('events.jsonl')), codebook };
  return {
    source: 'rows',
    events: eventsFromRows(files['pathways.csv'] ?? null, files['evidence_spans.csv'] ?? null, { pathways: name('pathways.csv'), spans: name('evidence_spans.csv') }),
    codebook,
  };
}
