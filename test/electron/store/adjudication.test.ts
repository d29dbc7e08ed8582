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

  it("records the adjudicator and the resolution, keeps everyone's original labels, and can be undone", () => {
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

  it('an undo or redo by anyone but the adjudicator has no effect (docs/team-sync.md §3, Ownership)', () => {
    const p = setup();
    const a = p.annotations;
    a.apply({ op: 'adjudicate', ...item, primary: 'temporal-misorder', pathways: [], note: 'lead decides' }, 'lead');
    const adj = a.exportEvents({ annotator: 'lead' }).find((e) => e.kind === 'adjudicate')!;
    const stamp = (ms: number) => new Date(Date.parse(adj.at) + ms).toISOString();
    // Alice's undo of it (merged from a bundle or a space): kept in the log, no effect.
    a.importEvents([
      { uuid: '0e1f2a3b-4c5d-4e6f-8a9b-000000000001', at: stamp(1), annotator: 'alice', ...item, kind: 'undo', payload: {}, codebookVersion: null, targetUuid: adj.uuid },
    ]);
    expect(a.resolutions().map((r) => r.adjudicator)).toEqual(['lead']);
    expect(a.conflicts()[0]?.resolution?.primary).toBe('temporal-misorder');
    // The lead's own undo works, and Alice's redo does not bring it back.
    a.importEvents([
      { uuid: '0e1f2a3b-4c5d-4e6f-8a9b-000000000002', at: stamp(2), annotator: 'lead', ...item, kind: 'undo', payload: {}, codebookVersion: null, targetUuid: adj.uuid },
    ]);
    a.importEvents([
      { uuid: '0e1f2a3b-4c5d-4e6f-8a9b-000000000003', at: stamp(3), annotator: 'alice', ...item, kind: 'redo', payload: {}, codebookVersion: null, targetUuid: adj.uuid },
    ]);
    expect(a.resolutions()).toEqual([]);
    // Nor does an undo of Bob's label by Alice change Bob's state.
    const bobs = a.exportEvents({ annotator: 'bob', ...item })[0]!;
    const before = a.listStates({ annotator: 'bob' });
    a.importEvents([
      { uuid: '0e1f2a3b-4c5d-4e6f-8a9b-000000000004', at: stamp(4), annotator: 'alice', ...item, kind: 'undo', payload: {}, codebookVersion: null, targetUuid: bobs.uuid },
    ]);
    expect(a.listStates({ annotator: 'bob' })).toEqual(before);
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
