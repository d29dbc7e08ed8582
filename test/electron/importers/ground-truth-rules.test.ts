/**
 * The ground-truth rules on their own (docs/formats.md "Ground truth"): the split mapping
 * option, which target splits a source split answers (its own, a mapped template, the built-in
 * `videomme` → `V1_{duration}`), conflicting answers, the metadata carried over, and the
 * per-split coverage the CLI prints. ground-truth.test.ts imports real files; this file checks
 * each rule by itself.
 */
import { describe, expect, it } from 'vitest';
import type { ImportBatch, ItemMeta, ResponseColumnBatch } from '../../../shared/domain/types';
import { emptyResponse } from '../../../electron/importers/batch-builder';
import { GroundTruth, groundTruthCoverage, parseSplitMap } from '../../../electron/importers/ground-truth';
import { refusalOf, errorMessage } from './helpers';

const run = (format = 'lmms-eval') => ({ sourcePath: 'src', sha256: 'x', format, toolkit: null, modelArgs: null });
const item = (split: string, sampleId: string, answer: string | null, over: Partial<ItemMeta> = {}): ItemMeta & { line: number } => ({
  split,
  sampleId,
  question: `question ${sampleId}`,
  options: ['x', 'y', 'z'],
  answer,
  kind: 'mcqa',
  line: 2,
  ...over,
});
const batch = (items: ItemMeta[], responses: [string, string, string | null, number][] = [], format?: string): ImportBatch => ({
  run: run(format),
  items,
  responses: responses.map(([split, id, gt, line]) => ({ ...emptyResponse('M', split, id, '8f', line), groundTruth: gt })),
  configs: [],
  warnings: [],
});

describe('parseSplitMap', () => {
  it('reads source=target pairs, spaces and empty parts ignored, the same pair twice once', () => {
    expect([...parseSplitMap(' videomme = V1_{duration} ,, videomme_v2=V2_medium,videomme=V1_{duration}')]).toEqual([
      ['videomme', 'V1_{duration}'],
      ['videomme_v2', 'V2_medium'],
    ]);
    expect([...parseSplitMap('a=b=c')]).toEqual([['a', 'b=c']]);
  });

  it('refuses a part without both sides, a split mapped to two targets, and no pair at all', () => {
    const message = (v: string): string => errorMessage(() => parseSplitMap(v));
    expect(message('videomme')).toBe('expected <source split>=<target split or template>, got "videomme"');
    expect(message('=V1')).toBe('expected <source split>=<target split or template>, got "=V1"');
    expect(message('videomme= ')).toBe('expected <source split>=<target split or template>, got "videomme="');
    expect(message('a=b,a=c')).toBe('source split "a" is mapped twice');
    expect(message(' , ')).toBe('needs at least one <source split>=<target split>');
  });
});

