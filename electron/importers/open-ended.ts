import { basename } from 'node:path';
import type { ResponseRow } from '../../shared/domain/types';
import { scoreNote, TOKEN_F1_SOURCE } from '../../shared/domain/score';
import { tokenF1 } from '../../shared/engine/token-f1';
import { ImportError } from './errors';

/**
 * Open-ended (free-text) responses, shared by the lmms-eval, MLVU and VLMEvalKit readers
 * (docs/metrics.md §1: an open-ended outcome is a score in [0, 1], Token-F1 by default, §7).
 *
 * Which score wins: a score the file itself gives (the task's own metric) is kept as it is;
 * Token-F1 of the predicted text against the reference(s) (the best over several) is
 * computed only when the file gives text but no score (docs/metrics.md §7). A file score must lie
 * in [0, 1] — a 1–5 judge rating is rejected rather than silently mixed with F1 values.
 * Every open-ended row records where its score came from in `protocolNote`
 * (`score: token_f1` or `score: <field>`), and the file gets one summary warning when its
 * scores are not Token-F1 (the release labels open-ended aggregates `token_f1`).
 */

/** Provenance note of a Token-F1 score computed on import. */
export const TOKEN_F1_NOTE = scoreNote(TOKEN_F1_SOURCE);

/**
 * A score the file gives: a number or a numeric string in [0, 1]; null when absent/empty.
 * Anything else is an ImportError naming file, line and field.
 */
export function parseScore(v: unknown, file: string, line: number, field: string): number | null {
  if (v === undefined || v === null) return null;
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string') {
    const t = v.trim();
    if (t === '') return null;
    n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t) ? Number(t) : Number.NaN;
  } else if (typeof v === 'boolean') n = v ? 1 : 0;
  else throw new ImportError(file, line, field, `expected a score in [0, 1], got ${JSON.stringify(v)}`);
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new ImportError(file, line, field, `score ${JSON.stringify(v)} is outside [0, 1] (rescale it, or drop it to score by Token-F1)`);
  }
  return n;
}

/**
 * Reference text(s): a string, a number, or a (nested) list of them. Empty strings are kept
 * only when they are the sole reference (F1 of two empty texts is 1 by §7). Null when absent;
 * an ImportError for any other shape.
 */
export function referencesOf(v: unknown, file: string, line: number, field: string): string[] | null {
  if (v === undefined || v === null) return null;
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'string') out.push(x);
    else if (typeof x === 'number' && Number.isFinite(x)) out.push(String(x));
    else if (Array.isArray(x)) x.forEach(walk);
    else throw new ImportError(file, line, field, `expected reference text or a list of reference texts, got ${JSON.stringify(x)}`);
  };
  walk(v);
  if (out.length === 0) return null;
  const nonEmpty = out.filter((s) => s.trim() !== '');
  return nonEmpty.length > 0 ? nonEmpty : [out[0] as string];
}

export interface OpenCell {
  /** The predicted text (null = the model gave none; it scores as an empty answer). */
  pred: string | null;
  references: string[] | null;
  /** The file's own score (already checked by parseScore) and the field it came from. */
  given: number | null;
  givenField: string;
  /** Field to name when neither a score nor a reference exists. */
  referenceField: string;
  line: number;
}

/** Scores open-ended rows of one file and remembers how, for the file's summary warning. */
export class OpenScorer {
  private computed = 0;
  private kept = 0;
  private keptFields = new Set<string>();
  private differ = 0;
  private noPred = 0;

  constructor(readonly file: string) {}

  /** Fills `row` (pred, score, correct = null, groundTruth = null, protocolNote) from `cell`. */
  apply(row: ResponseRow, cell: OpenCell): void {
    // An empty cell (TSV/xlsx) is no answer, stored as none rather than as "".
    const pred = cell.pred !== null && cell.pred.trim() !== '' ? cell.pred : null;
    row.pred = pred;
    row.correct = null;
    row.groundTruth = null;
    if (pred === null) this.noPred++;
    if (cell.given !== null) {
      row.score = cell.given;
      row.protocolNote = scoreNote(cell.givenField);
      this.kept++;
      this.keptFields.add(cell.givenField);
      if (cell.references && Math.abs(tokenF1(pred ?? '', cell.references) - cell.given) > 1e-9) this.differ++;
      return;
    }
    if (!cell.references) {
      throw new ImportError(this.file, cell.line, cell.referenceField, 'open-ended row with neither a score nor a reference text to compute Token-F1 from');
    }
    row.score = tokenF1(pred ?? '', cell.references);
    row.protocolNote = TOKEN_F1_NOTE;
    this.computed++;
  }

  warnings(): string[] {
    const name = basename(this.file);
    const out: string[] = [];
    if (this.kept > 0) {
      out.push(
        `${name}: ${this.kept} open-ended row(s) keep the file's own score (${[...this.keptFields].join(', ')}), not Token-F1` +
          (this.differ > 0 ? `; on ${this.differ} of them it differs from Token-F1 of the text` : '') +
          (this.computed > 0 ? `; ${this.computed} other row(s) have no score and were scored by Token-F1 — one grid now mixes two metrics` : ''),
      );
    }
    if (this.noPred > 0) out.push(`${name}: ${this.noPred} open-ended row(s) have no predicted text (scored as an empty answer)`);
    return out;
  }
}

/** One file is either multiple-choice or open-ended: a mixed file would make a grid of two kinds. */
export function checkKind(state: { kind: 'mcqa' | 'open' | null; line: number }, kind: 'mcqa' | 'open', file: string, line: number, field: string): void {
  if (state.kind === null) {
    state.kind = kind;
    state.line = line;
    return;
  }
  if (state.kind !== kind) {
    const what = (k: 'mcqa' | 'open'): string => (k === 'open' ? 'open-ended (free-text answer, no options)' : 'multiple-choice');
    throw new ImportError(
      file,
      line,
      field,
      `${kind === 'open' ? 'an' : 'a'} ${what(kind)} record in a file whose records are ${what(state.kind)} (from line ${state.line}); import the two kinds as separate files`,
    );
  }
}
