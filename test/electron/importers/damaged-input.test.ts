// Damaged input is refused, never half-read (docs/formats.md, "Damaged input"): a truncated
// xlsx sheet, invalid UTF-8, NUL bytes in ids, a number where VLMEvalKit JSON has text, empty
// files, frame indices on a text-only row. And a UTF-8 BOM is accepted by every JSON reader.
import ExcelJS from 'exceljs';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { ImportError } from '../../../electron/importers/errors';
import { readBundle } from '../../../electron/importers/annotation-bundle';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const BOM = '\uFEFF';
const COLUMNS = ['index', 'question_id', 'video', 'options', 'answer', 'prediction'];
const rowsOf = (n: number): (string | number)[][] => Array.from({ length: n }, (_, i) => [i, `q-${i}`, `vid${i}`, "['A. 1', 'B. 2']", 'A', i % 2 ? 'A' : 'B']);

const tsvText = (rows: (string | number)[][]): string => [COLUMNS, ...rows].map((r) => r.join('\t')).join('\n') + '\n';

describe('damaged input', () => {
  it('an xlsx whose sheet is cut short is refused, naming the file (not 29 of 60 rows)', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('Sheet1');
    ws.addRow(COLUMNS);
    for (const r of rowsOf(60)) ws.addRow(r);
    const good = scratch.path('M_Video-MME_8frame.xlsx');
    await wb.xlsx.writeFile(good);
    expect((await readImport(good))[0]!.responses).toHaveLength(60);

    const parts = unzipSync(readFileSync(good));
    const sheet = new TextDecoder().decode(parts['xl/worksheets/sheet1.xml']);
    parts['xl/worksheets/sheet1.xml'] = strToU8(sheet.slice(0, Math.floor(sheet.length / 2)));
    const cut = scratch.path('cut/M_Video-MME_8frame.xlsx');
    scratch.write('cut/.keep', '');
    writeFileSync(cut, zipSync(parts));
    await expectImportError(readImport(cut), { file: 'cut/M_Video-MME_8frame.xlsx', line: 0, field: '', reason: /damaged xlsx: xl\/worksheets\/sheet1\.xml is cut short/ });

    // The file itself truncated (a half-copied download): also refused.
    const bytes = readFileSync(good);
    const half = scratch.write('half/M_Video-MME_8frame.xlsx', bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    await expectImportError(readImport(half), { file: 'half/M_Video-MME_8frame.xlsx', line: 0, field: '', reason: /damaged xlsx/ });
  });

  it('invalid UTF-8 is refused at its file:line: field (TSV, JSON, JSONL, per_item.csv)', async () => {
    const text = tsvText(rowsOf(3));
    const bad = Buffer.from(text.replace('q-2', 'q-\u0001'), 'utf8');
    bad[bad.indexOf(0x01)] = 0xff; // an invalid byte inside the question_id of row 4 (line 4)
    const tsv = scratch.write('utf8/M_Video-MME_8frame.tsv', bad);
    await expectImportError(readImport(tsv), { file: 'M_Video-MME_8frame.tsv', line: 4, field: 'question_id', reason: /invalid UTF-8 \(bytes ff/ });

    const recs = rowsOf(2).map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
    const json = Buffer.from(JSON.stringify(recs, null, 1).replace('"q-1"', '"q-\u0001"'), 'utf8');
    json[json.indexOf(0x01)] = 0xc3; // a lead byte followed by a quote: invalid
    const jp = scratch.write('utf8/M_Video-MME_8frame.json', json);
    const err = await expectImportError(readImport(jp), { file: 'M_Video-MME_8frame.json', line: 12, field: 'question_id', reason: /invalid UTF-8/ });
    expect(err.message).toMatch(/M_Video-MME_8frame\.json:12: question_id: invalid UTF-8/);

    const per = Buffer.from(
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n' +
        'a,M,S,16f,16,,A,A,1,,\nb\u0001,M,S,16f,16,,A,A,1,,\n',
      'utf8',
    );
    per[per.indexOf(0x01)] = 0xfe;
    const pp = scratch.write('utf8/per_item.csv', per);
    await expectImportError(readImport(pp), { file: 'per_item.csv', line: 3, field: 'sample_id', reason: /invalid UTF-8/ });
  });

  it('NUL bytes and control characters in ids are refused (file:line: field)', async () => {
    const tsv = scratch.write('nul/M_Video-MME_8frame.tsv', tsvText(rowsOf(3)).replace('q-1', 'q\u00001'));
    await expectImportError(readImport(tsv), { file: 'M_Video-MME_8frame.tsv', line: 3, field: 'question_id', reason: /NUL/ });

    const header = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
    // The per_item.csv reader names the row.
    const per = scratch.write('nul/per_item.csv', `${header}\na,M,S,16f,16,,A,A,1,,\nb\u0000x,M,S,16f,16,,A,A,1,,\n`);
    await expectImportError(readImport(per), { file: 'nul/per_item.csv', line: 3, field: 'sample_id', reason: /NUL/ });
    const model = scratch.write('ctl/per_item.csv', `${header}\na,M\u0007,S,16f,16,,A,A,1,,\n`);
    await expectImportError(readImport(model), { file: 'ctl/per_item.csv', line: 2, field: 'model', reason: /control character U\+0007/ });
  });

  it('VLMEvalKit JSON with "prediction": 7 is refused', async () => {
    const recs = rowsOf(2).map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
    (recs[1] as Record<string, unknown>).prediction = 7;
    const p = scratch.write('num/M_Video-MME_8frame.json', JSON.stringify(recs, null, 1));
    await expectImportError(readImport(p), { file: 'M_Video-MME_8frame.json', line: 10, field: 'prediction', reason: /expected text, got the number 7/ });
  });

  it('a 0-byte file and a header-only TSV are refused', async () => {
    const empty = scratch.write('empty/M_Video-MME_8frame.tsv', '');
    await expectImportError(readImport(empty), { file: 'M_Video-MME_8frame.tsv', line: 0, field: '', reason: /empty file/ });
    await expectImportError(readImport(empty, { format: 'vlmevalkit' }), { file: 'M_Video-MME_8frame.tsv', line: 0, field: '', reason: /empty file/ });
    const headerOnly = scratch.write('empty/M_Video-MME_16frame.tsv', `${COLUMNS.join('\t')}\n`);
    await expectImportError(readImport(headerOnly), { file: 'M_Video-MME_16frame.tsv', line: 0, field: '', reason: /no prediction rows/ });
  });

  it('a textonly row with frame_indices is refused', async () => {
    const header =
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence,margin,latency_s,frame_indices,score';
    const p = scratch.write('textonly/per_item.csv', `${header}\na,M,S,16f,16,,A,A,1,,,,,,0 5 9,\na,M,S,textonly,0,0,A,A,1,,,,,,0 5 9,\n`);
    await expectImportError(readImport(p), { file: 'textonly/per_item.csv', line: 3, field: 'frame_indices', reason: /textonly sees no frames/ });
  });

  it('a refusal quoting a huge value is cut to a bounded length', async () => {
    const huge = 'x'.repeat(200_000);
    const p = scratch.write('huge/M_Video-MME_8frame.tsv', tsvText([[0, 'q-0', 'v', "['A. 1', 'B. 2']", huge, 'A']]));
    const err = await expectImportError(readImport(p), { file: 'M_Video-MME_8frame.tsv', line: 2, field: 'answer', reason: /neither a letter nor one of the options/ });
    expect(err.message.length).toBeLessThan(2000);
    expect(err.message).toMatch(/more characters cut\)/);
  });
});

