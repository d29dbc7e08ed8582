import { describe, expect, it } from 'vitest';
import { EMPTY_FIELDS, type EditFields } from '../../shared/domain/edit-check';
import { nextTransition, nudgeSpan, spanBetween, togglePathway, togglePrimary } from '../../renderer/views/item-actions';

const seen = (over: Partial<EditFields>): EditFields => ({ ...EMPTY_FIELDS, ...over });
const span = (id: string, startS: number, endS: number) => ({ id, startS, endS, label: '' });

describe('the item view’s edits, from what the annotator sees', () => {
  it('a pathway key sets the opposite of what is shown, never a toggle', () => {
    expect(togglePathway(seen({ pathways: [] }), 'c')).toEqual({ op: 'setPathway', pathway: 'c', on: true });
    expect(togglePathway(seen({ pathways: ['x', 'c'] }), 'c')).toEqual({ op: 'setPathway', pathway: 'c', on: false });
  });

  it('a primary key sets the pathway, or clears the one shown', () => {
    expect(togglePrimary(seen({ primaryPathway: null }), 'm')).toEqual({ op: 'setPrimary', pathway: 'm' });
    expect(togglePrimary(seen({ primaryPathway: 'x' }), 'm')).toEqual({ op: 'setPrimary', pathway: 'm' });
    expect(togglePrimary(seen({ primaryPathway: 'm' }), 'm')).toEqual({ op: 'setPrimary', pathway: null });
  });

  it('a nudge moves one end by one frame, never below 0 nor past the other end; a removed span sends nothing', () => {
    const s = seen({ spans: [span('a', 2, 3), span('b', 0.01, 0.05)] });
    expect(nudgeSpan(s, 'a', 'startS', 1, 4)).toEqual({ op: 'updateSpan', spanId: 'a', patch: { startS: 2.25 } });
    expect(nudgeSpan(s, 'a', 'endS', -1, 4)).toEqual({ op: 'updateSpan', spanId: 'a', patch: { endS: 2.75 } });
    expect(nudgeSpan(s, 'b', 'startS', -1, 25)).toEqual({ op: 'updateSpan', spanId: 'b', patch: { startS: 0 } });
    // Past the other end: held at it.
    expect(nudgeSpan(seen({ spans: [span('c', 1, 1.1)] }), 'c', 'startS', 1, 5)).toEqual({ op: 'updateSpan', spanId: 'c', patch: { startS: 1.1 } });
    expect(nudgeSpan(seen({ spans: [span('c', 1, 1.1)] }), 'c', 'endS', -1, 5)).toEqual({ op: 'updateSpan', spanId: 'c', patch: { endS: 1 } });
    expect(nudgeSpan(s, 'gone', 'endS', 1, 25)).toBeNull();
  });

  it('marks in either order give the same span', () => {
    expect(spanBetween(4, 9)).toEqual({ startS: 4, endS: 9 });
    expect(spanBetween(9, 4)).toEqual({ startS: 4, endS: 9 });
  });

  it('the next transition follows the one shown (saved, else preselected) and wraps; none without transitions', () => {
    const ts = ['a>b', 'b>c', 'c>d'];
    expect(nextTransition(seen({ transition: 'a>b' }), ts, 'c>d')).toEqual({ op: 'setTransition', transition: 'b>c' });
    expect(nextTransition(seen({ transition: null }), ts, 'c>d')).toEqual({ op: 'setTransition', transition: 'a>b' });
    expect(nextTransition(seen({ transition: null }), ts, null)).toEqual({ op: 'setTransition', transition: 'a>b' });
    expect(nextTransition(seen({ transition: 'b>c' }), ts, null)).toEqual({ op: 'setTransition', transition: 'c>d' });
    expect(nextTransition(seen({}), [], 'a>b')).toBeNull();
  });
});
