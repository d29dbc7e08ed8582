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

/**
 * floor(p / q) for a safe integer p ≥ 0 and an integer q > 0. The float quotient is correctly
 * rounded, and it cannot round across an integer: if n − 1 < p/q < n, its distance to n is at
 * least 1/q, while rounding up to n needs a distance under half an ulp (< p/q × 2⁻⁵³), that
 * is p ≥ 2⁵³ — not a safe integer. So Math.floor of it is exact; larger p take the BigInt path.
 */
function floorDivSafe(p: number, q: number): number {
  return Math.floor(p / q);
}
