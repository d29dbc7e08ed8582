// Column.find is the applier's "does this item have a cell here?" for every imported cell: its
// position index (a dense array over neighbouring item ids, a Map once ids spread far apart)
// must answer right however the cells arrived (appended in blocks, pushed one by one, decoded).
import { describe, expect, it } from 'vitest';
import { StringCells } from '../../../electron/store/column-blobs';
import { Column, decodeColumn, encodeColumn, COLUMN_COLUMNS, floatAt, type ColumnRow } from '../../../electron/store/response-columns';

/** Every id's position by a plain scan: what find must answer. */
function positions(c: Column): Map<number, number> {
  const m = new Map<number, number>();
  for (let k = 0; k < c.length; k++) m.set(c.itemIds[k]!, k);
  return m;
}

function expectFinds(c: Column, absent: number[]): void {
  for (const [id, k] of positions(c)) expect(c.find(id)).toBe(k);
  for (const id of absent) expect(c.find(id)).toBe(-1);
}

const block = (ids: number[]): Int32Array => Int32Array.from(ids);

/** A column through its BLOBs: encoded as the store writes it, decoded as it reads it back. */
const roundTrip = (c: Column): Column => {
  const names = COLUMN_COLUMNS.split(', ');
  const v = encodeColumn(c);
  return decodeColumn({ ...(Object.fromEntries(names.map((n, i) => [n, v[i]])) as unknown as ColumnRow), id: 1 });
};

describe('Column position index', () => {
  it('finds cells appended in blocks, in any id order, starting far from id 0', () => {
    const c = new Column(1, 1, 1);
    c.append(block([50_007, 50_003, 50_009]), 3);
    c.append(block([50_001, 50_020]), 2);
    c.push(49_990);
    expectFinds(c, [0, 50_000, 50_002, 50_021, 49_989]);
  });

  it('finds cells when the ids spread too far for a dense index, before and after', () => {
    const c = new Column(1, 1, 1);
    c.append(block([10, 11, 12]), 3);
    c.push(5_000_000);
    c.append(block([13, 4_000_000, 9]), 3);
    c.push(7);
    expectFinds(c, [8, 14, 4_999_999, 6_000_000]);
  });

  it('finds the cells of a decoded column and of cells appended to it', () => {
    const c = new Column(1, 2, 3);
    c.append(block([3, 1, 2]), 3);
    c.correct.fill(-1, 0, 3);
    expect([c.score, c.confidence, c.margin, c.latencyMs]).toEqual([null, null, null, null]); // no values: no arrays
    for (const s of [c.pred, c.groundTruth, c.sourceTag, c.protocolNote]) s.index.fill(-1, 0, 3);
    expect(c.frames).toBeNull(); // no frames: no array
    const d = roundTrip(c);
    expect(Array.from(d.itemIds)).toEqual([1, 2, 3]); // stored in item-id order
    d.append(block([6, 4]), 2);
    expectFinds(d, [0, 5, 7]);
  });
});

// A float field no cell has a value in has no array (its BLOB is NULL); the first value makes
// one, every other cell NaN, at the columns' capacity, and it grows and encodes with them.
describe('Column float fields', () => {
  it('makes an array at the first value, keeps the others null, and stores both as before', () => {
    const c = new Column(1, 1, 1);
    for (const id of [5, 3, 4]) c.push(id);
    c.setFloat('confidence', 1, null); // no value: still no array
    expect(c.confidence).toBeNull();
    c.setFloat('confidence', 1, 0.25);
    expect(Array.from(c.confidence!.subarray(0, 3))).toEqual([NaN, 0.25, NaN]);
    expect(c.confidence!.length).toBe(c.itemIds.length);
    // Cells pushed and grown past the first capacity after the array was made are NaN.
    for (let id = 10; id < 40; id++) c.push(id);
    c.setFloat('confidence', 32, 0.5);
    c.setFloat('confidence', 1, null);
    expect(c.confidence!.length).toBe(c.itemIds.length);
    const d = roundTrip(c);
    expect(d.score).toBeNull();
    expect(d.margin).toBeNull();
    expect(d.latencyMs).toBeNull();
    const byId = new Map(Array.from(d.itemIds.subarray(0, d.length), (id, k) => [id, floatAt(d.confidence, k)]));
    expect(byId.get(3)).toBeNull(); // set, then cleared
    expect(byId.get(39)).toBe(0.5); // cell 32 was item 39
    expect([...byId.values()].filter((v) => v !== null)).toEqual([0.5]);
    const v = encodeColumn(c);
    expect(v[COLUMN_COLUMNS.split(', ').indexOf('score')]).toBeNull();
    expect(v[COLUMN_COLUMNS.split(', ').indexOf('n_score')]).toBe(0);
  });

  it('counts scores only where a cell has one', () => {
    const c = new Column(1, 1, 1);
    for (const id of [1, 2, 3]) c.push(id);
    c.setFloat('score', 2, 0.75);
    const v = encodeColumn(c);
    expect(v[COLUMN_COLUMNS.split(', ').indexOf('n_score')]).toBe(1);
    expect(floatAt(roundTrip(c).score, 2)).toBe(0.75);
  });
});

