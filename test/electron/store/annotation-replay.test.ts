/**
 * A key's state from its events (electron/store/annotation-replay.ts), as a pure function:
 * which edits take effect after undo and redo, what each kind of event does to the state, and
 * what a payload from a bundle that is not quite well formed does (ignored, not guessed).
 */
import { describe, expect, it } from 'vitest';
import { activeSet, replay } from '../../../electron/store/annotation-replay';
import type { AnnotationEvent, AnnotationState } from '../../../shared/domain/annotations';

const key = { model: 'm', split: 's', sampleId: 'q1', annotator: 'ana' };
const at = (n: number) => `2026-12-06T10:00:${String(n).padStart(2, '0')}.000Z`;
let seq = 0;
/** An event of the key at second `t`; its uuid sorts in creation order. */
function ev(t: number, kind: AnnotationEvent['kind'], payload: Record<string, unknown> = {}, targetUuid: string | null = null): AnnotationEvent {
  seq++;
  return { uuid: `e-${String(seq).padStart(4, '0')}`, at: at(t), ...key, kind, payload, codebookVersion: 2, targetUuid };
}
const state = (...events: AnnotationEvent[]): AnnotationState => {
  const s = replay(key, events);
  if (s === null) throw new Error('no state');
  return s;
};
const span = (id: string, startS: number, endS: number, extra: Record<string, unknown> = {}) => ({ id, startS, endS, label: id, coveredBy: ['16f'], ...extra });

describe('which edits take effect', () => {
  it('an edit is active until its undo, and again after its redo; the last of them decides', () => {
    const a = ev(1, 'setStatus', { status: 'done' });
    const b = ev(2, 'setNotes', { notes: 'x' });
    const undoB = ev(3, 'undo', {}, b.uuid);
    expect([...activeSet([a, b, undoB])]).toEqual([
      [a.uuid, true],
      [b.uuid, false],
    ]);
    expect(activeSet([a, b, undoB, ev(4, 'redo', {}, b.uuid)]).get(b.uuid)).toBe(true);
  });

  it('an undo of an unknown event, an undo naming nothing, and an edit that names a target change nothing', () => {
    const a = ev(1, 'setStatus', { status: 'done' });
    const active = activeSet([a, ev(2, 'undo', {}, 'elsewhere'), ev(3, 'undo', {}, null), ev(4, 'setNotes', { notes: 'n' }, a.uuid)]);
    expect(active.get(a.uuid)).toBe(true);
    expect(active.has('elsewhere')).toBe(false);
    expect([...active.values()]).toEqual([true, true]);
  });

  it('no edit that takes effect: no state', () => {
    const a = ev(1, 'setStatus', { status: 'done' });
    expect(replay(key, [a, ev(2, 'undo', {}, a.uuid)])).toBeNull();
    expect(replay(key, [])).toBeNull();
  });

  it('the state is as of the last event, an undo included; an adjudication is not the annotator’s edit', () => {
    const a = ev(1, 'setStatus', { status: 'done' });
    const b = ev(2, 'setNotes', { notes: 'undone' });
    const s = state(a, b, ev(3, 'undo', {}, b.uuid));
    expect([s.createdAt, s.updatedAt, s.notes, s.status]).toEqual([at(1), at(3), '', 'done']);
    const adjudicated = state(ev(1, 'setStatus', { status: 'done' }), ev(5, 'adjudicate', { primary: 'x' }));
    expect([adjudicated.updatedAt, adjudicated.primaryPathway]).toEqual([at(1), null]);
    expect(replay(key, [ev(5, 'adjudicate', { primary: 'x' })])).toBeNull();
  });
});

