/**
 * A damaged VLMEvalKit xlsx is refused before ExcelJS reads it, naming the file and the part
 * (docs/formats.md "Damaged input", "xlsx"): a file that is no zip, a workbook without a
 * worksheet, a worksheet or the shared strings cut short, and parts ExcelJS cannot read.
 */
import ExcelJS from 'exceljs';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVlmEvalKit } from '../../../electron/importers/vlmevalkit';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const NAME = 'M_Video-MME_8frame.xlsx';
let parts: Record<string, Uint8Array> = {};
const write = (p: Record<string, Uint8Array>): string => scratch.freshFile(NAME, zipSync(p));
const text = (s: string) => strToU8(s);

// Written once; each test takes a copy of its parts (the fixture, not the code under test).
beforeAll(async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  ws.addRow(['index', 'question', 'answer', 'prediction', 'candidates']);
  ws.addRow([0, 'what colour?', 'A', 'A', "['red', 'blue']"]);
  const good = scratch.path('good.xlsx');
  await wb.xlsx.writeFile(good);
  parts = unzipSync(readFileSync(good));
});

describe('a damaged xlsx', () => {
  it('reads the intact workbook', async () => {
    const b = await readVlmEvalKit(write({ ...parts }));
    expect(b.responses.map((r) => [r.pred, r.correct])).toEqual([['A', true]]);
  });

  it('refuses a file that is no zip, and a workbook without a worksheet', async () => {
    await expectImportError(readVlmEvalKit(scratch.freshFile(NAME, 'not a zip at all')), {
      file: NAME,
      line: 0,
      field: '',
      reason: /^damaged xlsx \(not a readable zip\): /,
    });
    const noSheet = Object.fromEntries(Object.entries(parts).filter(([k]) => !k.startsWith('xl/worksheets/')));
    await expectImportError(readVlmEvalKit(write(noSheet)), { file: NAME, line: 0, field: '', reason: /^damaged xlsx: no worksheet$/ });
  });

  it('refuses a worksheet or the shared strings cut short, naming the part and its root', async () => {
    const sheet = new TextDecoder().decode(parts['xl/worksheets/sheet1.xml']);
    await expectImportError(readVlmEvalKit(write({ ...parts, 'xl/worksheets/sheet1.xml': text(sheet.slice(0, -20)) })), {
      file: NAME,
      line: 0,
      field: '',
      reason: /^damaged xlsx: xl\/worksheets\/sheet1\.xml is cut short \(no closing <\/worksheet>\); re-export the file$/,
    });
    const strings = parts['xl/sharedStrings.xml'];
    expect(strings).toBeDefined();
    const sst = new TextDecoder().decode(strings);
    await expectImportError(readVlmEvalKit(write({ ...parts, 'xl/sharedStrings.xml': text(sst.slice(0, sst.lastIndexOf('<'))) })), {
      file: NAME,
      line: 0,
      field: '',
      reason: /^damaged xlsx: xl\/sharedStrings\.xml is cut short \(no closing <\/sst>\)/,
    });
    // A part with no element at all names no root.
    await expectImportError(readVlmEvalKit(write({ ...parts, 'xl/worksheets/sheet1.xml': text('<?xml version="1.0"?><!-- nothing -->') })), {
      file: NAME,
      line: 0,
      field: '',
      reason: /^damaged xlsx: xl\/worksheets\/sheet1\.xml is cut short; re-export the file$/,
    });
    // Trailing white space after the closing tag is no damage; a sheet in another folder is not a part.
    // A comment before the root is no element of it.
    const commented = sheet.replace(/^(<\?xml[^>]*\?>)?/, (decl) => `${decl}<!-- written by <b>hand</b> -->`);
    const spaced = { ...parts, 'xl/worksheets/sheet1.xml': text(`${commented}\n  \n`), 'xl/worksheets/sub/x.xml': text('<cut') };
    expect((await readVlmEvalKit(write(spaced))).responses).toHaveLength(1);
  });

  it('takes a part that is one empty element, and names what ExcelJS could not read', async () => {
    const empty = { ...parts, 'xl/sharedStrings.xml': text('<?xml version="1.0" encoding="UTF-8"?>\n<sst count="0"/>') };
    // The cells that pointed at shared strings now point at none: ExcelJS reads on, or fails with its own words.
    const r = await readVlmEvalKit(write(empty)).then(
      () => 'read',
      (e: unknown) => (e as Error).message,
    );
    expect(r).not.toMatch(/cut short/);
    const bad = { ...parts, 'xl/worksheets/sheet1.xml': text('<worksheet><sheetData><row r="1"><c r="A1" <<< /></row></sheetData></worksheet>') };
    await expectImportError(readVlmEvalKit(write(bad)), { file: NAME, line: 0, field: '', reason: /^unreadable xlsx: / });
  });
});
