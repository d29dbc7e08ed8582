/**
 * The annotation store's reads (electron/store/annotation-reads.ts) on a real project: which
 * states, events and resolutions each filter selects, in which order, and the undo stacks of
 * an annotator with nothing to undo.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import type { AnnotationEvent } from '../../../shared/domain/annotations';
import { tempDir } from './helpers';

const q1 = { model: 'qwen', split: 'long', sampleId: 'q1' };
const q2 = { model: 'qwen', split: 'short', sampleId: 'q2' };
const l1 = { model: 'llava', split: 'long', sampleId: 'q1' };

function project(): Project {
  return openProject(path.join(tempDir('flipbook-reads-'), 'p.flipbook'), { create: true });
}

/** Three items over two models and two splits, each with a status of its own. */
function statuses(): Project {
  const p = project();
  const a = p.annotations;
  a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
  a.apply({ op: 'setStatus', ...q2, status: 'in_progress' }, 'ana');
  a.apply({ op: 'setStatus', ...l1, status: 'done' }, 'ana');
  a.apply({ op: 'setStatus', ...q1, status: 'in_progress' }, 'ben');
  return p;
}
const keys = (states: { model: string; split: string; sampleId: string; annotator: string }[]) => states.map((s) => `${s.model}/${s.split}/${s.sampleId}/${s.annotator}`);

describe('states by filter', () => {
  it('by model, by split, by status alone, and by status with another filter', () => {
    const a = statuses().annotations;
    expect(keys(a.listStates())).toEqual(['llava/long/q1/ana', 'qwen/long/q1/ana', 'qwen/long/q1/ben', 'qwen/short/q2/ana']);
    expect(keys(a.listStates({ model: 'llava' }))).toEqual(['llava/long/q1/ana']);
    expect(keys(a.listStates({ split: 'short' }))).toEqual(['qwen/short/q2/ana']);
    expect(keys(a.listStates({ status: 'done' }))).toEqual(['llava/long/q1/ana', 'qwen/long/q1/ana']);
    expect(keys(a.listStates({ model: 'qwen', status: 'in_progress' }))).toEqual(['qwen/long/q1/ben', 'qwen/short/q2/ana']);
    expect(keys(a.listStates({ annotator: 'ben', status: 'done' }))).toEqual([]);
  });

  it("each annotator's state carries that annotator's spans only, in time order", () => {
    const a = project().annotations;
    a.apply({ op: 'addSpan', ...q1, span: { id: 's-late', startS: 40, endS: 44, label: 'late' } }, 'ana');
    a.apply({ op: 'addSpan', ...q1, span: { id: 's-early', startS: 3, endS: 5, label: 'early' } }, 'ana');
    a.apply({ op: 'addSpan', ...q1, span: { id: 's-ben', startS: 10, endS: 12, label: 'ben' } }, 'ben');
    // Another item's state is not this item's.
    a.apply({ op: 'addSpan', ...l1, span: { id: 's-other', startS: 1, endS: 2, label: 'other' } }, 'ana');
    expect(keys(a.state(q1.model, q1.split, q1.sampleId))).toEqual(['qwen/long/q1/ana', 'qwen/long/q1/ben']);
    const [ana, ben] = a.state(q1.model, q1.split, q1.sampleId);
    expect(ana?.spans.map((s) => s.id)).toEqual(['s-early', 's-late']);
    expect(ben?.spans.map((s) => s.id)).toEqual(['s-ben']);
    expect(a.listStates({ annotator: 'ben' })[0]?.spans.map((s) => s.id)).toEqual(['s-ben']);
  });
});

