/**
 * The two readers of a grid's outcomes: `project.loadMatrix` (electron/store/matrix-load.ts),
 * every field of every cell for the metrics, and `project.scanOutcomes` (outcome-scan.ts), the
 * queue's narrow read of every grid at once. Each is checked against the rows imported, and the
 * two against each other; the main protocol decides which configs either reads.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import type { ResponseMatrix, ResponseRow } from '../../../shared/domain/types';
import { CONFIGS, gridRows, ITEMS, MODELS, SPLITS } from './grid-rows';
import { batch, config, emptySqliteFile, response, tempDir } from './helpers';
import { plainMatrix } from '../../plain-matrix';

function project(): Project {
  return openProject(path.join(tempDir('flipbook-matrix-'), 'p.flipbook'), { create: true });
}
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const nan = (v: number | null) => v ?? NaN;

/** What a matrix should hold, from the rows of its grid: rows sorted, configs in budget order. */
function expectedMatrix(rows: ResponseRow[], configKeys: string[]) {
  const itemIds = [...new Set(rows.map((r) => r.sampleId))].sort(cmp);
  const n = itemIds.length * configKeys.length;
  const at = (r: ResponseRow) => itemIds.indexOf(r.sampleId) * configKeys.length + configKeys.indexOf(r.config);
  const correct = new Array<number>(n).fill(-1);
  const fields = {
    score: new Array<number>(n).fill(NaN),
    confidence: new Array<number>(n).fill(NaN),
    margin: new Array<number>(n).fill(NaN),
    latencyMs: new Array<number>(n).fill(NaN),
  };
  const frames = new Array<number[] | null>(n).fill(null);
  for (const r of rows) {
    correct[at(r)] = r.correct === null ? -1 : r.correct ? 1 : 0;
    fields.score[at(r)] = nan(r.score);
    fields.confidence[at(r)] = nan(r.confidence);
    fields.margin[at(r)] = nan(r.margin);
    fields.latencyMs[at(r)] = nan(r.latencyMs);
    frames[at(r)] = r.frameIndices;
  }
  return { itemIds, configs: configKeys, correct, ...fields, frames };
}
/** The matrix's cells as plain data (test/plain-matrix.ts), without its names and kind. */
const asPlain = (m: ResponseMatrix) => {
  const { model: _m, split: _s, kind: _k, frameIndices: frames, ...cells } = plainMatrix(m);
  return { ...cells, frames };
};

describe('a grid as a matrix', () => {
  it('every cell of every grid, each field where its row and budget put it; absent cells missing', () => {
    const p = project();
    const input = gridRows();
    p.applyImport(batch('run.csv', { configs: CONFIGS, responses: input }));
    for (const model of MODELS)
      for (const split of SPLITS) {
        const mine = input.filter((r) => r.model === model && r.split === split);
        const keys = ['textonly', '8f', '16f'].filter((k) => mine.some((r) => r.config === k));
        const m = p.loadMatrix(model, split);
        expect([m.model, m.split, m.kind]).toEqual([model, split, 'mcqa']);
        expect(asPlain(m), `${model}/${split}`).toEqual(expectedMatrix(mine, keys));
      }
  });

  it('several grids in one read give what each gives alone; an unknown grid is refused by name', () => {
    const p = project();
    p.applyImport(batch('run.csv', { configs: CONFIGS, responses: gridRows() }));
    const both = p.loadMatrices([
      { model: 'Z', split: 's1' },
      { model: 'Z', split: 's2' },
    ]);
    expect(both.map(asPlain)).toEqual([asPlain(p.loadMatrix('Z', 's1')), asPlain(p.loadMatrix('Z', 's2'))]);
    expect(() => p.loadMatrix('Z', 'nope')).toThrow('the project has no responses of model "Z" on split "nope"');
    expect(() => p.loadMatrix('nobody', 's1')).toThrow('the project has no responses of model "nobody" on split "s1"');
  });

  it('an open-ended grid (scores, no outcomes) has every correctness missing', () => {
    const p = project();
    const rows = ['b', 'a'].flatMap((sampleId, i) =>
      ['textonly', '16f'].map((c, j) => response({ split: 'oe', sampleId, config: c, line: 2 + i * 2 + j, pred: `text ${i}${j}`, score: (i + j) / 4 })),
    );
    p.applyImport(batch('oe.csv', { configs: [config('textonly', 0), config('16f', 16)], responses: rows }));
    const m = p.loadMatrix('qwen', 'oe');
    expect(m.kind).toBe('open');
    expect(asPlain(m)).toMatchObject({ itemIds: ['a', 'b'], configs: ['textonly', '16f'], correct: [-1, -1, -1, -1], score: [0.25, 0.5, 0, 0.25] });
  });
});

