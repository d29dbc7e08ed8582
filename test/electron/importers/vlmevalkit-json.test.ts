/**
 * VLMEvalKit's JSON predictions (docs/formats.md "VLMEvalKit"): records or pandas' column
 * layout, and the refusals of a prediction that is not text, of a list that holds no records,
 * and of a document that is neither — each naming the file, line and field.
 */
import { afterAll, describe, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError, lineOf } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const NAME = 'Qwen2-VL_MVBench_8frame.json';
const write = (doc: unknown): string => scratch.freshFile(NAME, JSON.stringify(doc, null, 2));
const row = (index: number, prediction: unknown) => ({ index, question: `q${index}?`, candidates: "['red', 'blue']", answer: 'blue', prediction });

describe('VLMEvalKit JSON', () => {
  it('refuses a prediction that is a number, a boolean, an object or a list of non-texts, at its record', async () => {
    const cases: [unknown, string][] = [
      [7, 'expected text, got the number 7'],
      [true, 'expected text, got the boolean true'],
      [{ text: 'A' }, 'expected text, got an object'],
      [['A', 1], 'expected text, got a list'],
    ];
    for (const [prediction, reason] of cases) {
      const p = write([row(0, 'A'), row(1, prediction)]);
      await expectImportError(readImport(p), { file: NAME, line: lineOf(p, '"index": 1') - 1, field: 'prediction', reason: new RegExp(`^${reason.replace(/[()[\]]/g, '\\$&')}$`) });
    }
    // In pandas' column layout, each record's line is its position.
    await expectImportError(readImport(write({ index: { 0: 0, 1: 1 }, question: { 0: 'a?', 1: 'b?' }, answer: { 0: 'A', 1: 'B' }, prediction: { 0: 'A', 1: 5 } })), {
      file: NAME,
      line: 2,
      field: 'prediction',
      reason: /^expected text, got the number 5$/,
    });
  });

  it('refuses a list holding something other than records, and a document that is no records', async () => {
    await expectImportError(readImport(write([row(0, 'A'), 'B'])), { file: NAME, line: 0, field: '', reason: /^expected a list of records$/ });
    await expectImportError(readImport(write([row(0, 'A'), null])), { file: NAME, line: 0, field: '', reason: /^expected a list of records$/ });
  });
});
