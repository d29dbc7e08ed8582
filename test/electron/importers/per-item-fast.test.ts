/**
 * The per_item.csv fast path (per-item-fast.ts) must read every file it accepts exactly as the
 * general reader does, and hand every file it does not handle — including every invalid one —
 * to the general reader, whose error then names file, line and field.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportBatch } from '../../../shared/domain/types';
import { readPerItemCsv, readPerItemGeneral } from '../../../electron/importers/per-item-csv';
import { parsePerItemFast } from '../../../electron/importers/per-item-fast';
import { mulberry32 } from '../../../shared/engine/prng';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
let n = 0;
const file = (text: string | Uint8Array): string => scratch.write(`f${n++}/per_item.csv`, text);

/**
 * Everything an importer hands the store (lazy getters read explicitly). The fast path's
 * optional `tables` must say what the arrays say.
 */
function plain(b: ImportBatch): unknown {
  const columns = b.columns?.map((c) => {
    if (c.tables) {
      for (const f of ['sampleIds', 'pred', 'groundTruth', 'sourceTag', 'protocolNote'] as const) {
        const t = c.tables[f];
        expect(t.index).toHaveLength(c.length);
        expect(Array.from(t.index, (i) => (i < 0 ? null : t.table[i]))).toEqual(c[f]);
        expect(new Set(t.table).size).toBe(t.table.length);
      }
    }
    const { tables: _tables, ...rest } = c;
    return { ...rest, sampleIds: c.sampleIds, pred: c.pred, groundTruth: c.groundTruth, frameIndices: c.frameIndices, sourceTag: c.sourceTag, protocolNote: c.protocolNote };
  });
  return { run: b.run, items: b.items, configs: b.configs, warnings: b.warnings, columns, responses: b.responses };
}

async function expectSameAsGeneral(path: string, fastTakesIt: boolean): Promise<ImportBatch> {
  expect(parsePerItemFast(readFileSync(path)) !== null).toBe(fastTakesIt);
  const read = await readPerItemCsv(path);
  const general = await readPerItemGeneral(path, {}, path);
  expect(plain(read)).toEqual(plain(general));
  return read;
}

async function expectSameError(path: string): Promise<void> {
  expect(parsePerItemFast(readFileSync(path))).toBeNull();
  const general = await readPerItemGeneral(path, {}, path).then(
    () => null,
    (e: unknown) => e,
  );
  expect(general, 'the general reader rejects it').toBeInstanceOf(Error);
  await expect(readPerItemCsv(path)).rejects.toThrow((general as Error).message);
}

