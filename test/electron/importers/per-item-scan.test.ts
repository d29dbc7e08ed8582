// A large per_item.csv is read, hashed and tokenized on a scan thread while the reader's thread
// takes its rows (electron/importers/per-item-scan.ts); a smaller one is read a window at a time
// on the reader's thread. These tests force each path on multi-block files (the
// fourth argument of readPerItemCsv: the size from which the thread is used; the fifth: the
// window's size; small files: per-item-windows.test.ts) and check that all give the same batch
// and the same refusals — including the
// cases that only reading in parts can get wrong: a record cut by a read block or a window, a
// quoted line break across one, a record longer than a window, values seen again in a later
// window, and a damaged file whose first row error comes before the damage is read.
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import { BLOCK, RING_SLOTS } from '../../../electron/importers/per-item-scan-protocol';
import { CHUNK_ROWS } from '../../../electron/importers/csv-tokenize';
import { Scratch, expectImportError } from './helpers';
import { HEADER, ON_THREAD, bothWays, refusedAlike, rows } from './per-item-files';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('per_item.csv on the scan thread', () => {
  it('reads a file of several read blocks, with a quoted line break across a block boundary', async () => {
    // Over two read blocks. A filler row's note is sized so that the quoted note's line
    // break is the last line break the first block holds, and its closing quote is in the
    // second: the first block's records end before that row, not at that line break.
    const head = `${HEADER}\n${rows(1500).join('\n')}\n`;
    const quotedRow = `quoted-1,M1,V1_short,16f_151k,16,150528,A,A,1,official:M1:V1_short:16f_151k,"a note ""with"" a comma, and a line\nbreak past the block"`;
    const filler = (note: number): string => `filler-1,M1,V1_short,16f_151k,16,150528,A,A,1,t,${'x'.repeat(note)}\n`;
    const fill = BLOCK - 5 - head.length - quotedRow.indexOf('\n') - filler(0).length;
    expect(fill).toBeGreaterThan(0);
    const text = `${head}${filler(fill)}${quotedRow}\n${rows(10000, 40000).join('\n')}\n`;
    expect(text.indexOf('\nbreak past')).toBe(BLOCK - 5);
    expect(text.indexOf('block"', BLOCK - 5)).toBeGreaterThan(BLOCK);
    expect(text.length).toBeGreaterThan(2 * BLOCK);
    const p = scratch.write('blocks/per_item.csv', text);
    const b = await bothWays(p);
    expect(b.responses.find((r) => r.sampleId === 'quoted-1')?.protocolNote).toBe('a note "with" a comma, and a line\nbreak past the block');
    expect(b.responses.length).toBe(9000 + 1 + 1 + 60000);
  });

  it('refuses a bad row at the line the reader names', async () => {
    const lines = rows(3000);
    lines[5000] = 'item-x,M1,V1_short,16f_151k,16,150528,A,A,yes,t,';
    const p = scratch.write('bad-row/per_item.csv', `${HEADER}\n${lines.join('\n')}\n`);
    await refusedAlike(p, { file: 'per_item.csv', line: 5002, field: 'correct' });
  });

  it('an early bad row stops a scan thread that is waiting for ring slots, and the file is still checked to its end', async () => {
    // 180k rows: more than the ring holds (RING_SLOTS chunks of CHUNK_ROWS), so the thread is
    // blocked on a full ring when the reader refuses row 12; it must stop tokenizing, read
    // on to the end (a truncated or non-UTF-8 file would be refused as such) and finish.
    expect(180_000).toBeGreaterThan(RING_SLOTS * CHUNK_ROWS);
    const lines = rows(30_000);
    lines[10] = 'item-x,M1,V1_short,16f_151k,16,150528,A,A,yes,t,';
    const p = scratch.write('early-stop/per_item.csv', `${HEADER}\n${lines.join('\n')}\n`);
    await expectImportError(readPerItemCsv(p, {}, p, ON_THREAD), { file: 'per_item.csv', line: 12, field: 'correct' });
    const cut = scratch.write('early-stop-cut/per_item.csv', `${HEADER}\n${lines.join('\n')}\nitem-cut,M1,V1_sh`);
    const err = await expectImportError(readPerItemCsv(cut, {}, cut, ON_THREAD), { file: 'per_item.csv', line: 180_002, field: 'split' });
    expect(err.reason).toMatch(/truncated/);
  });

  it('refuses malformed quoting found by the scan thread, at its line', async () => {
    const lines = rows(3000);
    lines[9000] = 'item-q,M1,V1_short,16f_151k,16,150528,A,A,1,t,ab"c';
    const p = scratch.write('bad-quote/per_item.csv', `${HEADER}\n${lines.join('\n')}\n`);
    await refusedAlike(p, { file: 'per_item.csv', line: 9002, field: '', reason: /a quote inside an unquoted field/ });
    // A quoted field never closed: the thread holds back the rest of the file, then refuses it
    // at the end, naming the line where the field opened.
    lines[9000] = 'item-q,M1,V1_short,16f_151k,16,150528,A,A,1,t,"open';
    const q = scratch.write('open-quote/per_item.csv', `${HEADER}\n${lines.join('\n')}\n`);
    await refusedAlike(q, {
      file: 'per_item.csv',
      line: 9002,
      field: '',
      reason: /^malformed CSV: the quoted field opened on this line is not closed before the end of the file$/,
    });
  });

  it('a truncated copy is refused as truncated, not by the first bad row the reader met before the end', async () => {
    const lines = rows(20000);
    lines[10] = 'item-x,M1,V1_short,16f_151k,16,150528,A,A,yes,t,';
    const text = `${HEADER}\n${lines.join('\n')}\nitem-cut,M1,V1_short,16f_15`;
    const p = scratch.write('cut/per_item.csv', text);
    await refusedAlike(p, { file: 'per_item.csv', line: 120002, field: 'config', reason: /truncated/ });
    // Also when every row before the cut is good: the reader gets to the end, and still refuses it.
    const good = scratch.write('cut-good/per_item.csv', `${HEADER}\n${rows(20000).join('\n')}\nitem-cut,M1,V1_short,16f_15`);
    await refusedAlike(good, { file: 'per_item.csv', line: 120002, field: 'config', reason: /truncated/ });
  });

  it('invalid UTF-8 late in the file is refused before an earlier bad row', async () => {
    const lines = rows(20000);
    lines[10] = 'item-x,M1,V1_short,16f_151k,16,150528,A,A,yes,t,';
    const bytes = Buffer.from(`${HEADER}\n${lines.join('\n')}\nitem-\xff,M1,V1_short,16f_151k,16,150528,A,A,1,t,\n`, 'latin1');
    const p = scratch.write('utf8/per_item.csv', bytes);
    await refusedAlike(p, { file: 'per_item.csv', line: 120002, field: 'sample_id', reason: /invalid UTF-8/ });
  });
});
