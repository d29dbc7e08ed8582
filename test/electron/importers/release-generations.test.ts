/**
 * A release's labels/generations.csv (docs/release-format.md "labels/items.csv and
 * labels/generations.csv"): each open-ended cell's generated text joins its per_item.csv cell;
 * a row naming no cell, a cell twice, a cell that is not open-ended, or text that contradicts
 * the cell is refused naming the line and field.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const PER_ITEM =
  [
    'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,score',
    'q1,M,MLVU_gen,16f,16,,,,,t,,0.5',
    'q2,M,MLVU_gen,16f,16,,,,,t,,0.25',
    'q1,M,MLVU_gen,8f,8,,A,,,t,,1',
    'm1,M,V1_short,16f,16,,B,B,1,t,,',
    'm2,M,V1_short,16f,16,,B,B,1,t,,1',
  ].join('\n') + '\n';
const HEADER = 'sample_id,model,split,config,text';

function release(generations: string): string {
  const dir = scratch.freshDir();
  scratch.write(`${dir}/labels/per_item.csv`, PER_ITEM);
  scratch.write(`${dir}/labels/generations.csv`, `${HEADER}\n${generations}`);
  return scratch.path(dir);
}

describe('labels/generations.csv', () => {
  it('gives each open-ended cell its text, leaving the others as per_item.csv has them', async () => {
    const [b] = await readImport(release('q1,M,MLVU_gen,16f,two\nq2,M,MLVU_gen,16f,two\nq1,M,MLVU_gen,8f,A\n'));
    expect(b!.responses.map((r) => [r.sampleId, r.config, r.pred, r.score, r.correct])).toEqual([
      ['q1', '16f', 'two', 0.5, null],
      ['q2', '16f', 'two', 0.25, null],
      ['q1', '8f', 'A', 1, null],
      ['m1', '16f', 'B', null, true],
      ['m2', '16f', 'B', 1, true],
    ]);
    // A column's texts are a table of distinct values.
    for (const c of b!.columns ?? []) expect(new Set(c.tables.pred.table).size, c.config).toBe(c.tables.pred.table.length);
    const [q] = await readImport(release('q1,M,MLVU_gen,16f,"a dog, running"\n'));
    expect(q!.responses[0]!.pred).toBe('a dog, running');
    // Only some cells of a column: the others keep no text.
    const [c] = await readImport(release('q2,M,MLVU_gen,16f,two\n'));
    expect(c!.responses.map((r) => r.pred)).toEqual([null, 'two', 'A', 'B', 'B']);
    // The table and index the store reads: each distinct text once, -1 for a cell without one.
    const tables = (x: typeof b, config: string, split: string) => {
      const col = x!.columns!.find((k) => k.config === config && k.split === split)!;
      return { table: col.tables.pred.table, index: [...col.tables.pred.index] };
    };
    expect(tables(b, '16f', 'MLVU_gen')).toEqual({ table: ['two'], index: [0, 0] });
    expect(tables(c, '16f', 'MLVU_gen')).toEqual({ table: ['two'], index: [-1, 0] });
    const [d] = await readImport(release('q1,M,MLVU_gen,16f,one\nq2,M,MLVU_gen,16f,two\n'));
    expect(tables(d, '16f', 'MLVU_gen')).toEqual({ table: ['one', 'two'], index: [0, 1] });
  });

  it('refuses a row naming no cell, a cell twice, a cell that is not open-ended, text that contradicts the cell, and empty text', async () => {
    const file = 'generations.csv';
    await expectImportError(readImport(release('q3,M,MLVU_gen,16f,x\n')), {
      file,
      line: 2,
      field: 'sample_id',
      reason: /^no labels\/per_item\.csv row for \(q3, M, MLVU_gen, 16f\)$/,
    });
    await expectImportError(readImport(release('q1,N,MLVU_gen,16f,x\n')), {
      file,
      line: 2,
      field: 'sample_id',
      reason: /^no labels\/per_item\.csv row for \(q1, N, MLVU_gen, 16f\)$/,
    });
    await expectImportError(readImport(release('q1,M,MLVU_gen,16f,x\nq1,M,MLVU_gen,16f,x\n')), {
      file,
      line: 3,
      field: 'sample_id',
      reason: /^\(q1, M, MLVU_gen, 16f\) is listed twice$/,
    });
    await expectImportError(readImport(release('m1,M,V1_short,16f,B\n')), {
      file,
      line: 2,
      field: 'config',
      reason: /^\(m1, M, V1_short, 16f\) is not an open-ended cell in labels\/per_item\.csv \(it needs a score and no correct\)$/,
    });
    // A cell with a score and a correctness is a closed one.
    await expectImportError(readImport(release('m2,M,V1_short,16f,B\n')), { file, line: 2, field: 'config', reason: /^\(m2, M, V1_short, 16f\) is not an open-ended cell/ });
    await expectImportError(readImport(release('q1,M,MLVU_gen,8f,a cat\n')), {
      file,
      line: 2,
      field: 'text',
      reason: /^contradicts labels\/per_item\.csv's predicted_option for \(q1, M, MLVU_gen, 8f\)$/,
    });
    await expectImportError(readImport(release('q1,M,MLVU_gen,16f,\n')), { file, line: 2, field: 'text', reason: /empty generated text/ });
  });
});
