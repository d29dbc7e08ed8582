/**
 * `--model`, `--split` and `--config` applied to one batch (electron/store/import-overrides.ts),
 * rows and columns alike: what each renames, the spec `--config` takes its other fields from,
 * and the refusal of `--config` for a file of several configs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { readImport } from '../../../electron/importers/index';
import { applyOverrides } from '../../../electron/store/import-overrides';
import type { ImportBatch } from '../../../shared/domain/types';
import { batch, config, response, tempDir } from './helpers';

const rows = (...configs: string[]): ImportBatch =>
  batch('run.jsonl', {
    configs: [config('8f', 8, 1000), config('16f', 16, 2000)],
    items: [{ split: 'S', sampleId: 'q1', answer: 'A' }],
    responses: configs.map((c, i) => response({ model: 'M', split: 'S', sampleId: `q${i}`, config: c, line: i + 2 })),
  });
async function columns(lines: string[]): Promise<ImportBatch> {
  const csv = path.join(tempDir('flipbook-overrides-'), 'per_item.csv');
  fs.writeFileSync(csv, ['sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note', ...lines].join('\n') + '\n');
  const [b] = await readImport(csv, { format: 'per-item-csv' });
  return b!;
}

describe('overrides', () => {
  it('none: the batch as it is; columns win over rows when a batch has them', async () => {
    const b = rows('16f');
    expect(applyOverrides(b, {})).toEqual({ rows: b.responses, cols: [], specs: b.configs, items: b.items });
    const c = await columns(['q1,M,S,16f_151k,16,150528,A,A,1,,']);
    const o = applyOverrides(c, {});
    expect([o.rows, o.cols.map((x) => [x.model, x.split, x.config])]).toEqual([[], [['M', 'S', '16f_151k']]]);
  });

  it('--model and --split rename every row, column and (split) item; either alone leaves the other', async () => {
    const o = applyOverrides(rows('16f', '16f'), { model: 'N' });
    expect(o.rows.map((r) => [r.model, r.split])).toEqual([
      ['N', 'S'],
      ['N', 'S'],
    ]);
    expect(o.items.map((i) => i.split)).toEqual(['S']);
    const s = applyOverrides(rows('16f'), { split: 'T' });
    expect([s.rows.map((r) => [r.model, r.split]), s.items.map((i) => [i.split, i.sampleId, i.answer])]).toEqual([[['M', 'T']], [['T', 'q1', 'A']]]);
    const c = applyOverrides(await columns(['q1,M,S,16f_151k,16,150528,A,A,1,,']), { model: 'N', split: 'T' });
    expect(c.cols.map((x) => [x.model, x.split, x.config])).toEqual([['N', 'T', '16f_151k']]);
    const m = applyOverrides(await columns(['q1,M,S,16f_151k,16,150528,A,A,1,,']), { split: 'T' });
    expect(m.cols.map((x) => [x.model, x.split])).toEqual([['M', 'T']]);
  });

  it('--config renames the one config of a file, its spec taken from the one it renames', async () => {
    const o = applyOverrides(rows('16f', '16f'), { config: '16f_2k' });
    expect(o.rows.map((r) => r.config)).toEqual(['16f_2k', '16f_2k']);
    expect(o.specs).toEqual([{ ...config('16f', 16, 2000), key: '16f_2k' }]);
    // A file whose config has no spec of its own takes the first spec's fields.
    expect(applyOverrides(rows('32f'), { config: '32f_x' }).specs).toEqual([{ ...config('8f', 8, 1000), key: '32f_x' }]);
    // No spec at all: none.
    expect(applyOverrides({ ...rows('32f'), configs: [] }, { config: '32f_x' }).specs).toEqual([]);
    const c = applyOverrides(await columns(['q1,M,S,16f_151k,16,150528,A,A,1,,', 'q2,M,S,16f_151k,16,150528,B,A,0,,']), { config: '16f_150k' });
    expect([c.cols.map((x) => x.config), c.specs.map((x) => [x.key, x.frames])]).toEqual([['16f_150k'], [['16f_150k', 16]]]);
  });

  it('--config on a file of several configs is refused, naming them', async () => {
    const refusal = (b: ImportBatch) => {
      try {
        applyOverrides(b, { config: 'x' });
      } catch (e) {
        return e instanceof ImportError ? e.message : String(e);
      }
      return null;
    };
    expect(refusal(rows('8f', '16f', '8f'))).toBe('run.jsonl:0: config: --config names one config but this file holds 2 (16f, 8f)');
    const c = await columns(['q1,M,S,textonly,0,0,A,A,1,,', 'q1,M,S,16f_151k,16,150528,A,A,1,,']);
    expect(refusal(c)).toMatch(/: config: --config names one config but this file holds 2 \(16f_151k, textonly\)$/);
  });
});
