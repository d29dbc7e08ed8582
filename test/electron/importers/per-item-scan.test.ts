// A large per_item.csv is read, hashed and tokenized on a scan thread while the reader's thread
// takes its rows (electron/importers/per-item-scan.ts); a smaller one is read a window at a time
// on the reader's thread. These tests force each path on small and multi-block files (the
// fourth argument of readPerItemCsv: the size from which the thread is used; the fifth: the
// window's size) and check that all give the same batch and the same refusals — including the
// cases that only reading in parts can get wrong: a record cut by a read block or a window, a
// quoted line break across one, a record longer than a window, values seen again in a later
// window, and a damaged file whose first row error comes before the damage is read.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import { BLOCK, RING_SLOTS } from '../../../electron/importers/per-item-scan-protocol';
import { CHUNK_ROWS } from '../../../electron/importers/csv-tokenize';
import type { ImportBatch } from '../../../shared/domain/types';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
const ON_THREAD = 0;
const INLINE = Number.POSITIVE_INFINITY;

const CONFIGS: [string, number, number][] = [
  ['textonly', 0, 0],
  ['16f_151k', 16, 150528],
  ['32f_151k', 32, 150528],
];

/** Rows of `items` items × 2 models × 3 configs; item i answers letter i % 4, model M2 is wrong on every 3rd. */
function rows(items: number, from = 0): string[] {
  const out: string[] = [];
  for (const model of ['M1', 'M2']) {
    for (let i = from; i < from + items; i++) {
      const gt = 'ABCD'[i % 4]!;
      for (const [key, frames, pixels] of CONFIGS) {
        const wrong = model === 'M2' && i % 3 === 0 && key !== 'textonly';
        const pred = wrong ? 'ABCD'[(i + 1) % 4]! : gt;
        out.push(`item-${String(i).padStart(6, '0')},${model},V1_short,${key},${frames},${pixels},${pred},${gt},${wrong ? 0 : 1},official:${model}:V1_short:${key},`);
      }
    }
  }
  return out;
}

/** A batch as plain data, for comparing two reads of one file. */
function plain(b: ImportBatch): unknown {
  return { run: b.run, items: b.items, configs: b.configs, warnings: b.warnings, responses: b.responses };
}

/** Windows of a few bytes (every record longer than one: the window grows) and of a few rows. */
const WINDOWS = [64, 777];

async function bothWays(path: string): Promise<ImportBatch> {
  const inline = await readPerItemCsv(path, {}, path, INLINE);
  const scanned = await readPerItemCsv(path, {}, path, ON_THREAD);
  expect(plain(scanned)).toEqual(plain(inline));
  for (const w of WINDOWS) expect(plain(await readPerItemCsv(path, {}, path, INLINE, w))).toEqual(plain(inline));
  return scanned;
}

/** The refusal of each path (the default window, small windows, the scan thread): one message. */
async function refusedAlike(path: string, where: Parameters<typeof expectImportError>[1]): Promise<void> {
  const inline = await expectImportError(readPerItemCsv(path, {}, path, INLINE), where);
  for (const w of WINDOWS) expect((await expectImportError(readPerItemCsv(path, {}, path, INLINE, w), where)).message).toBe(inline.message);
  expect((await expectImportError(readPerItemCsv(path, {}, path, ON_THREAD), where)).message).toBe(inline.message);
}

describe('per_item.csv on the scan thread', () => {
  it('reads a small file as the reader does on its own thread, digest included', async () => {
    const text = `${HEADER}\n${rows(5).join('\n')}\n`;
    const p = scratch.write('small/per_item.csv', text);
    const b = await bothWays(p);
    expect(b.run.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(b.responses).toHaveLength(30);
    expect(b.responses[0]).toMatchObject({ sampleId: 'item-000000', model: 'M1', config: 'textonly', pred: 'A', correct: true, line: 2 });
  });

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

  it('reads a BOM, CRLF line ends, blank lines and quoted fields across windows, and values met again in later windows', async () => {
    const quoted = (i: number): string => `q-${i},M1,V1_short,32f_151k,32,150528,B,B,1,"tag, ${i}","two\r\nlines"`;
    // In the second block a column's source tag changes from cell to cell (`t0`, `t1`, `t2`).
    const varied = rows(300, 300).map((l, i) => l.replace(/official:[^,]+/, `t${i % 3}`));
    const lines = [...rows(300), quoted(1), '', ...varied, quoted(2), ...rows(5, 0).map((l) => l.replace('M1', 'M3'))];
    const text = `\ufeff${HEADER}\r\n${lines.join('\r\n')}\r\n\r\n`;
    const p = scratch.write('windows/per_item.csv', text);
    const b = await bothWays(p);
    expect(b.run.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(b.responses.filter((r) => r.sampleId.startsWith('q-')).map((r) => [r.sourceTag, r.protocolNote])).toEqual([
      ['tag, 1', 'two\r\nlines'],
      ['tag, 2', 'two\r\nlines'],
    ]);
    expect(b.responses.at(-1)).toMatchObject({ sampleId: 'item-000004', model: 'M3', config: '32f_151k', line: 3621 });
    expect(b.warnings.join('\n')).toMatch(/15 repeated identical row/);
    expect(b.responses.filter((r) => r.sampleId === 'item-000301').map((r) => r.sourceTag)).toEqual(['t0', 't1', 't2', 't0', 't1', 't2']);
  });

  it('an empty file and a header without rows', async () => {
    const empty = scratch.write('empty/per_item.csv', '\n\n');
    await expectImportError(readPerItemCsv(empty, {}, empty, ON_THREAD), { file: 'per_item.csv', line: 1, field: '', reason: /empty file/ });
    const headerOnly = scratch.write('header-only/per_item.csv', `${HEADER}\n`);
    expect((await bothWays(headerOnly)).responses).toEqual([]);
  });
});
