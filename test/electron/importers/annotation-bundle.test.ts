/**
 * Reading another annotator's bundle (`flipbook merge`, docs/release-format.md "annotations/"):
 * its event log as it is, or its pathways.csv / evidence_spans.csv rows as one snapshot event
 * per (model, split, item, annotator) whose ids are hashes of their content, so that merging the
 * same bundle twice adds nothing. Every refusal names the file, line and field.
 */
import { mkdirSync } from 'node:fs';
import { zipSync, strToU8 } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsFromJsonl, eventsFromRows, readBundle } from '../../../electron/importers/annotation-bundle';
import { PATHWAY_COLUMNS, SPAN_COLUMNS } from '../../../shared/release/annotation-columns';
import { Scratch, expectImportError, refusal } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const NAMES = { pathways: 'b/pathways.csv', spans: 'b/evidence_spans.csv' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type PathwayCells = Partial<Record<(typeof PATHWAY_COLUMNS)[number], string>>;
type SpanCells = Partial<Record<(typeof SPAN_COLUMNS)[number], string>>;

const PATHWAY: Required<PathwayCells> = {
  sample_id: '001-1',
  model: 'M',
  split: 'short',
  annotator: 'ann',
  status: 'done',
  primary_pathway: 'temporal',
  pathways: 'temporal; ocr ;;',
  transition: 'harmed',
  notes: 'a note, with a comma',
  confidence: '4',
  codebook_version: '2',
  created_at: '2024-05-01T12:00:00.000Z',
  updated_at: '2024-05-02T08:30:00.000Z',
};
const SPAN: Required<SpanCells> = { sample_id: '001-1', model: 'M', split: 'short', annotator: 'ann', start_s: '1.5', end_s: '4', label: 'the sign', covered_by: 'f8; f16' };

const cell = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
/** A CSV with these columns (in this order) and rows. */
function csv(columns: readonly string[], rows: Record<string, string>[]): string {
  return [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c] ?? '')).join(','))].join('\n') + '\n';
}
const pathways = (...rows: PathwayCells[]): string =>
  csv(
    PATHWAY_COLUMNS,
    rows.map((r) => ({ ...PATHWAY, ...r })),
  );
const spans = (...rows: SpanCells[]): string =>
  csv(
    SPAN_COLUMNS,
    rows.map((r) => ({ ...SPAN, ...r })),
  );

/** eventsFromRows as a promise, so that a refusal can be checked like readBundle's. */
const rowsOf = async (p: string | null, s: string | null): Promise<ReturnType<typeof eventsFromRows>> => eventsFromRows(p, s, NAMES);

/** One event of an event log, as events.jsonl holds it. */
const event = {
  uuid: '11111111-2222-3333-4444-555555555555',
  at: '2024-05-02T08:30:00.000Z',
  annotator: 'ann',
  model: 'M',
  split: 'short',
  sampleId: '001-1',
  kind: 'setStatus',
  payload: { status: 'done' },
  codebookVersion: null,
};

