/**
 * Which words of a generated answer it shares with a reference, as the item view marks them
 * (docs/metrics.md §7): the text is cut into white-space separated words, each word is
 * normalised as Token-F1 normalises text (normalizeTokens: lower case, no punctuation, no
 * articles), and a word is shared while the reference still has an unmatched copy of one of its
 * tokens (the multiset intersection Token-F1 counts, taken left to right).
 */
import { normalizeTokens, tokenF1 } from '../engine/token-f1';

export interface MarkedWord {
  /** The word as written, with the white space after it. */
  text: string;
  shared: boolean;
}

/** The reference of `refs` that gives `pred` its best Token-F1 (the first on a tie); null when there is none. */
export function bestReference(pred: string, refs: readonly string[]): { ref: string; f1: number } | null {
  let best: { ref: string; f1: number } | null = null;
  for (const ref of refs) {
    const f1 = tokenF1(pred, ref);
    if (best === null || f1 > best.f1) best = { ref, f1 };
  }
  return best;
}

export function markSharedWords(pred: string, ref: string): MarkedWord[] {
  const left = new Map<string, number>();
  for (const t of normalizeTokens(ref)) left.set(t, (left.get(t) ?? 0) + 1);
  const out: MarkedWord[] = [];
  for (const m of pred.matchAll(/(\S+)(\s*)/gu)) {
    const tokens = normalizeTokens(m[1]!);
    let shared = false;
    for (const t of tokens) {
      const n = left.get(t) ?? 0;
      if (n > 0) {
        left.set(t, n - 1);
        shared = true;
      }
    }
    out.push({ text: m[0], shared });
  }
  return out;
}
