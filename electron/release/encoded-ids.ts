/**
 * A grid's sample ids as CSV fields in UTF-8, encoded once per grid for every byte writer of
 * the release (per_item.csv, the wide CSVs, derived.csv): one encode of all ids joined instead
 * of a Buffer#write per row and file (~50k calls on the benchmark).
 */
import { csvField, noneNeedQuotes } from './format';
import type { ReleaseGrid } from './release-data';

/** Id r is bytes[start[r], start[r + 1]). */
export interface EncodedIds {
  bytes: Uint8Array;
  start: Int32Array;
}

const enc = new TextEncoder();

/**
 * The ids as CSV fields, in the order given. Offsets are char offsets when the text is ASCII
 * (the usual case); otherwise each id is measured.
 */
export function encodeIds(ids: readonly string[]): EncodedIds {
  // Ids rarely need quoting: test them all at once (on the text that is then encoded), and
  // escape one by one only when some do.
  let text = ids.join('');
  let fields = ids;
  if (!noneNeedQuotes([text])) {
    fields = ids.map(csvField);
    text = fields.join('');
  }
  const bytes = enc.encode(text);
  const start = new Int32Array(fields.length + 1);
  let at = 0;
  // One byte per char: ASCII, so char offsets are byte offsets.
  const ascii = bytes.length === text.length;
  for (let r = 0; r < fields.length; r++) {
    start[r] = at;
    at += ascii ? fields[r]!.length : Buffer.byteLength(fields[r]!, 'utf8');
  }
  start[fields.length] = at;
  return { bytes, start };
}

const idCache = new WeakMap<ReleaseGrid, EncodedIds>();

/** {@link encodeIds} of a grid's sample ids, computed on the first call for that grid. */
export function encodedIds(g: ReleaseGrid): EncodedIds {
  let e = idCache.get(g);
  if (!e) idCache.set(g, (e = encodeIds(g.sampleIds)));
  return e;
}
