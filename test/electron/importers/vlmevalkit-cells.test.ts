/**
 * VLMEvalKit prediction tables, cell by cell (docs/formats.md "VLMEvalKit"): the kinds of cell an
 * xlsx sheet holds (rich text, formulas, hyperlinks, booleans, errors), which benchmark a file is
 * and so which split and ids its rows get, durations as seconds or as a bucket, the fields its
 * refusals name, and the warning that says how its item ids were made.
 */
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { readVlmEvalKit } from '../../../electron/importers/vlmevalkit';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

type Cell = ExcelJS.CellValue;

async function xlsx(name: string, rows: Cell[][]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  for (const r of rows) ws.addRow(r);
  return scratch.freshFile(name, new Uint8Array(await wb.xlsx.writeBuffer()));
}

const tsv = (name: string, rows: string[][]): string => scratch.freshFile(name, rows.map((r) => r.join('\t')).join('\n') + '\n');
const CANDS = "['red', 'blue', 'green']";

describe('VLMEvalKit xlsx cells', () => {
  it('reads rich text, formula results, hyperlinks, numbers and booleans as their text, the header too', async () => {
    const p = await xlsx('Toy-7B_MVBench_8frame.xlsx', [
      ['index', 'video', { richText: [{ text: 'ques' }, { text: 'tion' }] }, 'candidates', 'answer', 'prediction', 'domain', 'duration'],
      [
        0,
        { text: 'vidA', hyperlink: 'https://example.org/vidA' },
        { richText: [{ text: 'Which ' }, { text: 'colour?' }] },
        CANDS,
        { formula: 'CHAR(66)', result: 'B' },
        'B',
        true,
        12.5,
      ],
      [1, 'vidB', 'q1', CANDS, 'C', { formula: 'CHAR(65)', result: 'A' }, false, 30],
    ]);
    const b = await readVlmEvalKit(p);
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['0', 'B', 'B', true],
      ['1', 'A', 'C', false],
    ]);
    expect(b.items.map((i) => [i.question, i.videoId, i.videoFile, i.domain, i.durationS, i.durationBucket])).toEqual([
      ['Which colour?', 'vidA', 'vidA.mp4', 'true', 12.5, null],
      ['q1', 'vidB', 'vidB.mp4', 'false', 30, null],
    ]);
  });

  it('refuses a prediction cell that holds no text (an error value), on a multiple-choice row and on an open one', async () => {
    const mcq = await xlsx('Toy-7B_MVBench_8frame.xlsx', [
      ['index', 'question', 'candidates', 'answer', 'prediction'],
      [0, 'q0', CANDS, 'B', 'B'],
      [1, 'q1', CANDS, 'B', { error: '#N/A' }],
    ]);
    await expectImportError(readVlmEvalKit(mcq), { file: 'Toy-7B_MVBench_8frame.xlsx', line: 3, field: 'prediction', reason: /^expected text$/ });
    const open = await xlsx('Toy-7B_VDC_8frame.xlsx', [
      ['index', 'question', 'answer', 'prediction'],
      [0, 'q0', 'a red ball rolls', 'a ball'],
      [1, 'q1', 'a blue cube', { error: '#DIV/0!' }],
    ]);
    await expectImportError(readVlmEvalKit(open), { file: 'Toy-7B_VDC_8frame.xlsx', line: 3, field: 'prediction', reason: /^expected text$/ });
  });

  it("takes a score cell's formula result as the row's own outcome, multiple-choice and open", async () => {
    const mcq = await xlsx('Toy-7B_MVBench_8frame_score.xlsx', [
      ['index', 'question', 'candidates', 'answer', 'prediction', 'score'],
      // The judge's 1 stands against the letters (A is not B); −1 (could not judge) leaves them to decide.
      [0, 'q0', CANDS, 'B', 'A', { formula: '0+1', result: 1 }],
      [1, 'q1', CANDS, 'B', 'B', { formula: '0-1', result: -1 }],
      [2, 'q2', CANDS, 'B', 'B', 0],
    ]);
    const b = await readVlmEvalKit(mcq);
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([
      ['0', 'A', true],
      ['1', 'B', true],
      ['2', 'B', false],
    ]);
    const open = await xlsx('Toy-7B_VDC_8frame_score.xlsx', [
      ['index', 'question', 'answer', 'prediction', 'score'],
      [0, 'q0', 'a red ball rolls', 'nothing alike', { formula: '0.25+0.5', result: 0.75 }],
      [1, 'q1', 'a blue cube', 'a blue cube', 0.5],
    ]);
    const o = await readVlmEvalKit(open);
    expect(o.responses.map((r) => [r.sampleId, r.score])).toEqual([
      ['0', 0.75],
      ['1', 0.5],
    ]);
  });
});

