/** Conflicts and adjudication: the resolution is an event of the adjudicator; originals stay. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { tempDir } from './helpers';

const item = { model: 'qwen', split: 'V1_short', sampleId: '001-1' };
const other = { model: 'qwen', split: 'V1_short', sampleId: '002-1' };

function setup() {
  const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
  const a = p.annotations;
  a.apply({ op: 'setPrimary', ...item, pathway: 'evidence-missed' }, 'alice');
  a.apply({ op: 'setPrimary', ...item, pathway: 'temporal-misorder' }, 'bob');
  a.apply({ op: 'setPathway', ...item, pathway: 'count-inflation', on: true }, 'bob');
  // Agreeing annotators, and a lone one: not conflicts.
  a.apply({ op: 'setPrimary', ...other, pathway: 'label-noise' }, 'alice');
  a.apply({ op: 'setPrimary', ...other, pathway: 'label-noise' }, 'bob');
  a.apply({ op: 'setPrimary', model: 'qwen', split: 'V1_short', sampleId: '003-1', pathway: 'unclear' }, 'alice');
  return p;
}

describe('conflicts and adjudication', () => {
  it('lists items whose annotators disagree on the primary pathway', () => {
    const p = setup();
    expect(p.annotations.conflicts()).toEqual([{ ...item, primaries: { alice: 'evidence-missed', bob: 'temporal-misorder' }, resolution: null }]);
  });

  it('records the adjudicator and the resolution, keeps everyone\'s original labels, and can be undone', () => {
    const p = setup();
    const a = p.annotations;
    const before = a.listStates();
    const eventsBefore = a.eventCount();
    a.apply({ op: 'adjudicate', ...item, primary: 'temporal-misorder', pathways: ['temporal-misorder', 'evidence-missed'], note: 'bob is right: order' }, 'carol');
    expect(a.eventCount()).toBe(eventsBefore + 1);
    // Originals untouched, and the adjudicator got no annotation state of her own.
    expect(a.listStates()).toEqual(before);
    expect(a.listStates({ annotator: 'carol' })).toEqual([]);
    const [res] = a.resolutions();
    expect(res).toMatchObject({ ...item, adjudicator: 'carol', primary: 'temporal-misorder', pathways: ['evidence-missed', 'temporal-misorder'], note: 'bob is right: order' });
    expect(a.conflicts()[0]?.resolution?.adjudicator).toBe('carol');
    expect(a.history({ ...item, annotator: 'carol' }).map((e) => e.kind)).toEqual(['adjudicate']);

    // Undo removes the resolution (the conflict is open again); redo restores it.
    expect(a.undo('carol')?.target.kind).toBe('adjudicate');
    expect(a.resolutions()).toEqual([]);
    expect(a.conflicts()[0]?.resolution).toBeNull();
    a.redo('carol');
    expect(a.resolutions()[0]?.primary).toBe('temporal-misorder');

    // A later adjudication supersedes an earlier one.
    a.apply({ op: 'adjudicate', ...item, primary: 'evidence-missed', pathways: [], note: '' }, 'dave');
    expect(a.resolutions().map((r) => [r.adjudicator, r.primary])).toEqual([['dave', 'evidence-missed']]);
    expect(a.listStates()).toEqual(before);
  });

  it('adjudications travel with the event log to another project', () => {
    const p = setup();
    p.annotations.apply({ op: 'adjudicate', ...item, primary: 'temporal-misorder', pathways: [], note: 'n' }, 'carol');
    const q = openProject(path.join(tempDir(), 'q.flipbook'), { create: true });
    q.annotations.importEvents(p.annotations.exportEvents());
    expect(q.annotations.resolutions()).toEqual(p.annotations.resolutions());
    expect(q.annotations.conflicts()).toEqual(p.annotations.conflicts());
  });
});