describe('pathways.csv and evidence_spans.csv rows', () => {
  it('make one snapshot per row: lists split on ";" and trimmed, pathways sorted, numbers read, empty cells null', () => {
    const [e, ...rest] = eventsFromRows(pathways({}), null, NAMES);
    expect(rest).toEqual([]);
    expect(e).toEqual({
      uuid: expect.stringMatching(UUID),
      at: '2024-05-02T08:30:00.000Z',
      annotator: 'ann',
      model: 'M',
      split: 'short',
      sampleId: '001-1',
      kind: 'snapshot',
      payload: {
        status: 'done',
        primaryPathway: 'temporal',
        pathways: ['ocr', 'temporal'],
        transition: 'harmed',
        notes: 'a note, with a comma',
        confidence: 4,
        createdAt: '2024-05-01T12:00:00.000Z',
        spans: [],
      },
      codebookVersion: 2,
      targetUuid: null,
    });
    const [blank] = eventsFromRows(pathways({ primary_pathway: '', pathways: '', transition: '', confidence: '', codebook_version: '', status: 'todo' }), null, NAMES);
    expect(blank!.payload).toMatchObject({ status: 'todo', primaryPathway: null, pathways: [], transition: null, confidence: null });
    expect(blank!.codebookVersion).toBeNull();
  });

  it('give the same ids on every read, and other ids when anything in the row differs', () => {
    // A bundle merged twice, or by another version of Flipbook, must add nothing: the ids are a
    // hash of the content, pinned here so that a change to how they are made is seen.
    const [a] = eventsFromRows(pathways({}), spans({}), NAMES);
    const [b] = eventsFromRows(pathways({}), spans({}), NAMES);
    expect(a!.uuid).toBe(b!.uuid);
    expect(a!.uuid).toBe('ff92b065-7c55-5e3f-98b5-17dc235fb502');
    expect((a!.payload.spans as { id: string }[])[0]!.id).toBe('c47d50c6-5b40-4fe5-7b4d-0a9fee281e34');
    const changed: PathwayCells[] = [
      { annotator: 'other' },
      { model: 'M2' },
      { split: 'long' },
      { sample_id: '001-2' },
      { updated_at: '2024-05-02T08:30:00.001Z' },
      { codebook_version: '3' },
      { codebook_version: '' },
      { notes: 'another' },
      { status: 'skipped' },
      { pathways: 'temporal' },
      { confidence: '5' },
      { created_at: '2024-05-01T12:00:00.001Z' },
    ];
    const ids = changed.map((c) => eventsFromRows(pathways(c), spans({}), NAMES)[0]!.uuid);
    expect(new Set([a!.uuid, ...ids]).size).toBe(changed.length + 1);
    const spanIds = [{ start_s: '1.25' }, { end_s: '5' }, { label: 'x' }, { covered_by: 'f8' }].map(
      (c) => (eventsFromRows(pathways({}), spans(c), NAMES)[0]!.payload.spans as { id: string }[])[0]!.id,
    );
    expect(new Set(spanIds).size).toBe(4);
    expect(spanIds).not.toContain((a!.payload.spans as { id: string }[])[0]!.id);
  });

  it('attach each span to its own row, keep identical spans as two, and sort them by id', () => {
    const events = eventsFromRows(
      pathways({}, { sample_id: '001-2' }),
      spans(
        {},
        {},
        { sample_id: '001-2', start_s: '0', end_s: '0.5', label: 'b', covered_by: ' f8 ;; ' },
        { sample_id: '001-2', start_s: '2e1', end_s: '3E+1', label: 'a', covered_by: '' },
      ),
      NAMES,
    );
    expect(events.map((e) => e.sampleId)).toEqual(['001-1', '001-2']);
    const first = events[0]!.payload.spans as { id: string; startS: number; endS: number; label: string; coveredBy: string[] }[];
    expect(first).toHaveLength(2);
    expect(first[0]!.id).not.toBe(first[1]!.id);
    expect(first.map(({ startS, endS, label, coveredBy }) => ({ startS, endS, label, coveredBy }))).toEqual([
      { startS: 1.5, endS: 4, label: 'the sign', coveredBy: ['f8', 'f16'] },
      { startS: 1.5, endS: 4, label: 'the sign', coveredBy: ['f8', 'f16'] },
    ]);
    const second = events[1]!.payload.spans as { id: string; startS: number; endS: number; label: string; coveredBy: string[] }[];
    expect(second.map((s) => s.id)).toEqual(second.map((s) => s.id).sort());
    expect(second.map(({ startS, endS, label, coveredBy }) => ({ startS, endS, label, coveredBy })).sort((x, y) => x.startS - y.startS)).toEqual([
      { startS: 0, endS: 0.5, label: 'b', coveredBy: ['f8'] },
      { startS: 20, endS: 30, label: 'a', coveredBy: [] },
    ]);
  });

  it('give the spans of an item with no pathways row a todo snapshot of their own, dated 1970', () => {
    const events = eventsFromRows(pathways({}), spans({ sample_id: '009-9', annotator: 'bea' }), NAMES);
    expect(events).toHaveLength(2);
    const [, todo] = events;
    expect(todo).toMatchObject({
      at: '1970-01-01T00:00:00.000Z',
      annotator: 'bea',
      model: 'M',
      split: 'short',
      sampleId: '009-9',
      kind: 'snapshot',
      codebookVersion: null,
      targetUuid: null,
      payload: { status: 'todo', primaryPathway: null, pathways: [], transition: null, notes: '', confidence: null, createdAt: '1970-01-01T00:00:00.000Z' },
    });
    expect(todo!.payload.spans).toHaveLength(1);
    expect(todo!.uuid).toMatch(UUID);
    // Spans alone (no pathways.csv at all) and a header with no rows.
    expect(eventsFromRows(null, spans({}), NAMES)).toHaveLength(1);
    expect(eventsFromRows(pathways(), spans(), NAMES)).toEqual([]);
    expect(eventsFromRows('', '', NAMES)).toEqual([]);
  });

  it('take the columns in any order, and a byte-order mark before the header', () => {
    const reversed = [...PATHWAY_COLUMNS].reverse();
    const [e] = eventsFromRows('\uFEFF' + csv(reversed, [PATHWAY]), null, NAMES);
    expect(e!.uuid).toBe(eventsFromRows(pathways({}), null, NAMES)[0]!.uuid);
  });

  it('refuse a bad cell naming the file, the line and the column', async () => {
    const cases: [PathwayCells, string, RegExp][] = [
      [{ sample_id: '' }, 'sample_id', /empty/],
      [{ model: '' }, 'model', /empty/],
      [{ split: '' }, 'split', /empty/],
      [{ annotator: '' }, 'annotator', /empty/],
      [{ status: 'finished' }, 'status', /todo|expected/i],
      [{ confidence: '6' }, 'confidence', /expected 1–5 or empty/],
      [{ confidence: '0' }, 'confidence', /expected 1–5 or empty/],
      [{ confidence: '44' }, 'confidence', /expected 1–5 or empty/],
      [{ codebook_version: '1.5' }, 'codebook_version', /expected an integer or empty/],
      [{ codebook_version: 'v2' }, 'codebook_version', /expected an integer or empty/],
      [{ codebook_version: '2x' }, 'codebook_version', /expected an integer or empty/],
      [{ created_at: '2024-05-01' }, 'created_at', /expected an ISO 8601 UTC time like 2024-05-01T12:00:00\.000Z/],
      [{ updated_at: '2024-05-01T12:00:00+02:00' }, 'updated_at', /ISO 8601 UTC/],
    ];
    for (const [bad, field, reason] of cases) {
      await expectImportError(rowsOf(pathways({}, bad), null), { file: NAMES.pathways, line: 3, field, reason });
    }
    const spanCases: [SpanCells, string, RegExp][] = [
      [{ sample_id: '' }, 'sample_id', /empty/],
      [{ model: '' }, 'model', /empty/],
      [{ split: '' }, 'split', /empty/],
      [{ annotator: '' }, 'annotator', /empty/],
      [{ start_s: '-1' }, 'start_s', /expected seconds ≥ 0/],
      [{ start_s: 'x1' }, 'start_s', /expected seconds ≥ 0/],
      [{ start_s: '1x' }, 'start_s', /expected seconds ≥ 0/],
      [{ end_s: '1.' }, 'end_s', /expected seconds ≥ 0/],
      [{ end_s: '1e' }, 'end_s', /expected seconds ≥ 0/],
      [{ end_s: '' }, 'end_s', /expected seconds ≥ 0/],
      [{ start_s: '5', end_s: '4.5' }, 'end_s', /^end_s 4\.5 is before start_s 5$/],
    ];
    for (const [bad, field, reason] of spanCases) {
      await expectImportError(rowsOf(null, spans({}, bad)), { file: NAMES.spans, line: 3, field, reason });
    }
    // A span may be a single instant; seconds may be written with an exponent.
    expect(eventsFromRows(null, spans({ start_s: '4', end_s: '4' }, { start_s: '1e-3', end_s: '2.5E2' }), NAMES)).toHaveLength(1);
  });

  it('refuse a header with a column missing or unknown, a short row, and a second row for one key', async () => {
    await expectImportError(rowsOf(csv([...PATHWAY_COLUMNS, 'extra'], [PATHWAY]), null), { file: NAMES.pathways, line: 1, field: 'extra', reason: /^unknown header "extra"$/ });
    await expectImportError(rowsOf(csv(PATHWAY_COLUMNS.slice(1), [PATHWAY]), null), {
      file: NAMES.pathways,
      line: 1,
      field: 'sample_id',
      reason: /^missing required header "sample_id"$/,
    });
    await expectImportError(rowsOf(null, csv(SPAN_COLUMNS.slice(0, -1), [SPAN])), { file: NAMES.spans, line: 1, field: 'covered_by', reason: /missing required header/ });
    await expectImportError(rowsOf(pathways({}) + 'a,b\n', null), { file: NAMES.pathways, line: 3, field: '', reason: /^malformed row: 2 fields, header has 13$/ });
    await expectImportError(rowsOf(null, spans({}) + '\n\n' + 'a,b,c,d,e,f,g,h,i\n'), { file: NAMES.spans, line: 5, field: '', reason: /^malformed row: 9 fields, header has 8$/ });
    await expectImportError(rowsOf(pathways({}, { notes: 'again' }), null), {
      file: NAMES.pathways,
      line: 3,
      field: 'annotator',
      reason: /^a second row for M short 001-1 by ann$/,
    });
    // The same item by another annotator, or of another model or split, is another key.
    expect(eventsFromRows(pathways({}, { annotator: 'bea' }, { model: 'M2' }, { split: 'long' }), null, NAMES)).toHaveLength(4);
  });

  it('number a row by the line it starts on, past quoted line breaks', async () => {
    const text = pathways({ notes: 'two\nlines' }, { status: 'bad' });
    await expectImportError(rowsOf(text, null), { file: NAMES.pathways, line: 4, field: 'status' });
  });
});

