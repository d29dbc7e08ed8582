/**
 * One page of pulled rows brought into a project (docs/team-sync.md §3), without a server:
 * rows that break a rule, are stamped beyond the clock bound, are of a kind this Flipbook does
 * not know, repeat a uuid of the page or name another event of the project are set aside with
 * their reason; an unpushed edit of ours whose uuid the space gave another event gets a fresh
 * uuid; the rest are merged, a re-sent copy once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnnotationEvent } from '../../../shared/domain/annotations';
import { openProject } from '../../../electron/store/index';
import type { Project } from '../../../electron/store/project';
import { heldCounts } from '../../../electron/sync/held-events';
import { importRows, sameEvent, type PullContext, type WireRow } from '../../../electron/sync/sync-pull';
import { tempDir } from '../store/helpers';
import { copies, makeReleaseProject } from './helpers';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const AT = { server: 'postgresql://ann@h/lab', space: 'team', spaceId: 'space-1' };
let source: string;
let n = 0;
beforeAll(() => {
  source = makeReleaseProject(tempDir('flipbook-pull-page-'));
}, 120_000);

const open: Project[] = [];
afterAll(() => {
  for (const p of open) p.close();
});
/** A fresh copy of the release project, opened. */
function project(): Project {
  const name = `p${++n}`;
  const p = openProject(copies(source, [name])[name]!);
  open.push(p);
  return p;
}
const ctx = (p: Project, over: Partial<PullContext> = {}): PullContext => ({ project: p, at: AT, role: 'ann', pushedSeq: 0, serverNowMs: () => NOW, ...over });

let uuidN = 0;
const uuid = (): string => `00000000-0000-4000-8000-${String(++uuidN).padStart(12, '0')}`;
/** A well-formed event of `annotator` on q1 (a status), as the server sends it. */
const event = (over: Partial<AnnotationEvent> & Record<string, unknown> = {}): AnnotationEvent =>
  ({
    uuid: uuid(),
    at: '2026-03-01T11:00:00.000Z',
    annotator: 'ben',
    model: 'm1',
    split: 'S',
    sampleId: 'q1',
    kind: 'setStatus',
    payload: { status: 'done' },
    codebookVersion: null,
    targetUuid: null,
    ...over,
  }) as AnnotationEvent;
let rowId = 0;
const row = (e: Record<string, unknown>): WireRow => ({ id: ++rowId, fields: e as unknown as WireRow['fields'], raw: { id: rowId, ...e } });
/** An edit of `annotator` on `sampleId` made in the project; its event's uuid. */
function edit(p: Project, annotator: string, sampleId: string): string {
  p.annotations.apply({ op: 'setStatus', model: 'm1', split: 'S', sampleId, status: 'done' }, annotator);
  return p.annotations.eventsAfter(0, annotator).at(-1)!.uuid;
}
const held = (p: Project): { uuid: string; reason: string; direction: string }[] =>
  p.db.prepare('SELECT uuid, reason, direction FROM sync_held ORDER BY ref').all() as { uuid: string; reason: string; direction: string }[];

