/**
 * Token-F1 (docs/metrics.md §7), SQuAD-style: lowercase, drop Unicode punctuation (P*), drop the
 * articles a/an/the as whole words, collapse whitespace, compare token multisets.
 */

const PUNCT = /\p{P}/gu;
// Whole words as Python's `\b` sees them (word chars = letters, numbers, underscore), so an
// article glued to a symbol ("the$") still goes, but "theory" or "an_" keeps its letters.
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function normalizeTokens(text: string): string[] {
  const s = text.toLowerCase().replace(PUNCT, '').replace(ARTICLES, ' ').trim();
  return s === '' ? [] : s.split(/\s+/u);
}

function f1OfTokens(pred: readonly string[], ref: readonly string[]): number {
  if (pred.length === 0 && ref.length === 0) return 1;
  // Exactly one list empty leaves common = 0 below, so F1 = 0 (§7) needs no case of its own.
  const counts = new Map<string, number>();
  for (const t of ref) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of pred) {
    const c = counts.get(t);
    if (c) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (common === 0) return 0;
  const p = common / pred.length;
  const r = common / ref.length;
  return (2 * p * r) / (p + r);
}

/** F1 of a prediction against one reference or the best of several (an empty list scores 0). */
export function tokenF1(pred: string, refs: string | readonly string[]): number {
  const list = typeof refs === 'string' ? [refs] : refs;
  const p = normalizeTokens(pred);
  let best = 0;
  for (const ref of list) {
    best = Math.max(best, f1OfTokens(p, normalizeTokens(ref)));
  }
  return best;
}