describe('VLMEvalKit: which benchmark a file is', () => {
  const V2_HEAD = ['index', 'question_id', 'video', 'question', 'options', 'answer', 'prediction'];
  const v2Row = ['0', '001-1-1', 'vidA', 'q', "['A. x', 'B. y']", 'A', 'A'];
  const MME_HEAD = ['index', 'video', 'question', 'options', 'answer', 'prediction'];
  const mmeRow = (i: number, video: string): string[] => [String(i), video, `q${i}`, "['A. x', 'B. y']", 'A', 'B'];

  it('Video-MME-v2 by either spelling of its name, or by its group_structure column: split videomme_v2', async () => {
    for (const name of ['Toy_Video-MME-v2_8frame.tsv', 'Toy_videomme_v2_8frame.tsv', 'Video-MME-v2_Toy_8frame.tsv']) {
      const b = await readVlmEvalKit(tsv(name, [V2_HEAD, v2Row]));
      expect(
        b.responses.map((r) => [r.model, r.split, r.sampleId]),
        name,
      ).toEqual([['Toy', 'videomme_v2', '001-1-1']]);
    }
    const grouped = await readVlmEvalKit(
      tsv('Toy_MVBench_8frame.tsv', [
        [...V2_HEAD, 'group_structure'],
        [...v2Row, 'g'],
      ]),
    );
    expect(grouped.responses.map((r) => r.split)).toEqual(['videomme_v2']);
    // The name alone decides nothing else: a dataset merely containing "videomme" is itself.
    const other = await readVlmEvalKit(tsv('Toy_MVBench_8frame.tsv', [V2_HEAD, v2Row]));
    expect(other.responses.map((r) => r.split)).toEqual(['MVBench']);
  });

  it("Video-MME by either spelling: split videomme, ids from the table's row numbers", async () => {
    for (const name of ['Toy_Video-MME_8frame.tsv', 'Toy_videomme_8frame.tsv']) {
      const b = await readVlmEvalKit(tsv(name, [MME_HEAD, mmeRow(0, 'v1'), mmeRow(4, 'v2')]));
      expect(
        b.responses.map((r) => [r.split, r.sampleId]),
        name,
      ).toEqual([
        ['videomme', '001-1'],
        ['videomme', '002-2'],
      ]);
      expect(b.derivedIds?.rows.map((d) => [d.sampleId, d.videoId, d.field])).toEqual([
        ['001-1', 'v1', 'index'],
        ['002-2', 'v2', 'index'],
      ]);
    }
    // Another dataset keys its rows by VLMEvalKit's index, and says so.
    const b = await readVlmEvalKit(tsv('Toy_EgoSchema_8frame.tsv', [MME_HEAD, mmeRow(0, 'v1'), mmeRow(4, 'v2')]));
    expect(b.responses.map((r) => [r.split, r.sampleId])).toEqual([
      ['EgoSchema', '0'],
      ['EgoSchema', '4'],
    ]);
    expect(b.derivedIds).toBeUndefined();
    expect(b.warnings).toEqual([
      "Toy_EgoSchema_8frame.tsv: no question_id column — items are keyed by VLMEvalKit's row index (EgoSchema is not a benchmark whose ids Flipbook can derive)",
    ]);
  });

  it("MLVU by its names, or by its SUB_DATASET and scoring_points columns: MLVU's ids and splits", async () => {
    const head = ['index', 'video', 'question', 'candidates', 'answer', 'prediction', 'SUB_DATASET', 'scoring_points'];
    const rows = [
      ['0', 'count_1.mp4', 'How many?', "['1', '2']", '2', '(B) 2', 'MLVU_MCQ', ''],
      ['1', 'sum_1.mp4', 'Summarise.', '', 'a dog runs', 'a dog runs', 'MLVU_OpenEnded', 'dog'],
    ];
    for (const name of ['Toy_MLVU_8frame.tsv', 'Toy_MLVU_MCQ_8frame.tsv', 'Toy_MLVU_OpenEnded_8frame.tsv', 'Toy_EgoSchema_8frame.tsv']) {
      const b = await readVlmEvalKit(tsv(name, [head, ...rows]));
      expect(
        b.responses.map((r) => [r.split, r.sampleId.split('#')[0], r.correct]),
        name,
      ).toEqual([
        ['MLVU', 'count_1', true],
        ['MLVU_gen', 'sum_1', null],
      ]);
      expect(b.items.map((i) => i.videoId)).toEqual(['count_1', 'sum_1']);
      expect(b.warnings.filter((w) => w.includes('item id(s)'))).toEqual([`${name}: 2 item id(s) are MLVU's <video>#<sha1(question)>, the ids of MLVU's metadata files`]);
    }
    // SUB_DATASET alone is a concatenated dataset (TempCompass): each part a split of its own.
    const parts = await readVlmEvalKit(
      tsv('Toy_TempCompass_8frame.tsv', [head.slice(0, 7), ['0', 'a.mp4', 'q0', "['x', 'y']", 'B', 'B', 'MCQ'], ['1', 'b.mp4', 'q1', '', 'a dog', 'a dog', 'Captioning']]),
    );
    expect(parts.responses.map((r) => [r.split, r.sampleId])).toEqual([
      ['MCQ', '0'],
      ['Captioning', '1'],
    ]);
  });
});

