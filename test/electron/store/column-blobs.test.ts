/**
 * The BLOB encodings of a grid column's fields (electron/store/column-blobs.ts): an all-null
 * field is stored as no BLOB, a float BLOB does not depend on the NaN bits it was handed, the
 * distinct strings of a string table are read back without its cells, frame lists decode to
 * exactly their cells, and a field's table of strings never holds one twice.
 */
import { describe, expect, it } from 'vitest';
import { decodeFloat64, decodeFrames, decodeStrings, distinctStrings, encodeFloat64Array, encodeFrames, encodeStrings, StringCells } from '../../../electron/store/column-blobs';

/** A NaN whose bits are not the canonical NaN's (as a file's float parser may hand one over). */
function oddNaN(): number {
  const v = new DataView(new ArrayBuffer(8));
  v.setUint32(0, 0x7ff80000, false);
  v.setUint32(4, 1, false);
  const x = v.getFloat64(0, false);
  expect(Number.isNaN(x)).toBe(true);
  return x;
}
const floats = (...v: number[]) => Float64Array.from(v);

describe('float fields', () => {
  it('all null is no BLOB, whatever NaN bits it holds', () => {
    expect(encodeFloat64Array(floats(NaN, NaN), null)).toBeNull();
    expect(encodeFloat64Array(floats(oddNaN(), oddNaN(), NaN), null)).toBeNull();
    expect(encodeFloat64Array(floats(), null)).toBeNull();
  });

  it('a null is written as the canonical NaN, so the BLOB is the same for any NaN bits', () => {
    const odd = encodeFloat64Array(floats(0.5, oddNaN()), null)!;
    const canonical = encodeFloat64Array(floats(0.5, NaN), null)!;
    expect(odd.equals(canonical)).toBe(true);
    expect(Array.from(decodeFloat64(odd))).toEqual([0.5, NaN]);
  });

  it('cells are taken in the order given', () => {
    expect(Array.from(decodeFloat64(encodeFloat64Array(floats(1, 2, 3), [2, 0, 1])!))).toEqual([3, 1, 2]);
  });
});

describe('string tables', () => {
  it('the distinct strings in order of first appearance, without decoding the cells', () => {
    expect(distinctStrings(encodeStrings(['b', null, 'a', 'b', 'é✓'], null))).toEqual(['b', 'a', 'é✓']);
    expect(distinctStrings(encodeStrings([null, null, null], null))).toEqual([]);
    expect(distinctStrings(encodeStrings(['x', 'y'], [1, 0]))).toEqual(['y', 'x']);
  });

  it('the distinct strings of tables with one-, two- and four-byte indices, of every cell count modulo 4', () => {
    const cases = [3, 300].flatMap((d) => [0, 1, 2, 3].map((extra) => [d, extra] as const));
    for (const [d, extra] of [...cases, [70_000, 1] as const]) {
      const values = Array.from({ length: d + extra }, (_, i) => `s${i % d}·`);
      const b = encodeStrings(values, null);
      expect(b[0]).toBe(d < 255 ? 1 : d < 65_535 ? 2 : 4);
      const distinct = distinctStrings(b);
      expect(distinct).toHaveLength(d);
      expect([distinct[0], distinct[d - 1]]).toEqual(['s0·', `s${d - 1}·`]);
      expect(decodeStrings(b)).toEqual(values);
    }
  });
});

describe('frame lists', () => {
  it('no frames in any cell is no BLOB', () => {
    expect(encodeFrames([null, null], null)).toBeNull();
    expect(encodeFrames([], null)).toBeNull();
  });

  it('decode to exactly their cells, for every cell count modulo 4, in the order given', () => {
    for (const n of [1, 2, 3, 4, 5]) {
      const cells = Array.from({ length: n }, (_, k) => (k % 2 === 0 ? Int32Array.from([k, k + 10]) : null));
      expect(decodeFrames(encodeFrames(cells, null)!)).toEqual(cells);
    }
    const cells = [Int32Array.from([1]), null, Int32Array.from([]), Int32Array.from([4, 5, 6])];
    expect(decodeFrames(encodeFrames(cells, [3, 2, 1, 0])!)).toEqual([cells[3], cells[2], null, cells[0]]);
  });
});

describe("a field's table of strings", () => {
  it('starts empty, and interns each string once', () => {
    const cells = new StringCells(new Int32Array(3));
    cells.set(0, 'a');
    cells.set(1, null);
    cells.set(2, 'a');
    expect(cells.table).toEqual(['a']);
    expect(Array.from(cells.index)).toEqual([0, -1, 0]);
    expect([cells.get(0), cells.get(1), cells.get(2)]).toEqual(['a', null, 'a']);
  });

  it('a decoded table knows the strings it already holds', () => {
    const cells = new StringCells(Int32Array.from([1, 0]), ['a', 'b']);
    expect(cells.intern('b')).toBe(1);
    expect(cells.intern('a')).toBe(0);
    expect(cells.intern('c')).toBe(2);
    expect(cells.table).toEqual(['a', 'b', 'c']);
  });
});