describe('what a row may hold', () => {
  it('every status, a codebook version of several digits, seconds of several digits and exponents', () => {
    const statuses = ['todo', 'in_progress', 'done', 'skipped', 'needs_review'];
    const events = eventsFromRows(pathways(...statuses.map((status, i) => ({ status, sample_id: `s${i}`, codebook_version: '12' }))), null, NAMES);
    expect(events.map((e) => [e.payload.status, e.codebookVersion])).toEqual(statuses.map((st) => [st, 12]));
    const [e] = eventsFromRows(null, spans({ start_s: '12.25', end_s: '1.5e12' }, { start_s: '10', end_s: '2E+10', label: 'b' }), NAMES);
    expect((e!.payload.spans as { startS: number; endS: number }[]).map((x) => [x.startS, x.endS]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [10, 2e10],
      [12.25, 1.5e12],
    ]);
  });

  it("sorts an item's spans by id whatever their order in the file, and pins a repeated span's id", () => {
    const rows = Array.from({ length: 8 }, (_, i) => ({ start_s: String(i), end_s: String(i + 1), label: `s${i}` }));
    const ids = (events: ReturnType<typeof eventsFromRows>): string[] => (events[0]!.payload.spans as { id: string }[]).map((x) => x.id);
    const forward = ids(eventsFromRows(null, spans(...rows), NAMES));
    const backward = ids(eventsFromRows(null, spans(...rows.reverse()), NAMES));
    expect(forward).toEqual([...forward].sort());
    expect(backward).toEqual(forward);
    // The file's order is not already the ids' order (else this test would prove nothing).
    const inFileOrder = rows.map((r) => ids(eventsFromRows(null, spans(r), NAMES))[0]!);
    expect(inFileOrder).not.toEqual([...inFileOrder].sort());
    // Three identical spans: three ids, the later ones pinned like the first (see above).
    const three = ids(eventsFromRows(null, spans({}, {}, {}), NAMES));
    expect(new Set(three).size).toBe(3);
    expect(three).toContain('c47d50c6-5b40-4fe5-7b4d-0a9fee281e34');
    expect(three.sort()).toMatchInlineSnapshot(`
      [
        "1e097580-7956-5421-80f6-484e00dba7fc",
        "c47d50c6-5b40-4fe5-7b4d-0a9fee281e34",
        "ed8aa804-f798-80cb-3a7c-06744089d141",
      ]
    `);
  });
});

