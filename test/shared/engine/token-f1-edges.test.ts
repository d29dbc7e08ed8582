// Edges of Token-F1 (docs/metrics.md §7) the main suite leaves open: an article glued to symbols
// on both sides, and the best over several references when none or only some share a token.
import { describe, expect, it } from 'vitest';
import { normalizeTokens, tokenF1 } from '../../../shared/engine/token-f1';

describe('tokenF1 edges (docs/metrics.md §7)', () => {
  it('an article between two symbols splits them: the SQuAD normaliser replaces it with a space', () => {
    // `+` and `$` are symbols (S*), not punctuation, so they stay; `the`/`a` are whole words there
    expect(normalizeTokens('1+the+2')).toEqual(['1+', '+2']);
    expect(normalizeTokens('x$a$y z')).toEqual(['x$', '$y', 'z']);
    expect(tokenF1('1+the+2', '1+ +2')).toBe(1);
  });

  it('no shared token with any reference scores 0, one list empty scores 0', () => {
    expect(tokenF1('dog', ['cat', 'bird', 'the'])).toBe(0);
    expect(tokenF1('dog cat', ['fish', 'bird'])).toBe(0);
    expect(tokenF1('an', 'cat')).toBe(0);
    expect(tokenF1('cat', 'the')).toBe(0);
  });

  it('the maximum over references ignores references sharing nothing, wherever they are listed', () => {
    // against "dog": P = 1, R = 1/2 → F1 = 2/3 ; against "dog house big": P = 1, R = 1/3 → 1/2
    for (const refs of [
      ['cat', 'dog barks', 'dog house big'],
      ['dog house big', 'dog barks', 'cat'],
      ['dog barks', 'cat'],
    ]) {
      expect(tokenF1('dog', refs), refs.join('|')).toBeCloseTo(2 / 3, 15);
    }
  });
});
