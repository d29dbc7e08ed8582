// The per_item.csv reader's string tables (electron/importers/per-item-intern.ts): whichever of
// its shortcuts finds a value — the previous lookup's bytes, the first few values' bytes, the
// value that followed last time, the Maps — the number is the value's, and `added` is set on its
// first appearance only. Each test builds a buffer of fields and looks them up by byte range.
import { describe, expect, it } from 'vitest';
import { dataView } from '../../../electron/importers/per-item-bytes';
import { Table } from '../../../electron/importers/per-item-intern';

/** A buffer holding `values` separated by commas, and each one's [start, end). */
function fields(values: string[]): { buf: Buffer; at: [number, number][] } {
  const buf = Buffer.from(values.join(','), 'utf8');
  const at: [number, number][] = [];
  let p = 0;
  for (const v of values) {
    const n = Buffer.byteLength(v);
    at.push([p, p + n]);
    p += n + 1;
  }
  return { buf, at };
}

/** Looks up each value in turn: [number, added] per lookup. */
function lookups(t: Table, f: { at: [number, number][] }): [number, boolean][] {
  return f.at.map(([s, e]) => [t.bytes(s, e), t.added]);
}

/** The numbers and `added` flags a lookup of `values` in order must give. */
function expected(values: string[], known: string[] = []): [number, boolean][] {
  const seen = [...known];
  return values.map((v) => {
    const i = seen.indexOf(v);
    if (i >= 0) return [i, false];
    seen.push(v);
    return [seen.length - 1, true];
  });
}

describe.each([true, false])('a Table (few values: %s)', (few) => {
  it('numbers values in order of first appearance; a value that is a prefix of another is another', () => {
    const values = ['Qwen2', 'Qwen', 'Qwen2', 'Qwen', 'Qwen', 'Q', 'Qwen2-VL', 'Qwen2', 'Q', 'ab', 'ba', 'ab', 'ba', 'ba'];
    const f = fields(values);
    const t = new Table(f.buf, few);
    expect(lookups(t, f)).toEqual(expected(values));
    expect(t.strings).toEqual(['Qwen2', 'Qwen', 'Q', 'Qwen2-VL', 'ab', 'ba']);
  });

  it("a first value of one byte equal to the buffer's first byte", () => {
    const values = ['x', 'x', 'y', 'x'];
    const f = fields(['x', ...values]);
    const t = new Table(f.buf, few);
    expect(lookups(t, { at: f.at.slice(1) })).toEqual(expected(values));
  });

  it('more distinct values than it compares byte by byte, met again in any order', () => {
    const names = Array.from({ length: 20 }, (_, i) => `v${i % 2 === 0 ? i : `${i}x`}`);
    const values = [...names, ...[...names].reverse(), ...names, 'v0', 'v19x', 'v1x', 'v0'];
    const f = fields(values);
    const t = new Table(f.buf, few);
    expect(lookups(t, f)).toEqual(expected(values));
  });

  it('a quoted value and its bytes share one number; UTF-8 is decoded', () => {
    const f = fields(['é', 'b', 'é', 'c']);
    const t = new Table(f.buf, few);
    expect([t.string('b'), t.added]).toEqual([0, true]);
    expect([t.string('b'), t.added]).toEqual([0, false]);
    expect(lookups(t, f)).toEqual([
      [1, true],
      [0, false],
      [1, false],
      [2, true],
    ]);
    expect(t.strings).toEqual(['b', 'é', 'c']);
    // A quoted lookup between two of the same bytes: the second is still found as itself.
    expect([t.bytes(...f.at[1]!), t.string('c'), t.bytes(...f.at[1]!), t.string('é'), t.bytes(...f.at[3]!)]).toEqual([0, 2, 0, 1, 2]);
    expect(t.added).toBe(false);
  });

  it('after a move to another buffer, values are found by the bytes there, not where they were', () => {
    const first = fields(['aa', 'bb', 'cc', 'aa', 'bb', 'cc']);
    const t = new Table(first.buf, few);
    expect(lookups(t, first)).toEqual(expected(['aa', 'bb', 'cc', 'aa', 'bb', 'cc']));
    // The same offsets now hold other values, and known ones at other offsets.
    const second = fields(['cc', 'dd', 'aa', 'bb', 'cc', 'dd', 'aa', 'aa', 'bb', 'cc']);
    t.moved(second.buf, dataView(second.buf));
    expect(lookups(t, second)).toEqual(expected(['cc', 'dd', 'aa', 'bb', 'cc', 'dd', 'aa', 'aa', 'bb', 'cc'], ['aa', 'bb', 'cc']));
    const third = fields(['bb', 'aa', 'dd', 'cc', 'bb']);
    t.moved(third.buf, dataView(third.buf));
    expect(lookups(t, third)).toEqual(expected(['bb', 'aa', 'dd', 'cc', 'bb'], ['aa', 'bb', 'cc', 'dd']));
  });

  it('after a move, values of one byte at the offsets of other values', () => {
    const first = fields(['a', 'b', 'c', 'a', 'b', 'c']);
    const t = new Table(first.buf, few);
    expect(lookups(t, first)).toEqual(expected(['a', 'b', 'c', 'a', 'b', 'c']));
    for (const next of [
      ['c', 'b', 'a', 'd', 'a', 'b', 'c'],
      ['b', 'c', 'a', 'b', 'c', 'a', 'b'],
      ['a', 'a', 'd', 'b', 'c', 'a', 'b'],
    ]) {
      const known = [...t.strings];
      const f = fields(next);
      t.moved(f.buf, dataView(f.buf));
      expect(lookups(t, f)).toEqual(expected(next, known));
    }
  });
});

