/**
 * The export's matrices (grid-matrices.ts: built from the scanned columns, cell arrays other
 * than `correct` filled on first read) equal the store's own loader cell for cell, on a real
 * SQLite project with missing cells, optional columns, frames, unicode ids and an
 * open-ended split.
 */

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigSpec, ResponseRow } from '../../../shared/domain/types';
import type { ReleaseColumn, ReleaseGrid } from '../../../electron/release/release-data';
import { makeConfigSpec } from '../../../shared/engine/config';
import { gridMatrices } from '../../../electron/release/grid-matrices';
import { openProject, type Project } from '../../../electron/store/project';
import { batch, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';
import { column } from './columns';
import { plainMatrix } from '../../plain-matrix';

const CONFIGS: ConfigSpec[] = ['textonly', '16f_151k', '32f_151k', '64f_151k', '32f_302k'].map((k) => makeConfigSpec(k));

function rows(): ResponseRow[] {
  let s = 7;
  const r = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  const out: ResponseRow[] = [];
  const ids = ['b-2', 'a-1', 'ü-ñ', '𝔘-astral', '\uE000-pua', ...Array.from({ length: 30 }, (_, i) => `q${i}`)];
  let line = 1;
  for (const model of ['M2', 'M1']) {
    for (const split of ['S1', 'S2']) {
      for (const id of ids) {
        for (const c of CONFIGS) {
          if (r() < 0.1) continue;
          const ok = r() < 0.6;
          out.push(
            response({
              model,
              split,
              sampleId: id,
              config: c.key,
              pred: ok ? 'A' : 'B',
              correct: r() < 0.05 ? null : ok,
              score: r() < 0.2 ? Math.round(r() * 100) / 100 : null,
              groundTruth: 'A',
              confidence: r() < 0.5 ? Math.round(r() * 1e6) / 1e6 : null,
              margin: r() < 0.3 ? Math.round(r() * 1e3) / 1e3 : null,
              latencyMs: r() < 0.4 ? Math.round(r() * 5e6) / 1000 : null,
              frameIndices: c.frames > 0 && r() < 0.3 ? [0, 3, 6] : null,
              line: line++,
            }),
          );
        }
      }
    }
  }
  // An open-ended split: scores, no correctness.
  for (const id of ['g-1', 'g-2', 'g-3']) {
    for (const c of CONFIGS.slice(0, 3)) {
      out.push(response({ model: 'M1', split: 'OPEN', sampleId: id, config: c.key, score: Math.round(r() * 1e4) / 1e4, confidence: r() < 0.5 ? 0.25 : null, line: line++ }));
    }
  }
  return out;
}

describe('gridMatrices', () => {
  let dir: string;
  let project: Project;
  beforeAll(() => {
    dir = tempDir('fb-grid-matrices-');
    project = openProject(path.join(dir, 'p.flipbook'), { create: true });
    project.applyImport(batch('synthetic', { responses: rows(), configs: CONFIGS }));
  });
  afterAll(() => {
    project?.close();
  });

  it("equals the store's loadMatrix for every grid, every array", () => {
    const ms = gridMatrices(project.scanColumns(), project.listConfigs());
    expect(ms.map((m) => `${m.model}/${m.split}/${m.kind}`)).toEqual(['M1/OPEN/open', 'M1/S1/mcqa', 'M1/S2/mcqa', 'M2/S1/mcqa', 'M2/S2/mcqa']);
    for (const m of ms) expect(plainMatrix(m)).toEqual(plainMatrix(project.loadMatrix(m.model, m.split)));
  });

  it('keeps what a caller assigns', () => {
    const [m] = gridMatrices(project.scanColumns(), project.listConfigs());
    const score = new Float64Array(m!.score.length).fill(0.5);
    m!.score = score;
    expect(m!.score).toBe(score);
  });
});

const gridOf = (ids: string[], columns: ReleaseColumn[]): ReleaseGrid => ({ model: 'M', split: 'S', sampleIds: ids, rowItems: Int32Array.from(ids, (_, i) => i + 1), columns });
const SPECS = ['textonly', '16f_151k', '128f_151k', '32f_151k'].map((k) => makeConfigSpec(k));
const kindOf = (columns: ReleaseColumn[]): string => gridMatrices([gridOf(['a', 'b'], columns)], SPECS)[0]!.kind;

describe('gridMatrices by hand', () => {
  it('lays the cells out in config order (frames, not key order), missing as −1 / NaN / null', () => {
    // Columns come in key code-point order (128f before 16f); the matrix puts 16f first.
    const g = gridOf(
      ['a', 'b', 'c'],
      [
        column('128f_151k', 3, [2, 0], {
          correct: Int8Array.from([1, 0]),
          score: Float64Array.from([0.5, NaN]),
          confidence: Float64Array.from([0.9, 0.1]),
          latencyMs: Float64Array.from([12, 13]),
          frames: [Int32Array.from([1, 2]), null],
        }),
        column('16f_151k', 3, [1], { correct: Int8Array.from([1]), margin: Float64Array.from([0.25]), frames: [] }),
        column('textonly', 3, [0, 1, 2], { correct: Int8Array.from([0, -1, 1]) }),
      ],
    );
    const [m] = gridMatrices([g], SPECS);
    expect(m!.configs.map((c) => c.key)).toEqual(['textonly', '16f_151k', '128f_151k']);
    expect(m!.itemIds).toEqual(['a', 'b', 'c']);
    expect(m!.kind).toBe('mcqa');
    // Row-major: (a: text, 16f, 128f), (b: …), (c: …).
    expect(Array.from(m!.correct)).toEqual([0, -1, 0, -1, 1, -1, 1, -1, 1]);
    expect(Array.from(m!.score)).toEqual([NaN, NaN, NaN, NaN, NaN, NaN, NaN, NaN, 0.5]);
    expect(Array.from(m!.confidence)).toEqual([NaN, NaN, 0.1, NaN, NaN, NaN, NaN, NaN, 0.9]);
    expect(Array.from(m!.margin)).toEqual([NaN, NaN, NaN, NaN, 0.25, NaN, NaN, NaN, NaN]);
    expect(Array.from(m!.latencyMs)).toEqual([NaN, NaN, 13, NaN, NaN, NaN, NaN, NaN, 12]);
    // A frames list shorter than the column (no entry for a cell) reads as none.
    expect(m!.frameIndices.map((f) => (f ? Array.from(f) : f))).toEqual([null, null, null, null, null, null, null, null, [1, 2]]);
  });

  it('is open-ended when some cell has a score and none a correctness', () => {
    const scores = Float64Array.from([0.5, NaN]);
    const nan = Float64Array.from([NaN, NaN]);
    expect(kindOf([column('16f_151k', 2, [0, 1], { score: scores })])).toBe('open');
    // A later column without scores (all NaN or none) does not undo an earlier one's.
    expect(kindOf([column('16f_151k', 2, [0, 1], { score: scores }), column('32f_151k', 2, [0, 1], { score: nan }), column('textonly', 2, [0, 1])])).toBe('open');
    expect(kindOf([column('16f_151k', 2, [0, 1]), column('32f_151k', 2, [0, 1], { score: nan }), column('textonly', 2, [0, 1], { score: scores })])).toBe('open');
    // A correctness anywhere, even 0 (wrong) and after the scores: multiple choice.
    expect(kindOf([column('16f_151k', 2, [0, 1], { score: scores }), column('32f_151k', 2, [0, 1], { correct: Int8Array.from([-1, 0]) })])).toBe('mcqa');
    expect(kindOf([column('16f_151k', 2, [0, 1], { correct: Int8Array.from([0, 0]), score: scores })])).toBe('mcqa');
    // Neither: multiple choice.
    expect(kindOf([column('16f_151k', 2, [0, 1], { score: nan }), column('textonly', 2, [0, 1])])).toBe('mcqa');
    expect(kindOf([])).toBe('mcqa');
  });

  it('an open-ended matrix has no correctness; its scores are the cells’', () => {
    const [m] = gridMatrices([gridOf(['a', 'b'], [column('16f_151k', 2, [1, 0], { score: Float64Array.from([0.25, 0.75]) })])], SPECS);
    expect(m!.kind).toBe('open');
    expect(Array.from(m!.correct)).toEqual([-1, -1]);
    expect(Array.from(m!.score)).toEqual([0.75, 0.25]);
  });

  it("owns its ids: changing the matrix's leaves the grid's (which the writers share)", () => {
    const g = gridOf(['a', 'b'], [column('16f_151k', 2, [0, 1])]);
    const [m] = gridMatrices([g], SPECS);
    m!.itemIds[0] = 'changed';
    expect(g.sampleIds).toEqual(['a', 'b']);
  });

  it("refuses a config that is not among the project's, naming it and the grid", () => {
    expect(() => gridMatrices([gridOf(['a'], [column('16f_151k', 1, [0]), column('8f', 1, [0])])], SPECS)).toThrow('config "8f" of M / S is not among the project\'s configs');
  });

  it('keeps every array a caller assigns, and reads each lazily filled array once', () => {
    const [m] = gridMatrices([gridOf(['a'], [column('16f_151k', 1, [0], { confidence: Float64Array.from([0.5]) })])], SPECS);
    expect(m!.confidence).toBe(m!.confidence);
    expect(m!.frameIndices).toBe(m!.frameIndices);
    const f = new Float64Array(1);
    m!.confidence = f;
    expect(m!.confidence).toBe(f);
    const g = new Float64Array(1);
    m!.margin = g;
    expect(m!.margin).toBe(g);
    const l = new Float64Array(1);
    m!.latencyMs = l;
    expect(m!.latencyMs).toBe(l);
    const fi = [Int32Array.from([3])];
    m!.frameIndices = fi;
    expect(m!.frameIndices).toBe(fi);
  });
});
