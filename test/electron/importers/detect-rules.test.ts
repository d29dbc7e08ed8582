/**
 * How an import finds its reader (electron/importers/index.ts, docs/formats.md): each format's
 * signs in a file's name and first bytes, each JSON layout, the files that are refused with a
 * word on what to import instead, and the ground-truth source of a wide CSV. detect-format.test.ts
 * has the first cases; this file walks every rule.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FORMATS, classifyJson, detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const PER_ITEM = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';

describe('classifyJson', () => {
  it('tells each JSON layout by its keys', () => {
    const cases: [unknown, string | null][] = [
      [{ res_list: [] }, 'mlvu-results'],
      [{ dialogs: [] }, 'avsd'],
      [{ images: [], annotations: [] }, 'avsd'],
      [{ images: [] }, null],
      [{ args: {}, model_configs: {}, logs: [] }, 'lmms-eval'],
      [{ args: {}, logs: [] }, null],
      [{ args: [], model_configs: {}, logs: [] }, null],
      [{ prediction: { 0: 'A' }, index: { 0: 1 } }, 'vlmevalkit'],
      [{ prediction: ['A'], index: { 0: 1 } }, null],
      [[{ video_id: '001', questions: [] }], 'videomme-results'],
      [[null, 7, { index: 1, prediction: 'A' }], 'vlmevalkit'],
      [[{ question: 'q', prediction: 'A' }], 'vlmevalkit'],
      [[{ prediction: 'A' }], null],
      [[{ response: 'A', question_id: '001-1', video_id: '001' }], 'videomme-results'],
      [[{ response: 'A', question_id: '001-1' }], null],
      [[{ question_type: 'plotQA', pred: 'A' }], 'mlvu-results'],
      [[{ question_type: 'plotQA', option: 'A' }], 'mlvu-results'],
      [[{ question_type: 'plotQA', response: 'A' }], 'mlvu-results'],
      [[{ video_name: 'v', Q: 'q', A: 'a', pred: 'p' }], 'mlvu-results'],
      [[{ Q: 'q', pred: 'p' }], null],
      [[{ candidates: ['a'], question_type: 'plotQA' }], 'mlvu-meta'],
      [[{ question_type: 'summary', question: 'q', answer: 'a', video: 'v.mp4' }], 'mlvu-meta'],
      [[{ question_type: 'summary', question: 'q', answer: 'a', video_name: 'v.mp4' }], 'mlvu-meta'],
      [[{ question_type: 'summary', question: 'q', answer: 'a' }], null],
      [[{ question_type: 'summary', question: 'q', video: 'v' }], null],
      [[], null],
      ['text', null],
      [null, null],
    ];
    for (const [value, format] of cases) expect(classifyJson(value), JSON.stringify(value)).toBe(format);
  });
});

describe('detectFormat', () => {
  it('reads a folder as a release, or as a frame cache when it holds <video>/metadata.json and no labels', async () => {
    const r = scratch.freshDir();
    const release = scratch.path(r);
    scratch.write(`${r}/labels/per_item.csv`, `${PER_ITEM}\n`);
    scratch.write(`${r}/v1/metadata.json`, '{}');
    expect(await detectFormat(release)).toBe('release');
    const c = scratch.freshDir();
    const cache = scratch.path(c);
    scratch.write(`${c}/v1/metadata.json`, '{}');
    expect(await detectFormat(cache)).toBe('scalegrid-cache');
    const e = scratch.freshDir();
    const empty = scratch.path(e);
    mkdirSync(`${empty}/sub`, { recursive: true });
    scratch.write(`${e}/metadata.json`, '{}');
    expect(await detectFormat(empty)).toBe('release');
  });

  it('tells zips, workbooks, parquet and TSV by name or magic bytes', async () => {
    const pk = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]);
    expect(await detectFormat(scratch.freshFile('r.ZIP', 'x'))).toBe('release');
    expect(await detectFormat(scratch.freshFile('r.bin', pk))).toBe('release');
    expect(await detectFormat(scratch.freshFile('r.xlsx', pk))).toBe('vlmevalkit');
    await expectImportError(detectFormat(scratch.freshFile('r.bin', Buffer.from([0x50, 0x4b, 0x03, 0x05]))), {
      file: 'r.bin',
      line: 0,
      field: '',
      reason: /^cannot tell the format of \.bin/,
    });
    expect(await detectFormat(scratch.freshFile('t.parquet', 'x'))).toBe('videomme-parquet');
    expect(await detectFormat(scratch.freshFile('t.bin', 'PAR1xxxx'))).toBe('videomme-parquet');
    expect(await detectFormat(scratch.freshFile('r.TSV', 'x'))).toBe('vlmevalkit');
  }, 5000);

  it("reads a CSV's header, quoted or not, in any order, after a byte-order mark", async () => {
    expect(await detectFormat(scratch.freshFile('p.csv', `${PER_ITEM}\n`))).toBe('per-item-csv');
    expect(await detectFormat(scratch.freshFile('p.csv', '\uFEFF"config","split", model ,sample_id,x\r\n'))).toBe('per-item-csv');
    expect(await detectFormat(scratch.freshFile('w.csv', 'sample_id,16f,textonly\n'))).toBe('wide-csv');
    await expectImportError(detectFormat(scratch.freshFile('u.csv', 'id,16f\n')), {
      file: 'u.csv',
      line: 1,
      field: 'id',
      reason: /^unknown CSV: expected a per_item\.csv or a \*_predictions_wide\.csv header$/,
    });
    // A header that is no CSV record is split at its commas.
    await expectImportError(detectFormat(scratch.freshFile('q.csv', 'a"b,c\n')), { file: 'q.csv', line: 1, field: 'a"b' });
  });

  it("reads a JSONL's first line: an lmms-eval log, the pipeline's rows, or its timed rows", async () => {
    expect(await detectFormat(scratch.freshFile('s.jsonl', '{"doc_id" : 0, "resps": ["A"]}\n'))).toBe('lmms-eval');
    expect(await detectFormat(scratch.freshFile('s.jsonl', '{"sample_id": "001-1", "correct_letter": "A"}\n'))).toBe('scalegrid-jsonl');
    expect(await detectFormat(scratch.freshFile('s.jsonl', '{"config_key": "16f", "wall_clock_s": 1.5}\n'))).toBe('scalegrid-jsonl');
    for (const first of ['{"doc_id": 0}', '{"sample_id": "x"}', '{"config_key": "16f"}', '{"filtered_resps": []}']) {
      await expectImportError(detectFormat(scratch.freshFile('s.jsonl', `${first}\n`)), {
        file: 's.jsonl',
        line: 1,
        field: '',
        reason: /^unknown JSONL: expected an lmms-eval --log_samples file \(doc_id, filtered_resps\) or the release pipeline's rows/,
      });
    }
    // Without the extension: two records on two lines.
    expect(await detectFormat(scratch.freshFile('s.log', '  {"doc_id": 0, "filtered_resps": ["A"]}\n{"doc_id": 1}\n'))).toBe('lmms-eval');
    await expectImportError(detectFormat(scratch.freshFile('s.log', '{"doc_id": 0, "filtered_resps": ["A"]}')), {
      file: 's.log',
      line: 0,
      field: '',
      reason: /^cannot tell the format of \.log; pass --format/,
    });
  });

  it('reads a JSON document, and refuses the files that come beside results with a word on what to import', async () => {
    expect(await detectFormat(scratch.freshFile('r.json', JSON.stringify({ dialogs: [{ image_id: 'v', dialog: [] }] })))).toBe('avsd');
    expect(await detectFormat(scratch.freshFile('metadata.json', JSON.stringify({ video_id: 'v', extracted_fps: 2, frame_count: 3 })))).toBe('scalegrid-cache');
    for (const partial of [
      { video_id: 'v', frame_count: 3 },
      { video_id: 'v', extracted_fps: 2 },
      { extracted_fps: 2, frame_count: 3 },
    ]) {
      await expectImportError(detectFormat(scratch.freshFile('metadata.json', JSON.stringify(partial))), {
        file: 'metadata.json',
        line: 0,
        field: '',
        reason: /^unknown JSON layout/,
      });
    }
    await expectImportError(detectFormat(scratch.freshFile('m.json', JSON.stringify({ cache_dir: '/c', target_fps: 2, results: [] }))), {
      file: 'm.json',
      line: 0,
      field: '',
      reason: /^a cache_frames\.py manifest: import its cache folder \(\/c\) or the metadata\.json files in it$/,
    });
    await expectImportError(detectFormat(scratch.freshFile('m.json', JSON.stringify({ cache_dir: '/c', target_fps: 2, results: {} }))), {
      file: 'm.json',
      line: 0,
      field: '',
      reason: /^unknown JSON layout/,
    });
    await expectImportError(detectFormat(scratch.freshFile('s.json', JSON.stringify({ results: {}, config: {} }))), {
      file: 's.json',
      line: 0,
      field: '',
      reason: /^an lmms-eval results summary: import the \*_samples_<task>\.jsonl beside it$/,
    });
    await expectImportError(detectFormat(scratch.freshFile('s.json', JSON.stringify({ method: 'qwen', base_correct: 3, total: 9 }))), {
      file: 's.json',
      line: 0,
      field: '',
      reason: /^a run_inference summary \(no per-item rows\): import the \.jsonl beside it$/,
    });
    await expectImportError(detectFormat(scratch.freshFile('s.json', JSON.stringify({ method: 'qwen', total: 9 }))), {
      file: 's.json',
      line: 0,
      field: '',
      reason: /^unknown JSON layout \(not Video-MME results, MLVU, VLMEvalKit records or AVSD dialogs\)$/,
    });
  });

  it('names the formats when nothing tells, and names the file of a failure a reader did not word', async () => {
    await expectImportError(detectFormat(scratch.freshFile('noext', 'hello')), {
      file: 'noext',
      line: 0,
      field: '',
      reason: new RegExp(`^cannot tell the format of this file; pass --format \\(${FORMATS.join(', ')}\\)$`),
    });
    await expectImportError(detectFormat(scratch.freshFile('deep.json', `${'['.repeat(200_000)}${']'.repeat(200_000)}`)), {
      file: 'deep.json',
      line: 0,
      field: '',
      reason: /^cannot read: RangeError: /,
    });
  });
});

describe('readImport', () => {
  it('refuses a missing path, an empty file, an unknown format, and --format columns without --columns', async () => {
    await expectImportError(readImport(scratch.path('none.csv')), { file: 'none.csv', line: 0, field: '', reason: /^no such file or folder$/ });
    await expectImportError(readImport(scratch.freshFile('e.csv', '')), { file: 'e.csv', line: 0, field: '', reason: /^empty file \(0 bytes\)$/ });
    await expectImportError(readImport(scratch.freshFile('e.csv', 'x'), { format: 'excel' }), {
      file: 'e.csv',
      line: 0,
      field: 'format',
      reason: new RegExp(`^unknown format "excel"; one of ${FORMATS.join(', ')}$`),
    });
    await expectImportError(readImport(scratch.freshFile('e.csv', 'x'), { format: 'columns' }), {
      file: 'e.csv',
      line: 0,
      field: 'columns',
      reason: /^--format columns needs --columns role=column,…$/,
    });
    // --columns alone chooses the reader.
    const [b] = await readImport(scratch.freshFile('c.csv', 'id,p\nq1,A\n'), { columns: 'sample_id=id,prediction=p', model: 'M', split: 'S', config: '8f' });
    expect(b!.run.format).toBe('columns');
  });

  it('reads a wide CSV against a ground truth, refusing a bad mapping, a missing source and one without answers', async () => {
    const wide = scratch.freshFile('M_S_predictions_wide.csv', 'sample_id,8f\nq1,A\nq2,B\n');
    const truth = scratch.freshFile('per_item.csv', `${PER_ITEM}\nq1,X,S,8f,8,,A,A,1,t,\nq2,X,S,8f,8,,A,C,0,t,\n`);
    const [b] = await readImport(wide, { groundTruth: truth });
    expect(b!.responses.map((r) => [r.sampleId, r.groundTruth, r.correct])).toEqual([
      ['q1', 'A', true],
      ['q2', 'C', false],
    ]);
    // The source is read again when it changes, also to the same size (its time tells), and a failed read is not kept.
    writeFileSync(truth, `${PER_ITEM}\nq1,X,S,8f,8,,A,B,0,t,\nq2,X,S,8f,8,,A,C,0,t,\n`);
    utimesSync(truth, new Date(), new Date(Date.now() + 5000));
    const [again] = await readImport(wide, { groundTruth: truth });
    expect(again!.responses.map((r) => r.groundTruth)).toEqual(['B', 'C']);
    writeFileSync(truth, `${PER_ITEM}\nq1,X,S,8f,8,,A,B,zero,t,\n`);
    utimesSync(truth, new Date(), new Date(Date.now() + 10000));
    await expectImportError(readImport(wide, { groundTruth: truth }), { file: 'per_item.csv', line: 2, field: 'correct' });
    await expectImportError(readImport(wide, { groundTruth: truth }), { file: 'per_item.csv', line: 2, field: 'correct' });
    writeFileSync(truth, `${PER_ITEM}\nq1,X,S,8f,8,,A,D,0,t,\n`);
    utimesSync(truth, new Date(), new Date(Date.now() + 15000));
    expect((await readImport(wide, { groundTruth: truth }))[0]!.responses.map((r) => r.groundTruth)).toEqual(['D', null]);
    writeFileSync(truth, `${PER_ITEM}\nq1,X,S,8f,8,,A,A,1,t,\nq2,X,S,8f,8,,A,C,0,t,\n`);
    utimesSync(truth, new Date(), new Date(Date.now() + 20000));
    const [m] = await readImport(wide, { groundTruth: truth, groundTruthSplit: 'S=T' });
    expect(m!.responses.map((r) => r.groundTruth)).toEqual(['A', 'C']);
    await expectImportError(readImport(wide, { groundTruth: truth, groundTruthSplit: 'S' }), {
      file: 'per_item.csv',
      line: 0,
      field: 'ground-truth-split',
      reason: /^expected <source split>=<target split or template>, got "S"$/,
    });
    await expectImportError(readImport(wide, { groundTruth: scratch.path('nope.csv') }), { file: 'nope.csv', line: 0, field: '', reason: /^no such file or folder$/ });
    // An lmms-eval log without its results file (model and budget unknown) still gives answers.
    const log = scratch.lmmsEvalLog('videomme', scratch.freshDir());
    rmSync(log.replace('samples_videomme.jsonl', 'results.json'));
    const v = scratch.freshFile('M_videomme_predictions_wide.csv', 'sample_id,8f\n001-1,C\n001-2,B\n');
    expect((await readImport(v, { groundTruth: log }))[0]!.responses.map((r) => [r.sampleId, r.groundTruth, r.correct])).toEqual([
      ['001-1', 'C', true],
      ['001-2', 'A', false],
    ]);
    // Another wide file has predictions and no answers.
    const none = scratch.freshFile('X_S_predictions_wide.csv', 'sample_id,8f\nq1,A\n');
    await expectImportError(readImport(wide, { groundTruth: none }), {
      file: 'X_S_predictions_wide.csv',
      line: 0,
      field: '',
      reason: /^the ground-truth source holds no answers$/,
    });
  });
});
