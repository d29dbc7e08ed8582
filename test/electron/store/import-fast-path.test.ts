/**
 * applyImports takes a fast path for a column batch whose column is new and closed
 * (electron/store/fresh-column.ts) and the general, cell-by-cell path otherwise. The two must
 * be indistinguishable: for each case the same batches are applied with the fast path on and
 * off, and the stored rows (every table the applier writes, BLOBs byte for byte), the
 * summary and any error must be equal. Each case also states which path the columns took,
 * so a case cannot pass by never reaching the path it is about.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ImportBatch, ItemMeta } from '../../../shared/domain/types';
import { readImport } from '../../../electron/importers/index';
import { createImportApplier, type ImportOverrides } from '../../../electron/store/import-apply';
import { openProject, type Project } from '../../../electron/store/index';
import { decodeStrings, encodeStrings } from '../../../electron/store/response-columns';
import { batch, tempDir } from './helpers';

const HEADER =
  'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence,latency_s,frame_indices,score';

async function read(name: string, lines: string[]): Promise<ImportBatch> {
  const file = path.join(tempDir(), `${name}.csv`);
  fs.writeFileSync(file, `${HEADER}\n${lines.join('\n')}\n`);
  const [b] = await readImport(file, { format: 'per-item-csv' });
  return b!;
}

const HEADER_11 = HEADER.split(',').slice(0, 11).join(',');

/** Reads lines of the release's eleven columns: the reader's fast path, whose batches carry `tables`. */
async function readTables(name: string, lines: string[]): Promise<ImportBatch> {
  const file = path.join(tempDir(), `${name}.csv`);
  fs.writeFileSync(file, `${HEADER_11}\n${lines.join('\n')}\n`);
  const [b] = await readImport(file, { format: 'per-item-csv' });
  expect(b!.columns?.every((c) => c.tables !== undefined)).toBe(true);
  return b!;
}

/** Every table the applier writes, in row order (a run's import time aside). */
function dump(p: Project): Record<string, unknown[]> {
  const all = (sql: string): unknown[] => p.db.prepare(sql).all();
  return {
    models: all('SELECT * FROM models ORDER BY id'),
    splits: all('SELECT * FROM splits ORDER BY id'),
    configs: all('SELECT * FROM configs ORDER BY id'),
    items: all('SELECT * FROM items ORDER BY id'),
    runs: all('SELECT id, source_path, sha256, format, toolkit, model_args, n_items, n_responses, n_configs FROM runs ORDER BY id'),
    grid: all('SELECT * FROM grid_configs ORDER BY model_id, split_id, config_id'),
    columns: all('SELECT * FROM response_columns ORDER BY id'),
  };
}

interface Outcome {
  summaries: unknown[];
  error: string | null;
  fast: string[];
  store: Record<string, unknown[]>;
}

/** Applies each call (a list of batches, one transaction each) to a new project. */
function run(calls: { batches: ImportBatch[]; opts?: ImportOverrides }[], fastPath: boolean): Outcome {
  const p = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
  const fast: string[] = [];
  const apply = createImportApplier(p.db, { fastPath, onFastColumn: (c) => fast.push(`${c.model}/${c.split}/${c.config}`) });
  const summaries: unknown[] = [];
  let error: string | null = null;
  try {
    for (const { batches, opts } of calls) {
      const before = dump(p);
      try {
        summaries.push(p.db.transaction(() => apply(batches, opts))());
      } catch (e) {
        error = `${(e as Error).name}: ${(e as Error).message}`;
        // A rejected call changes nothing.
        expect(dump(p)).toEqual(before);
        break;
      }
    }
    return { summaries, error, fast, store: dump(p) };
  } finally {
    p.close();
  }
}

/** Runs `calls` both ways, expects identical outcomes, and returns the fast run's. */
function same(calls: { batches: ImportBatch[]; opts?: ImportOverrides }[]): Outcome {
  const general = run(calls, false);
  const fast = run(calls, true);
  expect(general.fast).toEqual([]);
  expect({ ...fast, fast: [] }).toEqual(general);
  return fast;
}

// Two splits, scores without ground truth, frames, confidence, latency, notes, a missing cell.
const RICH = [
  '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M,,0.9,1.25,0 10 20,',
  '001-1,M,V1_short,textonly,0,0,C,C,1,official:M,note,,,,',
  '001-2,M,V1_short,16f_151k,16,150528,,D,0,official:M,"fallback, note",,,,',
  '001-2,M,V1_short,textonly,0,0,D,D,1,official:M,,0.5,,,',
  '001-2,N,V1_short,16f_151k,16,150528,A,D,0,official:N,,,,,',
  '001-1,N,V1_short,16f_151k,16,150528,C,C,1,official:N,,,0.5,1 2,',
  'q9,M,OE,16f_151k,16,150528,,,,t,,,,,0.42',
  'q8,M,OE,16f_151k,16,150528,E,,,t,,,,,0',
];