describe('a pulled page', () => {
  it('merges well-formed rows, and a re-sent copy of one once', () => {
    const p = project();
    const a = event();
    const b = event({ sampleId: 'q2', kind: 'setNotes', payload: { notes: 'hm' } });
    expect(importRows(ctx(p), [row(a), row(b)])).toEqual({ added: 2, skipped: 0, setAside: [], reissued: [] });
    expect(importRows(ctx(p), [row(a)])).toEqual({ added: 0, skipped: 1, setAside: [], reissued: [] });
    expect(p.annotations.eventsByUuid([a.uuid, b.uuid]).size).toBe(2);
  });

  it('sets aside a row that breaks a rule, naming the rule, and keeps the row', () => {
    const p = project();
    const bad = event({ at: 'yesterday' });
    const r = importRows(ctx(p), [row(bad), row(event())]);
    expect(r.added).toBe(1);
    expect(r.setAside).toEqual([{ uuid: bad.uuid, reason: 'at: not an ISO 8601 UTC time with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ)' }]);
    expect(held(p)).toEqual([{ uuid: bad.uuid, reason: r.setAside[0]!.reason, direction: 'pull' }]);
  });

  it("sets aside a row stamped beyond the clock bound after the server's time, saying how far", () => {
    const p = project();
    const far = event({ at: new Date(NOW + 3 * 3600_000).toISOString() });
    const near = event({ at: new Date(NOW + 4 * 60_000).toISOString() });
    const r = importRows(ctx(p), [row(far), row(near)]);
    expect(r.setAside).toEqual([{ uuid: far.uuid, reason: "at: stamped 3 h after the server's time (more than the 5 min clock bound)" }]);
    expect(r.added).toBe(1);
    // The bound follows the server's clock, not this machine's.
    const later = importRows(ctx(project(), { serverNowMs: () => NOW + 3 * 3600_000 }), [row(far)]);
    expect(later).toMatchObject({ added: 1, setAside: [] });
  });

  it('keeps a row of a kind a newer Flipbook writes, without applying it', () => {
    const p = project();
    const newer = event({ kind: 'setFocus' as AnnotationEvent['kind'], payload: { frame: 3 } });
    const r = importRows(ctx(p), [row(newer)]);
    expect(r).toEqual({
      added: 0,
      skipped: 0,
      setAside: [{ uuid: newer.uuid, reason: "kind: 'setFocus' is not known to this Flipbook (a newer one wrote it): kept, not applied" }],
      reissued: [],
    });
    expect(heldCounts(p, AT.server, AT.space).pulled).toBe(1);
  });

  it('sets aside the second of two rows with one uuid', () => {
    const p = project();
    const a = event();
    const twin = { ...a, payload: { status: 'skipped' } };
    const r = importRows(ctx(p), [row(a), row(twin)]);
    expect(r.added).toBe(1);
    expect(r.setAside).toEqual([{ uuid: a.uuid, reason: 'uuid: already used by another row of this pull' }]);
  });

  it('gives a fresh uuid to an unpushed edit of ours that the space gave to another event, and takes theirs', () => {
    const p = project();
    const mine = edit(p, 'ann', 'q3');
    const theirs = event({ uuid: mine });
    const r = importRows(ctx(p), [row(theirs)]);
    expect(r.setAside).toEqual([]);
    expect(r.added).toBe(1);
    expect(r.reissued).toHaveLength(1);
    expect(r.reissued[0]).toMatchObject({ uuid: mine, heldBy: 'ben' });
    const fresh = r.reissued[0]!.newUuid;
    expect(fresh).not.toBe(mine);
    const both = p.annotations.eventsByUuid([mine, fresh]);
    expect(both.get(mine)).toMatchObject({ annotator: 'ben', sampleId: 'q1' });
    expect(both.get(fresh)).toMatchObject({ annotator: 'ann', sampleId: 'q3', origin: 'local' });
  });

  it('sets aside a row naming an event of ours already pushed, of another annotator, or merged, and keeps ours', () => {
    const cases: [string, (p: Project) => string, Partial<PullContext>][] = [
      ['pushed', (p) => edit(p, 'ann', 'q3'), { pushedSeq: 1e9 }],
      ['another annotator', (p) => edit(p, 'cat', 'q3'), {}],
      [
        'merged',
        (p) => {
          const e = event({ annotator: 'ann', sampleId: 'q4' });
          p.annotations.importEvents([e]);
          return e.uuid;
        },
        {},
      ],
    ];
    for (const [what, make, over] of cases) {
      const p = project();
      const u = make(p);
      const before = p.annotations.eventsByUuid([u]).get(u)!;
      const r = importRows(ctx(p, over), [row(event({ uuid: u }))]);
      expect(r.reissued, what).toEqual([]);
      expect(r.added, what).toBe(0);
      expect(r.setAside, what).toEqual([{ uuid: u, reason: `uuid: names another event in this project (of '${before.annotator}')` }]);
      expect(p.annotations.eventsByUuid([u]).get(u), what).toEqual(before);
    }
  });
});

describe('the push cursor decides what is ours to give up', () => {
  it('an edit at the cursor is on the server: the row naming it is set aside; one after it is reissued', () => {
    const p = project();
    const u = edit(p, 'ann', 'q5');
    const seq = p.annotations.eventsAfter(0, 'ann').at(-1)!.seq;
    expect(importRows(ctx(p, { pushedSeq: seq }), [row(event({ uuid: u }))]).setAside).toHaveLength(1);
    const q = project();
    const v = edit(q, 'ann', 'q5');
    const vseq = q.annotations.eventsAfter(0, 'ann').at(-1)!.seq;
    expect(importRows(ctx(q, { pushedSeq: vseq - 1 }), [row(event({ uuid: v }))]).reissued).toHaveLength(1);
  });
});

describe('sameEvent', () => {
  it('tells apart events that differ only in their target', () => {
    const undo = event({ kind: 'undo', payload: {}, targetUuid: uuid() });
    expect(sameEvent(undo, { ...undo })).toBe(true);
    expect(sameEvent(undo, { ...undo, targetUuid: uuid() })).toBe(false);
    expect(sameEvent(undo, { ...undo, targetUuid: null })).toBe(false);
    expect(sameEvent({ ...undo, targetUuid: null }, { ...undo, targetUuid: undefined as unknown as null })).toBe(true);
  });
});
