import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

/**
 * A column name given twice in a CSV / TSV / xlsx header is an error naming the column,
 * unless both copies hold the same value (docs/formats.md "Duplicated columns"). Before, the
 * reader silently took one copy (a second `prediction` column scored 0/12).
 */
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const COLUMNS = ['index', 'video', 'question_id', 'question', 'candidates', 'answer', 'prediction', 'prediction'];
const rows = (second: string[]): (string | number)[][] => [
  [0, 'vidA', '001-1', 'How many lamps?', "['1', '2', '3', '4']", 'C', 'C', second[0] as string],
  [1, 'vidA', '001-2', 'Which colour?', "['red', 'blue']", 'A', 'A', second[1] as string],
];

async function xlsx(name: string, body: (string | number)[][]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  ws.addRow(COLUMNS);
  for (const r of body) ws.addRow(r);
  const p = scratch.path(name);
  await wb.xlsx.writeFile(p);
  return p;
}

const tsv = (name: string, body: (string | number)[][]): string => scratch.write(name, [COLUMNS, ...body].map((r) => r.join('\t')).join('\n') + '\n');

describe('duplicated columns', () => {
  it('VLMEvalKit xlsx and tsv: two different `prediction` columns are rejected naming the column and row', async () => {
    const differ = rows(['C', 'B']);
    await expectImportError(readImport(await xlsx('M_Video-MME_8frame.xlsx', differ)), {
      file: 'M_Video-MME_8frame.xlsx',
      line: 3,
      field: 'prediction',
      reason: /duplicated column "prediction" \(columns 7 and 8\) with different values: "A" and "B"/,
    });
    await expectImportError(readImport(tsv('M_Video-MME_8frame.tsv', differ)), {
      file: 'M_Video-MME_8frame.tsv',
      line: 3,
      field: 'prediction',
      reason: /duplicated column "prediction"/,
    });
  });

  it('identical copies are read once', async () => {
    const same = rows(['C', 'A']);
    for (const p of [await xlsx('M_Video-MME_16frame.xlsx', same), tsv('same/M_Video-MME_8frame.tsv', same)]) {
      const [b] = await readImport(p);
      expect(b!.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([
        ['001-1', 'C', true],
        ['001-2', 'A', true],
      ]);
    }
  });

  it('wide CSV: a config column twice is read once when identical, rejected when not', async () => {
    const ok = scratch.write('w/M_S_predictions_wide.csv', 'sample_id,16f,32f,16f\n1,A,B,A\n2,C,D,C\n');
    const [b] = await readImport(ok);
    expect(b!.responses.map((r) => [r.sampleId, r.config, r.pred])).toEqual([
      ['1', '16f', 'A'],
      ['1', '32f', 'B'],
      ['2', '16f', 'C'],
      ['2', '32f', 'D'],
    ]);
    const bad = scratch.write('x/M_S_predictions_wide.csv', 'sample_id,16f,32f,16f\n1,A,B,A\n2,C,D,B\n');
    await expectImportError(readImport(bad), { file: 'M_S_predictions_wide.csv', line: 3, field: '16f', reason: /duplicated column "16f"/ });
  });
});

describe('duplicated columns in a per_item.csv', () => {
  const head = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,predicted_option';
  const row = (second: string) => `001-1,M,V1_short,16f_151k,16,150528,B,B,1,,,${second}`;
  it('identical copies are read once', async () => {
    const [b] = await readImport(scratch.write('same/per_item.csv', `${head}\n${row('B')}\n`));
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([['001-1', 'B', true]]);
  });
  it('copies that differ are rejected naming the column and line', async () => {
    await expectImportError(readImport(scratch.write('differ/per_item.csv', `${head}\n${row('C')}\n`)), {
      file: 'per_item.csv',
      line: 2,
      field: 'predicted_option',
      reason: /duplicated column "predicted_option" \(columns 7 and 12\) with different values: "B" and "C"/,
    });
  });
});
