/** Agreement between annotators (docs/metrics.md §9): Cohen's κ, per-tag κ and Fleiss' κ. */

export interface CohenResult {
  /** Items labelled by both (non-null in both lists). */
  n: number;
  /** null when n = 0. */
  rawAgreement: number | null;
  /** null when n = 0 or expected agreement is 1. */
  kappa: number | null;
}

/** Cohen's κ on two parallel label lists; a null label means "not labelled" and drops the item. */
export function cohenKappa(a: readonly (string | null)[], b: readonly (string | null)[]): CohenResult {
  if (a.length !== b.length) throw new Error(`Cohen's κ needs parallel lists (got ${a.length} and ${b.length} labels)`);
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  let n = 0;
  let agree = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x === null || x === undefined || y === null || y === undefined) continue;
    n++;
    if (x === y) agree++;
    ca.set(x, (ca.get(x) ?? 0) + 1);
    cb.set(y, (cb.get(y) ?? 0) + 1);
  }
  if (n === 0) return { n: 0, rawAgreement: null, kappa: null };
  // Expected agreement from integer counts so "is it exactly 1" is an exact test.
  let expectedNum = 0;
  for (const [k, v] of ca) expectedNum += v * (cb.get(k) ?? 0);
  const nn = n * n;
  const po = agree / n;
  if (expectedNum === nn) return { n, rawAgreement: po, kappa: null };
  const pe = expectedNum / nn;
  return { n, rawAgreement: po, kappa: (po - pe) / (1 - pe) };
}

/**
 * κ per tag (present/absent) over items labelled by both annotators (a null entry = not labelled).
 * Tags are the union of both annotators' tags; keys in code-unit order.
 */
export function tagKappas(a: readonly (readonly string[] | null)[], b: readonly (readonly string[] | null)[]): Record<string, CohenResult> {
  if (a.length !== b.length) throw new Error(`per-tag κ needs parallel lists (got ${a.length} and ${b.length})`);
  const tags = new Set<string>();
  for (const l of [...a, ...b]) if (l) for (const t of l) tags.add(t);
  const out: Record<string, CohenResult> = {};
  for (const tag of [...tags].sort()) {
    const pa = a.map((l, i) => (l && b[i] ? (l.includes(tag) ? '1' : '0') : null));
    const pb = b.map((l, i) => (l && a[i] ? (l.includes(tag) ? '1' : '0') : null));
    out[tag] = cohenKappa(pa, pb);
  }
  return out;
}

export interface FleissResult {
  nItems: number;
  nRaters: number;
  /** Mean observed agreement P̄; null when there are no items. */
  observedAgreement: number | null;
  /** null when there are no items or expected agreement is 1. */
  kappa: number | null;
}

/** Fleiss' κ; `items[i]` holds one category per rater (the same number of raters, ≥ 2, on every item). */
export function fleissKappa(items: readonly (readonly string[])[]): FleissResult {
  const N = items.length;
  if (N === 0) return { nItems: 0, nRaters: 0, observedAgreement: null, kappa: null };
  const raters = items[0]!.length;
  if (raters < 2) throw new Error(`Fleiss' κ needs at least 2 ratings per item (item 0 has ${raters})`);
  const totals = new Map<string, number>();
  let pSum = 0;
  items.forEach((ratings, i) => {
    if (ratings.length !== raters) {
      throw new Error(`Fleiss' κ needs the same number of ratings on every item (item 0 has ${raters}, item ${i} has ${ratings.length})`);
    }
    const counts = new Map<string, number>();
    for (const r of ratings) counts.set(r, (counts.get(r) ?? 0) + 1);
    let sq = 0;
    for (const [k, v] of counts) {
      sq += v * v;
      totals.set(k, (totals.get(k) ?? 0) + v);
    }
    pSum += (sq - raters) / (raters * (raters - 1));
  });
  const pBar = pSum / N;
  const all = N * raters;
  let peNum = 0;
  for (const v of totals.values()) peNum += v * v;
  if (peNum === all * all) return { nItems: N, nRaters: raters, observedAgreement: pBar, kappa: null };
  const pe = peNum / (all * all);
  return { nItems: N, nRaters: raters, observedAgreement: pBar, kappa: (pBar - pe) / (1 - pe) };
}
