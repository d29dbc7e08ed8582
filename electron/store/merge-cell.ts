/**
 * What happens when an imported response meets a cell the project already holds for the same
 * (model, split, sample, config). Pure: the caller reads the stored cell, and applies the outcome.
 *
 * Every column follows the same rule (docs/formats.md, "Importing the same cell again"):
 * - A value that differs from the stored one is a conflict — pred and score always (an empty
 *   prediction is an outcome too), every other column when both sides have a value —
 *   unless the stored cell came from the same run (same file bytes) and not from this import:
 *   then the file was read differently (a newer importer) and the new reading replaces the cell.
 * - Otherwise a cell this import already wrote is an exact duplicate line (nothing to do), and
 *   a cell from earlier gets the values it lacks from the incoming response (counted as
 *   updated); nothing it holds is ever overwritten silently.
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
  | { kind: 'conflict'; field: ConflictField }
  | { kind: 'replace' }
  | { kind: 'duplicate' }
  /** `patch` empty: the stored cell already has everything the incoming one says. */
  | { kind: 'fill'; patch: CellPatch };

/** The column a conflict names (the release's column names where they differ from the row's). */
export type ConflictField = 'pred' | 'correct' | 'score' | 'ground_truth' | 'confidence' | 'margin' | 'latency_ms' | 'frame_indices' | 'source_tag' | 'protocol_note';

const sameNum = (a: number | null, b: number | null): boolean => a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-12);
/** Both known and different (an unknown side is filled, not a conflict). */
const numDiffers = (a: number | null, b: number | null): boolean => a !== null && b !== null && !sameNum(a, b);
const strDiffers = (a: string | null, b: string | null): boolean => a !== null && b !== null && a !== b;
const framesDiffer = (a: ArrayLike<number> | null, b: ArrayLike<number> | null): boolean => {
  if (a === null || b === null) return false;
  if (a.length !== b.length) return true;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return true;
  return false;
};

/** The first column whose stored and incoming values disagree, or null. */
function firstDifference(stored: StoredCell, incoming: ResponseRow, correct: number | null): ConflictField | null {
  if (stored.pred !== incoming.pred) return 'pred';
  if (stored.correct !== null && correct !== null && stored.correct !== correct) return 'correct';
  if (!sameNum(stored.score, incoming.score)) return 'score';
  if (strDiffers(stored.groundTruth, incoming.groundTruth)) return 'ground_truth';
  if (numDiffers(stored.confidence, incoming.confidence)) return 'confidence';
  if (numDiffers(stored.margin, incoming.margin)) return 'margin';
  if (numDiffers(stored.latencyMs, incoming.latencyMs)) return 'latency_ms';
  if (framesDiffer(stored.frames, incoming.frameIndices)) return 'frame_indices';
  if (strDiffers(stored.sourceTag, incoming.sourceTag)) return 'source_tag';
  if (strDiffers(stored.protocolNote, incoming.protocolNote)) return 'protocol_note';
  return null;
}

/**
 * @param correct the incoming cell's correctness (0/1, null unknown), already derived from the
 *   item's answer where the file gave none
 * @param writtenByThisImport whether this import already wrote the stored cell
 * @param runId the run of the incoming response
 */
export function mergeCell(stored: StoredCell, incoming: ResponseRow, correct: number | null, writtenByThisImport: boolean, runId: number): MergeOutcome {
  const differing = firstDifference(stored, incoming, correct);
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
