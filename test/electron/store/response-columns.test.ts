// Column.find is the applier's "does this item have a cell here?" for every imported cell: its
// position index (a dense array over neighbouring item ids, a Map once ids spread far apart)
// must answer right however the cells arrived (appended in blocks, pushed one by one, decoded).
import { describe, expect, it } from 'vitest';
import { Column, decodeColumn, encodeColumn, COLUMN_COLUMNS, type ColumnRow } from '../../../electron/store/response-columns';

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

describe('Column position index', () => {
  it('finds cells appended in blocks, in any id order, starting far from id 0', () => {
    const c = new Column(1, 1, 1);
    c.append(block([50_007, 50_003, 50_009]), 3);
    c.append(block([50_001, 50_020]), 2);
    for (let j = 0; j < 5; j++) c.frames.push(null);
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
    for (const a of [c.score, c.confidence, c.margin, c.latencyMs]) a.fill(NaN, 0, 3);
    for (const s of [c.pred, c.groundTruth, c.sourceTag, c.protocolNote]) s.index.fill(-1, 0, 3);
    c.frames.push(null, null, null);
    const names = COLUMN_COLUMNS.split(', ');
    const v = encodeColumn(c);
    const row = Object.fromEntries(names.map((n, i) => [n, v[i]])) as unknown as ColumnRow;
    const d = decodeColumn({ ...row, id: 1 });
    expect(Array.from(d.itemIds)).toEqual([1, 2, 3]); // stored in item-id order
    d.append(block([6, 4]), 2);
    expectFinds(d, [0, 5, 7]);
  });
});