describe("VLMEvalKit: a name that only contains a benchmark's name", () => {
  it('is a dataset of its own: its split, ids by index; so is a scoring_points column without SUB_DATASET', async () => {
    const head = ['index', 'video', 'question', 'candidates', 'answer', 'prediction'];
    const row = ['4', 'count_1.mp4', 'How many?', "['1', '2']", '2', 'B'];
    for (const dataset of ['xvideomme-v2', 'videomme-v2x', 'myvideomme', 'videommex', 'xMLVU', 'MLVUx', 'MLVU-MCQ']) {
      const b = await readVlmEvalKit(tsv(`Toy_${dataset}_8frame.tsv`, [head, row]));
      expect(
        b.responses.map((r) => [r.split, r.sampleId]),
        dataset,
      ).toEqual([[dataset, '4']]);
    }
    const points = await readVlmEvalKit(
      tsv('Toy_EgoSchema_8frame.tsv', [
        [...head, 'scoring_points'],
        [...row, 'p'],
      ]),
    );
    expect(points.responses.map((r) => [r.split, r.sampleId])).toEqual([['EgoSchema', '4']]);
  });
});

describe('VLMEvalKit durations, refusals and id warnings', () => {
  it('a duration of plain seconds is durationS; anything else is a bucket', async () => {
    const durations = ['125', '12.5', '12.', '.5', '12s', 'x12', '1 2', 'medium'];
    const p = tsv('Toy-7B_MVBench_8frame.tsv', [
      ['index', 'question', 'candidates', 'answer', 'prediction', 'duration'],
      ...durations.map((d, i) => [String(i), 'q', CANDS, 'A', 'A', d]),
    ]);
    const b = await readVlmEvalKit(p);
    expect(b.items.map((i) => [i.durationS, i.durationBucket])).toEqual([
      [125, null],
      [12.5, null],
      [null, '12.'],
      [null, '.5'],
      [null, '12s'],
      [null, 'x12'],
      [null, '1 2'],
      [null, 'medium'],
    ]);
  });

  it("names VLMEvalKit's own columns when a repeated row disagrees: prediction, answer, score", async () => {
    const head = ['index', 'question', 'candidates', 'answer', 'prediction'];
    const pred = tsv('Toy-7B_MVBench_8frame.tsv', [head, ['0', 'q', CANDS, 'A', 'A'], ['0', 'q', CANDS, 'A', 'B']]);
    await expectImportError(readVlmEvalKit(pred), { file: 'Toy-7B_MVBench_8frame.tsv', line: 3, field: 'prediction' });
    const answer = tsv('Toy-7B_MVBench_8frame.tsv', [head, ['0', 'q', CANDS, 'A', 'A'], ['0', 'q', CANDS, 'B', 'A']]);
    await expectImportError(readVlmEvalKit(answer), { file: 'Toy-7B_MVBench_8frame.tsv', line: 3, field: 'answer' });
    // A judge's score that differs where the prediction and the answer agree.
    const score = tsv('Toy-7B_MVBench_8frame_score.tsv', [
      [...head, 'score'],
      ['0', 'q', CANDS, 'A', 'A', '1'],
      ['0', 'q', CANDS, 'A', 'A', '0'],
    ]);
    await expectImportError(readVlmEvalKit(score), { file: 'Toy-7B_MVBench_8frame_score.tsv', line: 3, field: 'score' });
  });

  it('says nothing of ids when every row has its question_id, and nothing when only some lack one', async () => {
    const head = ['index', 'question_id', 'question', 'candidates', 'answer', 'prediction'];
    const all = await readVlmEvalKit(tsv('Toy-7B_MVBench_8frame.tsv', [head, ['0', 'qa', 'q', CANDS, 'A', 'A'], ['1', 'qb', 'q', CANDS, 'A', 'A']]));
    expect(all.responses.map((r) => r.sampleId)).toEqual(['qa', 'qb']);
    expect(all.warnings).toEqual([]);
    const some = await readVlmEvalKit(tsv('Toy-7B_MVBench_8frame.tsv', [head, ['0', 'qa', 'q', CANDS, 'A', 'A'], ['1', '', 'q', CANDS, 'A', 'A']]));
    expect(some.responses.map((r) => r.sampleId)).toEqual(['qa', '1']);
    expect(some.warnings).toEqual([]);
  });
});

