/**
 * Two encodings of the import applier that the round-trip tests reach only in part: the
 * multi-row item inserts (every field of items of mixed shapes) and the string-table BLOB
 * layout of a column's string fields (index widths, UTF-8, cell order).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ItemMeta } from '../../../shared/domain/types';
import { openProject } from '../../../electron/store/index';
import { decodeStrings, encodeStrings } from '../../../electron/store/column-blobs';
import { batch, tempDir } from './helpers';

describe('item metadata inserts', () => {
  it('store every field of items of mixed shapes, more than a chunk of them, with the ids one insert per item gives', () => {
    const items: ItemMeta[] = [];
    for (let i = 0; i < 150; i++) {
      const full = i % 3 === 0;
      items.push({
        split: i % 2 ? 'A' : 'B',
        sampleId: `s${i}`,
        answer: i % 5 === 0 ? null : 'ABCD'[i % 4]!,
        kind: i % 7 === 0 ? 'open' : 'mcqa',
        ...(full
          ? {
              question: `q${i}`,
              options: ['one', `two ${i}`],
              references: [`ref ${i}`],
              taskType: `t${i}`,
              durationS: i + 0.1,
              durationBucket: `b${i}`,
              domain: `d${i}`,
              subCategory: `c${i}`,
              videoId: `v${i}`,
              videoFile: `f${i}.mp4`,
            }
          : {}),
      });
    }
    // The same item again (with a field it lacked) after the first chunk: it is read back.
    items.splice(100, 0, { split: 'B', sampleId: 's2', question: 'late' });
    const b = batch('items.json', { items });
    const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    try {
      p.db.prepare("INSERT INTO splits (name) VALUES ('Z')").run();
      p.db.prepare("INSERT INTO items (split_id, sample_id) VALUES (1, 'pre')").run();
      const s = p.applyImports([b]);
      expect(s.itemsAdded).toBe(150);
      expect(s.itemsUpdated).toBe(1);
      const ids = p.db.prepare('SELECT sample_id, id FROM items ORDER BY id').all() as { sample_id: string; id: number }[];
      expect(ids.map((r) => r.sample_id)).toEqual(['pre', ...items.filter((_, i) => i !== 100).map((m) => m.sampleId)]);
      expect(ids.map((r) => r.id)).toEqual(ids.map((_, i) => i + 1));
      for (const m of items) {
        if (m.question === 'late') continue;
        const want = m.sampleId === 's2' ? { ...m, question: 'late' } : m;
        const got = p.getItem(m.split, m.sampleId)!;
        for (const [k, v] of Object.entries(want)) expect([k, got[k as keyof ItemMeta] ?? null]).toEqual([k, v]);
      }
    } finally {
      p.close();
    }
  });
});

describe('encodeStrings', () => {
  it('widens its indices at 255 and 65535 distinct strings and round-trips', () => {
    for (const d of [0, 1, 254, 255, 256, 65534, 65535, 65536]) {
      const values: (string | null)[] = [null];
      for (let i = 0; i < d; i++) values.push(`s${i}`, i % 3 === 0 ? null : `s${i}`);
      const b = encodeStrings(values, null);
      expect(b[0]).toBe(d < 255 ? 1 : d < 65535 ? 2 : 4);
      expect(b.readUInt32LE(4)).toBe(d);
      expect(decodeStrings(b)).toEqual(values);
    }
  });

  it('writes UTF-8 as TextEncoder does (lone surrogates as U+FFFD) and honours an order', () => {
    const values = ['é', 'a\ud800b', null, '✓✓', 'é'];
    const b = encodeStrings(values, [4, 3, 2, 1, 0]);
    // Distinct strings in the order the (reordered) cells first name them.
    const text = b.subarray(b.length - 2 - 6 - 5);
    expect(Buffer.from(text)).toEqual(Buffer.concat(['é', '✓✓', 'a\ud800b'].map((s) => new TextEncoder().encode(s))));
    expect(decodeStrings(b)).toEqual(['é', '✓✓', null, 'a\ufffdb', 'é']);
  });
});