describe('UTF-8 byte-order mark', () => {
  it('is accepted by every JSON reader (results JSON, VLMEvalKit JSON, lmms-eval results.json, bundle codebook)', async () => {
    const recs = rowsOf(2).map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
    const vj = scratch.write('bom/M_Video-MME_8frame.json', BOM + JSON.stringify(recs));
    expect(await detectFormat(vj)).toBe('vlmevalkit');
    expect((await readImport(vj))[0]!.responses).toHaveLength(2);

    const vm = scratch.write(
      'bom/MyModel_videomme_16f.json',
      BOM +
        JSON.stringify([
          {
            video_id: '001',
            duration: 'short',
            domain: 'd',
            sub_category: 's',
            videoID: 'v1',
            questions: [{ question_id: '001-1', task_type: 't', question: 'q?', options: ['A. x', 'B. y'], answer: 'A', response: 'A' }],
          },
        ]),
    );
    expect(await detectFormat(vm)).toBe('videomme-results');
    expect((await readImport(vm))[0]!.responses).toHaveLength(1);

    const dir = 'bom/lmms';
    scratch.write(
      `${dir}/20250101_120000_results.json`,
      BOM + JSON.stringify({ config: { model: 'llava_vid', model_args: 'pretrained=/x/Toy-7B,max_frames_num=8' }, model_name: '/x/Toy-7B' }),
    );
    const line = JSON.stringify({
      doc_id: 0,
      doc: { question_id: 'q1', answer: 'A' },
      target: 'A',
      filtered_resps: ['A'],
      resps: [['A']],
      videomme_perception_score: { question_id: 'q1', duration: 'short', pred_answer: 'A', answer: 'A' },
    });
    const log = scratch.write(`${dir}/20250101_120000_samples_videomme.jsonl`, `${line}\n`);
    const [b] = await readImport(log);
    expect(b!.configs.map((c) => c.key)).toEqual(['8f']);

    scratch.write('bom/bundle/annotations/codebook.json', BOM + JSON.stringify({ id: null }));
    scratch.write('bom/bundle/annotations/events.jsonl', '');
    await expect(readBundle(scratch.path('bom/bundle'))).resolves.toBeTruthy();
  });

  it('a non-JSON file still gets a located refusal', async () => {
    const p = scratch.write('bom/bad.json', `${BOM}[{"prediction": "A",]`);
    await expect(readImport(p, { format: 'vlmevalkit' })).rejects.toBeInstanceOf(ImportError);
  });
});
