/**
 * mulberry32, the common public-domain 32-bit generator (Tommy Ettinger): tiny, seedable and
 * identical across implementations. The seed is taken modulo 2^32. This is its one
 * implementation: the engine's seeded splits use the [0, 1) form below, and the `random`
 * sampler of docs/metrics.md §8 the raw uint32 outputs.
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

/** mulberry32's outputs divided by 2^32: uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  const next = mulberry32Uint32(seed);
  return () => next() / 4294967296;
}

/**
 * A seeded permutation of 0…n−1: Fisher–Yates from the top, j = floor(u × (i + 1)) with u the
 * next mulberry32(seed) output.
 */
export function seededPermutation(n: number, seed: number): Int32Array {
  const p = Int32Array.from({ length: n }, (_, i) => i);
  const next = mulberry32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    const t = p[i]!;
    p[i] = p[j]!;
    p[j] = t;
  }
  return p;
}
