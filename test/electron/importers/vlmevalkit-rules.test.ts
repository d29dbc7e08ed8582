/**
 * VLMEvalKit's prediction tables (docs/formats.md "VLMEvalKit"), rule by rule on small TSV files:
 * a budget in fps, the columns a table needs, answers as letters, option texts or LongVideoBench's
 * 0-based `correct_choice`, and the refusals of each, as file:line: field: reason.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readVlmEvalKit } from '../../../electron/importers/vlmevalkit';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const tsv = (name: string, rows: string[][]): string => scratch.freshFile(name, rows.map((r) => r.join('\t')).join('\n') + '\n');
const NAME = 'Toy-7B_MVBench_8frame.tsv';
const HEAD = ['index', 'question', 'candidates', 'answer', 'prediction'];
const CANDS = "['red', 'blue', 'green']";

describe('VLMEvalKit tables', () => {
  it('reads an answer as a letter, an option text, or a lettered option text', async () => {
    const p = tsv(NAME, [
      HEAD,
      ['0', 'q0', CANDS, 'B', 'B'],
      ['1', 'q1', CANDS, 'green', 'C'],
      ['2', 'q2', CANDS, 'A. red', 'A'],
      ['3', 'q3', "['A. red', 'B. blue']", 'blue', 'B. blue'],
    ]);
    const b = await readVlmEvalKit(p);
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['0', 'B', 'B', true],
      ['1', 'C', 'C', true],
      ['2', 'A', 'A', true],
      ['3', 'B', 'B', true],
    ]);
    expect(b.items.map((i) => i.options)).toEqual([
      ['red', 'blue', 'green'],
      ['red', 'blue', 'green'],
      ['red', 'blue', 'green'],
      ['red', 'blue'],
    ]);
  });

  it("reads LongVideoBench's 0-based correct_choice, and refuses one past the candidates", async () => {
    const head = ['index', 'question', 'candidates', 'correct_choice', 'prediction'];
    const p = tsv('Toy-7B_LongVideoBench_8frame.tsv', [head, ['0', 'q0', CANDS, '2', 'C'], ['1', 'q1', CANDS, '0', 'B']]);
    expect((await readVlmEvalKit(p)).responses.map((r) => [r.groundTruth, r.correct])).toEqual([
      ['C', true],
      ['A', false],
    ]);
    const past = tsv('Toy-7B_LongVideoBench_8frame.tsv', [head, ['0', 'q0', CANDS, '3', 'C']]);
    await expectImportError(readVlmEvalKit(past), {
      file: 'Toy-7B_LongVideoBench_8frame.tsv',
      line: 2,
      field: 'correct_choice',
      reason: /^option index 3 is past the 3 candidates \(0-based\)$/,
    });
  });

  it('refuses an answer that is none of the options, and one past the eighth', async () => {
    await expectImportError(readVlmEvalKit(tsv(NAME, [HEAD, ['0', 'q0', CANDS, 'purple', 'A']])), {
      file: NAME,
      line: 2,
      field: 'answer',
      reason: /^answer "purple" is neither a letter nor one of the options$/,
    });
    const nine = `[${Array.from({ length: 9 }, (_, i) => `'o${i}'`).join(', ')}]`;
    await expectImportError(readVlmEvalKit(tsv(NAME, [HEAD, ['0', 'q0', nine, 'o8', 'A']])), {
      file: NAME,
      line: 2,
      field: 'answer',
      reason: /^answer "o8" is neither a letter nor one of the options$/,
    });
    expect((await readVlmEvalKit(tsv(NAME, [HEAD, ['0', 'q0', nine, 'o7', 'H']]))).responses[0]).toMatchObject({ groundTruth: 'H', correct: true });
    await expectImportError(readVlmEvalKit(tsv(NAME, [HEAD, ['0', 'q0', '[red', 'A', 'A']])), { file: NAME, line: 2, field: 'candidates', reason: /^not a list of options$/ });
  });

  it('refuses a table without its columns', async () => {
    await expectImportError(
      readVlmEvalKit(
        tsv(NAME, [
          ['index', 'question', 'answer'],
          ['0', 'q', 'A'],
        ]),
      ),
      { file: NAME, line: 1, field: 'prediction', reason: /^missing column "prediction"$/ },
    );
    await expectImportError(
      readVlmEvalKit(
        tsv(NAME, [
          ['index', 'question', 'prediction'],
          ['0', 'q', 'A'],
        ]),
      ),
      { file: NAME, line: 1, field: 'answer', reason: /^missing column "answer"$/ },
    );
    await expectImportError(
      readVlmEvalKit(
        tsv(NAME, [
          ['question', 'answer', 'prediction'],
          ['q', 'A', 'A'],
        ]),
      ),
      { file: NAME, line: 1, field: 'index', reason: /^missing column "index" \(or "question_id"\)$/ },
    );
    await expectImportError(readVlmEvalKit(tsv(NAME, [HEAD])), { file: NAME, line: 0, field: '', reason: /^no prediction rows \(an empty file, or a header only\)$/ });
  });

  it('takes a budget in fps only with --config, and says the frame count is unknown', async () => {
    const name = 'Toy-7B_MVBench_1fps.tsv';
    const p = tsv(name, [HEAD, ['0', 'q0', CANDS, 'B', 'B']]);
    await expectImportError(readVlmEvalKit(p), {
      file: name,
      line: 0,
      field: 'config',
      reason: /^budget is 1 fps: the frame count varies per video and is not recorded; pass --config$/,
    });
    const b = await readVlmEvalKit(p, { config: '32f' });
    expect(b.configs).toEqual([
      expect.objectContaining({ key: '32f', toolkit: 'vlmevalkit', sampling: { policy: null, seed: null, fps: 1 }, notes: '1 fps sampling: frames per video unknown' }),
    ]);
    expect(b.warnings).toContain(`${name}: sampled at 1 fps; the frame count per video is unknown (config 32f as given)`);
    const frames = await readVlmEvalKit(tsv(NAME, [HEAD, ['0', 'q0', CANDS, 'B', 'B']]));
    expect(frames.configs).toEqual([expect.objectContaining({ key: '8f', notes: null, sampling: { policy: null, seed: null, fps: null } })]);
    expect(frames.warnings.filter((w) => w.includes('fps'))).toEqual([]);
    await expectImportError(readVlmEvalKit(tsv('8frame.tsv', [HEAD, ['0', 'q0', CANDS, 'B', 'B']])), {
      file: '8frame.tsv',
      line: 0,
      field: 'model',
      reason: /^model unknown from the file name <model>_<dataset>_…; pass --model$/,
    });
  });
});

describe("VLMEvalKit's Video-MME rows without question ids", () => {
  const VM = 'Toy-7B_Video-MME_8frame.tsv';
  const head = ['index', 'video', 'question', 'candidates', 'answer', 'prediction'];
  const row = (index: string, video: string) => [index, video, `q${index}`, "['A. x', 'B. y']", 'A', 'A'];

  it("derives <video>-<question> from the row number of Video-MME's table, three questions per video", async () => {
    const b = await readVlmEvalKit(tsv(VM, [head, row('0', 'vidA'), row('2', 'vidA'), row('3', 'vidB'), row('11', 'vidD')]));
    expect(b.responses.map((r) => [r.sampleId, r.split])).toEqual([
      ['001-1', 'videomme'],
      ['001-3', 'videomme'],
      ['002-1', 'videomme'],
      ['004-3', 'videomme'],
    ]);
    expect(b.derivedIds?.rows.map((d) => [d.sampleId, d.videoId, d.line, d.field])).toEqual([
      ['001-1', 'vidA', 2, 'index'],
      ['001-3', 'vidA', 3, 'index'],
      ['002-1', 'vidB', 4, 'index'],
      ['004-3', 'vidD', 5, 'index'],
    ]);
  });

  it('refuses an index that is no row number, and rows whose videos contradict the table order', async () => {
    await expectImportError(readVlmEvalKit(tsv(VM, [head, row('x1', 'vidA')])), {
      file: VM,
      line: 2,
      field: 'index',
      reason: /^expected the row number of Video-MME's table, got "x1"$/,
    });
    // Each names the first line that placed the video.
    await expectImportError(readVlmEvalKit(tsv(VM, [head, row('0', 'vidA'), row('1', 'vidA'), row('2', 'vidB')])), {
      file: VM,
      line: 4,
      field: 'index',
      reason: /^index 2 makes this video vidB Video-MME video 001, but line 2 put video vidA there: the rows are not Video-MME's table order; add a question_id column$/,
    });
    await expectImportError(readVlmEvalKit(tsv(VM, [head, row('0', 'vidA'), row('1', 'vidA'), row('3', 'vidA')])), {
      file: VM,
      line: 4,
      field: 'index',
      reason: /^index 3 makes video vidA Video-MME video 002, but line 2 made it 001: the rows are not Video-MME's table order; add a question_id column$/,
    });
  });
});
