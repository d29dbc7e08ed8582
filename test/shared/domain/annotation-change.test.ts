import { describe, expect, it } from 'vitest';
import { describeChange, undoMessage } from '../../../shared/domain/annotation-change';
import type { AnnotationState } from '../../../shared/domain/annotations';

const base: AnnotationState = {
  model: 'SimQwen-7B',
  split: 'SampleBench',
  sampleId: '012-2',
  annotator: 'ana',
  status: 'done',
  primaryPathway: null,
  pathways: ['count-inflation'],
  transition: null,
  notes: '',
  confidence: 4,
  codebookVersion: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  spans: [{ id: 's1', startS: 1, endS: 2.5, label: 'cube', coveredBy: [], createdAt: '', updatedAt: '' }],
};

describe('describeChange / undoMessage', () => {
  it('names the status change the way the item view shows it', () => {
    const after = { ...base, status: 'todo' as const };
    expect(undoMessage('Undid', base, describeChange(base, after))).toBe('Undid: status of 012-2 (SimQwen-7B) done → todo');
  });

  it('names only what changed: pathways, confidence, spans; a state that is gone counts as empty', () => {
    expect(describeChange(base, { ...base, pathways: [], confidence: null })).toEqual([
      { field: 'pathway count-inflation', from: 'on', to: 'off' },
      { field: 'confidence', from: '4', to: 'none' },
    ]);
    expect(describeChange(base, null)).toEqual([
      { field: 'status', from: 'done', to: 'todo' },
      { field: 'pathway count-inflation', from: 'on', to: 'off' },
      { field: 'confidence', from: '4', to: 'none' },
      { field: 'evidence span', from: '1.00–2.50 s “cube”', to: 'removed' },
    ]);
    expect(describeChange(base, base)).toEqual([]);
    expect(undoMessage('Redid', base, [])).toBe('Redid: an edit of 012-2 (SimQwen-7B) that left its state as it was');
  });
});
