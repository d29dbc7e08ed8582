import { deflateSync, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { zipRelease } from '../../../electron/release/zip';

/** One central-directory entry of a zip, read by the layout of PKWARE's APPNOTE §4.3.12. */
interface CentralEntry {
  name: string;
  madeByOs: number;
  method: number;
  dosTime: number;
  dosDate: number;
  externalAttrs: number;
  compressed: Uint8Array;
}

function centralDirectory(zip: Uint8Array): CentralEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = zip.length - 22;
  while (eocd >= 0 && view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  expect(eocd).toBeGreaterThanOrEqual(0);
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const out: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const size = view.getUint32(at + 20, true);
    const local = view.getUint32(at + 42, true);
    const localData = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    out.push({
      name: new TextDecoder().decode(zip.subarray(at + 46, at + 46 + nameLength)),
      madeByOs: zip[at + 5]!,
      method: view.getUint16(at + 10, true),
      dosTime: view.getUint16(at + 12, true),
      dosDate: view.getUint16(at + 14, true),
      externalAttrs: view.getUint32(at + 38, true),
      compressed: zip.subarray(localData, localData + size),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

const text = (s: string) => new TextEncoder().encode(s);
// Compressible enough that a different deflate level gives different bytes.
const body = text(Array.from({ length: 400 }, (_, i) => `item_${i % 37},${(i * 7919) % 1000},yes,no\n`).join(''));

describe('zipRelease (docs/release-format.md: a byte-stable zip)', () => {
  it('stores its entries in code-point order of their paths, whatever order it is given', () => {
    const zip = zipRelease([
      { path: 'labels/per_item.csv', data: body },
      { path: 'README.md', data: text('r') },
      { path: 'annotations/é.jsonl', data: text('e') },
      { path: 'Labels/x.csv', data: text('x') },
      { path: 'annotations/z.jsonl', data: text('z') },
    ]);
    expect(centralDirectory(zip).map((e) => e.name)).toEqual(['Labels/x.csv', 'README.md', 'annotations/z.jsonl', 'annotations/é.jsonl', 'labels/per_item.csv']);
    expect(new TextDecoder().decode(unzipSync(zip)['labels/per_item.csv'])).toBe(new TextDecoder().decode(body));
  });

  it('stamps every entry 1980-01-01 00:00, made on Unix as a regular 0644 file, deflated at level 6', () => {
    for (const e of centralDirectory(
      zipRelease([
        { path: 'a.csv', data: body },
        { path: 'b/c.txt', data: text('c') },
      ]),
    )) {
      // DOS date: (year − 1980) << 9 | month << 5 | day; DOS time 00:00:00 is 0.
      expect([e.name, e.dosDate, e.dosTime]).toEqual([e.name, (1 << 5) | 1, 0]);
      expect(e.madeByOs).toBe(3);
      expect(e.externalAttrs >>> 16).toBe(0o100644);
      expect(e.method).toBe(8);
    }
    const [entry] = centralDirectory(zipRelease([{ path: 'a.csv', data: body }]));
    expect(entry!.compressed).toEqual(deflateSync(body, { level: 6 }));
    expect(entry!.compressed).not.toEqual(deflateSync(body, { level: 1 }));
  });

  it('gives the same bytes for the same files in another order', () => {
    const files = [
      { path: 'b.csv', data: body },
      { path: 'a.csv', data: text('a') },
    ];
    expect(zipRelease(files.slice().reverse())).toEqual(zipRelease(files));
    // The caller's list is left in its order.
    expect(files.map((f) => f.path)).toEqual(['b.csv', 'a.csv']);
  });
});