describe('VLMEvalKit under --split, multi-turn rows with a video, and JSON that holds no records', () => {
  it("--split names MLVU's splits (its open part _gen) and each part of a concatenated dataset", async () => {
    const head = ['index', 'video', 'question', 'candidates', 'answer', 'prediction', 'SUB_DATASET', 'scoring_points'];
    const mlvu = await readVlmEvalKit(
      tsv('Toy_MLVU_8frame.tsv', [
        head,
        ['0', 'count_1.mp4', 'How many?', "['1', '2']", '2', '(B) 2', 'MLVU_MCQ', ''],
        ['1', 'sum_1', 'Summarise.', '', 'a dog runs', 'a dog runs', 'MLVU_OpenEnded', 'dog'],
      ]),
      { split: 'dev' },
    );
    expect(mlvu.responses.map((r) => r.split)).toEqual(['dev', 'dev_gen']);
    expect(mlvu.items.map((i) => [i.videoId, i.videoFile])).toEqual([
      ['count_1', 'count_1.mp4'],
      ['sum_1', 'sum_1.mp4'],
    ]);
    const parts = await readVlmEvalKit(
      tsv('Toy_TempCompass_8frame.tsv', [head.slice(0, 7), ['0', 'a.webm', 'q0', "['x', 'y']", 'B', 'B', 'MCQ'], ['1', 'b', 'q1', '', 'a dog', 'a dog', 'Captioning']]),
      { split: 'tc' },
    );
    expect(parts.responses.map((r) => r.split)).toEqual(['tc_MCQ', 'tc_Captioning']);
    expect(parts.items.map((i) => i.videoFile)).toEqual(['a.webm', 'b.mp4']);
  });

  it("a multi-turn row's video and category go to each of its turns", async () => {
    const head = ['index', 'video', 'category', 'question', 'answer', 'prediction'];
    const turns = (q: string): string => `['${q} one?', '${q} two?']`;
    const b = await readVlmEvalKit(
      tsv('Toy_MMDU_8frame.tsv', [head, ['0', 'clip.avi', 'chat', turns('a'), "['x', 'y']", "['x', 'z']"], ['1', 'clip2', 'chat', turns('b'), "['u', 'v']", "['u', 'v']"]]),
    );
    expect(b.items.map((i) => [i.sampleId, i.videoId, i.videoFile, i.taskType])).toEqual([
      ['0_0', 'clip.avi', 'clip.avi', 'chat'],
      ['0_1', 'clip.avi', 'clip.avi', 'chat'],
      ['1_0', 'clip2', 'clip2.mp4', 'chat'],
      ['1_1', 'clip2', 'clip2.mp4', 'chat'],
    ]);
  });

  it('refuses a JSON document that is neither a list of records nor a table of columns', async () => {
    for (const doc of ['7', '"predictions"', 'null']) {
      await expectImportError(readVlmEvalKit(scratch.freshFile('Toy_MVBench_8frame.json', doc)), {
        file: 'Toy_MVBench_8frame.json',
        line: 1,
        field: '',
        reason: /^expected VLMEvalKit records$/,
      });
    }
  });
});

