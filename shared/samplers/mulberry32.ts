/**
 * The common public-domain mulberry32 generator (Tommy Ettinger), used by the `random`
 * policy of docs/metrics.md §8. The seed is taken modulo 2^32. Returns raw uint32 outputs (the
 * policy divides by 2^32 itself); shared/engine/prng.ts has the [0,1) form for the engine.
 */
export function mulberry32Uint32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}