describe('a many-valued Table (sample ids)', () => {
  it('guesses the value that followed last time, and is right when the order changes', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `item-${String(i).padStart(4, '0')}`);
    const shuffled = ids.map((_, i) => ids[(i * 7) % ids.length]!);
    const values = [...ids, ...ids, ...shuffled, ...ids, 'item-0001', 'item-0001', 'item-0000', 'new', 'item-0002'];
    const f = fields(values);
    const t = new Table(f.buf, false);
    expect(lookups(t, f)).toEqual(expected(values));
  });

  it('values of one byte, many of them, where a guess would find a byte at the buffer start', () => {
    const chars = [...'abcdefghijklmnopqrstuvwxyz0123456789'];
    const values = [...chars, ...chars, 'a', 'a', 'b', 'a'];
    const f = fields(['a', ...values]);
    const t = new Table(f.buf, false);
    expect(lookups(t, { at: f.at.slice(1) })).toEqual(expected(values));
  });
});

/**
 * What a lookup costs (docs/performance.md "Import at lab scale"): a value's bytes become a
 * string (`buf.toString`) twice when it is first seen — its latin1 key and its UTF-8 text — and
 * once more only where no shortcut finds it by its bytes: the previous lookup's, the first few
 * values', or (many-valued) the value that followed last time. Each count below is what the
 * shortcuts allow; a lost shortcut shows as strings made for values already known.
 */
describe('what a lookup costs: strings made from bytes', () => {
  function counted(values: string[], few: boolean): { t: Table; f: ReturnType<typeof fields>; strings: () => number } {
    const f = fields(values);
    const t = new Table(f.buf, few);
    let n = 0;
    const toString = f.buf.toString.bind(f.buf);
    f.buf.toString = ((...args: Parameters<Buffer['toString']>) => {
      n++;
      return toString(...args);
    }) as Buffer['toString'];
    return { t, f, strings: () => n };
  }

  it('few values: a known value is found among the first ones by its bytes, in any order', () => {
    const values = ['m1', 'm2', 'm1', 'm1', 'm2', 'm3', 'm2', 'm3', 'm1'];
    const c = counted(values, true);
    expect(lookups(c.t, c.f)).toEqual(expected(values));
    expect(c.strings()).toBe(2 * 3);
  });

  it('few values: past the first eight, a known value costs its latin1 key', () => {
    const names = Array.from({ length: 10 }, (_, i) => `n${i}`);
    const c = counted([...names, ...names], true);
    expect(lookups(c.t, c.f)).toEqual(expected([...names, ...names]));
    expect(c.strings()).toBe(2 * 10 + 2);
  });

  it('many values: the same order again costs nothing, a repeat of the previous value nothing', () => {
    const ids = Array.from({ length: 50 }, (_, i) => `id-${i}`);
    const values = [...ids, ...ids, 'id-7', 'id-7', 'id-7'];
    const c = counted(values, false);
    expect(lookups(c.t, c.f)).toEqual(expected(values));
    // id-7 after id-49 is no guess (id-0 followed it), so only its first repeat costs a key.
    expect(c.strings()).toBe(2 * 50 + 1);
  });

  it('after a move, a known value costs its key once in the new window, then is found by its bytes there', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `id-${i}`);
    const c = counted(ids, false);
    lookups(c.t, c.f);
    const next = counted([...ids, ...ids], false);
    c.t.moved(next.f.buf, dataView(next.f.buf));
    expect(lookups(c.t, next.f)).toEqual(expected([...ids, ...ids], ids));
    expect([c.strings(), next.strings()]).toEqual([2 * 20, 20]);
  });
});