describe('applyImports fast path', () => {
  it('stores a fresh project byte for byte as the general path does', async () => {
    const b = await read('rich', RICH);
    const out = same([{ batches: [b] }]);
    expect(out.fast.sort()).toEqual(['M/OE/16f_151k', 'M/V1_short/16f_151k', 'M/V1_short/textonly', 'N/V1_short/16f_151k']);
    expect(out.store.columns).toHaveLength(4);
  });

  it('creates the items a batch without item metadata names, with their answers', async () => {
    const b = await read('rich', RICH);
    const out = same([{ batches: [{ ...b, items: [] }] }]);
    expect(out.fast).toHaveLength(4);
    expect((out.store.items as { answer: string | null }[]).map((i) => i.answer)).toEqual(['C', 'D', null, null]);
  });

  it('sorts cells whose items were numbered in another order', async () => {
    // Items are numbered in the order their ground truth first appears (a, b in textonly);
    // the 16f column lists b before a.
    const b = await read('order', [
      'a,M,S,textonly,0,0,A,A,1,t,,,,,',
      'b,M,S,textonly,0,0,B,B,1,t,,,,,',
      'b,M,S,16f,16,,A,B,0,t,,,,,',
      'a,M,S,16f,16,,A,A,1,t,,0.25,,,',
    ]);
    const out = same([{ batches: [b] }]);
    expect(out.fast).toHaveLength(2);
  });

  it('merges into a column the project already has the general way', async () => {
    const a = await read('a', RICH.slice(0, 4));
    const b = await read('b', ['001-3,M,V1_short,16f_151k,16,150528,A,A,1,official:M,,,,,', '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M,,0.9,1.25,0 10 20,']);
    const out = same([{ batches: [a] }, { batches: [b] }, { batches: [a] }]);
    // Only the first import's columns were new.
    expect(out.fast.sort()).toEqual(['M/V1_short/16f_151k', 'M/V1_short/textonly']);
  });

  it('merges a column named by two batches of one call the general way', async () => {
    const a = await read('a', RICH.slice(0, 2));
    const b = await read('b', ['001-2,M,V1_short,16f_151k,16,150528,A,D,0,official:M,,,,,', '009-1,M,V1_short,32f,32,,A,A,1,x,,,,,']);
    const out = same([{ batches: [a, b] }]);
    expect(out.fast.sort()).toEqual(['M/V1_short/32f', 'M/V1_short/textonly']);
  });

  it('merges a column also named by response rows of the call the general way', async () => {
    const a = await read('a', RICH.slice(0, 2));
    const b = await read('b', ['001-2,M,V1_short,16f_151k,16,150528,A,D,0,official:M,,,,,']);
    const rows: ImportBatch = { run: b.run, items: b.items, configs: b.configs, warnings: b.warnings, responses: b.responses };
    const out = same([{ batches: [a, rows] }]);
    expect(out.fast).toEqual(['M/V1_short/textonly']);
  });

  it('leaves a column open to a later answer to the general path, and the answer reaches it', async () => {
    // No ground truth: correct stays as written and the answer is unknown.
    const open = await read('open', ['001-1,M,V1_short,16f,16,,B,,1,t,,,,,', '001-2,M,V1_short,16f,16,,C,,,t,,,,,0.5']);
    const answers = await read('answers', ['001-1,N,V1_short,16f,16,,B,B,1,t,,,,,', '001-2,N,V1_short,16f,16,,C,D,0,t,,,,,']);
    // M's column stays open (no answers): general. The answers arrive as item metadata before
    // N's cells, so N's column is closed and new: fast.
    expect(same([{ batches: [open] }, { batches: [answers] }]).fast).toEqual(['N/V1_short/16f']);
    expect(same([{ batches: [open, answers] }]).fast).toEqual(['N/V1_short/16f']);
    // Without the metadata the answers arrive from N's own cells, for items M's cells hold.
    const cellsOnly = { ...answers, items: [] };
    expect(same([{ batches: [open] }, { batches: [cellsOnly] }]).fast).toEqual([]);
    expect(same([{ batches: [open, cellsOnly] }]).fast).toEqual([]);
  });

  it('gives the same error, and changes nothing, when a new column contradicts the project', async () => {
    const a = await read('a', RICH.slice(0, 2));
    const gt = await read('gt', ['001-1,N,V1_short,32f,32,,B,B,1,t,,,,,']);
    const out = same([{ batches: [a] }, { batches: [gt] }]);
    expect(out.error).toMatch(/ImportError: .*contradicts/);
    const cor = await read('cor', ['001-1,N,V1_short,32f,32,,B,,1,t,,,,,']);
    const out2 = same([{ batches: [a] }, { batches: [cor] }]);
    expect(out2.error).toMatch(/ImportError: .*correct = 1 contradicts predicted "B" and answer "C"/);
  });

  it('applies overrides to the columns it takes', async () => {
    const b = await read('rich', RICH);
    for (const opts of [{ split: 'S' }, { model: 'X' }, { model: 'X', split: 'S' }] as ImportOverrides[]) {
      const out = same([{ batches: [b], opts }]);
      if (opts.model) {
        // M's and N's 16f_151k cells become one column, whose 001-1 then conflicts.
        expect(out.error).toMatch(/already recorded with a different pred/);
      } else {
        // V1_short's and OE's M/16f_151k cells become one column: the general path merges it.
        expect(out.error).toBeNull();
        expect(out.fast.sort()).toEqual(['M/S/textonly', 'N/S/16f_151k']);
      }
    }
    const m = await read('m', RICH.filter((l) => l.includes(',M,V1_short,')));
    const out = same([{ batches: [m], opts: { model: 'X', split: 'S' } }]);
    expect(out.error).toBeNull();
    expect(out.fast.sort()).toEqual(['X/S/16f_151k', 'X/S/textonly']);
    const one = await read('one', RICH.slice(0, 1));
    expect(same([{ batches: [one], opts: { config: '16f_x' } }]).fast).toEqual(['M/V1_short/16f_x']);
  });

  it('stores the bench-shaped file the same both ways', async () => {
    // Three models × two configs × two splits, interleaved by item as a release writes them.
    const lines: string[] = [];
    for (const split of ['V1', 'MLVU']) {
      for (let i = 0; i < 40; i++) {
        for (const model of ['A', 'B', 'C']) {
          for (const [config, fc] of [['textonly', '0'], ['16f_151k', '16']] as const) {
            if ((i + model.charCodeAt(0)) % 17 === 0 && config === 'textonly') continue; // a missing cell
            const gt = 'ABCD'[i % 4]!;
            const pred = 'ABCD'[(i * 7 + model.charCodeAt(0) + fc.length) % 4]!;
            lines.push(`${split}-${i},${model},${split},${config},${fc},${fc === '0' ? 0 : 150528},${pred},${gt},${pred === gt ? 1 : 0},official:${model},,,,,`);
          }
        }
      }
    }
    const b = await read('bench', lines);
    const out = same([{ batches: [b] }]);
    expect(out.fast).toHaveLength(12);
  });
});

