/**
 * An imported response meeting a cell the project holds (electron/store/merge-cell.ts,
 * docs/formats.md "Importing the same cell again"), column by column: a known value that
 * differs is a conflict named by its column, unless the cell came from the same run and not this
 * import (then it is replaced); the same cell again is a duplicate within an import and fills
 * what the stored cell lacks from an earlier one.
 */
import { describe, expect, it } from 'vitest';
import { mergeCell, type StoredCell } from '../../../electron/store/merge-cell';
import type { ResponseRow } from '../../../shared/domain/types';
import { response } from './helpers';

const RUN = 3;
const full: StoredCell = {
  pred: 'B',
  correct: 1,
  score: 0.5,
  groundTruth: 'B',
  confidence: 0.9,
  margin: 0.2,
  latencyMs: 1250,
  frames: [0, 10, 20],
  sourceTag: 'official',
  protocolNote: 'note',
  runId: 1,
};
const same: ResponseRow = response({
  sampleId: 'q1',
  config: '16f',
  line: 2,
  pred: 'B',
  score: 0.5,
  groundTruth: 'B',
  confidence: 0.9,
  margin: 0.2,
  latencyMs: 1250,
  frameIndices: [0, 10, 20],
  sourceTag: 'official',
  protocolNote: 'note',
});
const empty: StoredCell = {
  ...full,
  correct: null,
  score: null,
  groundTruth: null,
  confidence: null,
  margin: null,
  latencyMs: null,
  frames: null,
  sourceTag: null,
  protocolNote: null,
};

describe('a cell imported again', () => {
  it('each column that differs is a conflict named by its column, the first one in column order', () => {
    const cases: [Partial<ResponseRow>, number | null, string][] = [
      [{ pred: 'C' }, 1, 'pred'],
      [{ pred: null }, 1, 'pred'],
      [{}, 0, 'correct'],
      [{ score: 0.6 }, 1, 'score'],
      [{ score: null }, 1, 'score'],
      [{ groundTruth: 'A' }, 1, 'ground_truth'],
      [{ confidence: 0.8 }, 1, 'confidence'],
      [{ margin: 0.3 }, 1, 'margin'],
      [{ latencyMs: 1000 }, 1, 'latency_ms'],
      [{ frameIndices: [0, 10] }, 1, 'frame_indices'],
      [{ frameIndices: [0, 10, 21] }, 1, 'frame_indices'],
      [{ sourceTag: 'other' }, 1, 'source_tag'],
      [{ protocolNote: 'other' }, 1, 'protocol_note'],
      [{ pred: 'C', protocolNote: 'other' }, 0, 'pred'],
      [{ confidence: 0.1, margin: 0.9, protocolNote: 'x' }, 1, 'confidence'],
    ];
    for (const [change, correct, field] of cases) {
      expect(mergeCell(full, { ...same, ...change }, correct, false, RUN), JSON.stringify(change)).toEqual({ kind: 'conflict', field });
      // Within one import, the same: two lines that disagree.
      expect(mergeCell({ ...full, runId: RUN }, { ...same, ...change }, correct, true, RUN)).toEqual({ kind: 'conflict', field });
    }
  });

  it('numbers equal within 1e-12 are the same; an unknown side on either is not a conflict', () => {
    expect(mergeCell(full, { ...same, score: 0.5 + 1e-13, confidence: 0.9 - 1e-13 }, 1, false, RUN)).toEqual({ kind: 'fill', patch: {} });
    expect(mergeCell(full, { ...same, score: 0.5 + 1e-11 }, 1, false, RUN)).toEqual({ kind: 'conflict', field: 'score' });
    const unknownIncoming = { ...same, groundTruth: null, confidence: null, margin: null, latencyMs: null, frameIndices: null, sourceTag: null, protocolNote: null };
    expect(mergeCell(full, unknownIncoming, null, false, RUN)).toEqual({ kind: 'fill', patch: {} });
    // The stored score unknown and the incoming known is a difference (an outcome, as pred).
    expect(mergeCell({ ...full, score: null }, same, 1, false, RUN)).toEqual({ kind: 'conflict', field: 'score' });
  });

  it('a differing cell of the same run from an earlier import is replaced (the file was read anew)', () => {
    expect(mergeCell({ ...full, runId: RUN }, { ...same, pred: 'C' }, 0, false, RUN)).toEqual({ kind: 'replace' });
    expect(mergeCell({ ...full, runId: null }, { ...same, pred: 'C' }, 0, false, RUN)).toEqual({ kind: 'conflict', field: 'pred' });
  });

  it('the same cell again: a duplicate within one import, nothing to fill from an earlier one', () => {
    expect(mergeCell({ ...full, runId: RUN }, same, 1, true, RUN)).toEqual({ kind: 'duplicate' });
    expect(mergeCell(full, same, 1, false, RUN)).toEqual({ kind: 'fill', patch: {} });
  });

  it('a cell from earlier gets every value it lacks, and keeps every value it has', () => {
    expect(mergeCell({ ...empty, score: 0.5 }, same, 1, false, RUN)).toEqual({
      kind: 'fill',
      patch: { correct: 1, groundTruth: 'B', confidence: 0.9, margin: 0.2, latencyMs: 1250, frames: [0, 10, 20], sourceTag: 'official', protocolNote: 'note' },
    });
    // Only what it lacks: each field alone.
    const fields: [keyof StoredCell, string, unknown][] = [
      ['correct', 'correct', 1],
      ['groundTruth', 'groundTruth', 'B'],
      ['confidence', 'confidence', 0.9],
      ['margin', 'margin', 0.2],
      ['latencyMs', 'latencyMs', 1250],
      ['frames', 'frames', [0, 10, 20]],
      ['sourceTag', 'sourceTag', 'official'],
      ['protocolNote', 'protocolNote', 'note'],
    ];
    for (const [field, patchKey, value] of fields) expect(mergeCell({ ...full, [field]: null }, same, 1, false, RUN)).toEqual({ kind: 'fill', patch: { [patchKey]: value } });
    // Nothing to give: no patch, though the stored cell lacks it.
    const nothing = { ...same, groundTruth: null, confidence: null, margin: null, latencyMs: null, frameIndices: null, sourceTag: null, protocolNote: null };
    expect(mergeCell({ ...empty, score: 0.5 }, nothing, null, false, RUN)).toEqual({ kind: 'fill', patch: {} });
  });
});
