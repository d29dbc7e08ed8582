/**
 * The per_item.csv importer hands its cells to the store column-wise (ImportBatch.columns);
 * every other importer hands rows. Both must land the same cells: the same file applied
 * through either representation gives the same summary and the same stored responses —
 * including overrides, an answer arriving later, a re-import and a conflicting file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportBatch } from '../../../shared/domain/types';
import { ImportError } from '../../../electron/importers/errors';
import { readImport } from '../../../electron/importers/index';
import type { ImportOverrides } from '../../../electron/store/import-apply';
import { openProject, type Project } from '../../../electron/store/index';
import { tempDir } from './helpers';

const HEADER =
  'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence,latency_s,frame_indices,score';
const ROWS = [
  '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M,,0.9,1.25,0 10 20,',
  '001-1,M,V1_short,textonly,0,0,C,C,1,official:M,note,,,,',
  '001-2,M,V1_short,16f_151k,16,150528,,,0,official:M,"fallback, note",,,,',
  '001-2,N,V1_short,16f_151k,16,150528,A,,1,official:N,,,,,',
  'q9,M,OE,16f_151k,16,150528,,,,t,,,,,0.42',
  '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M,,0.9,1.25,0 10 20,',
];

async function read(name: string, lines: string[]): Promise<ImportBatch> {
  const dir = tempDir();
  const file = path.join(dir, `${name}.csv`);
  fs.writeFileSync(file, `${HEADER}\n${lines.join('\n')}\n`);
  const [b] = await readImport(file, { format: 'per-item-csv' });
  return b!;
}

/** The same batch with its cells as rows only (what every other importer produces). */
function asRows(b: ImportBatch): ImportBatch {
  return { run: b.run, items: b.items, configs: b.configs, warnings: b.warnings, responses: b.responses };
}

function stored(p: Project): unknown[] {
  return [...p.iterateResponses()].map((r) => ({ ...r }));
}

function both(): [Project, Project] {
  return [openProject(path.join(tempDir(), 'a.flipbook'), { create: true }), openProject(path.join(tempDir(), 'b.flipbook'), { create: true })];
}