describe('applyImports fast path on batches with tables (the per_item.csv fast reader)', () => {
  /** Release-ordered lines: per split, item and model, each config; some cells missing. */
  function releaseLines(models: string[], items: number, from = 0): string[] {
    const lines: string[] = [];
    for (const split of ['V1', 'MLVU']) {
      for (let i = from; i < from + items; i++) {
        for (const model of models) {
          for (const [config, fc] of [['textonly', '0'], ['16f_151k', '16'], ['32f_151k', '32']] as const) {
            if ((i * 3 + model.charCodeAt(0) + fc.length) % 13 === 0) continue;
            const gt = 'ABCD'[i % 4]!;
            const pred = 'ABCD'[(i * 7 + model.charCodeAt(0) + fc.length) % 4]!;
            lines.push(`${split}-${i},${model},${split},${config},${fc},${fc === '0' ? 0 : 150528},${pred},${gt},${pred === gt ? 1 : 0},official:${model}:${config},${model === 'C' ? 'max_32f' : ''}`);
          }
        }
      }
    }
    return lines;
  }

  it('stores a release-ordered file byte for byte as the general path does', async () => {
    const b = await readTables('release', releaseLines(['A', 'B', 'C'], 30));
    expect(same([{ batches: [b] }]).fast).toHaveLength(18);
  });

  it('sorts cells whose items were numbered in another order, and finds existing items of a second file', async () => {
    const first = await readTables('first', ['a,M,S,textonly,0,0,A,A,1,t,', 'b,M,S,textonly,0,0,B,B,1,t,', 'b,M,S,16f,16,,A,B,0,t,', 'a,M,S,16f,16,,A,A,1,t,note']);
    const second = await readTables('second', ['c,N,S,16f,16,,C,C,1,u,', 'b,N,S,16f,16,,B,B,1,u,', 'a,N,S,16f,16,,D,A,0,u,']);
    const out = same([{ batches: [first] }, { batches: [second] }]);
    expect(out.fast).toEqual(['M/S/textonly', 'M/S/16f', 'N/S/16f']);
    expect(same([{ batches: [first, second] }]).fast).toEqual(['M/S/textonly', 'M/S/16f', 'N/S/16f']);
  });

  it('takes the general path for a column whose item is named twice or whose answer contradicts', async () => {
    const a = await readTables('a', releaseLines(['A'], 4));
    const more = await readTables('more', releaseLines(['B'], 6));
    // B's items 0–3 exist with their answers; 4–5 are new: all closed, all fast.
    expect(same([{ batches: [a] }, { batches: [more] }]).fast).toHaveLength(12);
    const wrong = await readTables('wrong', ['V1-1,Z,V1,16f,16,,A,A,1,t,']); // V1-1's answer is B
    const out = same([{ batches: [a] }, { batches: [wrong] }]);
    expect(out.error).toMatch(/ImportError: .*contradicts/);
  });

  it('stores a re-import of the same file as the general path does (no column is new then)', async () => {
    const b = await readTables('again', releaseLines(['A', 'B'], 5));
    const out = same([{ batches: [b] }, { batches: [b] }]);
    expect(out.fast).toHaveLength(12);
  });
});

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
