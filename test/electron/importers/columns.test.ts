/**
 * The generic `--columns` reader on its own (docs/formats.md "Any table: --columns"): the
 * mapping option, the three file types, each role's cell rules, and each refusal as
 * `file:line: <column>: reason`. benchmarks.test.ts imports such files through readImport and
 * the CLI; this file checks the rules one at a time.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { COLUMN_ROLES, parseColumnsOption, readColumns } from '../../../electron/importers/columns';
import { Scratch, expectImportError, errorMessage } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** The usual options: model, split and config given on the command line. */
const CLI = { model: 'M', split: 'S', config: '8f' };
const MAP = 'sample_id=qid,prediction=resp,answer=gt';

describe('parseColumnsOption', () => {
  it('reads role=column pairs, with spaces and empty parts ignored and the column after the first =', () => {
    expect([...parseColumnsOption(' sample_id = qid ,, prediction=resp , answer=a=b,')]).toEqual([
      ['sample_id', 'qid'],
      ['prediction', 'resp'],
      ['answer', 'a=b'],
    ]);
    expect(COLUMN_ROLES).toEqual([
      'sample_id',
      'prediction',
      'answer',
      'options',
      'config',
      'model',
      'split',
      'correct',
      'score',
      'question',
      'video',
      'task_type',
      'confidence',
      'latency_ms',
    ]);
  });

  it('refuses a part without a role or a column, an unknown or repeated role, and a missing required one', () => {
    const message = (v: string): string => errorMessage(() => parseColumnsOption(v));
    expect(message('sample_id=qid,prediction')).toBe('"prediction" is not role=column (e.g. sample_id=question_id)');
    expect(message('sample_id=qid,=resp')).toBe('"=resp" is not role=column (e.g. sample_id=question_id)');
    expect(message('sample_id=qid,prediction=')).toBe('"prediction=" is not role=column (e.g. sample_id=question_id)');
    expect(message('sample_id=qid,prediction=r,colour=c')).toBe(`unknown role "colour" (one of ${COLUMN_ROLES.join(', ')})`);
    expect(message('sample_id=qid,prediction=r,answer=a,answer=b')).toBe('role "answer" is given twice');
    expect(message('prediction=r')).toBe('needs sample_id=<column>');
    expect(message('sample_id=q')).toBe('needs prediction=<column>');
    expect(message('sample_id=q,prediction=p')).toBe('accepted');
  });
});

