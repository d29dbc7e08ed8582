/**
 * The export's matrices (grid-matrices.ts: built from the scanned columns, cell arrays other
 * than `correct` filled on first read) equal the store's own loader cell for cell, on a real
 * SQLite project with missing cells, optional columns, frames, unicode ids and an
 * open-ended split.
 */

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigSpec, ResponseMatrix, ResponseRow } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { gridMatrices } from '../../../electron/release/grid-matrices';
import { openProject, type Project } from '../../../electron/store/project';
import { batch, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';

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

/** Every field of a matrix as plain data (frame lists as arrays, undefined as null). */
function plain(m: ResponseMatrix): unknown {
  return {
    model: m.model,
    split: m.split,
    kind: m.kind,
    itemIds: m.itemIds,
    configs: m.configs.map((c) => c.key),
    correct: Array.from(m.correct),
    score: Array.from(m.score),
    confidence: Array.from(m.confidence),
    margin: Array.from(m.margin),
    latencyMs: Array.from(m.latencyMs),
    frameIndices: Array.from(m.frameIndices, (f) => (f ? Array.from(f) : null)),
  };
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
    for (const m of ms) expect(plain(m)).toEqual(plain(project.loadMatrix(m.model, m.split)));
  });

  it('keeps what a caller assigns', () => {
    const [m] = gridMatrices(project.scanColumns(), project.listConfigs());
    const score = new Float64Array(m!.score.length).fill(0.5);
    m!.score = score;
    expect(m!.score).toBe(score);
  });
});
