import { describe, expect, it } from 'vitest';
import { bestReference, markSharedWords } from '../../../shared/api/shared-tokens';

describe('shared words of a generated answer', () => {
  it('marks the words whose tokens the reference holds, each reference token once', () => {
    const marked = markSharedWords('The cat, the cat sat.', 'a cat sat on a mat');
    expect(marked.map((w) => [w.text, w.shared])).toEqual([
      ['The ', false],
      ['cat, ', true],
      ['the ', false],
      ['cat ', false],
      ['sat.', true],
    ]);
    expect(markSharedWords('', 'x')).toEqual([]);
  });
  it('the best reference is the one of highest Token-F1', () => {
    expect(bestReference('dog runs fast', ['a cat', 'the dog runs'])).toEqual({ ref: 'the dog runs', f1: 0.8 });
    expect(bestReference('x', [])).toBeNull();
  });
});
