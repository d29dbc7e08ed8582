/** Builds small MCQA matrices from 0/1/. patterns for hand-computed engine tests. */
import type { ConfigSpec, ResponseMatrix } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configIndex, createMatrix } from '../../../shared/engine/matrix';

/**
 * `keys` name the configs in the order the pattern characters are written (not necessarily
 * config order); `rows` are strings of 1 (correct), 0 (wrong), . (missing).
 */
export function fromPatterns(keys: readonly (string | ConfigSpec)[], rows: readonly string[], ids?: readonly string[]): ResponseMatrix {
  const specs = keys.map((k) => (typeof k === 'string' ? makeConfigSpec(k) : k));
  const m = createMatrix({
    model: 'M',
    split: 'S',
    kind: 'mcqa',
    itemIds: ids ?? rows.map((_, i) => `q${String(i).padStart(3, '0')}`),
    configs: specs,
  });
  const cols = specs.map((s) => configIndex(m, s.key));
  const C = m.configs.length;
  rows.forEach((p, i) => {
    if (p.length !== specs.length) throw new Error(`pattern ${p} has ${p.length} cells, expected ${specs.length}`);
    [...p].forEach((ch, j) => {
      m.correct[i * C + cols[j]!] = ch === '1' ? 1 : ch === '0' ? 0 : -1;
    });
  });
  return m;
}

/** Deterministic pseudo-random 0/1 patterns (tests compare against brute force on them). */
export function randomPatterns(nRows: number, nCols: number, seed: number, missingRate = 0): string[] {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  return Array.from({ length: nRows }, () => Array.from({ length: nCols }, () => (next() < missingRate ? '.' : next() < 0.6 ? '1' : '0')).join(''));
}

/**
 * min(1, 2 · P[X ≤ min(rescued, harmed)]) for X ~ Bin(rescued + harmed, ½) (docs/metrics.md §2),
 * exactly in BigInt and rounded once at the end: an oracle independent of the engine's method.
 */
export function exactMcnemar(rescued: number, harmed: number): number {
  const n = rescued + harmed;
  const k = Math.min(rescued, harmed);
  let c = 1n;
  let sum = 0n;
  for (let x = 0; x <= k; x++) {
    sum += c;
    c = (c * BigInt(n - x)) / BigInt(x + 1);
  }
  const num = 2n * sum;
  const den = 1n << BigInt(n);
  if (num >= den) return 1;
  // Scale so the quotient has ≥ 80 significant bits before the single rounding to a double.
  const shift = BigInt(den.toString(2).length - num.toString(2).length + 80);
  return Number((num << shift) / den) * 2 ** -Number(shift);
}

/** An open-ended matrix: `rows[i][j]` is the score of item g<i> under `keys[j]` (null: no cell). */
export function fromScores(keys: readonly string[], rows: readonly (readonly (number | null)[])[]): ResponseMatrix {
  const m = createMatrix({ model: 'M', split: 'GEN', kind: 'open', itemIds: rows.map((_, i) => `g${i}`), configs: keys.map((k) => makeConfigSpec(k)) });
  const C = m.configs.length;
  rows.forEach((r, i) => r.forEach((v, j) => (m.score[i * C + configIndex(m, keys[j]!)] = v ?? Number.NaN)));
  return m;
}
