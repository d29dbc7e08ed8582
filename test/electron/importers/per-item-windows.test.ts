// A small per_item.csv read every way — inline, in windows of a few bytes or rows, on the scan
// thread — gives one batch (electron/importers/per-item-sources.ts, per-item-scan.ts): small
// files, so the mutation run keeps these (docs/testing.md); per-item-scan.test.ts crosses the
// scan thread's read blocks with files of megabytes.
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import { Scratch, expectImportError } from './helpers';
import { HEADER, ON_THREAD, bothWays, rows } from './per-item-files';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('a small per_item.csv, every way', () => {
  it('reads a small file as the reader does on its own thread, digest included', async () => {
    const text = `${HEADER}\n${rows(5).join('\n')}\n`;
    const p = scratch.write('small/per_item.csv', text);
    const b = await bothWays(p);
    expect(b.run.sha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(b.responses).toHaveLength(30);
    expect(b.responses[0]).toMatchObject({ sampleId: 'item-000000', model: 'M1', config: 'textonly', pred: 'A', correct: true, line: 2 });
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
