import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import type { ResponseRow } from '../../../shared/domain/types';
import { batch, config, response, tempDir } from './helpers';

describe('loadMatrix and listGrids', () => {
  it('puts every stored cell at (item, config) with configs in config order and items in code-point order', () => {
    const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    // Configs declared out of order; one at another resolution goes after the main ladder.
    const configs = [config('64f_151k', 64), config('8f_input224', 8, 50176), config('16f_151k', 16), config('textonly', 0)];
    const ids = ['b-2', 'a-10', 'a-9', 'Z-1', 'é-1'];
    const rows: ResponseRow[] = [];
    const expected = new Map<string, { correct: number; conf: number }>();
    let line = 1;
    // A deterministic pattern with holes: skip (item 2, 16f) and (item 4, textonly).
    ids.forEach((id, i) =>
      configs.forEach((c, j) => {
        if ((i === 2 && c.key === '16f_151k') || (i === 4 && c.key === 'textonly')) return;
        const correct = (i + j) % 2 === 0;
        const conf = (i * 10 + j) / 100;
        expected.set(`${id}|${c.key}`, { correct: correct ? 1 : 0, conf });
        rows.push(
          response({ sampleId: id, config: c.key, pred: 'A', correct, confidence: conf, margin: conf / 2, latencyMs: 100 + i, frameIndices: j ? [i, j] : null, line: line++ }),
        );
      }),
    );
    p.applyImport(batch('grid.csv', { configs, responses: rows }));
    const m = p.loadMatrix('qwen', 'V1_short');
    expect(m.kind).toBe('mcqa');
    expect(m.configs.map((c) => c.key)).toEqual(['textonly', '16f_151k', '64f_151k', '8f_input224']);
    expect(m.itemIds).toEqual(['Z-1', 'a-10', 'a-9', 'b-2', 'é-1']);
    const nc = m.configs.length;
    m.itemIds.forEach((id, i) =>
      m.configs.forEach((c, j) => {
        const e = expected.get(`${id}|${c.key}`);
        const at = i * nc + j;
        if (!e) {
          expect(m.correct[at]).toBe(-1);
          expect(m.confidence[at]).toBeNaN();
        } else {
          expect(m.correct[at]).toBe(e.correct);
          expect(m.confidence[at]).toBeCloseTo(e.conf, 12);
          expect(m.margin[at]).toBeCloseTo(e.conf / 2, 12);
        }
      }),
    );
    const at = m.itemIds.indexOf('a-10') * nc + m.configs.findIndex((c) => c.key === '16f_151k');
    expect(Array.from(m.frameIndices[at] ?? [])).toEqual([1, 2]); // ids[1], configs[2]
    expect(p.listGrids()).toEqual([{ model: 'qwen', split: 'V1_short', kind: 'mcqa', configs: m.configs, nItems: 5, nCells: 18, score: 'correct', protocols: [''] }]);
    p.close();
  });

  it('marks a scored grid open-ended and keeps scores', () => {
    const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    p.applyImport(
      batch('open.jsonl', {
        configs: [config('16f', 16, null), config('32f', 32, null)],
        responses: [
          response({ split: 'MLVU_gen', sampleId: 'q1', config: '16f', pred: 'a red car', score: 0.5, line: 1 }),
          response({ split: 'MLVU_gen', sampleId: 'q1', config: '32f', pred: 'red car', score: 0.8, line: 2 }),
        ],
      }),
    );
    const m = p.loadMatrix('qwen', 'MLVU_gen');
    expect(m.kind).toBe('open');
    expect(Array.from(m.score)).toEqual([0.5, 0.8]);
    expect(Array.from(m.correct)).toEqual([-1, -1]);
    expect(p.listGrids()[0]?.kind).toBe('open');
    expect(() => p.loadMatrix('qwen', 'nope')).toThrow(/no responses of model "qwen" on split "nope"/);
    p.close();
  });

  it('loads several grids at once exactly as one by one, each with only its own items, whatever the order asked', () => {
    const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    const configs = [config('textonly', 0), config('16f_151k', 16)];
    const rows: ResponseRow[] = [];
    let line = 1;
    // Two splits sharing sample ids; per split, each model answers a different subset of its items.
    const cells: [model: string, split: string, ids: string[]][] = [
      ['qwen', 'V1_short', ['a-1', 'b-2', 'c-3']],
      ['llava', 'V1_short', ['b-2', 'd-4']],
      ['qwen', 'MLVU', ['a-1', 'z-9']],
      ['llava', 'MLVU', ['z-9']],
    ];
    for (const [model, split, ids] of cells) {
      ids.forEach((id, i) =>
        configs.forEach((c, j) =>
          rows.push(response({ model, split, sampleId: id, config: c.key, pred: 'A', correct: (i + j + model.length) % 2 === 0, confidence: (i + j) / 10, line: line++ })),
        ),
      );
    }
    p.applyImport(batch('grid.csv', { configs, responses: rows }));
    const asked = [
      { model: 'llava', split: 'MLVU' },
      { model: 'qwen', split: 'V1_short' },
      { model: 'qwen', split: 'MLVU' },
      { model: 'llava', split: 'V1_short' },
    ];
    const together = p.loadMatrices(asked);
    expect(together).toEqual(asked.map((g) => p.loadMatrix(g.model, g.split)));
    expect(together.map((m) => [m.model, m.split, m.itemIds])).toEqual([
      ['llava', 'MLVU', ['z-9']],
      ['qwen', 'V1_short', ['a-1', 'b-2', 'c-3']],
      ['qwen', 'MLVU', ['a-1', 'z-9']],
      ['llava', 'V1_short', ['b-2', 'd-4']],
    ]);
    expect(() =>
      p.loadMatrices([
        { model: 'qwen', split: 'MLVU' },
        { model: 'qwen', split: 'nope' },
      ]),
    ).toThrow(/no responses of model "qwen" on split "nope"/);
    p.close();
  });

  it('keeps per-grid provenance apart from the project-wide config', () => {
    const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    const uniform = { policy: 'uniform-linspace' as const, seed: null, fps: null };
    const rounded = { policy: 'uniform-linspace-round' as const, seed: null, fps: null };
    p.applyImport(
      batch('llava.jsonl', {
        configs: [config('16f', 16, null, { sampling: uniform })],
        responses: [response({ model: 'llava', sampleId: '1', config: '16f', pred: 'A', line: 1 })],
      }),
    );
    p.applyImport(
      batch('qwen.jsonl', {
        configs: [config('16f', 16, null, { sampling: rounded })],
        responses: [response({ model: 'qwen', sampleId: '1', config: '16f', pred: 'A', line: 1 })],
      }),
    );
    expect(p.gridConfigs('llava', 'V1_short')[0]?.sampling.policy).toBe('uniform-linspace');
    expect(p.gridConfigs('qwen', 'V1_short')[0]?.sampling.policy).toBe('uniform-linspace-round');
    expect(p.loadMatrix('qwen', 'V1_short').configs[0]?.sampling.policy).toBe('uniform-linspace-round');
    expect(p.listConfigs().map((c) => c.key)).toEqual(['16f']);
    p.close();
  });
});

