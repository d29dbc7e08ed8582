import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { openProject, type Project } from '../../../electron/store/index';
import { batch, config, response, sha256File, tempDir } from './helpers';

function fresh(): { project: Project; file: string } {
  const file = path.join(tempDir(), 'p.flipbook');
  return { project: openProject(file, { create: true }), file };
}

function counts(p: Project): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of ['models', 'splits', 'items', 'configs', 'grid_configs', 'runs']) {
    out[t] = p.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  }
  // Responses are stored column-wise (migration 0020): count the cells, not the column rows.
  out.responses = p.db.prepare('SELECT coalesce(sum(n_cells), 0) FROM response_columns').pluck().get() as number;
  return out;
}

const configs = [config('textonly', 0), config('16f_151k', 16), config('32f_151k', 32)];

function responsesFile(): ReturnType<typeof batch> {
  return batch('runs/qwen.csv', {
    configs,
    responses: [
      response({ sampleId: '001-1', config: 'textonly', pred: 'A', line: 2 }),
      response({ sampleId: '001-1', config: '16f_151k', pred: 'B', line: 3 }),
      response({ sampleId: '001-1', config: '32f_151k', pred: 'A', line: 4 }),
      response({ sampleId: '001-2', config: 'textonly', pred: 'C', line: 5 }),
      response({ sampleId: '001-2', config: '16f_151k', pred: 'C', line: 6 }),
      response({ sampleId: '001-2', config: '32f_151k', pred: null, line: 7 }),
    ],
  });
}

const metadata = batch('meta/videomme.parquet', {
  items: [
    { split: 'V1_short', sampleId: '001-1', answer: 'A', question: 'How many?', options: ['one', 'two', 'three', 'four'], taskType: 'Counting', line: 2 },
    { split: 'V1_short', sampleId: '001-2', answer: 'C', videoFile: 'abc.mp4', line: 3 },
  ],
});

