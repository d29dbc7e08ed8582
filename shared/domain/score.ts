/**
 * Which score a cell and a grid hold (docs/metrics.md §1 "Which score a grid holds"). A score
 * is never silently redefined: a closed-answer cell is correct or wrong (an option letter or a
 * yes/no matched by the reader, or the task's own per-sample rating), a free-text cell holds
 * either the file's own score (a judge score, an accuracy in [0, 1]) or Token-F1 computed on
 * import (§7) — and each cell says which in its provenance note, `score: <source>`, which the
 * release's `protocol_note` column carries through export and import.
 */
import type { TaskKind } from './types';

export const SCORE_NOTE_PREFIX = 'score: ';
/** The source name of a Token-F1 computed on import (docs/metrics.md §7). */
export const TOKEN_F1_SOURCE = 'token_f1';

/** The provenance note of a cell whose outcome came from `source` (`token_f1`, or the file's field, e.g. `avg_accuracy.rating`). */
export function scoreNote(source: string): string {
  return `${SCORE_NOTE_PREFIX}${source}`;
}

/** The score source a provenance note names, or null when it names none. */
export function scoreSourceOf(note: string | null | undefined): string | null {
  if (!note || !note.startsWith(SCORE_NOTE_PREFIX)) return null;
  const s = note.slice(SCORE_NOTE_PREFIX.length).trim();
  return s === '' ? null : s;
}

/**
 * What a grid holds, from the score sources its cells name (distinct, any order):
 * - closed (MCQA, yes/no): `correct`, or `correct (<field>, …)` when cells keep the file's own
 *   per-sample outcome;
 * - continuous: the sources in code-point order joined by ` + ` (`token_f1`, `gpt_score`,
 *   `score + token_f1` when a file mixed them, which its import warned about); a grid whose cells
 *   name no source (a release's per_item.csv) holds `token_f1`, the §4 default.
 */
export function gridScore(kind: TaskKind, sources: readonly string[]): string {
  const list = [...new Set(sources)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (kind === 'mcqa') return list.length === 0 ? 'correct' : `correct (${list.join(', ')})`;
  return list.length === 0 ? TOKEN_F1_SOURCE : list.join(' + ');
}
