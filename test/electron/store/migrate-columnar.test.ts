import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { latestVersion, loadMigrations, migrate, openProject } from '../../../electron/store/index';
import { batch, config, response, tempDir } from './helpers';

const i32 = (xs: number[]): Buffer => Buffer.from(Int32Array.from(xs).buffer);

/** A schema-10 file with per-cell response rows, written with plain SQL (as Flipbook 10 did). */
function version10File(): string {
  const file = path.join(tempDir(), 'v10.flipbook');
  const db = new Database(file);
  migrate(
    db,
    file,
    loadMigrations().filter((m) => m.version <= 10),
  );
  db.exec(`
    INSERT INTO models (id, name) VALUES (1, 'qwen'), (2, 'llava');
    INSERT INTO splits (id, name) VALUES (1, 'V1_short');
    INSERT INTO runs (id, source_path, sha256, format, imported_at) VALUES (7, 'runs/a.csv', 'abc', 'per-item-csv', '2024-01-01T00:00:00Z');
    INSERT INTO items (id, split_id, sample_id, answer) VALUES (1, 1, 'b-2', 'A'), (2, 1, 'a-1', 'C'), (3, 1, 'c-3', NULL);
    INSERT INTO configs (id, key, frames, pixel_count) VALUES (1, 'textonly', 0, 0), (2, '16f_151k', 16, 150528);
    INSERT INTO grid_configs (model_id, split_id, config_id) VALUES (1, 1, 1), (1, 1, 2), (2, 1, 2);
  `);
  const ins = db.prepare(
    `INSERT INTO responses (model_id, split_id, item_id, config_id, pred, correct, score, ground_truth, confidence, margin, latency_ms,
       frame_indices, source_tag, protocol_note, run_id, line) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  ins.run(1, 1, 1, 1, 'A', 1, null, 'A', 0.9, 0.5, 1200, null, 'official', null, 7, 2);
  ins.run(1, 1, 2, 1, 'B', 0, null, 'C', null, null, null, null, 'official', 'note x', 7, 3);
  ins.run(1, 1, 1, 2, 'B', 0, null, null, null, null, null, i32([0, 7, 15]), null, null, 7, 4);
  ins.run(1, 1, 3, 2, 'D', null, null, null, null, null, null, null, null, null, null, null);
  ins.run(2, 1, 2, 2, 'C', 1, null, 'C', 0.25, null, null, null, 'llava', null, 7, 9);
  db.pragma('user_version = 10');
  db.close();
  return file;
}

describe('migration 20: responses stored column-wise', () => {
  it('converts every schema-10 cell (values, nulls, frames, provenance) and drops the row table', () => {
    const file = version10File();
    const p = openProject(file);
    expect(p.migration).toEqual({ from: 10, to: latestVersion(), backup: `${file}.bak-v10` });
    expect(fs.existsSync(`${file}.bak-v10`)).toBe(true);
    const tables = p.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck().all();
    expect(tables).toContain('response_columns');
    expect(tables).not.toContain('responses');
    expect(p.db.prepare('SELECT sum(n_cells) FROM response_columns').pluck().get()).toBe(5);

    const all = [...p.iterateResponses()].map((r) => [r.model, r.sampleId, r.config, r.pred, r.correct, r.source, r.line]);
    expect(all).toEqual([
      ['llava', 'a-1', '16f_151k', 'C', true, 'runs/a.csv', 9],
      ['qwen', 'a-1', 'textonly', 'B', false, 'runs/a.csv', 3],
      ['qwen', 'b-2', '16f_151k', 'B', false, 'runs/a.csv', 4],
      ['qwen', 'b-2', 'textonly', 'A', true, 'runs/a.csv', 2],
      ['qwen', 'c-3', '16f_151k', 'D', null, null, null],
    ]);
    const b2 = p.responsesForItem('qwen', 'V1_short', 'b-2');
    expect(b2.map((r) => r.config)).toEqual(['textonly', '16f_151k']);
    expect(b2[0]).toMatchObject({ groundTruth: 'A', confidence: 0.9, margin: 0.5, latencyMs: 1200, sourceTag: 'official', protocolNote: null, frameIndices: null });
    expect(b2[1]).toMatchObject({ frameIndices: [0, 7, 15], confidence: null, sourceTag: null });
    expect(p.responsesForItem('qwen', 'V1_short', 'a-1')[0]).toMatchObject({ protocolNote: 'note x' });

    const m = p.loadMatrix('qwen', 'V1_short');
    expect(m.itemIds).toEqual(['a-1', 'b-2', 'c-3']);
    expect(m.configs.map((c) => c.key)).toEqual(['textonly', '16f_151k']);
    expect(Array.from(m.correct)).toEqual([0, -1, 1, 0, -1, -1]);
    expect(Array.from(m.confidence.map((x) => (Number.isNaN(x) ? -1 : x)))).toEqual([-1, -1, 0.9, -1, -1, -1]);
    expect(Array.from(m.frameIndices[3] ?? [])).toEqual([0, 7, 15]);
    expect(p.listGrids().map((g) => [g.model, g.nItems, g.nCells])).toEqual([
      ['llava', 1, 1],
      ['qwen', 3, 4],
    ]);
    p.close();
  });

  it('keeps the converted cells usable: a later import fills, conflicts name the stored run:line', () => {
    const file = version10File();
    const p = openProject(file);
    // c-3's answer arrives: its 16f cell (no correct yet) gets one; nothing else changes.
    const s = p.applyImport(batch('meta.json', { items: [{ split: 'V1_short', sampleId: 'c-3', answer: 'D', line: 5 }] }));
    expect(s.responsesUpdated).toBe(1);
    expect(p.responsesForItem('qwen', 'V1_short', 'c-3')[0]?.correct).toBe(true);
    const clash = batch('other.csv', { configs: [config('textonly', 0)], responses: [response({ sampleId: 'b-2', config: 'textonly', pred: 'C', line: 12 })] });
    expect(() => p.applyImport(clash)).toThrow(ImportError);
    expect(() => p.applyImport(clash)).toThrow(/other\.csv:12.*pred.*runs\/a\.csv:2/);
    p.close();
  });
});
