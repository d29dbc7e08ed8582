/**
 * The export's own decoders of the store's string-table BLOBs (layout: encodeStrings in
 * electron/store/response-columns.ts). Why not decodeStrings: it builds one JS array slot per
 * cell (4 string columns × ~145k cells), which the export then reads back only to escape and
 * re-encode the same few distinct values. Here a column stays an index array plus its
 * dictionary, and each distinct value's UTF-8 bytes are the BLOB's own bytes — so
 * labels/per_item.csv can be written as bytes without a string per cell (the release bench: the
 * cold export of ~145k rows has a budget of ~90 ms).
 */

const dec = new TextDecoder();

/** A column of strings as the store holds it: one index per cell into a small dictionary. */
export interface StringTable {
  /** Per cell: 0 = null, i ≥ 1 = `dict[i]`. */
  idx: Uint8Array | Uint16Array | Uint32Array;
  /** The distinct values; `dict[0]` is null. */
  dict: (string | null)[];
  /** UTF-8 bytes of each `dict` entry (views into the BLOB; `utf8[0]` is empty). */
  utf8: Uint8Array[];
}

/** Decodes a string-table BLOB (u8 width, 3 pad, u32 d, u32 n, indices, pad, d × u32 lengths, UTF-8). */
export function decodeStringTable(b: Uint8Array): StringTable {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const width = view.getUint8(0);
  const d = view.getUint32(4, true);
  const n = view.getUint32(8, true);
  const head = 12;
  const idxBytes = (n * width + 3) & ~3;
  let idx: StringTable['idx'];
  if (width === 1) idx = b.subarray(head, head + n);
  else {
    // Wider indices need an aligned buffer: view the BLOB in place when it is, else copy.
    const off = b.byteOffset + head;
    const buf = off % width === 0 ? b.buffer : b.slice(head, head + n * width).buffer;
    const at = off % width === 0 ? off : 0;
    idx = width === 2 ? new Uint16Array(buf, at, n) : new Uint32Array(buf, at, n);
  }
  const dict: (string | null)[] = new Array(d + 1);
  const utf8: Uint8Array[] = new Array(d + 1);
  dict[0] = null;
  utf8[0] = b.subarray(0, 0);
  let at = head + idxBytes;
  let text = at + 4 * d;
  for (let i = 1; i <= d; i++) {
    const len = view.getUint32(at, true);
    at += 4;
    const bytes = b.subarray(text, text + len);
    utf8[i] = bytes;
    dict[i] = dec.decode(bytes);
    text += len;
  }
  return { idx, dict, utf8 };
}
