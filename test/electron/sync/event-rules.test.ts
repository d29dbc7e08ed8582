/**
 * The event rules are written twice — as the server's trigger (server-schema.ts) and as the
 * client's check of what it pulls (event-rules.ts) — and must say the same thing: a corpus of
 * events (every kind as Flipbook writes it, and each field broken in the ways a hostile or
 * careless member would) is judged by both, against a real PostgreSQL 15, and every verdict and
 * reason must agree. Also: an edit, its undo and its redo pushed in one statement are taken (the
 * trigger sees the rows the same statement inserted before).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { checkEvent, type WireEvent } from '../../../electron/sync/event-rules';
import { runSync } from '../../../electron/sync/sync';
import { tempDir } from '../store/helpers';
import { copies, makeReleaseProject, firstTime } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
let files: Record<string, string>;

beforeAll(async () => {
  server = await startPgServer();
  files = copies(makeReleaseProject(tempDir('flipbook-rules-'), 12), ['owner', 'una']);
  await server.createRole('una', 'annotator');
}, 120_000);
afterAll(() => server?.stop());

const U = '0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b';
const base: WireEvent = {
  uuid: U,
  at: '2024-06-01T12:00:00.000Z',
  annotator: 'una',
  model: 'm1',
  split: 'S',
  sampleId: 'q1',
  kind: 'setStatus',
  payload: { status: 'done' },
  codebookVersion: 1,
  targetUuid: null,
};
const kinds: [string, Record<string, unknown>][] = [
  ['setStatus', { status: 'needs_review' }],
  ['setPathway', { pathway: 'unclear', on: false }],
  ['setPrimary', { pathway: null }],
  ['setPrimary', { pathway: 'unclear' }],
  ['setTransition', { transition: '16f_151k>32f_151k' }],
  ['setTransition', { transition: null }],
  ['setNotes', { notes: '' }],
  ['setConfidence', { confidence: 5 }],
  ['setConfidence', { confidence: null }],
  ['addSpan', { span: { id: 's1', startS: 0, endS: 2.5, label: '', coveredBy: ['16f_151k'] } }],
  ['updateSpan', { spanId: 's1', patch: { endS: 3 } }],
  ['deleteSpan', { spanId: 's1' }],
  ['adjudicate', { primary: 'unclear', pathways: ['unclear'], note: 'n' }],
  ['snapshot', { status: 'done', primaryPathway: null, pathways: [], transition: null, notes: '', confidence: null, createdAt: '2024-06-01T12:00:00.000Z', spans: [] }],
  ['setFocus', { frame: 3 }],
];
const bad: Partial<WireEvent>[] = [
  { uuid: 'x' },
  { uuid: U.toUpperCase() },
  { uuid: `${U} ` },
  { at: 'yesterday' },
  { at: '2026-02-30T00:00:00.000Z' },
  { at: '2025-02-29T00:00:00.000Z' },
  { at: '2024-02-29T23:59:59.999Z' },
  { at: '2026-13-01T00:00:00.000Z' },
  { at: '2026-01-01T24:00:00.000Z' },
  { at: '2026-01-01T00:00:60.000Z' },
  { at: '2026-01-01T00:00:00Z' },
  { at: '2026-01-01 00:00:00.000Z' },
  { at: '+010000-01-01T00:00:00.002Z' },
  { at: '1999-12-31T23:59:59.999Z' },
  { at: '0000-01-01T00:00:00.000Z' },
  { annotator: '' },
  { model: '' },
  { split: 'x'.repeat(1001) },
  { sampleId: '\u{1F39E}'.repeat(1000) },
  { sampleId: '\u{1F39E}'.repeat(1001) },
  { kind: 'Bogus' },
  { kind: 'bogus kind' },
  { kind: '' },
  { kind: `a${'b'.repeat(40)}` },
  { kind: `a${'b'.repeat(39)}` },
  { payload: [1, 2] },
  { payload: 'text' },
  { payload: 42 },
  { payload: null },
  { payload: { status: 'done', pad: 'x'.repeat(70_000) } },
  { codebookVersion: -1 },
  { codebookVersion: null },
  { targetUuid: U },
  { kind: 'undo', payload: {} },
  { kind: 'undo', payload: {}, targetUuid: 'x' },
  { kind: 'redo', payload: {}, targetUuid: U },
  { kind: 'setStatus', payload: { status: 'finished' } },
  { kind: 'setStatus', payload: {} },
  { kind: 'setPathway', payload: { pathway: '', on: true } },
  { kind: 'setPathway', payload: { pathway: 'a', on: 'yes' } },
  { kind: 'setPrimary', payload: {} },
  { kind: 'setPrimary', payload: { pathway: 3 } },
  { kind: 'setTransition', payload: { transition: [] } },
  { kind: 'setNotes', payload: { notes: null } },
  { kind: 'setConfidence', payload: { confidence: 6 } },
  { kind: 'setConfidence', payload: { confidence: 2.5 } },
  { kind: 'setConfidence', payload: { confidence: '3' } },
  { kind: 'setConfidence', payload: {} },
  { kind: 'addSpan', payload: { span: [] } },
  { kind: 'addSpan', payload: { span: { startS: 0, endS: 1 } } },
  { kind: 'addSpan', payload: { span: { id: 's', startS: -1, endS: 1 } } },
  { kind: 'addSpan', payload: { span: { id: 's', startS: 0, endS: '1' } } },
  { kind: 'updateSpan', payload: { spanId: 's' } },
  { kind: 'updateSpan', payload: { patch: {} } },
  { kind: 'deleteSpan', payload: { spanId: '' } },
  { kind: 'adjudicate', payload: { primary: 'a', pathways: [1], note: '' } },
  { kind: 'adjudicate', payload: { primary: 'a', pathways: [], note: 3 } },
  { kind: 'adjudicate', payload: { pathways: [], note: '' } },
  { kind: 'snapshot', payload: { status: 'x', pathways: [], spans: [] } },
  { kind: 'snapshot', payload: { status: 'done', pathways: {}, spans: [] } },
  { kind: 'snapshot', payload: { status: 'done', pathways: [], spans: null } },
];

/**
 * On either side of each bound and at each pattern's ends: some taken, some refused, alike on
 * both sides (only values the server's columns can hold: its integer and text columns coerce).
 */