describe('VLMEvalKit rows at the edges', () => {
  it('a JSON record with no prediction, or a null one, is a row the model did not answer', async () => {
    const recs = [
      { index: 0, question: 'q0', candidates: CANDS, answer: 'A', prediction: 'A' },
      { index: 1, question: 'q1', candidates: CANDS, answer: 'A' },
      { index: 2, question: 'q2', candidates: CANDS, answer: 'A', prediction: null },
      { index: 3, question: 'q3', answer: 'a red ball', prediction: null },
    ];
    const mcq = await readVlmEvalKit(scratch.freshFile('Toy_MVBench_8frame.json', JSON.stringify(recs.slice(0, 3))));
    expect(mcq.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([
      ['0', 'A', true],
      ['1', null, false],
      ['2', null, false],
    ]);
    const open = await readVlmEvalKit(scratch.freshFile('Toy_VDC_8frame.json', JSON.stringify([{ ...recs[3], index: 0, prediction: 'a ball' }, recs[3]])));
    expect(open.responses.map((r) => [r.sampleId, r.pred])).toEqual([
      ['0', 'a ball'],
      ['3', null],
    ]);
  });

  it("Video-MME's index and LongVideoBench's correct_choice may stand between spaces; other text is no number", async () => {
    const head = ['index', 'video', 'question', 'options', 'answer', 'prediction'];
    const b = await readVlmEvalKit(tsv('Toy_Video-MME_8frame.tsv', [head, [' 4 ', 'v2', 'q', "['A. x', 'B. y']", 'A', 'A']]));
    expect(b.responses.map((r) => r.sampleId)).toEqual(['002-2']);
    for (const bad of ['4x', 'x4', '4.0'])
      await expectImportError(readVlmEvalKit(tsv('Toy_Video-MME_8frame.tsv', [head, [bad, 'v2', 'q', "['A. x', 'B. y']", 'A', 'A']])), {
        file: 'Toy_Video-MME_8frame.tsv',
        line: 2,
        field: 'index',
        reason: /^expected the row number of Video-MME's table/,
      });
    const lvb = ['index', 'question', 'candidates', 'correct_choice', 'prediction'];
    const c = await readVlmEvalKit(tsv('Toy_LongVideoBench_8frame.tsv', [lvb, ['0', 'q', CANDS, ' 1 ', 'B']]));
    expect(c.responses.map((r) => [r.groundTruth, r.correct])).toEqual([['B', true]]);
    // Not a number: the text of an option, or no answer at all.
    for (const bad of ['1x', 'x1'])
      await expectImportError(readVlmEvalKit(tsv('Toy_LongVideoBench_8frame.tsv', [lvb, ['0', 'q', CANDS, bad, 'B']])), {
        file: 'Toy_LongVideoBench_8frame.tsv',
        line: 2,
        field: 'correct_choice',
        reason: /neither a letter nor one of the options/,
      });
  });

  it('Video-MME ids are derived only for the rows that lack a question_id', async () => {
    const head = ['index', 'question_id', 'video', 'question', 'options', 'answer', 'prediction'];
    const b = await readVlmEvalKit(
      tsv('Toy_Video-MME_8frame.tsv', [head, ['0', '001-1', 'v1', 'q0', "['A. x', 'B. y']", 'A', 'A'], ['1', '', 'v1', 'q1', "['A. x', 'B. y']", 'A', 'A']]),
    );
    expect(b.responses.map((r) => r.sampleId)).toEqual(['001-1', '001-2']);
    expect(b.derivedIds?.rows.map((d) => [d.sampleId, d.line])).toEqual([['001-2', 3]]);
  });

  it('a question that is a list literal, with a prediction that is not, is a single-turn row', async () => {
    const b = await readVlmEvalKit(
      tsv('Toy_MVBench_8frame.tsv', [
        ['index', 'question', 'candidates', 'answer', 'prediction'],
        ['0', "['which', 'colour']", CANDS, 'B', 'B'],
      ]),
    );
    expect(b.items.map((i) => [i.sampleId, i.question, i.kind])).toEqual([['0', "['which', 'colour']", 'mcqa']]);
  });

  it('a multi-turn row with no index is refused naming the column', async () => {
    const head = ['index', 'question', 'answer', 'prediction'];
    await expectImportError(readVlmEvalKit(tsv('Toy_MMDU_8frame.tsv', [head, ['', "['a?', 'b?']", "['x', 'y']", "['x', 'y']"]])), {
      file: 'Toy_MMDU_8frame.tsv',
      line: 2,
      field: 'index',
      reason: /^empty$/,
    });
  });
});