describe('column-wise import batches', () => {
  it('per_item.csv yields columns, and its rows in file order on demand', async () => {
    const b = await read('cols', ROWS);
    expect(b.columns?.map((c) => [c.model, c.split, c.config, c.length])).toEqual([
      ['M', 'V1_short', '16f_151k', 2],
      ['M', 'V1_short', 'textonly', 1],
      ['N', 'V1_short', '16f_151k', 1],
      ['M', 'OE', '16f_151k', 1],
    ]);
    expect(b.responses.map((r) => r.line)).toEqual([2, 3, 4, 5, 6]);
  });

  for (const [label, opts] of [
    ['as written', {}],
    ['with --split', { split: 'S' }],
  ] as [string, ImportOverrides][]) {
    it(`stores the same cells as the row path (${label}), and a re-import is a no-op`, async () => {
      const b = await read('same', ROWS);
      const [cols, rows] = both();
      try {
        const s1 = cols.applyImport(b, opts);
        const s2 = rows.applyImport(asRows(b), opts);
        expect(s1).toEqual(s2);
        expect(s1.responsesAdded).toBe(5);
        expect(stored(cols)).toEqual(stored(rows));
        for (const g of cols.listGrids()) expect(cols.loadMatrix(g.model, g.split)).toEqual(rows.loadMatrix(g.model, g.split));
        expect(cols.applyImport(b, opts)).toEqual(rows.applyImport(asRows(b), opts));
        expect(stored(cols)).toEqual(stored(rows));
      } finally {
        cols.close();
        rows.close();
      }
    });
  }

  it('a column larger than its tables is stored from the batch in place, which later files of the same import leave as read', async () => {
    // 12 cells of (M, V1_short, 16f_151k): more than its letter, tag and note tables hold, so
    // the new column keeps the batch's arrays as its cells (PendingCells.adopt);
    // (M, V1_short, textonly) has 3 cells and maps them instead.
    const letters = 'ABCD';
    const big = await read('big', [
      ...Array.from({ length: 12 }, (_, i) => {
        const id = `v${String(i).padStart(2, '0')}`;
        const conf = i % 3 === 0 ? '' : `0.${i + 1}`;
        const frames = i % 4 === 1 ? '0 8 16' : '';
        return `${id},M,V1_short,16f_151k,16,150528,${letters[i % 4]},${letters[(i + 1) % 4]},0,tag${i % 2},${i % 5 === 0 ? 'note' : ''},${conf},,${frames},`;
      }),
      ...Array.from({ length: 3 }, (_, i) => `v0${i},M,V1_short,textonly,0,0,${letters[i]},${letters[(i + 1) % 4]},0,tag0,,,,,`),
    ]);
    // Later files of the same import: one repeats v01 and gives v00 a confidence (cells this
    // import wrote are only repeated or contradicted, docs/formats.md), one adds a free-text
    // prediction (a row importer's) to the same column, which grows it and adds to its table.
    const later = await read('later', ['v00,M,V1_short,16f_151k,16,150528,A,B,0,tag0,note,0.75,,,', 'v01,M,V1_short,16f_151k,16,150528,B,C,0,tag1,,0.2,,0 8 16,']);
    const free: ImportBatch = {
      ...asRows(later),
      run: { ...later.run, sha256: 'f'.repeat(64), sourcePath: 'free.jsonl' },
      responses: [{ ...later.responses[0]!, sampleId: 'v99', pred: 'the second option', correct: false, confidence: null, line: 7 }],
    };
    const arrays = (b: ImportBatch): unknown =>
      b.columns!.map((c) => [c.correct, c.score, c.confidence, c.line, ...Object.values(c.tables).map((f) => f.index)].map((a) => Array.from(a)));
    const before = arrays(big);
    const [cols, rows] = both();
    try {
      const s1 = cols.applyImports([big, later, free]);
      const s2 = rows.applyImports([asRows(big), asRows(later), free]);
      expect(s1).toEqual(s2);
      expect(s1.responsesAdded).toBe(16);
      expect(stored(cols)).toEqual(stored(rows));
      for (const g of cols.listGrids()) expect(cols.loadMatrix(g.model, g.split)).toEqual(rows.loadMatrix(g.model, g.split));
      const cell = (id: string): unknown => cols.responsesForItem('M', 'V1_short', id).find((r) => r.config === '16f_151k');
      expect(cell('v05')).toMatchObject({ pred: 'B', frameIndices: [0, 8, 16], confidence: 0.6, sourceTag: 'tag1', protocolNote: 'note' });
      expect(cell('v99')).toMatchObject({ pred: 'the second option', correct: false });
      // The batch is as the reader made it (ResponseColumnBatch is read-only to the store)...
      expect(arrays(big)).toEqual(before);
      // ...and so are the reader's shared tables: the free text went into the column's own.
      const again = await read('again', ['x,M,V1_short,16f_151k,16,150528,A,,1,t,,,,,']);
      expect(again.columns![0]!.tables.pred.table).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
    } finally {
      cols.close();
      rows.close();
    }
  });

  it('a later file whose new cells lie between cells the project holds stores the same cells as the row path', async () => {
    const row = (id: string, pred: string, conf: string): string => `${id},M,V1_short,16f_151k,16,150528,${pred},A,${pred === 'A' ? 1 : 0},official:M,,${conf},,,`;
    const first = await read('first', [row('v01', 'A', ''), row('v03', 'B', ''), row('v05', 'C', '')]);
    // New cells at batch cells 0, 2, 3 and 5; cells 1 and 4 merge with stored ones (4 fills a confidence).
    const later = await read('later', [row('v00', 'A', '0.5'), row('v01', 'A', ''), row('v02', 'D', ''), row('v04', 'B', '0.25'), row('v05', 'C', '0.75'), row('v06', 'A', '')]);
    const [cols, rows] = both();
    try {
      cols.applyImport(first);
      rows.applyImport(asRows(first));
      const s1 = cols.applyImport(later);
      expect(s1).toEqual(rows.applyImport(asRows(later)));
      expect(s1).toMatchObject({ responsesAdded: 4, responsesUpdated: 1 });
      expect(stored(cols)).toEqual(stored(rows));
      const conf = (id: string): unknown => cols.responsesForItem('M', 'V1_short', id)[0]?.confidence;
      expect(['v00', 'v02', 'v04', 'v05', 'v06'].map(conf)).toEqual([0.5, null, 0.25, 0.75, null]);
    } finally {
      cols.close();
      rows.close();
    }
  });

  it('new cells between stored ones bring every field the stored column lacked, or add to the ones it has, like the row path', async () => {
    // frame_indices, latency_s and score per row; the first file's column has frames in one cell only.
    const row = (id: string, pred: string, extra: { conf?: string; latency?: string; frames?: string; note?: string } = {}): string =>
      `${id},M,V1_short,16f_151k,16,150528,${pred},A,${pred === 'A' ? 1 : 0},official:M,${extra.note ?? ''},${extra.conf ?? ''},${extra.latency ?? ''},${extra.frames ?? ''},`;
    const first = await read('first', [row('v01', 'A'), row('v03', 'B', { frames: '1 2' }), row('v05', 'C')]);
    const bare = await read('bare', [row('w01', 'A'), row('w03', 'B')]);
    // Merged: v01, v05 (and w01); new between them: with latency, frames, notes, none at all.
    const later = await read('later', [
      row('v00', 'A', { latency: '1.5', frames: '0 8' }),
      row('v01', 'A'),
      row('v02', 'D', { note: 'fallback' }),
      row('v04', 'B', { conf: '0.25', frames: '4' }),
      row('v05', 'C'),
      row('v06', 'A'),
    ]);
    const bareLater = await read('bare-later', [row('w00', 'B'), row('w01', 'A'), row('w02', 'C', { latency: '2', frames: '3 6 9' })]);
    const [cols, rows] = both();
    try {
      for (const b of [first, bare]) {
        cols.applyImport(b);
        rows.applyImport(asRows(b));
      }
      for (const b of [later, bareLater]) expect(cols.applyImport(b)).toEqual(rows.applyImport(asRows(b)));
      expect(stored(cols)).toEqual(stored(rows));
      for (const g of cols.listGrids()) expect(cols.loadMatrix(g.model, g.split)).toEqual(rows.loadMatrix(g.model, g.split));
      const cell = (id: string): unknown => {
        const r = cols.responsesForItem('M', 'V1_short', id)[0];
        return r && [r.pred, r.latencyMs, r.frameIndices, r.confidence, r.protocolNote];
      };
      expect(['v00', 'v02', 'v03', 'v04', 'v06', 'w00', 'w02'].map(cell)).toEqual([
        ['A', 1500, [0, 8], null, null],
        ['D', null, null, null, 'fallback'],
        ['B', null, [1, 2], null, null],
        ['B', null, [4], 0.25, null],
        ['A', null, null, null, null],
        ['B', null, null, null, null],
        ['C', 2000, [3, 6, 9], null, null],
      ]);
    } finally {
      cols.close();
      rows.close();
    }
  });

  it('checks stored cells against an answer that arrives in a later file, like the row path', async () => {
    const first = await read('first', ['001-2,N,V1_short,16f_151k,16,150528,A,,1,official:N,,,,,']);
    const later = await read('later', ['001-2,M,V1_short,16f_151k,16,150528,C,A,0,official:M,,,,,']);
    const [cols, rows] = both();
    try {
      cols.applyImport(first);
      rows.applyImport(asRows(first));
      expect(cols.applyImport(later)).toEqual(rows.applyImport(asRows(later)));
      expect(stored(cols)).toEqual(stored(rows));
      expect(cols.responsesForItem('N', 'V1_short', '001-2')[0]).toMatchObject({ pred: 'A', correct: true });
      const contradicting = await read('contradicting', ['001-3,N,V1_short,16f_151k,16,150528,B,,1,official:N,,,,,']);
      const answer = await read('answer', ['001-3,M,V1_short,16f_151k,16,150528,C,A,0,official:M,,,,,']);
      cols.applyImport(contradicting);
      rows.applyImport(asRows(contradicting));
      expect(() => cols.applyImport(answer)).toThrow(/contradicts/);
      expect(() => rows.applyImport(asRows(answer))).toThrow(/contradicts/);
    } finally {
      cols.close();
      rows.close();
    }
  });

  it('names the line of the same import that wrote a cell, when a later file of that import conflicts with it', async () => {
    // Stored by an earlier import: cell (M, 001-1, textonly) without a confidence.
    const earlier = await read('earlier', ['001-1,M,V1_short,textonly,0,0,C,C,1,official:M,,,,,']);
    // One import of three files: a.csv adds (M, 001-2, 16f_151k) at its line 3 and fills the
    // stored cell's confidence at its line 2; b.csv agrees with both (exact repeats of this
    // import: nothing to do); c.csv contradicts each.
    const a = await read('a', ['001-1,M,V1_short,textonly,0,0,C,C,1,official:M,,0.5,,,', '001-2,M,V1_short,16f_151k,16,150528,A,,1,official:M,,,,,']);
    const b = await read('b', ['001-2,M,V1_short,16f_151k,16,150528,A,,1,official:M,,,,,', '001-1,M,V1_short,textonly,0,0,C,C,1,official:M,,0.5,,,']);
    const added = await read('c-added', ['001-2,M,V1_short,16f_151k,16,150528,B,,0,official:M,,,,,']);
    const filled = await read('c-filled', ['001-1,M,V1_short,textonly,0,0,C,C,1,official:M,,0.25,,,']);
    const [cols, rows] = both();
    try {
      cols.applyImport(earlier);
      rows.applyImport(asRows(earlier));
      const message = (p: Project, batches: ImportBatch[]): string => {
        try {
          p.applyImports(batches);
        } catch (e) {
          return e instanceof ImportError ? e.message : String(e);
        }
        return 'accepted';
      };
      for (const [c, line, field] of [
        [added, 3, 'pred'],
        [filled, 2, 'confidence'],
      ] as const) {
        const viaColumns = message(cols, [a, b, c]);
        expect(viaColumns).toMatch(new RegExp(`already recorded with a different ${field} \\(line ${line} of the same import\\)`));
        expect(message(rows, [a, b, c].map(asRows))).toBe(viaColumns);
      }
      // The import was rejected: the stored cell is as the earlier import left it.
      expect(cols.responsesForItem('M', 'V1_short', '001-1')[0]).toMatchObject({ confidence: null, line: 2 });
      expect(stored(cols)).toEqual(stored(rows));
    } finally {
      cols.close();
      rows.close();
    }
  });

  it('rejects a conflicting file with the same error and changes nothing', async () => {
    const b = await read('base', ROWS);
    const conflict = await read('conflict', ['001-1,M,V1_short,textonly,0,0,D,C,0,official:M,,,,,']);
    const [cols, rows] = both();
    try {
      cols.applyImport(b);
      rows.applyImport(asRows(b));
      const before = stored(cols);
      const errs = [() => cols.applyImport(conflict), () => rows.applyImport(asRows(conflict))].map((f) => {
        try {
          f();
        } catch (e) {
          return e;
        }
        return null;
      });
      expect(errs[0]).toBeInstanceOf(ImportError);
      expect((errs[0] as ImportError).message).toBe((errs[1] as ImportError).message);
      expect((errs[0] as ImportError).field).toBe('pred');
      expect(stored(cols)).toEqual(before);
    } finally {
      cols.close();
      rows.close();
    }
  });
});