const edges: Partial<WireEvent>[] = [
  { uuid: `x${U}` },
  { at: `${base.at as string}x` },
  { at: 'x2024-06-01T12:00:00.000Z' },
  { at: '2000-01-01T00:00:00.000Z' },
  { annotator: 'a'.repeat(1000) },
  { kind: 'x'.repeat(40) },
  { payload: { status: 'done', pad: 'x'.repeat(65_536 - JSON.stringify({ status: 'done', pad: '' }).length) } },
  { payload: { status: 'done', pad: 'x'.repeat(65_537 - JSON.stringify({ status: 'done', pad: '' }).length) } },
  { codebookVersion: 0 },
  { codebookVersion: 2_147_483_647 },
  { kind: 'undo', payload: {}, targetUuid: `${U}x` },
  { kind: 'setStatus', payload: { status: 3 } },
  { kind: 'setConfidence', payload: { confidence: 1 } },
  { kind: 'setConfidence', payload: { confidence: 0 } },
  { kind: 'addSpan', payload: { span: { id: 5, startS: 0, endS: 1 } } },
  { kind: 'addSpan', payload: { span: { id: '', startS: 0, endS: 1 } } },
  { kind: 'addSpan', payload: { span: { id: 's', startS: 0, endS: 0 } } },
  { kind: 'addSpan', payload: { span: { id: 's', startS: 1, endS: -0.5 } } },
  { kind: 'addSpan', payload: { span: { id: 's', startS: '0', endS: 1 } } },
  { kind: 'updateSpan', payload: { spanId: '', patch: {} } },
  { kind: 'updateSpan', payload: { spanId: 3, patch: {} } },
  { kind: 'deleteSpan', payload: { spanId: 3 } },
  { kind: 'snapshot', payload: { status: 3, pathways: [], spans: [] } },
];

/** The space, made by its owner's first sync (`firstTime`). */
const spaceReady = firstTime(async () => {
  const p = openProject(files.owner!);
  try {
    await runSync(p, { server: server.url(ADMIN), space: 'rules', password: server.password });
  } finally {
    p.close();
  }
});

describe('the event rules: server and client agree', () => {
  it('judges every event of the corpus alike, with the same reason', async () => {
    await spaceReady();
    const corpus: WireEvent[] = [...kinds.map(([kind, payload]) => ({ ...base, kind, payload })), ...[...bad, ...edges].map((b) => ({ ...base, ...b }))];
    const c = await server.client();
    let verdicts: (string | null)[];
    try {
      const json = JSON.stringify(
        corpus.map((e) => ({
          uuid: e.uuid,
          at: e.at,
          annotator: e.annotator,
          model: e.model,
          split: e.split,
          sample_id: e.sampleId,
          kind: e.kind,
          payload: e.payload,
          codebook_version: e.codebookVersion,
          target_uuid: e.targetUuid,
        })),
      );
      const r = await c.query<{ p: string | null }>(
        'SELECT flipbook.event_problem(json_populate_record(null::flipbook.events, x)) AS p FROM json_array_elements($1::json) WITH ORDINALITY AS t (x, n) ORDER BY n',
        [json],
      );
      verdicts = r.rows.map((x) => x.p);
    } finally {
      await c.end();
    }
    const client = corpus.map((e) => {
      const r = checkEvent(e);
      return r.ok ? null : `${r.problem.field}: ${r.problem.reason}`;
    });
    const rows = corpus.map((e, i) => ({
      event: JSON.stringify({ ...e, payload: JSON.stringify(e.payload)?.slice(0, 60) }).slice(0, 200),
      server: verdicts[i],
      client: client[i],
    }));
    expect(rows.filter((r) => r.server !== r.client)).toEqual([]);
    // The corpus does exercise both verdicts.
    expect(client.filter((x) => x === null).length).toBeGreaterThanOrEqual(kinds.length);
    expect(client.filter((x) => x !== null).length).toBeGreaterThan(50);
    console.log(
      `event rules: ${corpus.length} events, ${client.filter((x) => x === null).length} taken, ${client.filter((x) => x !== null).length} refused, server and client agree`,
    );
  });

  it('takes an edit, its undo and its redo pushed in one statement', async () => {
    await spaceReady();
    const p = openProject(files.una!);
    try {
      const item = { model: 'm1', split: 'S', sampleId: 'q2' };
      p.annotations.apply({ op: 'setStatus', ...item, status: 'done' }, 'una');
      p.annotations.undo('una', item);
      p.annotations.redo('una', item);
      const r = await runSync(p, { server: server.url('una'), space: 'rules', password: server.password });
      expect(r).toMatchObject({ pushed: 3, refused: [], pending: 0 });
    } finally {
      p.close();
    }
  });
});
