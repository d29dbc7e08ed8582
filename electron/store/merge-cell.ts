/**
 * What happens when an imported response meets a cell the project already holds for the same
 * (model, split, sample, config). Pure: the caller reads the stored cell, and applies the outcome.
 *
 * - A different pred, correct (both known) or score is a conflict, unless the stored cell came
 *   from the same run (same file bytes) and not from this import: then the file was read
 *   differently (a newer importer) and the new reading replaces the cell.
 * - Otherwise a cell this import already wrote is an exact duplicate line (nothing to do), and
 *   a cell from earlier gets the fields it lacks from the incoming response (its pred, score,
 *   run and line stay as stored).
 */
import type { ResponseRow } from '../../shared/domain/types';

/** One stored cell of a response column. */
export interface StoredCell {
  pred: string | null;
  correct: number | null;
  score: number | null;
  groundTruth: string | null;
  confidence: number | null;
  margin: number | null;
  latencyMs: number | null;
  frames: ArrayLike<number> | null;
  sourceTag: string | null;
  protocolNote: string | null;
  runId: number | null;
}

/** The fields a stored cell may have filled in by a later import. */
export type CellPatch = Partial<Pick<StoredCell, 'correct' | 'groundTruth' | 'confidence' | 'margin' | 'latencyMs' | 'frames' | 'sourceTag' | 'protocolNote'>>;

export type MergeOutcome =
  | { kind: 'conflict'; field: 'pred' | 'correct' | 'score' }
  | { kind: 'replace' }
  | { kind: 'duplicate' }
  /** `patch` empty: the stored cell already has everything the incoming one says. */
  | { kind: 'fill'; patch: CellPatch };

const sameNum = (a: number | null, b: number | null): boolean => a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-12);

/**
 * @param correct the incoming cell's correctness (0/1, null unknown), already derived from the
 *   item's answer where the file gave none
 * @param writtenByThisImport whether this import already wrote the stored cell
 * @param runId the run of the incoming response
 */
export function mergeCell(stored: StoredCell, incoming: ResponseRow, correct: number | null, writtenByThisImport: boolean, runId: number): MergeOutcome {
  const differing =
    stored.pred !== incoming.pred
      ? 'pred'
      : stored.correct !== null && correct !== null && stored.correct !== correct
        ? 'correct'
        : !sameNum(stored.score, incoming.score)
          ? 'score'
          : null;
  if (differing) {
    if (writtenByThisImport || stored.runId !== runId) return { kind: 'conflict', field: differing };
    return { kind: 'replace' };
  }
  if (writtenByThisImport) return { kind: 'duplicate' };
  const patch: CellPatch = {};
  if (stored.correct === null && correct !== null) patch.correct = correct;
  if (stored.groundTruth === null && incoming.groundTruth !== null) patch.groundTruth = incoming.groundTruth;
  if (stored.confidence === null && incoming.confidence !== null) patch.confidence = incoming.confidence;
  if (stored.margin === null && incoming.margin !== null) patch.margin = incoming.margin;
  if (stored.latencyMs === null && incoming.latencyMs !== null) patch.latencyMs = incoming.latencyMs;
  if (stored.frames === null && incoming.frameIndices !== null) patch.frames = incoming.frameIndices;
  if (stored.sourceTag === null && incoming.sourceTag !== null) patch.sourceTag = incoming.sourceTag;
  if (stored.protocolNote === null && incoming.protocolNote !== null) patch.protocolNote = incoming.protocolNote;
  return { kind: 'fill', patch };
}