describe("a grid's kind and configs", () => {
  it('scores beside outcomes, or neither, is multiple choice; only scores is open-ended', () => {
    const p = project();
    const rows = (split: string, extra: Partial<ResponseRow>) => ['a', 'b'].map((sampleId, i) => response({ split, sampleId, config: '16f', line: i + 2, pred: 'A', ...extra }));
    p.applyImport(
      batch('k.csv', {
        configs: [config('16f', 16)],
        responses: [...rows('both', { groundTruth: 'A', correct: true, score: 0.5 }), ...rows('neither', {}), ...rows('scores', { score: 0.25 })],
      }),
    );
    const both = p.loadMatrix('qwen', 'both');
    expect([both.kind, Array.from(both.correct), Array.from(both.score)]).toEqual(['mcqa', [1, 1], [0.5, 0.5]]);
    expect(p.loadMatrix('qwen', 'neither').kind).toBe('mcqa');
    expect(p.loadMatrix('qwen', 'scores').kind).toBe('open');
    expect(p.scanOutcomes().grids.map((g) => [g.split, g.kind])).toEqual([
      ['both', 'mcqa'],
      ['neither', 'mcqa'],
      ['scores', 'open'],
    ]);
  });

  it("each config's pipeline as stored: raw, cache, or none for anything else", () => {
    const p = project();
    const configs = [config('8f', 8, null, { pipeline: 'raw' }), config('16f', 16, null, { pipeline: 'cache' }), config('32f', 32)];
    p.applyImport(batch('c.csv', { configs, responses: configs.map((c, i) => response({ sampleId: 'a', config: c.key, line: i + 2, pred: 'A' })) }));
    p.db.prepare("UPDATE configs SET pipeline = 'other' WHERE key = '32f'").run();
    expect(p.loadMatrix('qwen', 'V1_short').configs.map((c) => [c.key, c.pipeline])).toEqual([
      ['8f', 'raw'],
      ['16f', 'cache'],
      ['32f', null],
    ]);
  });
});

describe('the main protocol', () => {
  function protocols(): Project {
    const p = project();
    const configs = [config('textonly', 0), config('16f', 16), config('16f@random', 16), config('64f@random', 64)];
    const responses = [
      response({ sampleId: 'a', config: 'textonly', line: 2, pred: 'A', groundTruth: 'A', correct: true }),
      response({ sampleId: 'a', config: '16f', line: 3, pred: 'B', groundTruth: 'A', correct: false }),
      response({ sampleId: 'a', config: '16f@random', line: 4, pred: 'A', groundTruth: 'A', correct: true }),
      // An item only the variant protocol saw.
      response({ sampleId: 'z', config: '64f@random', line: 5, pred: 'C', groundTruth: 'C', correct: true }),
    ];
    p.applyImport(batch('run.csv', { configs, responses }));
    return p;
  }

  it("by default only the main protocol's configs and the items with a cell in them", () => {
    const m = protocols().loadMatrix('qwen', 'V1_short');
    expect([m.configs.map((c) => c.key), m.itemIds, Array.from(m.correct)]).toEqual([['textonly', '16f'], ['a'], [1, 0]]);
  });

  it("every config with allProtocols; another protocol's grid (with the untagged text only) when asked for", () => {
    const p = protocols();
    const all = p.loadMatrix('qwen', 'V1_short', { allProtocols: true });
    expect([all.configs.map((c) => c.key).sort(), all.itemIds]).toEqual([
      ['16f', '16f@random', '64f@random', 'textonly'],
      ['a', 'z'],
    ]);
    const random = p.loadMatrix('qwen', 'V1_short', { protocol: 'random' });
    expect([random.configs.map((c) => c.key), random.itemIds, Array.from(random.correct)]).toEqual([
      ['textonly', '16f@random', '64f@random'],
      ['a', 'z'],
      [1, 1, -1, -1, -1, 1],
    ]);
  });

  it('the outcome scan reads the same grid as the loader, for the project main protocol', () => {
    const p = protocols();
    const [g] = p.scanOutcomes().grids;
    const m = p.loadMatrix('qwen', 'V1_short');
    expect([g!.configs.map((c) => c.key), g!.itemIds, Array.from(g!.correct)]).toEqual([m.configs.map((c) => c.key), m.itemIds, Array.from(m.correct)]);
  });
});