describe('applyImport', () => {
  it('adds items, configs and responses and reports them', () => {
    const { project } = fresh();
    const s = project.applyImport(responsesFile());
    expect(s).toEqual({
      itemsAdded: 2,
      itemsUpdated: 0,
      responsesAdded: 6,
      responsesUpdated: 0,
      configsAdded: 3,
      models: ['qwen'],
      splits: ['V1_short'],
      configs: ['16f_151k', '32f_151k', 'textonly'],
      warnings: [],
    });
    expect(project.listRuns()).toMatchObject([{ sourcePath: 'runs/qwen.csv', nResponses: 6, nConfigs: 3 }]);
    project.close();
  });

  it('is idempotent: the same file again changes nothing', () => {
    const { project } = fresh();
    project.applyImport(responsesFile());
    project.applyImport(metadata);
    const before = counts(project);
    const s = project.applyImport(responsesFile());
    expect(s).toMatchObject({ itemsAdded: 0, itemsUpdated: 0, responsesAdded: 0, responsesUpdated: 0, configsAdded: 0 });
    expect(project.applyImport(metadata)).toMatchObject({ itemsAdded: 0, itemsUpdated: 0, responsesUpdated: 0 });
    expect(counts(project)).toEqual(before);
    project.close();
  });

  it('fills correct when metadata arrives after the responses', () => {
    const { project } = fresh();
    project.applyImport(responsesFile());
    expect(Array.from(project.loadMatrix('qwen', 'V1_short').correct)).toEqual([-1, -1, -1, -1, -1, -1]);
    const s = project.applyImport(metadata);
    expect(s).toMatchObject({ itemsAdded: 0, itemsUpdated: 2, responsesUpdated: 6 });
    const m = project.loadMatrix('qwen', 'V1_short');
    // config order: textonly, 16f, 32f; 001-1 answer A: A B A → 1 0 1; 001-2 answer C: C C (none) → 1 1 0
    expect(Array.from(m.correct)).toEqual([1, 0, 1, 1, 1, 0]);
    expect(project.getItem('V1_short', '001-1')).toMatchObject({ question: 'How many?', options: ['one', 'two', 'three', 'four'], taskType: 'Counting' });
    project.close();
  });

  it('computes correct at import when metadata came first (same result either order)', () => {
    const { project } = fresh();
    project.applyImport(metadata);
    const s = project.applyImport(responsesFile());
    expect(s).toMatchObject({ itemsAdded: 0, responsesAdded: 6 });
    expect(Array.from(project.loadMatrix('qwen', 'V1_short').correct)).toEqual([1, 0, 1, 1, 1, 0]);
    project.close();
  });

  it('rejects a bad row and changes nothing (counts and file bytes)', () => {
    const { project, file } = fresh();
    project.applyImport(responsesFile());
    project.close();
    const hash = sha256File(file);
    const p2 = openProject(file);
    const before = counts(p2);
    const bad = batch('runs/bad.csv', {
      configs: [config('64f_151k', 64)],
      items: [{ split: 'V1_short', sampleId: '009-9', answer: 'B' }],
      responses: [
        response({ sampleId: '009-9', config: '64f_151k', pred: 'B', line: 2 }),
        response({ sampleId: '001-1', config: '64f_151k', pred: 'A', line: 3 }),
        // a second value for a key this file already gave
        response({ sampleId: '001-1', config: '64f_151k', pred: 'D', line: 4 }),
      ],
    });
    let error: unknown;
    try {
      p2.applyImport(bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ImportError);
    expect(error).toMatchObject({ file: 'runs/bad.csv', line: 4, field: 'pred' });
    expect(counts(p2)).toEqual(before);
    p2.close();
    expect(sha256File(file)).toBe(hash);
  });

  it('rejects the same cell with a different outcome from a different run, naming both files', () => {
    const { project } = fresh();
    project.applyImport(responsesFile());
    const other = batch('runs/qwen-rerun.jsonl', { responses: [response({ sampleId: '001-1', config: '16f_151k', pred: 'C', line: 17 })] });
    expect(() => project.applyImport(other)).toThrow(ImportError);
    expect(() => project.applyImport(other)).toThrow(/runs\/qwen-rerun\.jsonl:17: pred: .*runs\/qwen\.csv:3/);
    project.close();
  });

  it('accepts the same cell from another run when the outcome agrees, filling what was missing', () => {
    const { project } = fresh();
    project.applyImport(responsesFile());
    const other = batch('runs/with-confidence.jsonl', {
      responses: [response({ sampleId: '001-1', config: '16f_151k', pred: 'B', confidence: 0.8, frameIndices: [0, 5, 9], line: 2 })],
    });
    expect(project.applyImport(other)).toMatchObject({ responsesAdded: 0, responsesUpdated: 1 });
    const r = project.responsesForItem('qwen', 'V1_short', '001-1');
    expect(r.map((x) => x.config)).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(r[1]).toMatchObject({ pred: 'B', confidence: 0.8, frameIndices: [0, 5, 9], source: 'runs/qwen.csv', line: 3 });
    project.close();
  });

  it('rejects metadata whose answer contradicts a stored outcome', () => {
    const { project } = fresh();
    project.applyImport(batch('runs/scored.csv', { configs, responses: [response({ sampleId: '001-1', config: '16f_151k', pred: 'B', correct: true, line: 2 })] }));
    const before = counts(project);
    const meta = batch('meta/wrong.json', { items: [{ split: 'V1_short', sampleId: '001-1', answer: 'A', line: 7 }] });
    expect(() => project.applyImport(meta)).toThrow(/meta\/wrong\.json:7: answer: .*runs\/scored\.csv:2/);
    expect(counts(project)).toEqual(before);
    expect(project.getItem('V1_short', '001-1')?.answer).toBeNull();
    project.close();
  });

  it('rejects a config whose name contradicts its frame count', () => {
    const { project } = fresh();
    const bad = batch('runs/liar.json', { configs: [config('16f_151k', 32)], responses: [response({ sampleId: '1', config: '16f_151k', pred: 'A', line: 1 })] });
    expect(() => project.applyImport(bad)).toThrow(/runs\/liar\.json:0: config: config "16f_151k" names 16 frames but its frame count is 32/);
    expect(counts(project).configs).toBe(0);
    project.close();
  });

  it('rejects a ground truth that contradicts the known answer', () => {
    const { project } = fresh();
    project.applyImport(metadata);
    const bad = batch('labels/per_item.csv', {
      configs,
      responses: [response({ sampleId: '001-1', config: 'textonly', pred: 'A', groundTruth: 'B', correct: false, line: 9 })],
    });
    expect(() => project.applyImport(bad)).toThrow(/per_item\.csv:9: ground_truth/);
    project.close();
  });

  it('applies several batches in one transaction: one bad batch rejects all', () => {
    const { project } = fresh();
    const bad = batch('runs/liar.json', { configs: [config('16f', 8)] });
    expect(() => project.applyImports([responsesFile(), metadata, bad])).toThrow(ImportError);
    expect(counts(project)).toMatchObject({ items: 0, responses: 0, runs: 0, models: 0 });
    project.close();
  });

  it('keys items by (split, sample_id): the same id in two splits is two items', () => {
    const { project } = fresh();
    project.applyImport(
      batch('a.csv', {
        configs,
        responses: [
          response({ sampleId: '001-1', config: 'textonly', pred: 'A', groundTruth: 'A', line: 2 }),
          response({ split: 'V2_medium', sampleId: '001-1', config: 'textonly', pred: 'A', groundTruth: 'D', line: 3 }),
        ],
      }),
    );
    expect(project.getItem('V1_short', '001-1')?.answer).toBe('A');
    expect(project.getItem('V2_medium', '001-1')?.answer).toBe('D');
    expect(Array.from(project.loadMatrix('qwen', 'V2_medium').correct)).toEqual([0]);
    project.close();
  });

  it('applies --model/--split/--config overrides and refuses --config on a multi-config file', () => {
    const { project } = fresh();
    const single = batch('r.jsonl', { configs: [config('16f', 16, null)], responses: [response({ sampleId: '1', config: '16f', pred: 'A', line: 1 })] });
    const s = project.applyImport(single, { model: 'llava', split: 'S', config: '16f_input224' });
    expect(s).toMatchObject({ models: ['llava'], splits: ['S'], configs: ['16f_input224'] });
    expect(() => project.applyImport(responsesFile(), { config: '16f_x' })).toThrow(/--config names one config but this file holds 3/);
    project.close();
  });
});
