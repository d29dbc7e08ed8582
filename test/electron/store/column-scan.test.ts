/**
 * Every stored cell, column-wise (electron/store/column-scan.ts, `project.scanColumns()`):
 * grids in (model, split) code-point order, rows in sample_id and columns in config-key
 * code-point order, each cell where `at` says and each field decoded — checked against the
 * rows that were imported, sorted here by plain string comparison.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type ScannedGrid, type StringTable } from '../../../electron/store/index';
import { CONFIGS, gridRows } from './grid-rows';
import { batch, config, emptySqliteFile, response, tempDir } from './helpers';

const text = (t: StringTable, k: number): string | null => t.dict[t.idx[k]!]!;
const num = (a: Float64Array | null, k: number): number | null => (a === null || Number.isNaN(a[k]!) ? null : a[k]!);

/** The scan read back as the rows it holds, in its own order. */
function cellsOf(grids: ScannedGrid[]): unknown[] {
  const out: unknown[] = [];
  for (const g of grids)
    for (let i = 0; i < g.sampleIds.length; i++)
      for (const c of g.columns) {
        const k = c.at[i]!;
        if (k < 0) continue;
        out.push({
          model: g.model,
          split: g.split,
          sampleId: g.sampleIds[i],
          config: c.config,
          pred: text(c.pred, k),
          groundTruth: text(c.groundTruth, k),
          correct: c.correct[k] === -1 ? null : c.correct[k] === 1,
          score: num(c.score, k),
          confidence: num(c.confidence, k),
          margin: num(c.margin, k),
          latencyMs: num(c.latencyMs, k),
          frameIndices: c.frames?.[k] ? Array.from(c.frames[k]) : null,
          sourceTag: text(c.sourceTag, k),
          protocolNote: text(c.protocolNote, k),
        });
      }
  return out;
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe('scanning every cell column-wise', () => {
  it('holds every imported cell, in release order, each field as imported', () => {
    const p = openProject(path.join(tempDir('flipbook-scan-'), 'p.flipbook'), { create: true });
    const input = gridRows();
    p.applyImport(batch('run.csv', { configs: CONFIGS, responses: input }));
    const grids = p.scanColumns();
    expect(grids.map((g) => `${g.model}/${g.split}`)).toEqual(['Z/s1', 'Z/s2', 'a-model/s1', 'a-model/s2', 'b-model/s1', 'b-model/s2']);
    for (const g of grids) {
      expect(g.sampleIds).toEqual(['Q1', 'q10', 'q2', 'é']);
      expect(g.rowItems).toHaveLength(4);
      expect(g.columns.map((c) => c.config)).toEqual(g.model === 'Z' && g.split === 's1' ? ['16f', '8f'] : ['16f', '8f', 'textonly']);
      for (const c of g.columns) expect(c.length).toBe(c.config === '16f' ? 3 : 4);
    }
    // An item is one item per split, whichever model answered it.
    expect(grids[0]!.rowItems).toEqual(grids[2]!.rowItems);
    expect(new Set([...grids[0]!.rowItems, ...grids[1]!.rowItems]).size).toBe(8);
    // The columns with no value in any cell hold none at all.
    const eight = grids[0]!.columns[1]!;
    expect(eight.config).toBe('8f');
    expect([eight.confidence, eight.margin, eight.latencyMs, eight.frames]).toEqual([null, null, null, null]);

    const expected = input
      .map(({ line: _line, ...r }) => r)
      .sort((a, b) => cmp(a.model, b.model) || cmp(a.split, b.split) || cmp(a.sampleId, b.sampleId) || cmp(a.config, b.config));
    expect(cellsOf(grids)).toEqual(expected);
  });

  it('rows in code-point order in a UTF-16 database too, where SQLite sorts by UTF-16 code units', () => {
    const ids = ['\u{1D49C}', '\uFF21', 'a', 'B'];
    const inOrder = ['B', 'a', '\uFF21', '\u{1D49C}'];
    for (const encoding of ['UTF-8', 'UTF-16le']) {
      const p = openProject(emptySqliteFile(path.join(tempDir('flipbook-scan-'), 'p.flipbook'), encoding));
      expect(p.db.pragma('encoding', { simple: true })).toBe(encoding);
      p.applyImport(batch('u.csv', { configs: [config('16f', 16)], responses: ids.map((sampleId, i) => response({ sampleId, config: '16f', line: i + 2, pred: sampleId })) }));
      const [grid] = p.scanColumns();
      expect(grid!.sampleIds).toEqual(inOrder);
      expect(inOrder.map((_, i) => text(grid!.columns[0]!.pred, grid!.columns[0]!.at[i]!))).toEqual(inOrder);
      p.close();
    }
  });

  it('a column of more than 255 distinct answers (two-byte indices) and an empty project', () => {
    const p = openProject(path.join(tempDir('flipbook-scan-'), 'p.flipbook'), { create: true });
    expect(p.scanColumns()).toEqual([]);
    const ids = Array.from({ length: 301 }, (_, i) => `v${String(i).padStart(3, '0')}`);
    const input = ids.map((sampleId, i) => response({ model: 'm', split: 'oe', sampleId, config: '16f', line: i + 2, pred: `answer ${i % 300} ✓`, score: i / 301 }));
    p.applyImport(batch('oe.csv', { configs: [config('16f', 16)], responses: input }));
    const [grid] = p.scanColumns();
    const column = grid!.columns[0]!;
    expect(column.pred.idx.BYTES_PER_ELEMENT).toBe(2);
    expect(column.pred.dict).toHaveLength(301);
    expect(grid!.sampleIds).toEqual(ids);
    expect(ids.map((_, i) => text(column.pred, column.at[i]!))).toEqual(input.map((r) => r.pred));
    expect(ids.map((_, i) => num(column.score, column.at[i]!))).toEqual(input.map((r) => r.score));
    // No answer anywhere: correctness unknown in every cell.
    expect(new Set(column.correct)).toEqual(new Set([-1]));
  });
});
