/**
 * Text rules the readers share (docs/formats.md "Python's JSON", "lmms-eval prompt layouts",
 * "MLVU"): Python's bare NaN/Infinity read as missing, a rendered multiple-choice prompt split
 * back into question and options, option prefixes, the option letter of a response, and the
 * sample id of an MLVU question without one.
 */
import { describe, expect, it } from 'vitest';
import { splitMcqPrompt, stripOptionPrefix } from '../../../electron/importers/mcq-text';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import { extractOptionLetter, isOptionLetter, letterOf } from '../../../electron/importers/option-letter';
import { nullPythonFloats, parsePythonJson } from '../../../electron/importers/py-json';

describe("Python's JSON", () => {
  it('reads bare NaN, Infinity and -Infinity outside strings as null, keeping every line', () => {
    const text = '{"a": NaN, "b": [Infinity,-Infinity],\n "c": "NaN and Infinity", "d": "q\\"NaN", "e":NaN}';
    expect(nullPythonFloats(text)).toBe('{"a": null, "b": [null,null],\n "c": "NaN and Infinity", "d": "q\\"NaN", "e":null}');
    expect(parsePythonJson(text)).toEqual({ a: null, b: [null, null], c: 'NaN and Infinity', d: 'q"NaN', e: null });
  });

  it('leaves a longer bare word and text without such a token as they are', () => {
    expect(nullPythonFloats('[NaNa, Infinity_x, -Infinity2, NaN]')).toBe('[NaNa, Infinity_x, -Infinity2, null]');
    expect(nullPythonFloats('[-Inf, Nan, infinity]')).toBe('[-Inf, Nan, infinity]');
    const plain = '{"a": 1}';
    expect(nullPythonFloats(plain)).toBe(plain);
    expect(nullPythonFloats('"only in a string: NaN"')).toBe('"only in a string: NaN"');
    expect(nullPythonFloats('NaN')).toBe('null');
    expect(() => parsePythonJson('{"a": NaNa}')).toThrow();
  });
});

describe('splitMcqPrompt', () => {
  const layouts: [string, string, string | null, string[]][] = [
    [
      'default',
      'Select the best answer.\nWhat is the man holding?\nA. a cup\nB. a phone\nC. a book\nAnswer with the letter.',
      'What is the man holding?',
      ['a cup', 'a phone', 'a book'],
    ],
    ['qwen3_vl', 'Question: What colour is the car?\nOptions:\nA. red\nB. blue\nPlease answer.', 'What colour is the car?', ['red', 'blue']],
    ['v2', 'Question: Where is it?\nA) inside\nB) outside\nAnswer with the option letter.', 'Where is it?', ['inside', 'outside']],
    ['subtitles', "[00:01] hello\n[00:02] it's me\nWhy does she wave?\nA. hello\nB. goodbye", 'Why does she wave?', ['hello', 'goodbye']],
    ['MLVU', 'How many dogs appear?\n(A) one\n(B) two\n(C) three\n(D) four\nOnly give the best option.', 'How many dogs appear?', ['one', 'two', 'three', 'four']],
    ['pre-0.3 list', "What happens next?\n['A. he leaves', \"B. he's back\"]\nAnswer:", 'What happens next?', ['he leaves', "he's back"]],
    ['Option: label', 'question: Which one?\n\nOption:\nA.x\nB.y', 'Which one?', ['x', 'y']],
    ['no question', 'A. x\nB. y', null, ['x', 'y']],
    ['only a prefix', 'Question:\nA. x\nB. y', null, ['x', 'y']],
  ];
  it.each(layouts)('%s', (_name, prompt, question, options) => {
    expect(splitMcqPrompt(prompt)).toEqual({ question, options });
  });

  it('takes the first run of options starting at A and stops at a gap in the letters', () => {
    expect(splitMcqPrompt('Q?\nA. x\nB. y\nD. z\nC. w')).toEqual({ question: 'Q?', options: ['x', 'y'] });
    // A lone "A." line is no option list; the next run is.
    expect(splitMcqPrompt('A. note\nQ?\nA. x\nB. y')).toEqual({ question: 'Q?', options: ['x', 'y'] });
    expect(splitMcqPrompt('Q?\nB. x\nC. y')).toEqual({ question: null, options: null });
    expect(splitMcqPrompt('no options here')).toEqual({ question: null, options: null });
    expect(splitMcqPrompt('Q?\na. x\nb. y')).toEqual({ question: null, options: null });
  });

  it('takes a list line only when it lists A, B… in order, two or more', () => {
    expect(splitMcqPrompt("Q?\n['B. x', 'C. y']")).toEqual({ question: null, options: null });
    expect(splitMcqPrompt("Q?\n['A. x']")).toEqual({ question: null, options: null });
    expect(splitMcqPrompt("Q?\n['A. x', 'y']")).toEqual({ question: null, options: null });
    expect(splitMcqPrompt("Q?\n  ['(A) x', '(B) y']  ")).toEqual({ question: 'Q?', options: ['x', 'y'] });
    expect(splitMcqPrompt("Q?\n['A. x', 'B. y'] and more")).toEqual({ question: null, options: null });
  });

  it('trims the question, the options and their lines, and skips a line of spaces', () => {
    expect(splitMcqPrompt('Q?  \n   \n  A.  x  \n  B.  y')).toEqual({ question: 'Q?', options: ['x', 'y'] });
    expect(splitMcqPrompt("Q?\n[' A.  x', ' B.  y']")).toEqual({ question: 'Q?', options: ['x', 'y'] });
  });
});

describe('option prefixes and letters', () => {
  it("strips an option's own letter only", () => {
    expect([
      stripOptionPrefix(' A. red ', 0),
      stripOptionPrefix('(B) blue', 1),
      stripOptionPrefix('C)green', 2),
      stripOptionPrefix('B. blue', 0),
      stripOptionPrefix('plain', 0),
      stripOptionPrefix(' plain ', 0),
      stripOptionPrefix('A.  two spaces ', 0),
    ]).toEqual(['red', 'blue', 'green', 'B. blue', 'plain', 'plain', 'two spaces']);
  });

  it('reads a bare letter with its punctuation, and no letter past the last option', () => {
    expect(['B)', 'B:', 'B,', 'B]', 'B.', ' B '].map((t) => extractOptionLetter(t))).toEqual(['B', 'B', 'B', 'B', 'B', 'B']);
    expect(['Bx', 'I', 'b', null, undefined, '  '].map((t) => extractOptionLetter(t))).toEqual([null, null, null, null, null, null]);
    // Not the bare form, but the one standalone capital.
    expect(extractOptionLetter('B-')).toBe('B');
    expect([extractOptionLetter('D', 'D'), extractOptionLetter('E', 'D'), extractOptionLetter('(E) no, (B)', 'D')]).toEqual(['D', null, 'B']);
    expect([isOptionLetter('A'), isOptionLetter('H'), isOptionLetter('I'), isOptionLetter('a'), isOptionLetter('AB')]).toEqual([true, true, false, false, false]);
    expect([letterOf(0), letterOf(7)]).toEqual(['A', 'H']);
  });
});

describe('mlvuSampleId', () => {
  it("is the video's stem and the first 8 hex of the question's sha1", () => {
    expect(mlvuSampleId('clips/dog_3.mp4', 'What happens?')).toBe('dog_3#df89229a');
    expect(mlvuSampleId('dog_3', 'What happens?')).toBe('dog_3#df89229a');
    expect(mlvuSampleId('a.b.mkv', '')).toBe('a.b#da39a3ee');
  });
});