describe('readColumns', () => {
  it('needs model, split and config from a column or the command line', async () => {
    const p = scratch.freshFile('a.csv', 'qid,resp,gt\nq1,A,A\n');
    await expectImportError(readColumns(p, { columns: 'sample_id=qid,prediction=resp' }), {
      file: 'a.csv',
      line: 0,
      field: 'model',
      reason: /^--columns without model=<column>: pass --model$/,
    });
    await expectImportError(readColumns(p, { columns: MAP, model: 'M' }), { file: 'a.csv', line: 0, field: 'split', reason: /^--columns without split=<column>: pass --split$/ });
    await expectImportError(readColumns(p, { columns: MAP, model: 'M', split: 'S' }), {
      file: 'a.csv',
      line: 0,
      field: 'config',
      reason: /^--columns without config=<column>: pass --config \(e\.g\. 16f_151k\)$/,
    });
    await expectImportError(readColumns(p, { columns: 'sample_id=qid', ...CLI }), { file: 'a.csv', line: 0, field: 'columns', reason: /^--columns: needs prediction=<column>$/ });
    const b = await readColumns(p, { columns: MAP, ...CLI });
    expect(b.run).toMatchObject({ sourcePath: p, format: 'columns', toolkit: null, modelArgs: `columns: ${MAP}` });
    expect(b.run.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(b.configs).toEqual([expect.objectContaining({ key: '8f' })]);
    expect(b.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct, r.sourceTag, r.line])).toEqual([
      ['M', 'S', 'q1', '8f', 'A', 'A', true, 'columns', 2],
    ]);
  });

  it('reads CSV, TSV and JSONL (any case of extension), and nothing else', async () => {
    const csv = await readColumns(scratch.freshFile('a.CSV', 'qid,resp,gt\nq1,"B, I think",B\n'), { columns: MAP, ...CLI });
    expect(csv.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([['q1', 'B', true]]);
    const tsv = await readColumns(scratch.freshFile('a.tsv', 'qid\tresp\tgt\nq1\tB, I think\tA\n'), { columns: MAP, ...CLI });
    expect(tsv.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([['q1', 'B', false]]);
    // Blank lines are skipped; numbers and booleans read as their text.
    const jsonl = await readColumns(scratch.freshFile('a.jsonl', '{"qid": 7, "resp": "C", "gt": "C"}\n\n  \n{"qid": true, "resp": "A", "gt": "B"}\n'), { columns: MAP, ...CLI });
    expect(jsonl.responses.map((r) => [r.sampleId, r.pred, r.line])).toEqual([
      ['7', 'C', 1],
      ['true', 'A', 4],
    ]);
    await expectImportError(readColumns(scratch.freshFile('a.txt', 'qid,resp,gt\n'), { columns: MAP, ...CLI }), {
      file: 'a.txt',
      line: 0,
      field: '',
      reason: /^--columns reads \.csv, \.tsv or \.jsonl files, not \.txt$/,
    });
    await expectImportError(readColumns(scratch.freshFile('table', 'qid,resp,gt\n'), { columns: MAP, ...CLI }), { file: 'table', line: 0, field: '', reason: /, not this file$/ });
  });

  it('refuses a damaged JSONL line, a line that is no object, and a truncated last line', async () => {
    await expectImportError(readColumns(scratch.freshFile('b.jsonl', '{"qid": "q1", "resp": "A", "gt": "A"}\n{"qid": \n'), { columns: MAP, ...CLI }), {
      file: 'b.jsonl',
      line: 2,
      field: '',
      reason: /^malformed JSON: /,
    });
    await expectImportError(readColumns(scratch.freshFile('b.jsonl', '{"qid": "q1", "resp": "A", "gt": "A"}\n{"qid": "q2", "re'), { columns: MAP, ...CLI }), {
      file: 'b.jsonl',
      line: 2,
      field: '',
      reason: /^truncated JSONL line \(the file ends mid-record\)$/,
    });
    for (const bad of ['["q1", "A"]', '7', 'null', '"q1"']) {
      await expectImportError(readColumns(scratch.freshFile('b.jsonl', `{"qid": "q0", "resp": "A", "gt": "A"}\n${bad}\n`), { columns: MAP, ...CLI }), {
        file: 'b.jsonl',
        line: 2,
        field: '',
        reason: /^expected one JSON object per line$/,
      });
    }
    await expectImportError(readColumns(scratch.freshFile('b.jsonl', '{"qid": {"id": 1}, "resp": "A", "gt": "A"}\n'), { columns: MAP, ...CLI }), {
      file: 'b.jsonl',
      line: 1,
      field: 'qid',
      reason: /^expected text or a number$/,
    });
    await expectImportError(readColumns(scratch.freshFile('b.jsonl', '{"qid": "q1", "resp": ["A"], "gt": "A"}\n'), { columns: MAP, ...CLI }), {
      file: 'b.jsonl',
      line: 1,
      field: 'resp',
    });
  });

  it("checks the mapping's columns against the first record, and each CSV row's width", async () => {
    await expectImportError(readColumns(scratch.freshFile('c.csv', 'qid,resp\nq1,A\n'), { columns: MAP, ...CLI }), {
      file: 'c.csv',
      line: 1,
      field: 'gt',
      reason: /^no such column for answer= \(the file has qid, resp\)$/,
    });
    await expectImportError(readColumns(scratch.freshFile('c.jsonl', '{"qid": "q1", "resp": "A"}\n'), { columns: MAP, ...CLI }), { file: 'c.jsonl', line: 1, field: 'gt' });
    // A later JSONL record without the column reads it as empty.
    const later = await readColumns(scratch.freshFile('c.jsonl', '{"qid": "q1", "resp": "A", "gt": "A"}\n{"qid": "q2", "resp": "B"}\n'), { columns: MAP, ...CLI });
    expect(later.responses.map((r) => [r.sampleId, r.groundTruth, r.correct])).toEqual([
      ['q1', 'A', true],
      ['q2', null, null],
    ]);
    await expectImportError(readColumns(scratch.freshFile('c.csv', 'qid,resp,gt\nq1,A,A\nq2,B\n'), { columns: MAP, ...CLI }), {
      file: 'c.csv',
      line: 3,
      field: '',
      reason: /^malformed row: 2 fields, header has 3$/,
    });
    await expectImportError(readColumns(scratch.freshFile('c.csv', 'qid,resp,gt\n'), { columns: MAP, ...CLI }), { file: 'c.csv', line: 0, field: '', reason: /^no rows$/ });
  });

  it('takes model, split and config from columns, refusing an empty id, an empty split and a bad config key', async () => {
    const cols = 'sample_id=qid,prediction=resp,answer=gt,model=m,split=s,config=budget';
    const b = await readColumns(scratch.freshFile('d.csv', 'qid,resp,gt,m,s,budget\nq1,A,A,X,Bench,16f\nq2,B,A,X,Bench,16f\nq1,B,A,Y,Bench,32f_151k\n'), { columns: cols });
    expect(b.responses.map((r) => [r.model, r.split, r.sampleId, r.config])).toEqual([
      ['X', 'Bench', 'q1', '16f'],
      ['X', 'Bench', 'q2', '16f'],
      ['Y', 'Bench', 'q1', '32f_151k'],
    ]);
    expect(b.configs.map((c) => [c.key, c.toolkit])).toEqual([
      ['16f', 'columns'],
      ['32f_151k', 'columns'],
    ]);
    // The command line names what no column does.
    const c = await readColumns(scratch.freshFile('d.csv', 'qid,resp,gt,budget\nq1,A,A,4f\n'), { columns: `${MAP},config=budget`, model: 'Z', split: 'T', config: '8f' });
    expect(c.responses.map((r) => [r.model, r.split, r.config])).toEqual([['Z', 'T', '4f']]);
    await expectImportError(readColumns(scratch.freshFile('d.csv', 'qid,resp,gt\n ,A,A\n'), { columns: MAP, ...CLI }), {
      file: 'd.csv',
      line: 2,
      field: 'qid',
      reason: /^empty sample id$/,
    });
    await expectImportError(readColumns(scratch.freshFile('d.jsonl', '{"resp": "A", "gt": "A", "qid": null}\n'), { columns: MAP, ...CLI }), {
      file: 'd.jsonl',
      line: 1,
      field: 'qid',
      reason: /^empty sample id$/,
    });
    await expectImportError(readColumns(scratch.freshFile('d.csv', 'qid,resp,gt,s\nq1,A,A, \n'), { columns: `${MAP},split=s`, model: 'M', config: '8f' }), {
      file: 'd.csv',
      line: 2,
      field: 's',
      reason: /^empty split$/,
    });
    await expectImportError(readColumns(scratch.freshFile('d.csv', 'qid,resp,gt,budget\nq1,A,A,lots\n'), { columns: `${MAP},config=budget`, model: 'M', split: 'S' }), {
      file: 'd.csv',
      line: 2,
      field: 'budget',
    });
    await expectImportError(readColumns(scratch.freshFile('d.csv', 'qid,resp,gt\nq1,A,A\n'), { columns: MAP, model: 'M', split: 'S', config: 'lots' }), {
      file: 'd.csv',
      line: 2,
      field: 'config',
    });
    // A {duration} split needs a duration, which a generic table does not have.
    await expectImportError(readColumns(scratch.freshFile('d.csv', 'qid,resp,gt\nq1,A,A\n'), { columns: MAP, model: 'M', split: 'V_{duration}', config: '8f' }), {
      file: 'd.csv',
      line: 2,
      field: 'split',
      reason: /^--split V_\{duration\} needs a duration bucket/,
    });
  });

  it('reads options as a list or one per line, prefixes stripped, and the answer as a letter, an index or an option', async () => {
    const cols = `${MAP},options=opts`;
    const csv = [
      'qid,resp,gt,opts',
      'q1,B,1,"[""A. red"", ""B. blue"", ""C. green""]"',
      'q2,The answer is C,green,"A. red\n\n  B. blue\nC. green\n"',
      'q3,A,A,"[""red"", ""blue""]"',
      'q4,C,B. blue,"[""red"", ""blue""]"',
      'q5,A,,',
    ].join('\n');
    const b = await readColumns(scratch.freshFile('e.csv', csv + '\n'), { columns: cols, ...CLI });
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['q1', 'B', 'B', true],
      ['q2', 'C', 'C', true],
      ['q3', 'A', 'A', true],
      // Two options: C is no answer to read.
      ['q4', null, 'B', false],
      // No answer: nothing to score against.
      ['q5', 'A', null, null],
    ]);
    expect(b.items.map((i) => [i.sampleId, i.options, i.answer, i.kind])).toEqual([
      ['q1', ['red', 'blue', 'green'], 'B', 'mcqa'],
      ['q2', ['red', 'blue', 'green'], 'C', 'mcqa'],
      ['q3', ['red', 'blue'], 'A', 'mcqa'],
      ['q4', ['red', 'blue'], 'B', 'mcqa'],
      ['q5', null, null, 'mcqa'],
    ]);
    await expectImportError(readColumns(scratch.freshFile('e.csv', 'qid,resp,gt,opts\nq1,A,2,"[""red"", ""blue""]"\n'), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^option index 2 is past the 2 options \(0-based\)$/,
    });
    const ten = JSON.stringify(Array.from({ length: 10 }, (_, i) => `o${i}`)).replace(/"/g, '""');
    await expectImportError(readColumns(scratch.freshFile('e.csv', `qid,resp,gt,opts\nq1,A,8,"${ten}"\n`), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^option index 8 is past the 10 options \(0-based\)$/,
    });
    await expectImportError(readColumns(scratch.freshFile('e.csv', `qid,resp,gt,opts\nq1,A,o9,"${ten}"\n`), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^"o9" is neither an option letter A–H, a 0-based index, nor one of the options$/,
    });
    // Ten options: a two-digit index is one, and the letters stop at H.
    await expectImportError(readColumns(scratch.freshFile('e.csv', `qid,resp,gt,opts\nq1,A,10,"${ten}"\n`), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^option index 10 is past the 10 options \(0-based\)$/,
    });
    expect((await readColumns(scratch.freshFile('e.csv', `qid,resp,gt,opts\nq1,H,o7,"${ten}"\n`), { columns: cols, ...CLI })).responses[0]).toMatchObject({
      pred: 'H',
      groundTruth: 'H',
      correct: true,
    });
    expect((await readColumns(scratch.freshFile('e.csv', `qid,resp,gt,opts\nq1,I,7,"${ten}"\n`), { columns: cols, ...CLI })).responses[0]).toMatchObject({
      pred: null,
      groundTruth: 'H',
      correct: false,
    });
    // Without options every letter to H is an answer.
    expect((await readColumns(scratch.freshFile('e.csv', 'qid,resp,gt\nq1,E,E\nq2,H,G\n'), { columns: MAP, ...CLI })).responses.map((r) => [r.pred, r.correct])).toEqual([
      ['E', true],
      ['H', false],
    ]);
    await expectImportError(readColumns(scratch.freshFile('e.csv', 'qid,resp,gt,opts\nq1,A,purple,"[""red"", ""blue""]"\n'), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^"purple" is neither an option letter A–H/,
    });
    // An option's text behind another option's letter is neither.
    await expectImportError(readColumns(scratch.freshFile('e.csv', 'qid,resp,gt,opts\nq1,A,A. blue,"[""red"", ""blue""]"\n'), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'gt',
      reason: /^"A\. blue" is neither an option letter A–H/,
    });
    await expectImportError(readColumns(scratch.freshFile('e.csv', 'qid,resp,gt,opts\nq1,A,A,"[red, blue"\n'), { columns: cols, ...CLI }), {
      file: 'e.csv',
      line: 2,
      field: 'opts',
      reason: /^not a list of options$/,
    });
  });

  it("keeps a row's own 0/1 outcome, says how many did, and refuses any other", async () => {
    const cols = `${MAP},correct=ok`;
    const p = scratch.freshFile('f.csv', 'qid,resp,gt,ok\nq1,A,A,0\nq2,A,B,TRUE\nq3,A,B, 1 \nq4,A,A,false\nq5,A,A,\n');
    const b = await readColumns(p, { columns: cols, ...CLI });
    expect(b.responses.map((r) => [r.sampleId, r.correct])).toEqual([
      ['q1', false],
      ['q2', true],
      ['q3', true],
      ['q4', false],
      ['q5', true],
    ]);
    expect(b.warnings).toEqual([`${p}: 4 row(s) keep their own outcome (ok)`]);
    await expectImportError(readColumns(scratch.freshFile('f.csv', 'qid,resp,gt,ok\nq1,A,A,yes\n'), { columns: cols, ...CLI }), {
      file: 'f.csv',
      line: 2,
      field: 'ok',
      reason: /^expected 0 or 1, got "yes"$/,
    });
    await expectImportError(readColumns(scratch.freshFile('f.csv', 'qid,resp,gt,ok\nq1,A,A,0.5\n'), { columns: cols, ...CLI }), {
      file: 'f.csv',
      line: 2,
      field: 'ok',
      reason: /^expected 0 or 1, got "0.5"$/,
    });
    expect((await readColumns(scratch.freshFile('f.csv', 'qid,resp,gt\nq1,A,A\n'), { columns: MAP, ...CLI })).warnings).toEqual([]);
  });

  it('reads confidence in [0, 1] and latency ≥ 0, empty as none', async () => {
    const cols = `${MAP},confidence=p,latency_ms=ms`;
    const b = await readColumns(scratch.freshFile('g.csv', 'qid,resp,gt,p,ms\nq1,A,A,0.75,120.5\nq2,A,A,,\nq3,A,A,0,0\nq4,A,A,1,7\n'), { columns: cols, ...CLI });
    expect(b.responses.map((r) => [r.confidence, r.latencyMs])).toEqual([
      [0.75, 120.5],
      [null, null],
      [0, 0],
      [1, 7],
    ]);
    for (const p of ['1.01', '-0.1', 'high', 'Infinity']) {
      await expectImportError(readColumns(scratch.freshFile('g.csv', `qid,resp,gt,p,ms\nq1,A,A,${p},1\n`), { columns: cols, ...CLI }), {
        file: 'g.csv',
        line: 2,
        field: 'p',
        reason: new RegExp(`^expected a probability in \\[0, 1\\], got "${p}"$`),
      });
    }
    for (const ms of ['-1', 'slow', 'Infinity']) {
      await expectImportError(readColumns(scratch.freshFile('g.csv', `qid,resp,gt,p,ms\nq1,A,A,0.5,${ms}\n`), { columns: cols, ...CLI }), {
        file: 'g.csv',
        line: 2,
        field: 'ms',
        reason: new RegExp(`^expected milliseconds ≥ 0, got "${ms}"$`),
      });
    }
  });

  it('gives each item its question, task type and video (empty cells as none), a file name kept when it has an extension', async () => {
    const cols = `${MAP},question=q,task_type=t,video=v`;
    const b = await readColumns(
      scratch.freshFile('h.csv', 'qid,resp,gt,q,t,v\nq1,A,A,What colour?,colour,vid1\nq2,A,A,Where?,place,clips/vid2.mkv\nq3,A,A, ,,\nq4,A,A,,,clip.webm\nq5,A,A,,,v.1\n'),
      { columns: cols, ...CLI },
    );
    expect(b.items.map((i) => [i.sampleId, i.question, i.taskType, i.videoId, i.videoFile])).toEqual([
      ['q1', 'What colour?', 'colour', 'vid1', 'vid1.mp4'],
      ['q2', 'Where?', 'place', 'clips/vid2.mkv', 'clips/vid2.mkv'],
      ['q3', null, null, null, null],
      ['q4', null, null, 'clip.webm', 'clip.webm'],
      ['q5', null, null, 'v.1', 'v.1.mp4'],
    ]);
  });

  it('reads a free-text answer as open-ended, scored by Token-F1 or by its own score column', async () => {
    const b = await readColumns(scratch.freshFile('i.csv', 'qid,resp,gt\nq1,red car,the blue car\nq2,,a dog\n'), { columns: MAP, ...CLI });
    expect(b.responses.map((r) => [r.sampleId, r.pred, r.score, r.correct, r.groundTruth])).toEqual([
      ['q1', 'red car', 0.5, null, null],
      ['q2', null, 0, null, null],
    ]);
    expect(b.items.map((i) => [i.kind, i.options, i.answer, i.references])).toEqual([
      ['open', null, null, ['the blue car']],
      ['open', null, null, ['a dog']],
    ]);
    expect(b.warnings).toEqual(['i.csv: 1 open-ended row(s) have no predicted text (scored as an empty answer)']);
    const s = await readColumns(scratch.freshFile('i.csv', 'qid,resp,gt,judge\nq1,a red car,the red car,0.9\n'), { columns: `${MAP},score=judge`, ...CLI });
    expect(s.responses.map((r) => [r.score, r.protocolNote])).toEqual([[0.9, 'score: judge']]);
    await expectImportError(readColumns(scratch.freshFile('i.csv', 'qid,resp,gt,judge\nq1,a red car,the red car,9\n'), { columns: `${MAP},score=judge`, ...CLI }), {
      file: 'i.csv',
      line: 2,
      field: 'judge',
      reason: /outside \[0, 1\]/,
    });
    // An open-ended record after a multiple-choice one: the file is one kind or the other.
    await expectImportError(readColumns(scratch.freshFile('i.csv', 'qid,resp,gt\nq1,A,A\nq2,a cat,the cat\n'), { columns: MAP, ...CLI }), {
      file: 'i.csv',
      line: 3,
      field: 'gt',
      reason: /^an open-ended \(free-text answer, no options\) record in a file whose records are multiple-choice \(from line 2\)/,
    });
    await expectImportError(readColumns(scratch.freshFile('i.csv', 'qid,resp,gt,o\nq1,a cat,the cat,\nq2,A,A,"[""x"", ""y""]"\n'), { columns: `${MAP},options=o`, ...CLI }), {
      file: 'i.csv',
      line: 3,
      field: 'o',
      reason: /^a multiple-choice record in a file whose records are open-ended/,
    });
  });

  it('names a repeated row that disagrees by the column it came from', async () => {
    await expectImportError(readColumns(scratch.freshFile('j.csv', 'qid,resp,gt\nq1,A,A\nq1,B,A\n'), { columns: MAP, ...CLI }), {
      file: 'j.csv',
      line: 3,
      field: 'resp',
      reason: /^duplicate key \(model M, split S, sample q1, config 8f\) with a different value: "B" here, "A" at line 2$/,
    });
    await expectImportError(
      readColumns(scratch.freshFile('j.csv', 'qid,resp,gt,o\nq1,A,A,"[""x"", ""y""]"\nq1,A,A,"[""x"", ""z""]"\n'), {
        columns: `${MAP},options=o`,
        model: 'M',
        split: 'S',
        config: '8f',
      }),
      {
        file: 'j.csv',
        line: 3,
        field: 'o',
      },
    );
  });
});
