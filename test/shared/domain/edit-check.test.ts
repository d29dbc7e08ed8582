import { describe, expect, it } from 'vitest';
import { applyLocally, checkEdit, EMPTY_FIELDS, withSeen, type EditBody, type EditFields } from '../../../shared/domain/edit-check';

const state = (o: Partial<EditFields> = {}): EditFields => ({ ...EMPTY_FIELDS, ...o });

describe('edits made on what the user saw', () => {
  it('fills `seen` with the shown value of the field each edit changes', () => {
    const shown = state({
      status: 'done',
      pathways: ['c'],
      primaryPathway: 'c',
      notes: 'n',
      confidence: 3,
      transition: 'a>b',
      spans: [{ id: 's', startS: 1, endS: 2, label: 'x' }],
    });
    expect(withSeen(shown, { op: 'setStatus', status: 'todo' })).toMatchObject({ seen: 'done' });
    expect(withSeen(shown, { op: 'setPathway', pathway: 'c', on: false })).toMatchObject({ seen: true });
    expect(withSeen(shown, { op: 'setPathway', pathway: 'd', on: true })).toMatchObject({ seen: false });
    expect(withSeen(shown, { op: 'setPrimary', pathway: null })).toMatchObject({ seen: 'c' });
    expect(withSeen(shown, { op: 'setNotes', notes: '' })).toMatchObject({ seen: 'n' });
    expect(withSeen(shown, { op: 'setConfidence', confidence: null })).toMatchObject({ seen: 3 });
    expect(withSeen(shown, { op: 'setTransition', transition: null })).toMatchObject({ seen: 'a>b' });
    expect(withSeen(shown, { op: 'updateSpan', spanId: 's', patch: { endS: 3 } })).toMatchObject({ seen: { startS: 1, endS: 2, label: 'x' } });
  });

  it('applies when the saved value is the one seen, finds an edit already made, refuses one over an unseen change', () => {
    const saved = state({ status: 'done', pathways: ['c'] });
    expect(checkEdit(saved, { op: 'setStatus', status: 'skipped', seen: 'done' })).toEqual({ kind: 'apply' });
    expect(checkEdit(saved, { op: 'setStatus', status: 'done', seen: 'todo' })).toEqual({ kind: 'already' });
    expect(checkEdit(saved, { op: 'setStatus', status: 'skipped', seen: 'todo' })).toEqual({ kind: 'stale', field: 'status', seen: 'todo', now: 'done', wanted: 'skipped' });
    expect(checkEdit(saved, { op: 'setPathway', pathway: 'c', on: true, seen: false })).toEqual({ kind: 'already' });
    expect(checkEdit(saved, { op: 'setPathway', pathway: 'c', on: false, seen: false })).toMatchObject({ kind: 'stale', now: 'on', seen: 'off', wanted: 'off' });
    // Nothing saved yet is the empty state; no `seen` sets the value as given.
    expect(checkEdit(null, { op: 'setStatus', status: 'done', seen: 'todo' })).toEqual({ kind: 'apply' });
    expect(checkEdit(saved, { op: 'setStatus', status: 'todo' })).toEqual({ kind: 'apply' });
    // A span deleted elsewhere: an update is refused, a delete is already done.
    expect(checkEdit(state(), { op: 'updateSpan', spanId: 's', patch: { endS: 3 }, seen: { startS: 1, endS: 2, label: '' } })).toMatchObject({ kind: 'stale', now: 'deleted' });
    expect(checkEdit(state(), { op: 'deleteSpan', spanId: 's', seen: { startS: 1, endS: 2, label: '' } })).toEqual({ kind: 'already' });
  });

  it('computes what queued edits leave, so a key pressed twice before the first answer toggles twice', () => {
    const edits: EditBody[] = [
      { op: 'setPathway', pathway: 'c', on: true },
      { op: 'setPrimary', pathway: 'm' },
      { op: 'addSpan', span: { id: 'n', startS: 4, endS: 5, label: '' } },
      { op: 'updateSpan', spanId: 'n', patch: { startS: 3.5 } },
    ];
    const after = edits.reduce(applyLocally, state());
    expect(after).toMatchObject({ pathways: ['c', 'm'], primaryPathway: 'm', spans: [{ id: 'n', startS: 3.5, endS: 5 }] });
    const second = withSeen(after, { op: 'setPathway', pathway: 'c', on: !after.pathways.includes('c') });
    expect(second).toEqual({ op: 'setPathway', pathway: 'c', on: false, seen: true });
    // Untagging the primary pathway clears the primary, as the store's replay does.
    expect(applyLocally(after, { op: 'setPathway', pathway: 'm', on: false })).toMatchObject({ pathways: ['c'], primaryPathway: null });
  });
});
