import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const COLUMNS = ['index', 'video', 'duration', 'question_id', 'task_type', 'question', 'options', 'answer', 'prediction'];
const ROWS: (string | number)[][] = [
  [0, 'vidA', 'short', '001-1', 'Counting', 'How many?', "['A. 1', 'B. 2', 'C. 3', 'D. 4']", 'C', 'C. 3'],
  [1, 'vidA', 'short', '001-2', 'OCR', "What's written?", '["A. it\'s x", "B. y"]', 'A', 'The answer is (B)'],
];

async function xlsx(name: string, rows = ROWS, columns = COLUMNS): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  ws.addRow(columns);
  for (const r of rows) ws.addRow(r);
  const p = scratch.path(name);
  await wb.xlsx.writeFile(p);
  return p;
}

/** A field quoted as pandas' to_csv(sep='\t') quotes it: when it holds a tab, a quote or a line break, quotes doubled. */
const tsvField = (v: string | number): string => (/[\t"\r\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v));

function tsv(name: string, rows = ROWS, columns = COLUMNS): string {
  return scratch.write(name, [columns, ...rows].map((r) => r.map(tsvField).join('\t')).join('\n') + '\n');
}

describe('VLMEvalKit predictions', () => {
  it('reads xlsx with the budget from the dataset name', async () => {
    const p = await xlsx('Qwen2.5-VL-7B_Video-MME_64frame.xlsx');
    expect(await detectFormat(p)).toBe('vlmevalkit');
    const [b] = await readImport(p);
    expect(b!.configs.map((c) => [c.key, c.frames, c.toolkit])).toEqual([['64f', 64, 'vlmevalkit']]);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct, r.line])).toEqual([
      ['Qwen2.5-VL-7B', 'videomme', '001-1', 'C', true, 2],
      ['Qwen2.5-VL-7B', 'videomme', '001-2', 'B', false, 3],
    ]);
    expect(b!.items[1]).toMatchObject({ options: ["it's x", 'y'], question: "What's written?", videoFile: 'vidA.mp4', durationBucket: 'short' });
  });

  it('reads tsv and json (records and pandas column layout) the same way', async () => {
    const t = tsv('M_Video-MME_16frame.tsv');
    const recs = ROWS.map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]])));
    const j = scratch.write('M_Video-MME_16frame.json', JSON.stringify(recs));
    const cols = Object.fromEntries(COLUMNS.map((c, i) => [c, Object.fromEntries(ROWS.map((r, k) => [String(k), r[i]]))]));
    const jc = scratch.write('cols/M_Video-MME_16frame.json', JSON.stringify(cols));
    for (const p of [t, j, jc]) {
      expect(await detectFormat(p)).toBe('vlmevalkit');
      const [b] = await readImport(p);
      expect(b!.responses.map((r) => [r.sampleId, r.config, r.pred, r.correct])).toEqual([
        ['001-1', '16f', 'C', true],
        ['001-2', '16f', 'B', false],
      ]);
    }
  });

  it('fps budgets: frames unknown, so --config is required and the fps is recorded', async () => {
    const p = tsv('M_Video-MME_1fps.tsv');
    await expectImportError(readImport(p), { file: 'M_Video-MME_1fps.tsv', line: 0, field: 'config', reason: /1 fps/ });
    const [b] = await readImport(p, { config: '64f' });
    expect(b!.configs[0]).toMatchObject({ key: '64f', sampling: { fps: 1 } });
    expect(b!.warnings.join()).toMatch(/frame count per video is unknown/);
  });

  it('rejects a missing column, a malformed row, a bad answer and a duplicate with a different prediction', async () => {
    await expectImportError(
      readImport(
        tsv(
          'a/M_D_8frame.tsv',
          ROWS.map((r) => r.slice(0, 8)),
          COLUMNS.slice(0, 8),
        ),
      ),
      { file: 'M_D_8frame.tsv', line: 1, field: 'prediction' },
    );
    const mal = scratch.write('b/M_D_8frame.tsv', `${COLUMNS.join('\t')}\n0\tv\n`);
    await expectImportError(readImport(mal), { file: 'M_D_8frame.tsv', line: 2, field: '' });
    const badAnswer = ROWS.map((r) => [...r]);
    badAnswer[1]![7] = 'Z-option';
    await expectImportError(readImport(await xlsx('M_D_8frame.xlsx', badAnswer)), { file: 'M_D_8frame.xlsx', line: 3, field: 'answer' });
    const dup = [...ROWS, [2, 'vidA', 'short', '001-1', 'Counting', 'How many?', "['A. 1', 'B. 2']", 'C', 'A']];
    await expectImportError(readImport(tsv('c/M_D_8frame.tsv', dup)), { file: 'M_D_8frame.tsv', line: 4, field: 'prediction', reason: /duplicate key/ });
  });
});
