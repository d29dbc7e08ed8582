/**
 * How a VLMEvalKit xlsx is read: every row of the first sheet with its shared strings resolved,
 * whatever order the zip stores its parts in and however slow the machine is, and nothing left
 * in os.tmpdir(), whether the import is taken or refused.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ExcelJS from 'exceljs';
import { unzipSync, zipSync } from 'fflate';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { tempDir } from '../../temp-dir';
import { expectImportError } from './helpers';

const dir = tempDir('flipbook-xlsx-tmp-');

const COLUMNS = ['index', 'video', 'duration', 'question_id', 'task_type', 'question', 'options', 'answer', 'prediction'];
const ROWS: (string | number)[][] = [
  [0, 'vidA', 'short', '001-1', 'Counting', 'How many?', "['A. 1', 'B. 2', 'C. 3', 'D. 4']", 'C', 'C. 3'],
  [1, 'vidA', 'short', '001-2', 'OCR', "What's written?", "['A. x', 'B. y']", 'A', 'B'],
  [2, 'vidA', 'short', '001-3', 'OCR', 'Which?', "['A. x', 'B. y']", 'B', 'B'],
];

// ExcelJS's temp files go to os.tmpdir(), which follows TMPDIR: a fresh folder per test, watched.
let watched = '';
let savedTmp: string | undefined;
let n = 0;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  watched = path.join(dir, `tmp-${++n}`);
  fs.mkdirSync(watched);
  process.env.TMPDIR = watched;
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

/**
 * The names left in the watched folder once ExcelJS's removal settled: it deletes its temp file
 * asynchronously (tmp's cleanup callback, not awaited), so wait up to 10 s for the folder to empty.
 */
async function leftInTmp(): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  let left = fs.readdirSync(watched);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = fs.readdirSync(watched);
  }
  return left;
}

/** An xlsx written by ExcelJS (worksheets before the shared strings in the zip) with these sheets. */
async function xlsx(name: string, sheets: (string | number)[][][]): Promise<string> {
  const wb = new ExcelJS.Workbook();
  sheets.forEach((rows, i) => {
    const ws = wb.addWorksheet(`Sheet${i + 1}`);
    for (const r of rows) ws.addRow(r);
  });
  const p = path.join(dir, `${n}`, name);
  fs.mkdirSync(path.dirname(p), { recursive: true });
  await wb.xlsx.writeFile(p);
  return p;
}

describe('xlsx import temp files', () => {
  it('an imported xlsx leaves no temp file', async () => {
    const p = await xlsx('M_Video-MME_8frame.xlsx', [[COLUMNS, ...ROWS]]);
    const [b] = await readImport(p);
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.line])).toEqual([
      ['001-1', 'C', 2],
      ['001-2', 'B', 3],
      ['001-3', 'B', 4],
    ]);
    expect(await leftInTmp()).toEqual([]);
  });

  it('an xlsx refused at a row in the middle leaves no temp file', async () => {
    const bad = ROWS.map((r) => [...r]);
    bad[1]![7] = 'Z-option';
    const p = await xlsx('M_Video-MME_8frame.xlsx', [[COLUMNS, ...bad]]);
    await expectImportError(readImport(p), { file: 'M_Video-MME_8frame.xlsx', line: 3, field: 'answer' });
    expect(await leftInTmp()).toEqual([]);
  });

  it('an xlsx refused at its header (a column twice, with different values) leaves no temp file', async () => {
    const p = await xlsx('M_Video-MME_8frame.xlsx', [[[...COLUMNS, 'prediction'], ...ROWS.map((r) => [...r, 'D'])]]);
    await expectImportError(readImport(p), { file: 'M_Video-MME_8frame.xlsx', line: 2, field: 'prediction' });
    expect(await leftInTmp()).toEqual([]);
  });
});

describe('xlsx entry order', () => {
  it('a worksheet stored after the shared strings but before xl/workbook.xml is read', async () => {
    // Zip writers order entries as they finish (ExcelJS's own, under load, wrote this order):
    // ExcelJS's reader then reads the sheet at once and looked up sheet names in a workbook it
    // had not read yet ("Cannot read properties of undefined (reading 'sheets')").
    const p = await xlsx('M_Video-MME_8frame.xlsx', [[COLUMNS, ...ROWS]]);
    const parts = unzipSync(fs.readFileSync(p));
    const first = ['[Content_Types].xml', '_rels/.rels', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml', 'xl/worksheets/sheet1.xml'];
    const ordered: Record<string, Uint8Array> = {};
    for (const name of first) ordered[name] = parts[name]!;
    for (const [name, bytes] of Object.entries(parts)) if (!(name in ordered)) ordered[name] = bytes;
    expect(Object.keys(ordered).indexOf('xl/workbook.xml')).toBeGreaterThan(Object.keys(ordered).indexOf('xl/worksheets/sheet1.xml'));
    fs.writeFileSync(p, zipSync(ordered));
    const [b] = await readImport(p);
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.line])).toEqual([
      ['001-1', 'C', 2],
      ['001-2', 'B', 3],
      ['001-3', 'B', 4],
    ]);
  });
});

describe('xlsx on a slow machine', () => {
  it('resolves the shared strings when a temp file is slow to create', async () => {
    // ExcelJS's streaming reader copied a worksheet stored before the shared strings (its own
    // writer's order) into a temp file; when creating it took longer than the rest of the zip
    // took to arrive (a loaded machine), the sheet was read with no shared strings and every
    // text cell came back as {sharedString: i}. A 20 ms delay made that happen every time.
    const tmp = createRequire(createRequire(import.meta.url).resolve('exceljs'))('tmp') as { file: (...a: unknown[]) => void };
    const file = tmp.file;
    const slow = vi.spyOn(tmp, 'file').mockImplementation((...a: unknown[]) => {
      setTimeout(() => file(...a), 20);
    });
    try {
      const p = await xlsx('M_Video-MME_8frame.xlsx', [[COLUMNS, ...ROWS]]);
      for (let i = 0; i < 3; i++) {
        const [b] = await readImport(p);
        expect(b!.items.map((it) => [it.sampleId, it.question, it.answer])).toEqual([
          ['001-1', 'How many?', 'C'],
          ['001-2', "What's written?", 'A'],
          ['001-3', 'Which?', 'B'],
        ]);
        expect(b!.responses.map((r) => [r.sampleId, r.pred, r.line])).toEqual([
          ['001-1', 'C', 2],
          ['001-2', 'B', 3],
          ['001-3', 'B', 4],
        ]);
      }
    } finally {
      slow.mockRestore();
    }
  });

  it('reads the first sheet of several, all of its rows', async () => {
    const many = Array.from({ length: 400 }, (_, i) => [i, `vid${i}`, 'short', `${i}`, 'OCR', `Question ${i}?`, "['A. x', 'B. y']", 'A', i % 3 ? 'A' : 'B']);
    const p = await xlsx('M_Video-MME_8frame.xlsx', [
      [COLUMNS, ...many],
      [COLUMNS, ...ROWS],
    ]);
    const [b] = await readImport(p);
    expect(b!.responses.length).toBe(400);
    expect(b!.items[399]).toMatchObject({ sampleId: '399', question: 'Question 399?' });
    expect(b!.responses[398]).toMatchObject({ sampleId: '398', pred: 'A', line: 400 });
    expect(await leftInTmp()).toEqual([]);
  });
});
