/**
 * Python's `round(x, digits)` for floats: the exact binary value of x is rounded to `digits`
 * decimals, half to even, and the result is the double nearest that decimal. JS `toFixed` rounds
 * exact halves away from zero and `Math.round(x * 10^d) / 10^d` rounds the product, not x — both
 * differ from the release's Python on some inputs, so the rounding is done here in exact
 * (BigInt) arithmetic on the double's mantissa and exponent.
 */

const view = new DataView(new ArrayBuffer(8));

/** x = mantissa × 2^exponent exactly (finite x). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const fracHi = hi & 0xfffff;
  let mantissa = (BigInt(fracHi) << 32n) | BigInt(lo);
  let exponent: number;
  if (biased === 0) {
    exponent = -1074;
  } else {
    mantissa |= 1n << 52n;
    exponent = biased - 1075;
  }
  return { mantissa, exponent };
}

export function pyRound(x: number, digits = 0): number {
  if (!Number.isInteger(digits) || digits < 0 || digits > 300) {
    throw new Error(`pyRound: digits must be a whole number 0…300 (got ${digits})`);
  }
  if (!Number.isFinite(x) || x === 0) return x;
  const neg = x < 0;
  const { mantissa, exponent } = decompose(Math.abs(x));
  const scale = 10n ** BigInt(digits);
  let q: bigint;
  if (exponent >= 0) {
    return x; // an integer-valued double: nothing after the point
  } else {
    const num = mantissa * scale;
    const den = 1n << BigInt(-exponent);
    q = num / den;
    const rem = num - q * den;
    const twice = rem * 2n;
    if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  }
  // Parsing a decimal string is correctly rounded, like CPython's final strtod.
  const v = Number(`${q}e-${digits}`);
  return neg ? -v : v;
}

/** `round(x, 4)`, the release's rounding of percentages. */
export function roundHalfEven4(x: number): number {
  return pyRound(x, 4);
}
