// Files and helpers shared by the per_item.csv tests that read one file every way: inline,
// in windows of a few bytes or rows, and on the scan thread (per-item-scan.test.ts,
// per-item-windows.test.ts).
import { expect } from 'vitest';
import { readPerItemCsv } from '../../../electron/importers/per-item-csv';
import type { ImportBatch } from '../../../shared/domain/types';
import { expectImportError } from './helpers';

export const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
export const ON_THREAD = 0;
export const INLINE = Number.POSITIVE_INFINITY;

const CONFIGS: [string, number, number][] = [
  ['textonly', 0, 0],
  ['16f_151k', 16, 150528],
  ['32f_151k', 32, 150528],
];

/** Rows of `items` items × 2 models × 3 configs; item i answers letter i % 4, model M2 is wrong on every 3rd. */
export function rows(items: number, from = 0): string[] {
  const out: string[] = [];
  for (const model of ['M1', 'M2']) {
    for (let i = from; i < from + items; i++) {
      const gt = 'ABCD'[i % 4]!;
      for (const [key, frames, pixels] of CONFIGS) {
        const wrong = model === 'M2' && i % 3 === 0 && key !== 'textonly';
        const pred = wrong ? 'ABCD'[(i + 1) % 4]! : gt;
        out.push(`item-${String(i).padStart(6, '0')},${model},V1_short,${key},${frames},${pixels},${pred},${gt},${wrong ? 0 : 1},official:${model}:V1_short:${key},`);
      }
    }
  }
  return out;
}

/** A batch as plain data, for comparing two reads of one file. */
function plain(b: ImportBatch): unknown {
  return { run: b.run, items: b.items, configs: b.configs, warnings: b.warnings, responses: b.responses };
}

/** Windows of a few bytes (every record longer than one: the window grows) and of a few rows. */
const WINDOWS = [64, 777];

export async function bothWays(path: string): Promise<ImportBatch> {
  const inline = await readPerItemCsv(path, {}, path, INLINE);
  const scanned = await readPerItemCsv(path, {}, path, ON_THREAD);
  expect(plain(scanned)).toEqual(plain(inline));
  for (const w of WINDOWS) expect(plain(await readPerItemCsv(path, {}, path, INLINE, w))).toEqual(plain(inline));
  return scanned;
}

/** The refusal of each path (the default window, small windows, the scan thread): one message. */
export async function refusedAlike(path: string, where: Parameters<typeof expectImportError>[1]): Promise<void> {
  const inline = await expectImportError(readPerItemCsv(path, {}, path, INLINE), where);
  for (const w of WINDOWS) expect((await expectImportError(readPerItemCsv(path, {}, path, INLINE, w), where)).message).toBe(inline.message);
  expect((await expectImportError(readPerItemCsv(path, {}, path, ON_THREAD), where)).message).toBe(inline.message);
}
