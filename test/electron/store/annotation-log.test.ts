/**
 * The annotation event log as a team space reads it (electron/store/annotations.ts,
 * docs/team-sync.md §3): local sequence numbers, the edits after a push cursor, events by
 * uuid with their origin, a reissued uuid, the clock after a reopen or another connection's
 * events, and the (at, uuid) order events replay in.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { compareEvents } from '../../../electron/store/annotation-tables';
import { openProject } from '../../../electron/store/index';
import type { AnnotationEvent } from '../../../shared/domain/annotations';
import { tempDir } from './helpers';

const q1 = { model: 'm', split: 's', sampleId: 'q1' };
const q2 = { model: 'm', split: 's', sampleId: 'q2' };
const file = () => path.join(tempDir('flipbook-log-'), 'p.flipbook');

/** A colleague's edit as a bundle or a team space delivers it. */
const peer = (uuid: string, at: string, notes: string): AnnotationEvent => ({
  uuid,
  at,
  annotator: 'pat',
  ...q1,
  kind: 'setNotes',
  payload: { notes },
  codebookVersion: null,
  targetUuid: null,
});

describe('the log a team space reads', () => {
  it('sequence numbers, the edits after a cursor, their count, and the local edits of everyone else', () => {
    const a = openProject(file(), { create: true }).annotations;
    expect(a.maxSeq()).toBe(0);
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ben');
    a.apply({ op: 'setNotes', ...q2, notes: 'n' }, 'ana');
    a.importEvents([peer('00000000-0000-4000-8000-00000000000a', '2026-01-01T00:00:00.000Z', 'merged')]);
    expect(a.maxSeq()).toBe(4);
    const after = a.eventsAfter(1, 'ana');
    expect(after.map((e) => [e.seq, e.kind, e.sampleId, e.payload])).toEqual([[3, 'setNotes', 'q2', { notes: 'n' }]]);
    expect(a.eventsAfter(0, 'ana').map((e) => e.seq)).toEqual([1, 3]);
    expect(a.countAfter(0, 'ana')).toBe(2);
    expect(a.countAfter(3, 'ana')).toBe(0);
    // Merged events are not anyone's local edits.
    expect(a.localCountsExcept('ana')).toEqual({ ben: 1 });
    expect(a.localCountsExcept('nobody')).toEqual({ ana: 2, ben: 1 });
  });

  it('events by uuid: those stored, with their sequence number and origin; absent ones left out', () => {
    const a = openProject(file(), { create: true }).annotations;
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
    const mine = a.exportEvents()[0]!;
    const theirs = peer('00000000-0000-4000-8000-00000000000b', '2026-01-01T00:00:00.000Z', 'merged');
    a.importEvents([theirs]);
    const found = a.eventsByUuid([mine.uuid, theirs.uuid, 'absent']);
    expect([...found.keys()]).toEqual([mine.uuid, theirs.uuid]);
    expect(found.get(mine.uuid)).toEqual({ ...mine, seq: 1, origin: 'local' });
    expect(found.get(theirs.uuid)).toEqual({ ...theirs, seq: 2, origin: 'merged' });
    expect(a.eventsByUuid([]).size).toBe(0);
  });

  it('a reissued edit keeps its place, and its undo names the new uuid', () => {
    const a = openProject(file(), { create: true }).annotations;
    a.apply({ op: 'setNotes', ...q1, notes: 'x' }, 'ana');
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
    a.undo('ana');
    const [, status, undo] = a.exportEvents();
    const fresh = a.reissue(status!.uuid);
    expect(fresh).not.toBe(status!.uuid);
    const byUuid = a.eventsByUuid([fresh, status!.uuid, undo!.uuid]);
    expect(byUuid.has(status!.uuid)).toBe(false);
    expect(byUuid.get(fresh)?.seq).toBe(2);
    expect(byUuid.get(undo!.uuid)?.targetUuid).toBe(fresh);
    expect(a.state(q1.model, q1.split, q1.sampleId)[0]).toMatchObject({ notes: 'x', status: 'todo' });
    expect(() => a.reissue('absent')).toThrow('no annotation event absent');
  });
});

describe('the clock of local edits', () => {
  it('after a reopen, stamps after the latest stored event, a merged one from ahead of this clock included', () => {
    const f = file();
    const p = openProject(f, { create: true });
    // A colleague's clock a minute ahead (within the bound of docs/team-sync.md §3).
    const ahead = new Date(Date.now() + 60_000).toISOString();
    p.annotations.importEvents([peer('00000000-0000-4000-8000-00000000000c', ahead, 'ahead')]);
    p.close();
    const again = openProject(f);
    again.annotations.apply({ op: 'setNotes', ...q1, notes: 'mine' }, 'ana');
    const mine = again.annotations.exportEvents({ annotator: 'ana' })[0]!;
    expect(mine.at > ahead).toBe(true);
    again.close();
  });

  it("after another connection's events (a job's thread), once told to resync", () => {
    const f = file();
    const p = openProject(f, { create: true });
    p.annotations.apply({ op: 'setNotes', ...q1, notes: 'first' }, 'ana');
    const ahead = new Date(Date.now() + 90_000).toISOString();
    const other = new Database(f);
    const row = other.prepare('SELECT * FROM annotation_events').get() as Record<string, unknown>;
    other
      .prepare(
        `INSERT INTO annotation_events (${Object.keys(row).join(', ')}) VALUES (${Object.keys(row)
          .map(() => '?')
          .join(', ')})`,
      )
      .run(...Object.entries(row).map(([k, v]) => (k === 'uuid' ? '00000000-0000-4000-8000-00000000000d' : k === 'at' ? ahead : k === 'seq' ? 2 : v)));
    other.close();
    p.annotations.resync();
    p.annotations.apply({ op: 'setNotes', ...q1, notes: 'after' }, 'ana');
    const last = p.annotations.exportEvents().at(-1)!;
    expect([last.payload, last.at > ahead]).toEqual([{ notes: 'after' }, true]);
    p.close();
  });
});

describe('the order events replay in', () => {
  it('by time, then by uuid; equal only when both are', () => {
    const e = (at: string, uuid: string) => ({ at, uuid });
    expect(compareEvents(e('2026-01-01T00:00:00.000Z', 'b'), e('2026-01-01T00:00:00.001Z', 'a'))).toBe(-1);
    expect(compareEvents(e('2026-01-01T00:00:00.001Z', 'a'), e('2026-01-01T00:00:00.000Z', 'b'))).toBe(1);
    expect(compareEvents(e('2026-01-01T00:00:00.000Z', 'a'), e('2026-01-01T00:00:00.000Z', 'b'))).toBe(-1);
    expect(compareEvents(e('2026-01-01T00:00:00.000Z', 'b'), e('2026-01-01T00:00:00.000Z', 'a'))).toBe(1);
    expect(compareEvents(e('2026-01-01T00:00:00.000Z', 'a'), e('2026-01-01T00:00:00.000Z', 'a'))).toBe(0);
  });
});
