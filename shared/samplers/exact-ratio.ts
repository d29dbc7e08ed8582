/**
 * Exact integer rounding of a ratio p/q (p ≥ 0, q > 0). The samplers of docs/metrics.md §8 are
 * defined on the exact value j×(T−1)/(n−1); doing it in integers keeps the result
 * independent of floating-point error (Python's float quotient of two ints is correctly
 * rounded, so it gives the same answers for every realistic T and n). Products beyond
 * 2^53 fall back to BigInt.
 */

/** floor(a × b / q) for non-negative integers, exact. */
export function floorMulDiv(a: number, b: number, q: number): number {
  const p = a * b;
  if (Number.isSafeInteger(p)) return floorDivSafe(p, q);
  return Number((BigInt(a) * BigInt(b)) / BigInt(q));
}

/** round-half-to-even(a × b / q) for non-negative integers, exact. */
export function roundHalfEvenMulDiv(a: number, b: number, q: number): number {
  const p = a * b;
  if (Number.isSafeInteger(p)) {
    const f = floorDivSafe(p, q);
    const twiceRem = 2 * (p - f * q);
    if (twiceRem < q) return f;
    if (twiceRem > q) return f + 1;
    return f % 2 === 0 ? f : f + 1;
  }
  const P = BigInt(a) * BigInt(b);
  const Q = BigInt(q);
  const f = P / Q;
  const twiceRem = 2n * (P - f * Q);
  if (twiceRem < Q) return Number(f);
  if (twiceRem > Q) return Number(f + 1n);
  return Number(f % 2n === 0n ? f : f + 1n);
}

function floorDivSafe(p: number, q: number): number {
  // p and q are safe integers, so p/q is within one of the true quotient; correct it.
  let f = Math.floor(p / q);
  if (f * q > p) f -= 1;
  else if ((f + 1) * q <= p) f += 1;
  return f;
}
