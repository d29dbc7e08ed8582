/**
 * derived.csv's writer against the release's row definition printed by the one CSV writer: csvText
 * over derivedRows (shared/release/aggregate.ts), on matrices with awkward ids and names, missing
 * cells, unsorted rows and with / without an applicable matched grid.
 */
import { describe, expect, it } from 'vitest';
import type { ResponseMatrix } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { createMatrix } from '../../../shared/engine/matrix';
import { DERIVED_COLUMNS, derivedRows } from '../../../shared/release/aggregate';
import { DERIVED_HEADER, derivedCsvBytes } from '../../../electron/release/derived-csv';
import { encodeIds } from '../../../electron/release/byte-lines';
import { trajectoryColumns } from '../../../shared/engine/trajectories';
import { compareCodePoints, csvText } from '../../../electron/release/format';

function matrix(model: string, ids: string[], keys: string[], seed: number, missing: number): ResponseMatrix {
  const m = createMatrix({
    model,
    split: 'S,1',
    kind: 'mcqa',
    itemIds: ids,
    configs: keys.map((k) => (k.includes(',') ? { ...makeConfigSpec('48f_151k'), key: k } : makeConfigSpec(k))),
  });
  let s = seed >>> 0;
  const next = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (let k = 0; k < m.correct.length; k++) m.correct[k] = next() < missing ? -1 : next() < 0.6 ? 1 : 0;
  return m;
}

const reference = (m: ResponseMatrix, mg: readonly string[] | null): string =>
  csvText(
    DERIVED_COLUMNS,
    derivedRows(m, mg).map((r) => DERIVED_COLUMNS.map((k) => r[k])),
  );

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

describe('derivedCsvBytes', () => {
  const ids = ['b-2', 'a,1', 'say "hi"', '𝔘-astral', '\uE000-pua', 'line\nbreak', 'ü-ñ', ...Array.from({ length: 60 }, (_, i) => `q${i}`)];
  const keys = ['textonly', '16f_151k', '32f_151k', '64f_151k', '32f_302k', 'odd,key'];
  const cases: [string, ResponseMatrix, readonly string[] | null][] = [
    ['unsorted ids, matched grid', matrix('Model "X"', ids, keys, 1, 0.1), ['textonly', '16f_151k', '32f_151k']],
    ['sorted ids, no matched grid', matrix('M', [...ids].sort(), keys, 2, 0.05), null],
    ['matched grid the model lacks', matrix('M', ids, keys.slice(0, 3), 3, 0), ['textonly', '64f_151k']],
    ['one config, many missing', matrix('M', ids, ['16f_151k'], 4, 0.5), ['16f_151k']],
    [
      'plain ASCII ids already in order (no quoting, no sort)',
      matrix(
        'M',
        Array.from({ length: 80 }, (_, i) => `id-${String(i).padStart(3, '0')}`),
        keys.slice(0, 4),
        5,
        0.05,
      ),
      null,
    ],
    ['awkward ids in code-point order, matched grid', matrix('Model "X"', [...ids].sort(compareCodePoints), keys, 7, 0.1), ['textonly', '16f_151k', '32f_151k']],
    [
      'plain ASCII ids out of order',
      matrix(
        'M',
        Array.from({ length: 80 }, (_, i) => `id-${(i * 37) % 80}`),
        keys.slice(0, 4),
        6,
        0.05,
      ),
      null,
    ],
  ];
  for (const [name, m, mg] of cases) {
    it(`equals csvText of derivedRows: ${name}`, () => {
      const want = reference(m, mg);
      expect(want.split('\n').length).toBeGreaterThan(2);
      const got = derivedCsvBytes(m, mg);
      expect(DERIVED_HEADER + text(got.data)).toBe(want);
      expect(got.rows).toBe(derivedRows(m, mg).length);
    });
  }
  // The export's way: rows already sorted, ids encoded by the caller, trajectories precomputed.
  for (const [name, m, mg] of cases.filter(([, m]) => [...m.itemIds].sort((a, b) => compareCodePoints(a, b)).every((id, i) => id === m.itemIds[i]))) {
    it(`with the caller's sorted ids and trajectories: ${name}`, () => {
      const got = derivedCsvBytes(m, mg, { t: trajectoryColumns(m, { matchedGrid: mg }), sortedIds: encodeIds(m.itemIds) });
      expect(DERIVED_HEADER + text(got.data)).toBe(reference(m, mg));
      expect(got.rows).toBe(derivedRows(m, mg).length);
    });
  }
  it('writes no line and counts no row when no item is complete on its grid', () => {
    // Every cell of the last config missing: no item has a full trajectory (docs/release-format.md).
    const m = matrix('M', ids, keys.slice(0, 3), 8, 0);
    for (let k = 2; k < m.correct.length; k += 3) m.correct[k] = -1;
    expect(derivedRows(m, null)).toEqual([]);
    for (const opts of [{}, { t: trajectoryColumns(m, { matchedGrid: null }), sortedIds: encodeIds([...m.itemIds].sort(compareCodePoints)) }]) {
      const got = derivedCsvBytes(m, null, opts);
      expect(got.rows).toBe(0);
      expect(got.data).toBeInstanceOf(Uint8Array);
      expect(got.data.length).toBe(0);
    }
  });
  it('some case has sorted ids (the test above runs)', () => {
    expect(cases.some(([, m]) => [...m.itemIds].sort((a, b) => compareCodePoints(a, b)).every((id, i) => id === m.itemIds[i]))).toBe(true);
  });
});