describe('history and undo stacks', () => {
  it('an annotator with no events has nothing to undo or redo', () => {
    const a = statuses().annotations;
    expect(a.canUndo('nobody')).toBe(false);
    expect(a.canRedo('nobody')).toBe(false);
    expect(a.canRedo('ana')).toBe(false);
    expect(a.canRedo('ana', q1)).toBe(false);
  });

  it('is filtered by model and by split, newest first, cut at a whole non-negative limit', () => {
    const a = statuses().annotations;
    expect(a.history({ model: 'llava' }).map((e) => e.sampleId)).toEqual(['q1']);
    expect(a.history({ split: 'short' }).map((e) => e.sampleId)).toEqual(['q2']);
    expect(a.history().map((e) => `${e.model}/${e.sampleId}/${e.annotator}`)).toEqual(['qwen/q1/ben', 'llava/q1/ana', 'qwen/q2/ana', 'qwen/q1/ana']);
    expect(a.history({ limit: 2.9 })).toHaveLength(2);
    expect(a.history({ limit: -1 })).toEqual([]);
    expect(a.history({ limit: 0 })).toEqual([]);
  });

  it('marks an undone edit inactive, in every key listed, and others active', () => {
    const a = project().annotations;
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'ana');
    a.apply({ op: 'setNotes', ...q1, notes: 'undone' }, 'ana');
    a.apply({ op: 'setNotes', ...q2, notes: 'kept' }, 'ana');
    a.undo('ana', q1);
    const byKind = a.history({}).map((e) => [e.sampleId, e.kind, e.active]);
    expect(byKind).toEqual([
      ['q1', 'undo', true],
      ['q2', 'setNotes', true],
      ['q1', 'setNotes', false],
      ['q1', 'setStatus', true],
    ]);
  });
});

/** An adjudication as a bundle from elsewhere carries it: its payload as stored, unchecked. */
const adjudication = (uuid: string, at: string, item: typeof q1, payload: Record<string, unknown>): AnnotationEvent => ({
  uuid,
  at,
  annotator: 'lead',
  ...item,
  kind: 'adjudicate',
  payload,
  codebookVersion: null,
  targetUuid: null,
});

describe('resolutions and conflicts', () => {
  it('none without an adjudication; several in key order, whatever order they were made in', () => {
    const p = project();
    const a = p.annotations;
    expect(a.resolutions()).toEqual([]);
    a.apply({ op: 'adjudicate', ...q2, primary: 'b', pathways: [], note: '' }, 'lead');
    a.apply({ op: 'adjudicate', ...q1, primary: 'a', pathways: [], note: '' }, 'lead');
    a.apply({ op: 'adjudicate', ...l1, primary: 'c', pathways: [], note: '' }, 'lead');
    expect(a.resolutions().map((r) => `${r.model}/${r.split}/${r.sampleId}=${r.primary}`)).toEqual(['llava/long/q1=c', 'qwen/long/q1=a', 'qwen/short/q2=b']);
    expect(a.resolutions({ split: 'short' }).map((r) => r.primary)).toEqual(['b']);
  });

  it('a merged adjudication without pathways or a note reads as none, and its non-text pathways are dropped', () => {
    const a = project().annotations;
    a.importEvents([
      adjudication('00000000-0000-4000-8000-000000000001', '2026-12-01T10:00:00.000Z', q1, { primary: 'a' }),
      adjudication('00000000-0000-4000-8000-000000000002', '2026-12-01T10:00:00.000Z', q2, { primary: 'b', pathways: ['z', 7, 'y'], note: 'n' }),
    ]);
    expect(a.resolutions().map((r) => [r.sampleId, r.pathways, r.note])).toEqual([
      ['q1', [], ''],
      ['q2', ['y', 'z'], 'n'],
    ]);
  });

  it('an adjudication undone by its author, then redone, with a later one of another item in between', () => {
    const a = project().annotations;
    a.apply({ op: 'adjudicate', ...q1, primary: 'a', pathways: [], note: '' }, 'lead');
    a.undo('lead');
    a.apply({ op: 'adjudicate', ...q2, primary: 'b', pathways: [], note: '' }, 'lead');
    expect(a.resolutions().map((r) => r.sampleId)).toEqual(['q2']);
    a.undo('lead');
    expect(a.resolutions()).toEqual([]);
  });

  it('conflicts: items whose annotators set different primaries; an annotator with none set takes no part', () => {
    const a = project().annotations;
    a.apply({ op: 'setPrimary', ...q1, pathway: 'a' }, 'ana');
    a.apply({ op: 'setPrimary', ...q1, pathway: 'b' }, 'ben');
    a.apply({ op: 'setStatus', ...q1, status: 'done' }, 'cy');
    a.apply({ op: 'setPrimary', ...q2, pathway: 'a' }, 'ana');
    a.apply({ op: 'setStatus', ...q2, status: 'done' }, 'ben');
    expect(a.conflicts()).toEqual([{ ...q1, primaries: { ana: 'a', ben: 'b' }, resolution: null }]);
    // No conflict at all: no resolution is looked up, and none is listed.
    const quiet = project().annotations;
    quiet.apply({ op: 'adjudicate', ...q1, primary: 'a', pathways: [], note: '' }, 'lead');
    expect(quiet.conflicts()).toEqual([]);
  });
});