describe('settings, items, views, media', () => {
  it('round-trips settings, item filters, saved views and the media cache across a reopen', () => {
    const file = path.join(tempDir(), 'p.flipbook');
    const p = openProject(file, { create: true });
    p.setSetting('matchedGrid', ['textonly', '16f_151k']);
    p.setSetting('samplerOverrides', { '16f_151k': { policy: 'uniform-center' } });
    p.applyImport(
      batch('meta.json', {
        items: [
          { split: 'S', sampleId: '2', taskType: 'Counting', videoFile: 'b.mp4' },
          { split: 'S', sampleId: '1', taskType: 'OCR' },
          { split: 'T', sampleId: '1', taskType: 'Counting' },
        ],
      }),
    );
    const v = p.views.save('regressions', { filter: { flags: ['terminal'] } });
    p.views.save('regressions', { filter: { flags: ['confused'] } });
    p.putMedia({ path: 'b.mp4', size: 10, mtimeMs: 5, headTailHash: 'h', json: { fps: 25 } });
    p.close();

    const q = openProject(file);
    expect(q.getSetting<string[]>('matchedGrid')).toEqual(['textonly', '16f_151k']);
    expect(q.getSetting('missing')).toBeUndefined();
    q.deleteSetting('matchedGrid');
    expect(q.getSetting('matchedGrid')).toBeUndefined();
    expect(q.listItems({ split: 'S' }).map((i) => i.sampleId)).toEqual(['1', '2']);
    expect(q.listItems({ taskType: 'Counting' }).map((i) => `${i.split}/${i.sampleId}`)).toEqual(['S/2', 'T/1']);
    expect(q.listItems({ hasVideo: true }).map((i) => i.videoFile)).toEqual(['b.mp4']);
    expect(q.listItems({ split: 'S', sampleIds: ['2'] })).toHaveLength(1);
    const views = q.views.list();
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ id: v.id, name: 'regressions', value: { filter: { flags: ['confused'] } } });
    q.views.rename(v.id, 'confused');
    expect(q.views.list().map((x) => x.name)).toEqual(['confused']);
    q.views.delete(v.id);
    expect(q.views.list()).toEqual([]);
    expect(q.getMedia('b.mp4')).toEqual({ path: 'b.mp4', size: 10, mtimeMs: 5, headTailHash: 'h', json: { fps: 25 } });
    expect(q.getMedia('c.mp4')).toBeUndefined();
    q.close();
  });
});