describe('GroundTruth', () => {
  it("answers a source split's own name, and videomme also V1_<its duration>", () => {
    const gt = new GroundTruth([batch([item('videomme', '001-1', 'A', { durationBucket: 'short' }), item('videomme', '002-1', 'B'), item('MLVU', 'm1', 'C')])], 'runs/src.jsonl');
    expect([gt.answer('videomme', '001-1'), gt.answer('V1_short', '001-1'), gt.answer('videomme', '002-1'), gt.answer('MLVU', 'm1')]).toEqual(['A', 'A', 'B', 'C']);
    // No duration: no V1 split; nothing answers V2 or another split.
    expect([gt.answer('V1_unknown', '002-1'), gt.answer('V2_short', '001-1'), gt.answer('V1_short', 'm1'), gt.answer('nope', 'x')]).toEqual([null, null, null, null]);
    expect(gt.targetSplits).toEqual(['MLVU', 'V1_short', 'videomme']);
    expect(gt.size).toBe(4);
    expect([...gt.sourceSplits]).toEqual(['videomme', 'MLVU']);
  });

  it('a mapping replaces the built-in rule of its split and may name a fixed split', () => {
    const items = [item('videomme', '001-1', 'A', { durationBucket: 'long' }), item('videomme_v2', 'v2-1', 'D')];
    const gt = new GroundTruth(
      [batch(items)],
      'src',
      new Map([
        ['videomme', 'V1x_{duration}'],
        ['videomme_v2', 'V2_medium'],
      ]),
    );
    expect([gt.answer('V1x_long', '001-1'), gt.answer('V1_long', '001-1'), gt.answer('V2_medium', 'v2-1'), gt.answer('videomme_v2', 'v2-1')]).toEqual(['A', null, 'D', 'D']);
    const e = refusalOf(() => new GroundTruth([batch(items)], 'runs/src.jsonl', new Map([['V1', 'V1_short']])));
    expect([e.file, e.line, e.field, e.reason]).toEqual(['runs/src.jsonl', 0, 'ground-truth-split', 'the ground-truth source has no split "V1" (it has: videomme, videomme_v2)']);
  });

  it('takes answers from items, responses and column batches, skipping empty ones; a split with none is still a source', () => {
    const rows = batch(
      [],
      [
        ['S', 'q1', 'A', 3],
        ['S', 'q2', null, 4],
        ['S', 'q3', '', 5],
      ],
    );
    const columns: Pick<ResponseColumnBatch, 'split' | 'length' | 'sampleIds' | 'groundTruth' | 'line'> = {
      split: 'T',
      length: 2,
      sampleIds: ['c1', 'c2'],
      groundTruth: [null, 'B'],
      line: Int32Array.from([7, 8]),
    };
    // A column batch's responses are the same cells: only the columns are read.
    const colBatch: ImportBatch = { ...batch([], [['T', 'c1', 'Z', 7]]), columns: [columns as ResponseColumnBatch] };
    const gt = new GroundTruth([rows, colBatch, batch([item('U', 'u1', null)])], 'src');
    expect([gt.answer('S', 'q1'), gt.answer('S', 'q2'), gt.answer('S', 'q3'), gt.answer('T', 'c1'), gt.answer('T', 'c2')]).toEqual(['A', null, null, null, 'B']);
    // A column's cell is refused at its own line.
    const clash = refusalOf(() => new GroundTruth([colBatch, batch([], [['T', 'c2', 'C', 3]])], 'runs/src.csv'));
    expect([clash.line, clash.reason]).toEqual([3, 'sample c2 gets two answers in split T: "C" from source split T, "B" from T']);
    const clash2 = refusalOf(() => new GroundTruth([batch([], [['T', 'c2', 'C', 3]]), colBatch], 'runs/src.csv'));
    expect([clash2.line, clash2.reason]).toEqual([8, 'sample c2 gets two answers in split T: "B" from source split T, "C" from T']);
    expect([...gt.sourceSplits]).toEqual(['S', 'T', 'U']);
    expect(gt.targetSplits).toEqual(['S', 'T']);
    // An answer from a response alone: the item is a bare multiple-choice one.
    expect(gt.item('S', 'q1')).toEqual({ answer: 'A', kind: 'mcqa', split: 'S', sampleId: 'q1' });
  });

  it("carries the source item's metadata to the target split, with the answer the source gives", () => {
    const gt = new GroundTruth([batch([item('videomme', '001-1', null, { durationBucket: 'medium', taskType: 'OCR' })], [['videomme', '001-1', 'C', 9]])], 'src');
    expect(gt.item('V1_medium', '001-1')).toEqual({
      question: 'question 001-1',
      options: ['x', 'y', 'z'],
      answer: 'C',
      kind: 'mcqa',
      durationBucket: 'medium',
      taskType: 'OCR',
      split: 'V1_medium',
      sampleId: '001-1',
    });
    expect(gt.item('V1_long', '001-1')).toBeNull();
  });

  it('refuses two different answers reaching one target, and takes the same one twice', () => {
    const twice = new GroundTruth([batch([item('videomme', '001-1', 'A', { durationBucket: 'short' })]), batch([item('V1_short', '001-1', 'A')])], 'src');
    expect(twice.answer('V1_short', '001-1')).toBe('A');
    // The first source keeps the item: its metadata, and the split named as the answer's source.
    const first = new GroundTruth(
      [batch([item('videomme', '001-1', 'A', { durationBucket: 'short', taskType: 'OCR' })]), batch([item('V1_short', '001-1', 'A', { taskType: 'Counting' })])],
      'src',
    );
    expect(first.item('V1_short', '001-1')?.taskType).toBe('OCR');
    const e = refusalOf(
      () => new GroundTruth([batch([item('videomme', '001-1', 'A', { durationBucket: 'short' })]), batch([], [['V1_short', '001-1', 'B', 12]])], 'runs/src.jsonl'),
    );
    expect([e.file, e.line, e.field, e.reason]).toEqual([
      'runs/src.jsonl',
      12,
      'answer',
      'sample 001-1 gets two answers in split V1_short: "B" from source split V1_short, "A" from videomme',
    ]);
  });

  it('says why a split gets no answers', () => {
    const gt = new GroundTruth([batch([item('videomme', '001-1', 'A', { durationBucket: 'short' })])], 'runs/src.jsonl');
    expect(gt.describeMiss('V1_short')).toBe('not in split V1_short of src.jsonl');
    expect(gt.describeMiss('V2_short')).toBe('src.jsonl answers splits V1_short, videomme, not V2_short; map one with --ground-truth-split');
    expect(new GroundTruth([], 'runs/none.csv').describeMiss('S')).toBe('none.csv answers splits (none), not S; map one with --ground-truth-split');
  });
});

describe('groundTruthCoverage', () => {
  it('counts per split of the wide batches the items and those with an answer in any row, splits in order', () => {
    const wide = batch(
      [],
      [
        ['V1_short', 'a', null, 2],
        ['V1_short', 'a', 'A', 3],
        ['V1_short', 'b', 'B', 4],
        ['V1_short', 'b', null, 5],
        ['V1_short', 'c', null, 6],
        ['V1_long', 'z', 'C', 7],
      ],
      'wide-csv',
    );
    const other = batch([], [['X', 'x', 'A', 2]]);
    expect(Object.entries(groundTruthCoverage([other, wide]))).toEqual([
      ['V1_long', { items: 1, answered: 1 }],
      ['V1_short', { items: 3, answered: 2 }],
    ]);
    expect(groundTruthCoverage([other])).toEqual({});
  });
});