describe('events.jsonl', () => {
  it('keeps every event as it is, blank lines skipped', () => {
    const text = [JSON.stringify(event), '', '  ', JSON.stringify({ ...event, uuid: 'abcdefgh-2', targetUuid: event.uuid, kind: 'undo', payload: {} })].join('\n');
    const events = eventsFromJsonl(text, 'e.jsonl');
    expect(events).toEqual([
      { ...event, targetUuid: null },
      { ...event, uuid: 'abcdefgh-2', targetUuid: event.uuid, kind: 'undo', payload: {} },
    ]);
  });

  it('refuses malformed JSON and a bad event naming the line and field', async () => {
    const lines = (...l: string[]): string => l.join('\n');
    await expectImportError((async () => eventsFromJsonl(lines(JSON.stringify(event), '', '{"uuid":'), 'e.jsonl'))(), {
      file: 'e.jsonl',
      line: 3,
      field: '',
      reason: /^malformed JSON: /,
    });
    await expectImportError((async () => eventsFromJsonl(lines('', JSON.stringify({ ...event, at: 'yesterday' })), 'e.jsonl'))(), { file: 'e.jsonl', line: 2, field: 'at' });
    await expectImportError((async () => eventsFromJsonl(JSON.stringify({ ...event, payload: { a: 1 }, codebookVersion: -1 }), 'e.jsonl'))(), {
      file: 'e.jsonl',
      line: 1,
      field: 'codebookVersion',
    });
  });
});