describe('the outcome scan', () => {
  it('items in code-point order in a UTF-16 project too, where SQLite sorts by UTF-16 code units', () => {
    const ids = ['\u{1D49C}', '\uFF21', 'a', 'B'];
    for (const encoding of ['UTF-8', 'UTF-16le']) {
      const p = openProject(emptySqliteFile(path.join(tempDir('flipbook-matrix-'), 'p.flipbook'), encoding));
      p.applyImport(
        batch('u.csv', {
          configs: [config('16f', 16)],
          responses: ids.map((sampleId, i) => response({ split: i % 2 ? 'T' : 'S', sampleId, config: '16f', line: i + 2, pred: 'A' })),
        }),
      );
      const { items, grids } = p.scanOutcomes();
      expect(items.sampleId).toEqual(['B', 'a', '\uFF21', '\u{1D49C}']);
      expect(items.sampleId.map((_, i) => items.splits[items.split[i]!])).toEqual(['T', 'S', 'T', 'S']);
      expect(grids.map((g) => [g.split, g.itemIds])).toEqual([
        ['S', ['a', '\u{1D49C}']],
        ['T', ['B', '\uFF21']],
      ]);
      p.close();
    }
  });

  it('every item once, in sample_id order (ties by split id), with what the queue shows of it', () => {
    const p = project();
    p.applyImport(
      batch('meta.json', {
        items: [
          { split: 's2', sampleId: 'q1', taskType: 'Counting', videoFile: 'v/q1.mp4', question: 'How many?' },
          { split: 's1', sampleId: 'q1', taskType: 'OCR', question: 'Which word?' },
          { split: 's1', sampleId: 'Q0' },
        ],
      }),
    );
    const { items, grids } = p.scanOutcomes();
    expect(grids).toEqual([]);
    const listed = items.sampleId.map((id, i) => [id, items.splits[items.split[i]!], items.taskType[i], items.videoFile[i], items.question[i]]);
    // Ties by the split's id: s2 was stored first.
    expect(listed).toEqual([
      ['Q0', 's1', null, null, null],
      ['q1', 's2', 'Counting', 'v/q1.mp4', 'How many?'],
      ['q1', 's1', 'OCR', null, 'Which word?'],
    ]);
  });

  it('agrees with the loader on every grid: rows, items, configs, kind, outcomes and scores', () => {
    const p = project();
    const input = gridRows();
    p.applyImport(batch('run.csv', { configs: CONFIGS, responses: input }));
    // Open-ended, two budgets, one item seen by one of them only.
    const oe = ITEMS.flatMap((sampleId, i) =>
      ['8f', '16f']
        .filter((c) => !(sampleId === 'q2' && c === '8f'))
        .map((c, j) => response({ model: 'gen', split: 'oe', sampleId, config: c, line: 2 + i * 2 + j, pred: 'free text', score: (i + j) / 8 })),
    );
    p.applyImport(batch('oe.csv', { configs: [config('8f', 8), config('16f', 16)], responses: oe }));
    // A grid of another protocol only: not the main grid of anything.
    p.applyImport(
      batch('rand.csv', { configs: [config('16f@random', 16)], responses: [response({ model: 'rnd', split: 's1', sampleId: 'q1', config: '16f@random', line: 2, pred: 'A' })] }),
    );
    const { items, grids } = p.scanOutcomes();
    expect(grids.map((g) => `${g.model}/${g.split}`)).toEqual(['Z/s1', 'Z/s2', 'a-model/s1', 'a-model/s2', 'b-model/s1', 'b-model/s2', 'gen/oe']);
    expect(grids.at(-1)!.configs.map((c) => c.key)).toEqual(['8f', '16f']);
    for (const g of grids) {
      const m = p.loadMatrix(g.model, g.split);
      expect(g.kind).toBe(m.kind);
      expect(g.configs).toEqual(m.configs);
      expect(g.itemIds).toEqual(m.itemIds);
      expect(Array.from(g.rows).map((r) => [items.sampleId[r], items.splits[items.split[r]!]])).toEqual(m.itemIds.map((id) => [id, g.split]));
      expect(Array.from(g.correct)).toEqual(Array.from(m.correct));
      expect(g.score === null ? null : Array.from(g.score)).toEqual(m.kind === 'open' ? Array.from(m.score) : null);
    }
  });
});
