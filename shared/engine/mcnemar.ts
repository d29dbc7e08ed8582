/**
 * Exact two-sided McNemar test (docs/metrics.md §2): min(1, 2 · P[X ≤ min(r, h)]), X ~ Bin(r + h, ½),
 * and 1 when r + h = 0.
 *
 * Stable for churn up to 1e5 and beyond without lgamma: log C(n, k) is an exact sum of logs
 * (k ≤ n/2 terms, each correctly rounded), and the tail is summed from its largest term
 * (x = k, the tail is increasing in x) downwards as ratios t(x−1)/t(x) = x / (n − x + 1),
 * stopping once the terms can no longer change the sum.
 */
export function mcnemarExact(rescued: number, harmed: number): number {
  if (!Number.isInteger(rescued) || !Number.isInteger(harmed) || rescued < 0 || harmed < 0) {
    throw new Error(`McNemar counts must be whole numbers ≥ 0 (got rescued=${rescued}, harmed=${harmed})`);
  }
  const n = rescued + harmed;
  const k = Math.min(rescued, harmed);
  if (2 * k === n) return 1; // no churn (n = 0), or the tail P[X ≤ n/2] > ½ already
  // log C(n, k) − n log 2, summed pairwise-compensated (Kahan) to keep ~1e-15 relative error.
  let logT = -n * Math.LN2;
  let comp = 0;
  for (let j = 1; j <= k; j++) {
    const term = Math.log((n - k + j) / j) - comp;
    const t = logT + term;
    comp = t - logT - term;
    logT = t;
  }
  let sum = 1;
  let r = 1;
  for (let x = k; x > 0; x--) {
    r *= x / (n - x + 1);
    sum += r;
    if (r < 1e-18 * sum) break;
  }
  return Math.min(1, 2 * Math.exp(logT) * sum);
}
