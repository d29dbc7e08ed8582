import { describe, expect, it } from 'vitest';
import { extractOptionLetter } from '../../../electron/importers/option-letter';

describe('extractOptionLetter', () => {
  it.each([
    ['B.', 'B'],
    ['A', 'A'],
    [' C ', 'C'],
    ['(D) The red one', 'D'],
    ['[B]', 'B'],
    ['The answer is (C)', 'C'],
    ['The best answer is: A. Apples.', 'A'],
    ['Answer: D', 'D'],
    ['I think the correct option is B because it moves', 'B'],
    ['Looking at the frames, (C) fits best', 'C'],
    ['Best option: (A)', 'A'],
    // A full-width colon (U+FF1A), as in answers to prompts in Chinese.
    ['Answer\uff1aB, not A', 'B'],
    ['I think the answer is\uff1a C. Option B is close', 'C'],
  ])('%j → %s', (text, letter) => {
    expect(extractOptionLetter(text)).toBe(letter);
  });

  it.each([
    ['', null],
    ['!!!!!!!!!!!!!!!!', null],
    ['a dog is running', null],
    ['the answer is a cat', null],
    ['Either A or B', null],
  ])('%j → none', (text, letter) => {
    expect(extractOptionLetter(text)).toBe(letter);
  });

  it('respects the number of options', () => {
    expect(extractOptionLetter('E.', 'D')).toBeNull();
    expect(extractOptionLetter('E.', 'H')).toBe('E');
  });
});
