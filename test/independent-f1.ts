/**
 * A second Token-F1 (docs/metrics.md §7), written apart from shared/engine/token-f1.ts for tests
 * that check the engine against an independent computation: punctuation dropped character by
 * character, articles dropped as whole tokens after splitting, the multiset intersection by
 * merging two sorted lists, F1 as 2·common / (|pred| + |ref|).
 */
export function tokensIndependent(s: string): string[] {
  return [...s.toLowerCase()]
    .filter((ch) => !/\p{P}/u.test(ch))
    .join('')
    .split(/\s+/)
    .filter((w) => w !== '' && w !== 'a' && w !== 'an' && w !== 'the');
}

export function f1Independent(pred: string, refs: readonly string[]): number {
  const one = (p: string[], r: string[]): number => {
    if (p.length === 0 && r.length === 0) return 1;
    if (p.length === 0 || r.length === 0) return 0;
    const a = [...p].sort();
    const b = [...r].sort();
    let i = 0;
    let j = 0;
    let common = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        common++;
        i++;
        j++;
      } else if (a[i]! < b[j]!) i++;
      else j++;
    }
    return common === 0 ? 0 : (2 * common) / (p.length + r.length);
  };
  return Math.max(0, ...refs.map((r) => one(tokensIndependent(pred), tokensIndependent(r))));
}

/** mulberry32: the seeded stream of the tests' synthetic data. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