describe('listGrids kept between imports', () => {
  const grid = (model: string, ids: string[]) =>
    batch(`${model}.csv`, {
      configs: [config('8f_151k', 8)],
      responses: ids.map((sampleId, i) => response({ model, sampleId, config: '8f_151k', pred: 'A', correct: true, line: i + 1 })),
    });

  it('follows imports made through another connection, and a caller cannot edit the kept answer', () => {
    const file = path.join(tempDir(), 'kept.flipbook');
    const writer = openProject(file, { create: true });
    writer.applyImport(grid('qwen', ['a', 'b']));
    const reader = openProject(file, { readOnly: true });
    const first = reader.listGrids();
    expect(first.map((g) => [g.model, g.nItems])).toEqual([['qwen', 2]]);
    first[0]!.configs.pop();
    first.pop();
    expect(reader.listGrids().map((g) => [g.model, g.nItems, g.configs.length])).toEqual([['qwen', 2, 1]]);
    writer.applyImport(grid('llava', ['a', 'b', 'c']));
    expect(reader.listGrids().map((g) => [g.model, g.nItems])).toEqual([
      ['llava', 3],
      ['qwen', 2],
    ]);
    expect(reader.countItems()).toBe(3);
    reader.close();
    writer.close();
  });

  it('keeps nothing seen inside a transaction that rolls back', () => {
    const p = openProject(path.join(tempDir(), 'rollback.flipbook'), { create: true });
    p.applyImport(grid('qwen', ['a']));
    expect(p.listGrids().map((g) => g.model)).toEqual(['qwen']);
    expect(() =>
      p.db.transaction(() => {
        p.applyImport(grid('x-rolled-back', ['a']));
        expect(p.listGrids().map((g) => g.model)).toEqual(['qwen', 'x-rolled-back']);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    // The next import reaches the inputs version the rolled-back one had.
    p.applyImport(grid('y', ['a']));
    expect(p.listGrids().map((g) => g.model)).toEqual(['qwen', 'y']);
    p.close();
  });
});
