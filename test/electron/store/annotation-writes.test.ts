/**
 * Recording edits (electron/store/annotation-writes.ts) on a real project: who may edit, the
 * id a new span gets, an edit on a key that holds a later merged event of its own annotator,
 * what a refused edit is called, and how a bad event of a bundle is named.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditConflictError } from '../../../electron/store/annotation-writes';
import { openProject, type Project } from '../../../electron/store/index';
import { tempDir } from './helpers';

const q1 = { model: 'm', split: 's', sampleId: 'q1' };
const project = (): Project => openProject(path.join(tempDir('flipbook-writes-'), 'p.flipbook'), { create: true });

describe('recording an edit', () => {
  it('needs an annotator name that is not blank, and stores nothing without one', () => {
    const a = project().annotations;
    for (const who of ['', '   ']) expect(() => a.apply({ op: 'setStatus', ...q1, status: 'done' }, who)).toThrow('an annotation needs an annotator name');
    expect(a.eventCount()).toBe(0);
    expect(a.listAnnotators()).toEqual([]);
  });

  it('a new span gets an id of its own unless it brings one; the event records it', () => {
    const a = project().annotations;
    a.apply({ op: 'addSpan', ...q1, span: { startS: 1, endS: 2 } }, 'ana');
    a.apply({ op: 'addSpan', ...q1, span: { id: 'mine', startS: 3, endS: 4 } }, 'ana');
    const [generated, given] = a.state(q1.model, q1.split, q1.sampleId)[0]!.spans;
    expect(generated!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(given!.id).toBe('mine');
    expect(a.exportEvents().map((e) => (e.payload.span as { id: string }).id)).toEqual([generated!.id, 'mine']);
  });

  it('a key holding a merged event of its own annotator stamped later than the edit is replayed, not stepped', () => {
    const a = project().annotations;
    a.apply({ op: 'setNotes', ...q1, notes: 'here' }, 'ana');
    // The same annotator's edit from another machine whose clock is 10 minutes ahead: beyond
    // the bound the local clock follows (docs/team-sync.md §3), so it stays the latest event.
    const far = new Date(Date.now() + 10 * 60_000).toISOString();
    a.importEvents([
      { uuid: '00000000-0000-4000-8000-0000000000f1', at: far, annotator: 'ana', ...q1, kind: 'setNotes', payload: { notes: 'far' }, codebookVersion: null, targetUuid: null },
    ]);
    const after = a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
    const stored = a.state(q1.model, q1.split, q1.sampleId)[0]!;
    expect(stored).toEqual(after);
    expect([stored.notes, stored.status, stored.updatedAt]).toEqual(['far', 'done', far]);
    // And a later local edit of the same field does not win over it either: it replays first.
    a.apply({ op: 'setNotes', ...q1, notes: 'local' }, 'ana');
    expect(a.state(q1.model, q1.split, q1.sampleId)[0]!.notes).toBe('far');
  });

  it('a stale edit is refused as an EditConflict', () => {
    const a = project().annotations;
    a.apply({ op: 'setNotes', ...q1, notes: 'theirs' }, 'ana');
    let err: unknown;
    try {
      a.apply({ op: 'setNotes', ...q1, notes: 'mine', seen: 'older' }, 'ana');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EditConflictError);
    expect((err as Error).name).toBe('EditConflict');
  });
});

describe('merging events', () => {
  it('a bad event is named by its place and its fields, and nothing of the bundle is stored', () => {
    const a = project().annotations;
    const good = {
      uuid: '00000000-0000-4000-8000-0000000000f2',
      at: '2026-12-01T10:00:00.000Z',
      annotator: 'pat',
      ...q1,
      kind: 'setNotes',
      payload: { notes: 'n' },
      codebookVersion: null,
      targetUuid: null,
    };
    expect(() => a.importEvents([good, { ...good, uuid: 'x', at: 'yesterday' }])).toThrow(/^annotation event 2: uuid: .+; at: .+$/);
    expect(a.eventCount()).toBe(0);
  });
});