describe('each kind of event', () => {
  it('pathways: on and off; turning off the primary clears it, any other keeps it; a null pathway is ignored', () => {
    const s = state(
      ev(1, 'setPrimary', { pathway: 'p' }),
      ev(2, 'setPathway', { pathway: 'q', on: true }),
      ev(3, 'setPathway', { pathway: 'r', on: true }),
      ev(4, 'setPathway', { pathway: 'r', on: false }),
      ev(5, 'setPathway', { pathway: null, on: true }),
    );
    expect([s.primaryPathway, s.pathways]).toEqual(['p', ['p', 'q']]);
    const off = state(ev(1, 'setPrimary', { pathway: 'p' }), ev(2, 'setPathway', { pathway: 'p', on: false }));
    expect([off.primaryPathway, off.pathways]).toEqual([null, []]);
    // A primary set to none adds no pathway, and keeps those there are.
    const none = state(ev(1, 'setPathway', { pathway: 'q', on: true }), ev(2, 'setPrimary', { pathway: null }));
    expect([none.primaryPathway, none.pathways]).toEqual([null, ['q']]);
  });

  it('status, transition, notes and confidence, with a value of the wrong type read as none', () => {
    const s = state(
      ev(1, 'setStatus', { status: 'in_progress' }),
      ev(2, 'setTransition', { transition: '16f>64f' }),
      ev(3, 'setNotes', { notes: 'n' }),
      ev(4, 'setConfidence', { confidence: 4 }),
    );
    expect([s.status, s.transition, s.notes, s.confidence, s.codebookVersion]).toEqual(['in_progress', '16f>64f', 'n', 4, 2]);
    const odd = state(ev(1, 'setStatus', { status: 3 }), ev(2, 'setNotes', { notes: 5 }), ev(3, 'setConfidence', { confidence: '4' }), ev(4, 'setTransition', { transition: 1 }));
    expect([odd.status, odd.notes, odd.confidence, odd.transition]).toEqual(['todo', '', null, null]);
    expect(state(ev(1, 'setConfidence', { confidence: Number.NaN })).confidence).toBeNull();
    expect(state(ev(1, 'setConfidence', { confidence: Number.POSITIVE_INFINITY })).confidence).toBeNull();
  });

  it('spans: added (one without an id ignored, missing fields defaulted), patched field by field, deleted, in time order', () => {
    const s = state(
      ev(1, 'addSpan', { span: span('b', 10, 20) }),
      ev(2, 'addSpan', { span: span('a', 10, 15) }),
      ev(3, 'addSpan', { span: span('c', 2, 4, { label: 7, coveredBy: ['8f', 3, '16f'] }) }),
      ev(4, 'addSpan', { span: { startS: 1, endS: 2 } }),
      ev(5, 'addSpan', { span: { id: 'd' } }),
      ev(6, 'addSpan', { span: span('e', 10, 15, { coveredBy: 'all' }) }),
    );
    expect(s.spans.map((x) => [x.id, x.startS, x.endS, x.label, x.coveredBy])).toEqual([
      ['d', 0, 0, '', []],
      ['c', 2, 4, '', ['8f', '16f']],
      ['a', 10, 15, 'a', ['16f']],
      ['e', 10, 15, 'e', []],
      ['b', 10, 20, 'b', ['16f']],
    ]);
    expect(s.spans.every((x) => x.createdAt === x.updatedAt)).toBe(true);
  });

  it('a span patch changes the fields it gives with the right types, and nothing for an unknown span', () => {
    const add = ev(1, 'addSpan', { span: span('a', 10, 20) });
    const only = (patch: Record<string, unknown>) => state(add, ev(2, 'updateSpan', { spanId: 'a', patch })).spans[0]!;
    expect(only({ startS: 12 })).toMatchObject({ startS: 12, endS: 20, label: 'a', coveredBy: ['16f'], createdAt: at(1), updatedAt: at(2) });
    expect(only({ endS: 25 })).toMatchObject({ startS: 10, endS: 25, label: 'a', coveredBy: ['16f'] });
    expect(only({ label: 'L' })).toMatchObject({ startS: 10, endS: 20, label: 'L', coveredBy: ['16f'] });
    expect(only({ coveredBy: ['64f', 1] })).toMatchObject({ startS: 10, endS: 20, label: 'a', coveredBy: ['64f'] });
    expect(only({ startS: 'x', endS: null, label: 3, coveredBy: '64f' })).toMatchObject({ startS: 10, endS: 20, label: 'a', coveredBy: ['16f'] });
    expect(state(add, ev(2, 'updateSpan', { spanId: 'zz', patch: { startS: 1 } })).spans.map((x) => x.startS)).toEqual([10]);
    expect(state(add, ev(2, 'updateSpan', { spanId: 'a' })).spans[0]).toMatchObject({ startS: 10, updatedAt: at(2) });
    expect(state(add, ev(2, 'deleteSpan', { spanId: 'a' })).spans).toEqual([]);
    expect(state(add, ev(2, 'deleteSpan', { spanId: 'zz' })).spans).toHaveLength(1);
  });
});

describe('a snapshot (a bundle row of pathways.csv with its spans)', () => {
  const snap = (t: number, extra: Record<string, unknown> = {}) =>
    ev(t, 'snapshot', {
      createdAt: at(0),
      status: 'done',
      primaryPathway: 'p',
      pathways: ['q', 4],
      transition: '8f>16f',
      notes: 'from the bundle',
      confidence: 3,
      spans: [span('s2', 5, 6), span('s1', 1, 2), { startS: 9 }],
      ...extra,
    });

  it('on a key with no state: everything it says, its own creation time, its primary among the pathways', () => {
    const s = state(snap(1));
    expect(s).toMatchObject({
      createdAt: at(0),
      updatedAt: at(1),
      status: 'done',
      primaryPathway: 'p',
      pathways: ['p', 'q'],
      transition: '8f>16f',
      notes: 'from the bundle',
      confidence: 3,
    });
    expect(s.spans.map((x) => x.id)).toEqual(['s1', 's2']);
  });

  it('on a key with a state: replaces it all but its creation time', () => {
    const s = state(
      ev(1, 'setPathway', { pathway: 'old', on: true }),
      ev(2, 'addSpan', { span: span('old', 0, 1) }),
      ev(3, 'setConfidence', { confidence: 5 }),
      snap(4, { primaryPathway: null, pathways: 'none', notes: null, confidence: 'x', spans: 'none', status: null, transition: null }),
    );
    expect(s).toMatchObject({ createdAt: at(1), updatedAt: at(4), status: 'todo', primaryPathway: null, pathways: [], transition: null, notes: '', confidence: null, spans: [] });
  });

  it('without a creation time of its own, a new state starts at the snapshot', () => {
    expect(state(snap(2, { createdAt: null })).createdAt).toBe(at(2));
  });
});
