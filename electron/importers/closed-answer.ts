import { basename } from 'node:path';
import type { ResponseRow } from '../../shared/domain/types';
import { scoreNote } from '../../shared/domain/score';
import { ImportError } from './errors';
import { parseScore } from './open-ended';

/**
 * Closed answers that are not lettered options, and the per-sample outcome a file carries
 * (docs/formats.md "Which score a cell holds"). A yes/no task is closed: each cell is correct
 * or wrong, never a Token-F1 of its text against "yes" (`"Yes, it does."` against `yes` would
 * score 0.5). Such an item gets the options `yes`, `no` (letters A, B), so it is an ordinary
 * two-option MCQA item everywhere downstream (metrics §2, the release's letters).
 *
 * Which outcome wins: the task's own per-sample outcome when the record has one (TempCompass's
 * `rating`, an accuracy, a judge's 0/1), with `score: <field>` in the cell's note; otherwise the
 * response's yes/no matched against the answer. A closed outcome must be 0 or 1.
 */

export const YES_NO_OPTIONS = ['yes', 'no'] as const;
const LETTER = { yes: 'A', no: 'B' } as const;

/** A yes/no answer (any case, white space and a final full stop ignored), else null. */
export function yesNoAnswer(v: unknown): 'yes' | 'no' | null {
  if (typeof v !== 'string') return null;
  const t = v.trim().replace(/\.$/, '').trim().toLowerCase();
  return t === 'yes' || t === 'no' ? t : null;
}

/**
 * The yes/no a response gives, by TempCompass's own rule (lmms-eval `tasks/tempcompass/utils.py`,
 * `extract_pred`): the lower-cased text starting with "yes" is yes, with "no" is no, anything
 * else none (the task then asks a judge, whose verdict the record carries as its rating).
 */
export function extractYesNo(text: string | null): 'yes' | 'no' | null {
  if (text === null) return null;
  const t = text.toLowerCase();
  return t.startsWith('yes') ? 'yes' : t.startsWith('no') ? 'no' : null;
}

export const yesNoLetter = (v: 'yes' | 'no'): string => LETTER[v];

/**
 * Names of an outcome: `score`, `rating`, `accuracy`, `acc`, and `<task>_score` / `_accuracy` /
 * `_acc` / `_rating`. No field of the record's own plumbing (`doc`, `doc_id`, `target`,
 * `filtered_resps`, `resps`, `arguments`, …) has such a name, so the dataset row under `doc` is
 * never read as an outcome.
 */
const OUTCOME_NAME = /^(score|rating|accuracy|acc)$|_(score|accuracy|acc|rating)$/;
/** Inside a metric object (lmms-eval's `process_results` values): its numeric outcome. */
const INNER = ['score', 'rating', 'accuracy', 'acc'] as const;

/**
 * The task's own per-sample outcome in a record, if it has one: a top-level outcome field that
 * is a number, numeric string or boolean, or a metric object (e.g. TempCompass's
 * `avg_accuracy: {…, rating: 1}`) with such a `score`/`rating`/`accuracy`/`acc`; the first in
 * the record's key order. Its value must lie in [0, 1] (parseScore): otherwise file:line: field.
 */
export function givenOutcome(rec: Record<string, unknown>, file: string, line: number): { value: number; field: string } | null {
  for (const [k, v] of Object.entries(rec)) {
    if (!OUTCOME_NAME.test(k)) continue;
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') {
      const n = parseScore(v, file, line, k);
      if (n !== null) return { value: n, field: k };
    } else if (v !== null && typeof v === 'object') {
      // An absent or empty one is null, and the next is tried (a list has none of them).
      for (const f of INNER) {
        const n = parseScore((v as Record<string, unknown>)[f], file, line, `${k}.${f}`);
        if (n !== null) return { value: n, field: `${k}.${f}` };
      }
    }
  }
  return null;
}

export interface ClosedCell {
  /** The option letter the response gives (null: none could be read). */
  pred: string | null;
  /** The answer's letter. */
  answer: string;
  /** The file's own outcome (givenOutcome) or null. */
  given: { value: number; field: string } | null;
  line: number;
}

/** Scores closed-answer rows of one file and remembers how, for the file's summary warning. */
export class ClosedScorer {
  private kept = 0;
  private matched = 0;
  private differ = 0;
  private unread = 0;
  private readonly fields = new Set<string>();

  constructor(readonly file: string) {}

  /** Fills `row` (pred, groundTruth, correct, protocolNote) from `cell`. */
  apply(row: ResponseRow, cell: ClosedCell): void {
    row.pred = cell.pred;
    row.groundTruth = cell.answer;
    row.score = null;
    if (cell.pred === null && cell.given === null) this.unread++;
    const byMatch = cell.pred === cell.answer;
    if (cell.given !== null) {
      if (cell.given.value !== 0 && cell.given.value !== 1) {
        throw new ImportError(this.file, cell.line, cell.given.field, `a closed answer is correct or wrong: its outcome must be 0 or 1, got ${cell.given.value}`);
      }
      row.correct = cell.given.value === 1;
      row.protocolNote = scoreNote(cell.given.field);
      this.kept++;
      this.fields.add(cell.given.field);
      if (row.correct !== byMatch) this.differ++;
      return;
    }
    row.correct = byMatch;
    this.matched++;
  }

  warnings(what: string): string[] {
    const name = basename(this.file);
    const out: string[] = [];
    if (this.kept + this.matched === 0) return out;
    out.push(
      `${name}: ${this.kept + this.matched} ${what} row(s) scored as closed answers (correct / wrong), not as free text` +
        (this.kept > 0 ? `; ${this.kept} keep the task's own outcome (${[...this.fields].join(', ')})` : '') +
        (this.differ > 0 ? `, on ${this.differ} of them it differs from matching the extracted answer` : '') +
        (this.matched > 0 ? `; ${this.matched} without one are scored by matching the extracted answer` : ''),
    );
    if (this.unread > 0) out.push(`${name}: ${this.unread} ${what} response(s) give no readable answer (no outcome of their own: counted wrong)`);
    return out;
  }
}
