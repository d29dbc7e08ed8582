/**
 * The per_item.csv reader's small parts on their own (docs/release-format.md "labels/per_item.csv",
 * docs/formats.md "Damaged input"): the header's columns, the refusals of a truncated or
 * non-UTF-8 file as a whole, and the byte comparison and growable arrays of its row code.
 */
import { describe, expect, it } from 'vitest';
import { Header } from '../../../electron/importers/header';
import { dataView, grow32, grow8, growF64, same } from '../../../electron/importers/per-item-bytes';
import { refuseDamaged, refuseTruncated } from '../../../electron/importers/per-item-damage';
import { PER_ITEM_OPTIONAL, PER_ITEM_REQUIRED, readHeader } from '../../../electron/importers/per-item-header';
import { refusalOf, whereOf } from './helpers';

const REQUIRED = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';

describe('readHeader', () => {
  it('places each column, the optional ones at -1 when absent, a repeated one at its first copy', () => {
    expect(PER_ITEM_REQUIRED.join(',')).toBe(REQUIRED);
    expect(PER_ITEM_OPTIONAL).toEqual(['confidence', 'margin', 'latency_s', 'frame_indices', 'score']);
    const idx = readHeader('p.csv', new Header(['latency_s', ...REQUIRED.split(','), 'model'], 'p.csv'));
    expect(idx).toEqual({
      confidence: -1,
      margin: -1,
      latency_s: 0,
      frame_indices: -1,
      score: -1,
      sample_id: 1,
      model: 2,
      split: 3,
      config: 4,
      frame_count: 5,
      pixel_count: 6,
      predicted_option: 7,
      ground_truth_option: 8,
      correct: 9,
      source_tag: 10,
      protocol_note: 11,
    });
  });

  it('refuses an unknown column, naming it and its position, and a missing required one', () => {
    expect(whereOf(refusalOf(() => readHeader('runs/per_item.csv', new Header([...REQUIRED.split(','), 'extra'], 'f'))))).toEqual([
      'runs/per_item.csv',
      1,
      'extra',
      `unknown header "extra" (column 12); per_item.csv takes ${REQUIRED.split(',').join(', ')} and optionally confidence, margin, latency_s, frame_indices, score`,
    ]);
    for (const missing of REQUIRED.split(',')) {
      const cols = REQUIRED.split(',').filter((c) => c !== missing);
      expect(whereOf(refusalOf(() => readHeader('runs/per_item.csv', new Header(cols, 'f')))), missing).toEqual([
        'runs/per_item.csv',
        1,
        missing,
        `missing required header "${missing}"`,
      ]);
    }
  });
});

describe('refuseTruncated and refuseDamaged', () => {
  const header = `\uFEFF${REQUIRED}\r\n`;

  it('takes a file that ends in a line break, an empty one, and one whose last line is blank', () => {
    for (const text of ['', `${header}a,b\n`, `${header}a,b\n   `, `${REQUIRED}\n`]) expect(() => refuseTruncated(Buffer.from(text), 'p.csv'), JSON.stringify(text)).not.toThrow();
  });

  it('refuses a file cut inside its last row, naming the row and the column it stops in', () => {
    const cut = (rest: string) => whereOf(refusalOf(() => refuseTruncated(Buffer.from(`${header}r1,M\n${rest}`), 'runs/per_item.csv')));
    const reason = 'the file ends inside this row (no line break after it): a truncated copy? Nothing was imported; copy or export the file again';
    expect(cut('r2,M,V1_short,16f_1')).toEqual(['runs/per_item.csv', 3, 'config', reason]);
    expect(cut('r2')).toEqual(['runs/per_item.csv', 3, 'sample_id', reason]);
    expect(cut('r2,M,V1,c,1,2,A,A,1,t,note,9,9')).toEqual(['runs/per_item.csv', 3, 'protocol_note', reason]);
    // A comma inside quotes does not end a field.
    expect(cut('r2,"M, x",V1')[2]).toBe('split');
    expect(cut('r2,"M, x"",y",V1,c,1,2,A,A,1,t,note,9,9,9')[2]).toBe('protocol_note');
    // Only a header, cut: its own columns name it.
    expect(whereOf(refusalOf(() => refuseTruncated(Buffer.from('sample_id,mod'), 'p.csv')))).toEqual(['p.csv', 1, '', reason]);
  });

  it('refuses a truncated file before one that is not UTF-8, and names the bad byte otherwise', () => {
    const bad = Buffer.concat([Buffer.from(`${REQUIRED}\nr1,M`), Buffer.from([0xff]), Buffer.from(',V1\n')]);
    expect(whereOf(refusalOf(() => refuseDamaged(bad, 'p.csv'))).slice(0, 3)).toEqual(['p.csv', 2, 'model']);
    const both = bad.subarray(0, bad.length - 1);
    expect(refusalOf(() => refuseDamaged(both, 'p.csv')).reason).toMatch(/^the file ends inside this row/);
    expect(() => refuseDamaged(Buffer.from(`${REQUIRED}\nr1\n`), 'p.csv')).not.toThrow();
  });
});

describe('per-item-bytes', () => {
  it('compares byte ranges of any length and offset', () => {
    const buf = Buffer.from('abcdefghij-abcdefghij-abcdefghiX');
    const dv = dataView(buf.subarray(0));
    for (let n = 0; n <= 10; n++) expect(same(dv, 0, 11, n), `length ${n}`).toBe(true);
    expect([same(dv, 0, 22, 9), same(dv, 0, 22, 10), same(dv, 1, 23, 8), same(dv, 1, 23, 9)]).toEqual([true, false, true, false]);
    // A difference in the first word, and in the bytes after the last whole word.
    expect([same(dv, 0, 1, 4), same(dv, 0, 11, 4), same(dataView(Buffer.from('aaaabaaaac')), 0, 5, 5)]).toEqual([false, true, false]);
    const inner = dataView(Buffer.from('xxabab').subarray(2));
    expect(same(inner, 0, 2, 2)).toBe(true);
  });

  it('grows an array to hold an index, at least doubling, keeping its values and filling the rest', () => {
    const a = Int32Array.from([1, 2, 3]);
    expect(grow32(a, 2)).toBe(a);
    expect([...grow32(a, 3)]).toEqual([1, 2, 3, 0, 0, 0]);
    expect([...grow32(a, 3, -1)]).toEqual([1, 2, 3, -1, -1, -1]);
    expect(grow32(a, 9).length).toBe(10);
    const b = Int8Array.from([5, 6]);
    expect(grow8(b, 1)).toBe(b);
    expect([...grow8(b, 2)]).toEqual([5, 6, 0, 0]);
    expect(grow8(b, 7).length).toBe(8);
    const c = Float64Array.from([0.5]);
    expect(growF64(c, 0)).toBe(c);
    expect([...growF64(c, 1)]).toEqual([0.5, 0]);
    expect(growF64(c, 4).length).toBe(5);
  });
});
