/**
 * A project's plain reads (electron/store/project-reads.ts): items by filter and every field
 * they keep, the runs, the response records of a grid or an item (with their source file and
 * line), and the grid list's counts, kind, score source and protocols.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import { batch, config, response, tempDir } from './helpers';

const project = (): Project => openProject(path.join(tempDir('flipbook-reads-'), 'p.flipbook'), { create: true });

describe('items', () => {
  const full = {
    split: 'S',
    sampleId: 'q2',
    question: 'Q?',
    options: ['one', 'two'],
    answer: 'A',
    taskType: 'Counting',
    durationS: 12.5,
    durationBucket: 'short',
    domain: 'd',
    subCategory: 'sc',
    videoId: 'v2',
    videoFile: 'v/2.mp4',
    kind: 'mcqa' as const,
  };
  function withItems(): Project {
    const p = project();
    p.applyImport(
      batch('meta.json', {
        items: [
          full,
          { split: 'S', sampleId: 'q1', references: ['a cat', 'the cat'], kind: 'open', taskType: 'Caption' },
          { split: 'R', sampleId: 'q3', videoFile: 'v/3.mp4', taskType: 'Counting' },
        ],
      }),
    );
    return p;
  }

  it('every field as stored, in (split, sample id) order', () => {
    const items = withItems().listItems();
    expect(items.map((i) => `${i.split}/${i.sampleId}`)).toEqual(['R/q3', 'S/q1', 'S/q2']);
    expect(items[2]).toEqual({ ...full, references: null, context: null });
    expect(items[1]).toMatchObject({ options: null, references: ['a cat', 'the cat'], kind: 'open', question: null, durationS: null });
    expect(items[0]!.kind).toBeNull();
  });

  it('by split, task type, video or not, and sample ids (none asked: none)', () => {
    const p = withItems();
    const ids = (f: Parameters<Project['listItems']>[0]) => p.listItems(f).map((i) => `${i.split}/${i.sampleId}`);
    expect(ids({ split: 'S' })).toEqual(['S/q1', 'S/q2']);
    expect(ids({ taskType: 'Counting' })).toEqual(['R/q3', 'S/q2']);
    expect(ids({ hasVideo: true })).toEqual(['R/q3', 'S/q2']);
    expect(ids({ hasVideo: false })).toEqual(['S/q1']);
    expect(ids({ sampleIds: ['q1', 'q3'] })).toEqual(['R/q3', 'S/q1']);
    expect(ids({ sampleIds: [] })).toEqual([]);
    expect(ids({ split: 'S', taskType: 'Counting', hasVideo: true, sampleIds: ['q2', 'q3'] })).toEqual(['S/q2']);
  });
});

describe('runs and response records', () => {
  function withResponses(): Project {
    const p = project();
    const configs = [config('textonly', 0), config('8f', 8), config('16f', 16)];
    p.applyImport(
      batch('runs/a.csv', {
        configs,
        responses: [
          response({
            sampleId: 'q2',
            config: '8f',
            line: 4,
            pred: 'B',
            groundTruth: 'A',
            correct: false,
            frameIndices: [0, 4],
            confidence: 0.5,
            margin: 0.1,
            latencyMs: 900,
            sourceTag: 't',
            protocolNote: 'n',
          }),
          response({ sampleId: 'q1', config: 'textonly', line: 2, pred: 'A', groundTruth: 'A', correct: true }),
          response({ sampleId: 'q1', config: '16f', line: 3, pred: null, groundTruth: 'A', correct: false }),
        ],
      }),
    );
    p.applyImport(batch('runs/b.jsonl', { format: 'other', responses: [response({ model: 'other', sampleId: 'q1', config: '8f', line: 9, pred: 'A' })] }));
    return p;
  }

  it('runs in import order, with their counts, toolkit and model arguments', () => {
    const p = withResponses();
    p.applyImport({
      ...batch('runs/c.jsonl', { responses: [response({ model: 'third', sampleId: 'q1', config: '8f', line: 2, pred: 'A' })] }),
      run: { ...batch('runs/c.jsonl', {}).run, sourcePath: 'runs/c.jsonl', toolkit: 'lmms-eval', modelArgs: 'max_pixels=151200' },
    });
    expect(p.listRuns().at(-1)).toMatchObject({ sourcePath: 'runs/c.jsonl', toolkit: 'lmms-eval', modelArgs: 'max_pixels=151200' });
    const runs = p.listRuns().slice(0, 2);
    expect(runs.map((r) => [r.id, r.sourcePath, r.format, r.nItems, r.nResponses, r.nConfigs, r.toolkit, r.modelArgs])).toEqual([
      // Items counted are those the file describes (metadata), not those its rows name.
      [1, 'runs/a.csv', 'test', 0, 3, 3, null, null],
      [2, 'runs/b.jsonl', 'other', 0, 1, 1, null, null],
    ]);
    expect(runs[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(runs[0]!.importedAt)).not.toBeNaN();
  });

  it("a grid's records by sample id, then config key as SQLite orders it; every field, its file and line", () => {
    const p = withResponses();
    const records = [...p.iterateResponses({ model: 'qwen' })];
    expect(records.map((r) => `${r.sampleId}/${r.config}`)).toEqual(['q1/16f', 'q1/textonly', 'q2/8f']);
    expect(records[2]).toEqual({
      model: 'qwen',
      split: 'V1_short',
      sampleId: 'q2',
      config: '8f',
      pred: 'B',
      correct: false,
      score: null,
      groundTruth: 'A',
      confidence: 0.5,
      margin: 0.1,
      latencyMs: 900,
      frameIndices: [0, 4],
      sourceTag: 't',
      protocolNote: 'n',
      source: 'runs/a.csv',
      line: 4,
    });
    expect(records.map((r) => [r.correct, r.pred])).toEqual([
      [false, null],
      [true, 'A'],
      [false, 'B'],
    ]);
    expect([...p.iterateResponses({ split: 'nope' })]).toEqual([]);
    expect([...p.iterateResponses()].map((r) => r.model)).toEqual(['other', 'qwen', 'qwen', 'qwen']);
  });

  it("one item's records in budget order, and none of an unknown grid", () => {
    const p = withResponses();
    expect(p.responsesForItem('qwen', 'V1_short', 'q1').map((r) => r.config)).toEqual(['textonly', '16f']);
    expect(p.responsesForItem('other', 'V1_short', 'q1').map((r) => [r.config, r.source, r.line, r.correct])).toEqual([['8f', 'runs/b.jsonl', 9, true]]);
    expect(p.responsesForItem('qwen', 'nope', 'q1')).toEqual([]);
  });
});

describe('the grid list', () => {
  it("counts, kind, score source and protocols of each grid; the main protocol's configs by default", () => {
    const p = project();
    const configs = [config('textonly', 0), config('16f', 16), config('16f@random', 16)];
    p.applyImport(
      batch('a.csv', {
        configs,
        responses: [
          response({ sampleId: 'q1', config: 'textonly', line: 2, pred: 'A', groundTruth: 'A', correct: true }),
          response({ sampleId: 'q2', config: '16f', line: 3, pred: 'B', groundTruth: 'A', correct: false }),
          response({ sampleId: 'q3', config: '16f@random', line: 4, pred: 'A', groundTruth: 'A', correct: true }),
          response({ model: 'gen', split: 'oe', sampleId: 'o1', config: '16f', line: 5, pred: 'text', score: 0.5, protocolNote: 'score: gpt_score' }),
          response({ model: 'gen', split: 'oe', sampleId: 'o2', config: '16f', line: 6, pred: 'text', score: 0.25, protocolNote: 'score: token_f1' }),
          response({ model: 'gen', split: 'oe2', sampleId: 'o1', config: '16f', line: 7, pred: 'text', score: 0.5 }),
        ],
      }),
    );
    const grids = p.listGrids().map((g) => [g.model, g.split, g.kind, g.configs.map((c) => c.key), g.nItems, g.nCells, g.score, g.protocols]);
    expect(grids).toEqual([
      ['gen', 'oe', 'open', ['16f'], 2, 2, 'gpt_score + token_f1', ['']],
      ['gen', 'oe2', 'open', ['16f'], 1, 1, 'token_f1', ['']],
      ['qwen', 'V1_short', 'mcqa', ['textonly', '16f'], 2, 2, 'correct', ['', 'random']],
    ]);
    const all = p.listGrids({ allProtocols: true }).find((g) => g.model === 'qwen')!;
    expect([all.configs.map((c) => c.key), all.nItems, all.nCells]).toEqual([['textonly', '16f', '16f@random'], 3, 3]);
    // A grid with scores beside outcomes, or with neither, is multiple choice; a note that
    // names no score source adds none.
    p.applyImport(
      batch('c.csv', {
        configs: [config('16f', 16)],
        responses: [
          response({
            model: 'mc',
            split: 'both',
            sampleId: 'm1',
            config: '16f',
            line: 2,
            pred: 'A',
            groundTruth: 'A',
            correct: true,
            score: 1,
            protocolNote: 'score: exact_match',
          }),
          response({ model: 'mc', split: 'both', sampleId: 'm2', config: '16f', line: 3, pred: 'B', groundTruth: 'A', correct: false, protocolNote: 'fallback, note' }),
          response({ model: 'mc', split: 'neither', sampleId: 'm1', config: '16f', line: 4, pred: 'B', protocolNote: 'fallback, note' }),
        ],
      }),
    );
    expect(
      p
        .listGrids({ allProtocols: true })
        .filter((g) => g.model === 'mc')
        .map((g) => [g.split, g.kind, g.score]),
    ).toEqual([
      ['both', 'mcqa', 'correct (exact_match)'],
      ['neither', 'mcqa', 'correct'],
    ]);
    // A protocol with no grid in a (model, split) leaves it out of that protocol's list.
    expect(p.listGrids({ protocol: 'random' }).map((g) => `${g.model}/${g.split}`)).toEqual(['qwen/V1_short']);
  });
});
