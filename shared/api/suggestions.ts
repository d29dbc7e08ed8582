/**
 * Pathway suggestions derived from the data. They are shown beside the tagging
 * panel and only applied when the annotator accepts one — never silently.
 */
import type { EvidenceSpan, ItemFlags } from './contract';

export interface Suggestion {
  pathway: string;
  reason: string;
}

export interface SuggestionInput {
  flags: ItemFlags;
  taskType: string | null;
  question: string | null;
  /** The transition being explained, `a>b`; b is the failing config. */
  transition: string | null;
  spans: readonly EvidenceSpan[];
}

const COUNTING = /\b(count|counting|how many|number of)\b/i;

export function suggestPathways(input: SuggestionInput): Suggestion[] {
  const out: Suggestion[] = [];
  if (input.flags.textOverwritten) {
    out.push({ pathway: 'text-prior-overwrite', reason: 'correct from text alone, wrong once frames are added' });
  }
  const failing = input.transition?.split('>')[1] ?? null;
  if (failing !== null) {
    const missed = input.spans.filter((s) => !s.coveredBy.includes(failing));
    if (missed.length > 0) {
      out.push({
        pathway: 'evidence-missed',
        reason: `${missed.length} evidence span(s) contain none of ${failing}'s frames`,
      });
    }
  }
  if (COUNTING.test(input.taskType ?? '') || COUNTING.test(input.question ?? '')) {
    out.push({ pathway: 'count-inflation', reason: 'a counting task' });
  }
  return out;
}