// Frames likewise: no array while no cell has frame indices (the BLOB is NULL); the first
// cell with some makes one, a null per other cell, and cells pushed after it get a null.
describe('Column frames', () => {
  it('makes an array at the first frames, keeps a null per other cell, and stores both', () => {
    const c = new Column(1, 1, 1);
    for (const id of [5, 3, 4]) c.push(id);
    c.setFrames(1, null);
    expect(c.frames).toBeNull();
    expect(encodeColumn(c)[COLUMN_COLUMNS.split(', ').indexOf('frame_indices')]).toBeNull();
    expect(roundTrip(c).frames).toBeNull();
    c.setFrames(2, [0, 8, 16]);
    expect(c.frames).toEqual([null, null, [0, 8, 16]]);
    c.push(9);
    expect(c.frames).toHaveLength(4);
    c.setFrames(3, Int32Array.from([4]));
    c.setFrames(2, null);
    c.setFrames(0, [1, 2]);
    const d = roundTrip(c);
    const byId = new Map(Array.from(d.itemIds.subarray(0, d.length), (id, k) => [id, d.frames?.[k] ? Array.from(d.frames[k]!) : null]));
    expect(Object.fromEntries(byId)).toEqual({ 3: null, 4: null, 5: [1, 2], 9: [4] });
  });
});

// Column.adopt takes a batch's arrays as an empty column's cells, as they are: each must be
// exactly as long as the cells, and the column must be empty.
describe('Column.adopt', () => {
  const cells = (n: number, short: string | null = null) => {
    const len = (name: string) => (name === short ? n - 1 : n);
    const strings = (name: string) => new StringCells(new Int32Array(len(name)).fill(-1));
    return {
      itemIds: Int32Array.from({ length: len('itemIds') }, (_, k) => k + 1),
      correct: new Int8Array(len('correct')).fill(-1),
      runId: new Int32Array(len('runId')),
      line: new Int32Array(len('line')),
      score: short === 'score' ? new Float64Array(n - 1) : null,
      confidence: new Float64Array(len('confidence')).fill(NaN),
      margin: short === 'margin' ? new Float64Array(n - 1) : null,
      latencyMs: null,
      pred: strings('pred'),
      groundTruth: strings('groundTruth'),
      sourceTag: strings('sourceTag'),
      protocolNote: strings('protocolNote'),
    };
  };

  it('holds the cells as given, and finds them', () => {
    const c = new Column(1, 1, 1);
    const given = cells(3);
    c.adopt(3, given);
    expect([c.length, c.itemIds, c.confidence, c.dirty]).toEqual([3, given.itemIds, given.confidence, true]);
    expectFinds(c, [0, 4]);
    // The first cell appended grows it into arrays of its own.
    c.push(9);
    expect(c.itemIds).not.toBe(given.itemIds);
    expectFinds(c, [0, 4]);
  });

  it('refuses any array not as long as the cells, and a column that has cells', () => {
    for (const short of ['itemIds', 'correct', 'runId', 'line', 'score', 'confidence', 'margin', 'pred', 'groundTruth', 'sourceTag', 'protocolNote'])
      expect(() => new Column(1, 1, 1).adopt(3, cells(3, short)), short).toThrow('Column.adopt: an array is not as long as the cells');
    const c = new Column(1, 1, 1);
    c.push(1);
    expect(() => c.adopt(3, cells(3))).toThrow('Column.adopt: the column has cells');
  });
});
