import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pyRound, roundHalfEven4 } from '../../../shared/release/py-round';

describe("pyRound (Python's round(x, n))", () => {
  it('rounds exact halves to even, like Python', () => {
    expect(pyRound(0.5)).toBe(0);
    expect(pyRound(1.5)).toBe(2);
    expect(pyRound(2.5)).toBe(2);
    expect(pyRound(-2.5)).toBe(-2);
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(0.375, 2)).toBe(0.38);
    expect(pyRound(12.34565, 4)).toBe(12.3456); // not an exact half: 12.34564999999999912…
  });
  it('rounds the exact binary value, not the printed one', () => {
    expect(pyRound(2.675, 2)).toBe(2.67); // 2.67499999999999982236431605997495353221893310546875
    expect(pyRound(1.0005, 3)).toBe(1.0); // 1.000499999999999944932938…
    expect(pyRound(0.00005, 4)).toBe(0.0001); // 5.00000000000000023960868…e-05
    expect((2.675).toFixed(2)).toBe('2.67');
    expect((0.125).toFixed(2)).toBe('0.13'); // what JS would do on a tie
  });
  it('release percentages', () => {
    expect(roundHalfEven4((100 * 239) / 786)).toBe(30.4071);
    expect(roundHalfEven4(100 * (90 / 786))).toBe(11.4504);
    expect(roundHalfEven4(100 * (102 / 639))).toBe(15.9624);
    expect(roundHalfEven4(0)).toBe(0);
    expect(roundHalfEven4(100)).toBe(100);
  });
  it('passes non-finite values and validates digits', () => {
    expect(pyRound(Number.NaN, 4)).toBeNaN();
    expect(pyRound(Infinity, 4)).toBe(Infinity);
    expect(pyRound(1e300, 4)).toBe(1e300);
    expect(pyRound(5e-324, 4)).toBe(0);
    expect(() => pyRound(1, -1)).toThrow(/digits/);
  });
  const py = spawnSync('python3', ['-c', 'print(1)'], { encoding: 'utf8' });
  const hasPython = py.status === 0;
  if (!hasPython) console.warn('[py-round] python3 not found: skipping the cross-check against CPython');
  it.skipIf(!hasPython)('agrees with CPython on 20,000 values (percentages k/N and random doubles)', () => {
    const xs: number[] = [];
    for (let N = 1; N <= 2600 && xs.length < 12000; N += 37) for (let k = 0; k <= N; k += Math.max(1, Math.floor(N / 5))) xs.push(100 * (k / N), (100 * k) / N);
    let s = 99;
    const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
    while (xs.length < 20000) xs.push((rnd() - 0.5) * 10 ** Math.floor(rnd() * 8 - 2), Math.round(rnd() * 1e6) / 2 ** 7);
    const digits = xs.map((_, i) => i % 5);
    const input = xs.map((x, i) => `${x.toPrecision(17)} ${digits[i]}`).join('\n');
    const out = spawnSync('python3', ['-c', 'import sys\nfor l in sys.stdin:\n  x, d = l.split()\n  print(repr(round(float(x), int(d))))'], {
      input,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    expect(out.status).toBe(0);
    const want = out.stdout.trim().split('\n').map(Number);
    const bad = xs.map((x, i) => [x, digits[i]!, pyRound(x, digits[i]!), want[i]!] as const).filter(([, , got, w]) => got !== w && !(got === 0 && w === 0));
    expect(bad.slice(0, 5)).toEqual([]);
  });
});