describe('per_item.csv fast path', () => {
  it('reads the release shape as the general reader does (repeats, inconsistencies, empty fields, revisited columns)', async () => {
    const rows = [
      HEADER,
      '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M:V1_short:16f_151k,',
      '001-1,M,V1_short,textonly,0,0,C,C,1,official:M:V1_short:textonly,note one',
      '001-2,M,V1_short,16f_151k,16,150528,,A,0,official:M:V1_short:16f_151k,',
      '001-2,N,V1_short,16f_151k,16,150528,A,A,0,other-tag,', // correct disagrees: kept, warned
      '',
      '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M:V1_short:16f_151k,', // exact repeat
      '001-3,M,V1_short,16f_151k,16,150528,D,,1,,', // no ground truth
      '001-1,M,MLVU,16f_151k,16,150528,A,B,0,official:M:MLVU:16f_151k,',
      '001-4,M,V1_short,16f_151k,16,150528,A,A,1,official:M:V1_short:16f_151k,', // column revisited
      '001-4,M,V1_short,32f,32,,A,A,1,t,',
      '001-5,M,V1_short,32f,32,,,B,1,t,', // no prediction: not counted as inconsistent
    ];
    const b = await expectSameAsGeneral(file(rows.join('\n') + '\n'), true);
    expect(b.columns?.map((c) => [c.model, c.split, c.config, c.length])).toEqual([
      ['M', 'V1_short', '16f_151k', 4],
      ['M', 'V1_short', 'textonly', 1],
      ['N', 'V1_short', '16f_151k', 1],
      ['M', 'MLVU', '16f_151k', 1],
      ['M', 'V1_short', '32f', 2],
    ]);
    expect(b.warnings.join('\n')).toMatch(/1 row\(s\) whose correct disagrees/);
    expect(b.warnings.join('\n')).toMatch(/1 repeated identical row/);
    expect(b.configs.map((c) => [c.key, c.pixelCount])).toEqual([
      ['16f_151k', 150528],
      ['textonly', 0],
      ['32f', null],
    ]);
  });

  it('handles CRLF, a BOM, a reordered header and non-ASCII values', async () => {
    const header = 'model, sample_id ,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,protocol_note,source_tag';
    const rows = [header, 'modèle-7B,ça-1,V1,16f,16,,A,A,1,,tag', 'modèle-7B,ça-2,V1,16f,16,,B,A,0,nöte,tag', 'M,ça-1,V1,16f,16,,C,A,0,,'];
    const text = rows.join('\r\n') + '\r\n';
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    const b = await expectSameAsGeneral(file(bom), true);
    expect(b.columns?.[0]?.sampleIds).toEqual(['ça-1', 'ça-2']);
    expect(b.columns?.[0]?.protocolNote).toEqual([null, 'nöte']);
  });

  it('hands invalid UTF-8 to the general reader, which refuses it at its line (docs/formats.md, Damaged input)', async () => {
    const text = Buffer.concat([
      Buffer.from(`${HEADER}\n`),
      Buffer.from([0xff]),
      Buffer.from(',M,S,16f,16,,A,A,1,t,\n'),
      Buffer.from([0xfe]),
      Buffer.from(',M,S,16f,16,,A,A,1,t,\n'),
    ]);
    const p = file(text);
    await expectSameError(p);
    await expect(readPerItemCsv(p)).rejects.toThrow(/per_item\.csv:2: sample_id: invalid UTF-8 \(bytes ff/);
  });

  it('hands a NUL or a control character in an id to the general reader, which refuses it', async () => {
    await expectSameError(file(`${HEADER}\na\u0000b,M,S,16f,16,,A,A,1,t,\n`));
    await expectSameError(file(`${HEADER}\na,M,S\u0001,16f,16,,A,A,1,t,\n`));
  });

  it('reads a shuffled multi-model, multi-split file as the general reader does', async () => {
    const rnd = mulberry32(7); // a deterministic shuffle and random answers
    const lines: string[] = [];
    const configs: [string, number, string][] = [
      ['textonly', 0, '0'],
      ['16f_151k', 16, '150528'],
      ['32f_151k', 32, '150528'],
      ['32f_302k', 32, '301056'],
    ];
    for (const split of ['V1_short', 'MLVU']) {
      const answers = Array.from({ length: 60 }, () => 'ABCD'[Math.floor(rnd() * 4)]!);
      for (const model of ['InternVL3-8B', 'Qwen2.5-VL-7B', 'LLaVA-NeXT-Video-7B']) {
        for (let i = 0; i < 60; i++) {
          for (const [key, frames, pixels] of configs) {
            if (rnd() < 0.05) continue;
            const gt = answers[i]!;
            const pred = rnd() < 0.6 ? gt : 'ABCD'[Math.floor(rnd() * 4)]!;
            lines.push(`${split}-${i},${model},${split},${key},${frames},${pixels},${pred},${gt},${pred === gt ? 1 : 0},official:${model}:${split}:${key},${model.startsWith('LLaVA') ? 'max_32f' : ''}`);
          }
        }
      }
    }
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
    lines.push(lines[3]!, lines[10]!); // exact repeats
    const b = await expectSameAsGeneral(file([HEADER, ...lines].join('\n') + '\n'), true);
    expect(b.columns).toHaveLength(2 * 3 * 4);
  });

  it('reads a grid large enough to grow every table of the kernel as the general reader does', async () => {
    // Short rows (more rows than the first guess of ~1 per 64 bytes), 600 sample ids (past the
    // interner's first 256 entries and 1024 slots), 24 configs and 144 columns (past 64 of each).
    const rnd = mulberry32(11);
    const lines: string[] = [];
    for (const split of ['A', 'B']) {
      for (let i = 0; i < 300; i++) {
        const gt = 'ABCD'[i % 4]!;
        for (const model of ['m', 'n', 'o']) {
          for (let c = 0; c < 24; c++) {
            const pred = rnd() < 0.5 ? gt : 'ABCD'[Math.floor(rnd() * 4)]!;
            lines.push(`${i},${model},${split},${c + 1}f,${c + 1},,${pred},${gt},${pred === gt ? 1 : 0},${model}${c},`);
          }
        }
      }
    }
    const b = await expectSameAsGeneral(file([HEADER, ...lines].join('\n') + '\n'), true);
    expect(b.columns).toHaveLength(2 * 3 * 24);
    expect(b.items).toHaveLength(600);
  });

  it('leaves quoting and optional columns to the general reader, with the same result', async () => {
    await expectSameAsGeneral(file(`${HEADER}\n001-1,M,S,16f,16,,A,A,1,t,"a, note"\n`), false);
    await expectSameAsGeneral(file(`${HEADER},confidence\n001-1,M,S,16f,16,,A,A,1,t,,0.5\n`), false);
    // `016` is 16 for the general reader; the fast path only accepts byte-identical repeats.
    await expectSameAsGeneral(file(`${HEADER}\n001-1,M,S,16f,16,,A,A,1,t,\n001-2,M,S,16f,016,,A,A,1,t,\n`), false);
  });

  it.each([
    ['too few fields', '001-3,M,S,16f,16'],
    ['too many fields', '001-3,M,S,16f,16,,A,A,1,t,,extra'],
    ['an empty model', '001-3,,S,16f,16,,A,A,1,t,'],
    ['an empty sample_id', ',M,S,16f,16,,A,A,1,t,'],
    ['a bad letter', '001-3,M,S,16f,16,,Z,A,0,t,'],
    ['a two-letter ground truth', '001-3,M,S,16f,16,,A,AB,0,t,'],
    ['an empty correct', '001-3,M,S,16f,16,,A,A,,t,'],
    ['correct = 2', '001-3,M,S,16f,16,,A,A,2,t,'],
    ['a second answer for an item', '001-1,M,S,32f,32,,A,B,0,t,'],
    ['a duplicate key with a different value', '001-1,M,S,16f,16,,C,A,0,t,'],
    ['a frame count contradicting the config', '001-3,M,S,16f,32,,A,A,1,t,'],
    ['a frame count changing within a config', '001-3,M,S,16f,17,,A,A,1,t,'],
    ['an unparseable config', '001-3,M,S,sixteen,16,,A,A,1,t,'],
    ['a non-integer pixel count', '001-3,M,S,32f,32,many,A,A,1,t,'],
  ])('hands %s to the general reader, which names file:line:field', async (_what, row) => {
    await expectSameError(file(`${HEADER}\n001-1,M,S,16f,16,,A,A,1,t,\n001-2,M,S,16f,16,,B,A,0,t,\n${row}\n`));
  });

  it('hands a header with an unknown column to the general reader', async () => {
    await expectSameError(file(`${HEADER.replace('protocol_note', 'mood')}\n001-1,M,S,16f,16,,A,A,1,t,\n`));
  });
});
