/**
 * The byte comparison and the growable typed arrays the per_item.csv reader's row code shares
 * (per-item-intern.ts, per-item-column.ts, per-item-rows.ts). Small functions on purpose: V8
 * optimises them within a file's first few thousand rows (docs/performance.md "Import at lab
 * scale").
 */

export const grow32 = (a: Int32Array<ArrayBuffer>, need: number, fill = 0): Int32Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Int32Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
};
export const grow8 = (a: Int8Array<ArrayBuffer>, need: number): Int8Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Int8Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  return b;
};
export const growF64 = (a: Float64Array<ArrayBuffer>, need: number): Float64Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Float64Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  return b;
};

/** Whether bytes [a, a + n) and [b, b + n) of `dv` are equal (four at a time). */
export function same(dv: DataView, a: number, b: number, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) if (dv.getUint32(a + i, true) !== dv.getUint32(b + i, true)) return false;
  for (; i < n; i++) if (dv.getUint8(a + i) !== dv.getUint8(b + i)) return false;
  return true;
}

/** A DataView of all of `buf`. */
export const dataView = (buf: Buffer): DataView => new DataView(buf.buffer, buf.byteOffset, buf.length);
