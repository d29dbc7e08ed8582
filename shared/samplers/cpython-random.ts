/**
 * An exact port of the parts of CPython's `random.Random` that the release's
 * `scalegrid-random` sampler uses (docs/metrics.md §8): MT19937 seeded from an int,
 * `getrandbits`, `_randbelow` and `sample`. Written against CPython 3.11's
 * Modules/_randommodule.c and Lib/random.py; the tests compare it with python3 itself.
 */

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class CPythonRandom {
  private readonly mt = new Uint32Array(N);
  /** Set by initGenrand, which the constructor always runs. */
  private mti = 0;

  /** `random.Random(seed)` for an int seed (the sign is dropped, as CPython does). */
  constructor(seed: bigint | number) {
    let a = BigInt(seed);
    if (a < 0n) a = -a;
    // CPython splits |seed| into 32-bit words, least significant first; 0 gives the key [0].
    const key: number[] = [];
    do {
      key.push(Number(a & 0xffffffffn));
      a >>= 32n;
    } while (a > 0n);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]!;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const keyLength = key.length;
    for (let k = Math.max(N, keyLength); k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= keyLength) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]!;
      mt[i] = ((mt[i]! ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000; // MSB is 1, assuring a non-zero initial array
  }

  /** genrand_uint32: the next 32-bit output of MT19937. */
  nextUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /**
   * `getrandbits(k)` for 0 ≤ k ≤ 53 (enough for any frame count a Number can index).
   * CPython fills 32-bit words from the least significant end and drops the low bits
   * of the last, partial word.
   */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0 || k > 53) throw new RangeError(`getrandbits: k must be an integer in [0, 53], got ${k}`);
    if (k === 0) return 0;
    if (k <= 32) return this.nextUint32() >>> (32 - k);
    const low = this.nextUint32();
    const high = this.nextUint32() >>> (64 - k);
    return high * 0x100000000 + low;
  }

  /** `_randbelow_with_getrandbits(n)`: rejection sampling with getrandbits(n.bit_length()). */
  randbelow(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`randbelow: n must be a positive safe integer, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /**
   * `random.sample(range(n), k)` in CPython's selection order. CPython picks between two
   * algorithms by comparing the memory of an n-list with a k-set; the branch changes which
   * random numbers are drawn, so it is reproduced exactly.
   */
  sampleRange(n: number, k: number): number[] {
    if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`sample: population size must be a non-negative integer, got ${n}`);
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError('Sample larger than population or is negative');
    const result: number[] = [];
    let setsize = 21; // size of a small set minus size of an empty list
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4)); // table size for big sets
    if (n <= setsize) {
      // An n-length list is smaller than a k-length set: partial shuffle of a pool.
      const pool = Array.from({ length: n }, (_, i) => i);
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result.push(pool[j]!);
        pool[j] = pool[n - i - 1]!;
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result.push(j);
      }
    }
    return result;
  }
}

/** Python's int.bit_length for a positive safe integer. */
function bitLength(n: number): number {
  return n < 0x100000000 ? 32 - Math.clz32(n) : 32 + (32 - Math.clz32(Math.floor(n / 0x100000000)));
}
