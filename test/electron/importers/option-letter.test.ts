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

  // Each step is tried before the next: an answer that a later step would read otherwise (or
  // not at all) shows which step decided.
  it.each([
    ['B. Not C', 'B', 'a leading letter, before the standalone letters (B and C)'],
    ['  [D]: and then A', 'D', 'a leading letter in brackets, after whitespace'],
    ['The answer is C, not D', 'C', 'an answer phrase, before the standalone letters'],
    ['ANSWER IS C, not D', 'C', 'the phrase in capitals'],
    ['choice\uff1a(B) rather than D', 'B', 'a choice, a full-width colon and a parenthesis'],
    ['Answer: [C] or maybe D', 'C', 'an answer phrase with its letter in brackets'],
    ['answer   is\tE because of F', 'E', 'whitespace of any kind and length in the phrase'],
    ['The answer  : C, not D', 'C', 'whitespace before the colon'],
    ['option C, not D', 'C', 'an option'],
    ['Choice: B, D is wrong', 'B', 'a choice'],
    ['I pick (C) over D', 'C', 'a letter in parentheses, before the standalone letters'],
    ['Between (C) and (D), D', 'C', 'the first of two letters in parentheses'],
    ['Bob said C', 'C', 'a capital that starts a word is no leading letter'],
    ['the 2D plot shows C', 'C', 'a capital after a digit does not stand alone'],
    ['answered B', 'B', 'a phrase must be followed by its letter: "answered" is not "answer"'],
  ])('%j → %s: %s', (text, letter) => {
    expect(extractOptionLetter(text)).toBe(letter);
  });

  it.each([
    ['b', 'a lowercase letter, even alone'],
    ['b.', 'a lowercase letter with its point'],
    ['1.', 'a digit'],
    ['@', 'a character below A'],
    ['Bx', 'a letter followed by a letter'],
    ['The answer is C2, D2', 'letters that do not stand alone'],
  ])('%j → none: %s', (text) => {
    expect(extractOptionLetter(text)).toBeNull();
  });

  it('respects the number of options', () => {
    for (const text of ['E', 'E)', '(E)', '[E] yes', 'Option E', 'The answer is E.', 'It is E', 'I pick (E) over the rest']) {
      expect(extractOptionLetter(text, 'D'), text).toBeNull();
      expect(extractOptionLetter(text, 'E'), text).toBe('E');
    }
    // A step goes on past a letter out of range: the next letter in range is the answer.
    expect(extractOptionLetter('Answer: E. No, answer: B', 'D')).toBe('B');
    expect(extractOptionLetter('(E) or (C)', 'D')).toBe('C');
    expect(extractOptionLetter('E or C', 'D')).toBe('C');
    expect(extractOptionLetter('H', 'H')).toBe('H');
    expect(extractOptionLetter('A.', 'A')).toBe('A');
    expect(extractOptionLetter('B.', 'A')).toBeNull();

    expect(extractOptionLetter('E.', 'D')).toBeNull();
    expect(extractOptionLetter('E.', 'H')).toBe('E');
  });
});