describe('readBundle', () => {
  const events = JSON.stringify(event);
  const codebook = { id: 'lab', version: 3, pathways: [] };

  it('reads a release folder through its annotations/, or an annotations folder itself', async () => {
    scratch.write('rel/annotations/events.jsonl', events + '\n');
    scratch.write('rel/annotations/codebook.json', JSON.stringify(codebook));
    scratch.write('rel/per_item.csv', 'not read\n');
    const a = await readBundle(scratch.path('rel'));
    expect(a.source).toBe('events');
    expect(a.events.map((e) => e.uuid)).toEqual(['11111111-2222-3333-4444-555555555555']);
    expect(a.codebook).toEqual(codebook);
    const b = await readBundle(scratch.path('rel/annotations'));
    expect(b).toEqual(a);
  });

  it('takes the event log over the rows when a bundle has both, and the rows when it has no log', async () => {
    scratch.write('both/annotations/events.jsonl', events);
    scratch.write('both/annotations/pathways.csv', pathways({}));
    expect((await readBundle(scratch.path('both'))).source).toBe('events');
    scratch.write('rows/annotations/pathways.csv', pathways({}));
    scratch.write('rows/annotations/evidence_spans.csv', spans({}));
    const r = await readBundle(scratch.path('rows'));
    expect(r.source).toBe('rows');
    expect(r.codebook).toBeNull();
    expect(r.events).toEqual(eventsFromRows(pathways({}), spans({}), NAMES));
    // Spans alone are a bundle too.
    scratch.write('spans-only/evidence_spans.csv', spans({}));
    expect((await readBundle(scratch.path('spans-only'))).events).toHaveLength(1);
  });

  it('names the file inside a folder in its refusals', async () => {
    scratch.write('badrow/annotations/pathways.csv', pathways({ confidence: '9' }));
    await expectImportError(readBundle(scratch.path('badrow')), { file: 'badrow/annotations/pathways.csv', line: 2, field: 'confidence' });
    scratch.write('badspan/evidence_spans.csv', spans({ end_s: 'soon' }));
    await expectImportError(readBundle(scratch.path('badspan')), { file: 'badspan/evidence_spans.csv', line: 2, field: 'end_s' });
    scratch.write('badlog/annotations/events.jsonl', 'nope');
    await expectImportError(readBundle(scratch.path('badlog')), { file: 'badlog/annotations/events.jsonl', line: 1, field: '' });
  });

  it("reads a zip, preferring annotations/'s files over others of the same name, else the shallowest", async () => {
    const other = pathways({ sample_id: 'deep' });
    const zip = zipSync({
      'pathways.csv': strToU8(other),
      'release/labels/pathways.csv': strToU8(other),
      'release/annotations/pathways.csv': strToU8(pathways({})),
      'x/y/z/evidence_spans.csv': strToU8(spans({ label: 'deepest' })),
      'x/evidence_spans.csv': strToU8(spans({ label: 'shallow' })),
      'release/annotations/codebook.json': strToU8(JSON.stringify(codebook)),
    });
    const p = scratch.write('bundle.zip', zip);
    const b = await readBundle(p);
    expect(b.source).toBe('rows');
    expect(b.events.map((e) => e.sampleId)).toEqual(['001-1']);
    expect((b.events[0]!.payload.spans as { label: string }[]).map((s) => s.label)).toEqual(['shallow']);
    expect(b.codebook).toEqual(codebook);
    // Files at the zip's root count as the bundle's.
    const root = scratch.write('root.zip', zipSync({ 'events.jsonl': strToU8(events) }));
    expect((await readBundle(root)).source).toBe('events');
  });

  it('names the file inside a zip as zip!entry', async () => {
    const p = scratch.write('bad.zip', zipSync({ 'r/annotations/pathways.csv': strToU8(pathways({ status: 'nope' })) }));
    const err = await expectImportError(readBundle(p), { file: 'bad.zip!r/annotations/pathways.csv', line: 2, field: 'status' });
    expect(err.file).toBe(`${p}!r/annotations/pathways.csv`);
    const cb = scratch.write('badcb.zip', zipSync({ 'annotations/events.jsonl': strToU8(events), 'annotations/codebook.json': strToU8('{') }));
    await expectImportError(readBundle(cb), { file: 'badcb.zip!annotations/codebook.json', line: 0, field: '', reason: /^malformed JSON: / });
  });

  it('reads a codebook of {id: null} (an export with no codebook) as none, and refuses a bad one', async () => {
    scratch.write('nocb/events.jsonl', events);
    scratch.write('nocb/codebook.json', JSON.stringify({ id: null, version: 0, pathways: [] }));
    expect((await readBundle(scratch.path('nocb'))).codebook).toBeNull();
    scratch.write('badcb/events.jsonl', events);
    scratch.write('badcb/codebook.json', JSON.stringify({ id: 'lab', version: -1, pathways: [] }));
    await expectImportError(readBundle(scratch.path('badcb')), { file: 'badcb/codebook.json', line: 0, field: 'version' });
    scratch.write('nullcb/events.jsonl', events);
    scratch.write('nullcb/codebook.json', 'null');
    await refusal(readBundle(scratch.path('nullcb')));
    scratch.write('emptycb/events.jsonl', events);
    scratch.write('emptycb/codebook.json', '{}');
    await expectImportError(readBundle(scratch.path('emptycb')), { file: 'emptycb/codebook.json', line: 0, field: 'id' });
  });

  it('refuses a bundle file that is there but cannot be read, rather than reading the bundle without it', async () => {
    scratch.write('unreadable/annotations/events.jsonl', '');
    mkdirSync(scratch.path('unreadable/annotations/pathways.csv/inside'), { recursive: true });
    scratch.write('unreadable/annotations/evidence_spans.csv', spans({}));
    const caught = await readBundle(scratch.path('unreadable')).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(String(caught)).toMatch(/EISDIR|directory/i);
  });

  it('refuses what holds no annotations, what cannot be read, and what is neither a folder nor a zip', async () => {
    scratch.write('empty/annotations/codebook.json', JSON.stringify(codebook));
    await expectImportError(readBundle(scratch.path('empty')), {
      file: 'empty',
      line: 0,
      field: '',
      reason: /^no annotations found: expected annotations\/events\.jsonl or annotations\/pathways\.csv in empty$/,
    });
    const emptyZip = scratch.write('none.zip', zipSync({ 'readme.txt': strToU8('hi') }));
    await expectImportError(readBundle(emptyZip), { file: 'none.zip', line: 0, field: '', reason: /no annotations found/ });
    await expectImportError(readBundle(scratch.path('missing.zip')), { file: 'missing.zip', line: 0, field: '', reason: /^cannot read: / });
    const text = scratch.write('notes.txt', 'just text');
    await expectImportError(readBundle(text), { file: 'notes.txt', line: 0, field: '', reason: /^not a folder or a readable zip: / });
  });
});
