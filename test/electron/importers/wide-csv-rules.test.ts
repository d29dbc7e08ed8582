/**
 * The release's `<model>_<split>_predictions_wide.csv` read by readWideCsv itself
 * (docs/release-format.md, docs/formats.md "Ground truth"), one rule at a time: model and split
 * from the name or the options, the manifest's tags, the header, each row's cells, and answers
 * from a ground truth. wide-csv.test.ts reads the real release's files through readImport.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportBatch, ItemMeta } from '../../../shared/domain/types';
import { GroundTruth } from '../../../electron/importers/ground-truth';
import { modelSplitFromWideName, readWideCsv } from '../../../electron/importers/wide-csv';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const WIDE = 'M_V1_short_predictions_wide.csv';
const cells = (b: ImportBatch) => b.responses.map((r) => [r.sampleId, r.config, r.pred, r.groundTruth, r.correct, r.sourceTag, r.protocolNote, r.line]);

/** A ground truth answering split `split`: sample → answer (with a question). */
function truth(split: string, answers: Record<string, string>): GroundTruth {
  const items: ItemMeta[] = Object.entries(answers).map(([sampleId, answer]) => ({ split, sampleId, question: `q ${sampleId}`, options: ['x', 'y', 'z'], answer, kind: 'mcqa' }));
  return new GroundTruth(
    [{ run: { sourcePath: 's', sha256: 'x', format: 'per-item-csv', toolkit: null, modelArgs: null }, items, responses: [], configs: [], warnings: [] }],
    'runs/per_item.csv',
  );
}

describe('modelSplitFromWideName', () => {
  it('splits at the first underscore, any case of the suffix', () => {
    expect(modelSplitFromWideName('Qwen2.5-VL-7B_V1_short_predictions_wide.csv')).toEqual({ model: 'Qwen2.5-VL-7B', split: 'V1_short' });
    expect(modelSplitFromWideName('M_S_PREDICTIONS_WIDE.CSV')).toEqual({ model: 'M', split: 'S' });
    for (const bad of ['M_predictions_wide.csv', '_S_predictions_wide.csv', 'M_S_predictions_wide.tsv', 'M_S_predictions.csv', 'xM_S_predictions_wide.csv.bak']) {
      expect(modelSplitFromWideName(bad), bad).toBeNull();
    }
  });
});

describe('readWideCsv', () => {
  it('reads one cell per sample and config, an empty cell as no letter, without a ground truth correct unknown', async () => {
    const f = scratch.freshFolder({ [WIDE]: 'sample_id,16f,textonly\n001-1,A,\n001-2,,C\n' });
    const b = await readWideCsv(f[WIDE]!, {}, null, 'shown/wide.csv');
    expect(cells(b)).toEqual([
      ['001-1', '16f', 'A', null, null, null, null, 2],
      ['001-1', 'textonly', null, null, null, null, null, 2],
      ['001-2', '16f', null, null, null, null, null, 3],
      ['001-2', 'textonly', 'C', null, null, null, null, 3],
    ]);
    expect(b.responses.every((r) => r.model === 'M' && r.split === 'V1_short')).toBe(true);
    expect(b.configs.map((c) => c.key)).toEqual(['16f', 'textonly']);
    expect(b.run).toMatchObject({ sourcePath: f[WIDE], format: 'wide-csv', toolkit: 'flipbook-release', modelArgs: null });
    expect(b.items).toEqual([]);
    expect(b.warnings).toEqual([]);
  });

  it('takes --model and --split over the name, and needs both from one or the other', async () => {
    const f = scratch.freshFolder({ 'grid.csv': 'sample_id,8f\nq1,B\n' });
    const b = await readWideCsv(f['grid.csv']!, { model: 'X', split: 'Y' }, null);
    expect(b.responses.map((r) => [r.model, r.split])).toEqual([['X', 'Y']]);
    const reason = /^cannot tell model\/split from the file name <model>_<split>_predictions_wide\.csv; pass --model and --split$/;
    await expectImportError(readWideCsv(f['grid.csv']!, {}, null), { file: 'grid.csv', line: 0, field: 'model', reason });
    await expectImportError(readWideCsv(f['grid.csv']!, { model: 'X' }, null), { file: 'grid.csv', line: 0, field: 'split', reason });
    await expectImportError(readWideCsv(f['grid.csv']!, { split: 'Y' }, null), { file: 'grid.csv', line: 0, field: 'model', reason });
  });

  it('answers each sample from the ground truth, brings its item, and says how many had none', async () => {
    const f = scratch.freshFolder({ [WIDE]: 'sample_id,16f\n001-1,A\n001-2,B\n001-3,\n' });
    const b = await readWideCsv(f[WIDE]!, {}, truth('V1_short', { '001-1': 'A', '001-3': 'C' }));
    expect(cells(b).map((c) => c.slice(0, 5))).toEqual([
      ['001-1', '16f', 'A', 'A', true],
      ['001-2', '16f', 'B', null, null],
      ['001-3', '16f', null, 'C', false],
    ]);
    expect(b.items.map((i) => [i.split, i.sampleId, i.question, i.answer])).toEqual([
      ['V1_short', '001-1', 'q 001-1', 'A'],
      ['V1_short', '001-3', 'q 001-3', 'C'],
    ]);
    expect(b.warnings).toEqual([`${WIDE}: 1 of 3 sample(s) of split V1_short have no answer (not in split V1_short of per_item.csv); correct left empty`]);
    const other = await readWideCsv(f[WIDE]!, {}, truth('V2_short', { '001-1': 'A' }));
    expect(other.warnings).toEqual([
      `${WIDE}: 3 of 3 sample(s) of split V1_short have no answer (per_item.csv answers splits V2_short, not V1_short; map one with --ground-truth-split); correct left empty`,
    ]);
  });

  it("tags each cell from the manifest's cells, else from the grid's wide source, and warns when their configs differ", async () => {
    const manifest = {
      cells: [
        { model: 'M', split: 'V1_short', config: '16f', source_tag: 'official:M:V1_short:16f', protocol_note: 'cached' },
        { model: 'M', split: 'V1_short', config: '8f', source_tag: '', protocol_note: null },
      ],
      wide_sources: [
        { source_tag: 'legacy:M:V1_short:per_item', cells: { '16f': { total: 2, correct: 1 }, '8f': { total: 2, correct: 1 }, '32f': { total: 2, correct: 2 } } },
        { source_tag: 'short:M', cells: {} },
      ],
    };
    const f = scratch.freshFolder({ 'release_manifest.json': `\uFEFF${JSON.stringify(manifest)}`, [WIDE]: 'sample_id,16f,8f,4f\nq1,A,B,C\n' });
    const b = await readWideCsv(f[WIDE]!, {}, null);
    expect(b.responses.map((r) => [r.config, r.sourceTag, r.protocolNote])).toEqual([
      ['16f', 'official:M:V1_short:16f', 'cached'],
      ['8f', null, null],
      ['4f', 'legacy:M:V1_short:per_item', null],
    ]);
    expect(b.warnings).toEqual([`${WIDE}: release_manifest.json's wide source legacy:M:V1_short:per_item lists configs 16f,32f,8f, the file has 16f,4f,8f`]);
    // The same configs in another order: no warning.
    const g = scratch.freshFolder({ 'release_manifest.json': JSON.stringify(manifest), [WIDE]: 'sample_id,8f,32f,16f\nq1,A,B,C\n' });
    expect((await readWideCsv(g[WIDE]!, {}, null)).warnings).toEqual([]);
    // An export before the corrected format wrote wide_sources as {name: path}: nothing to take.
    const h = scratch.freshFolder({ 'release_manifest.json': JSON.stringify({ cells: [], wide_sources: { a: 'b.csv' } }), [WIDE]: 'sample_id,8f\nq1,A\n' });
    expect((await readWideCsv(h[WIDE]!, {}, null)).responses.map((r) => r.sourceTag)).toEqual([null]);
  });

  it('refuses a manifest that is not JSON or not its shape, naming it', async () => {
    const f = scratch.freshFolder({ 'release_manifest.json': '{"cells": [', [WIDE]: 'sample_id,8f\nq1,A\n' });
    await expectImportError(readWideCsv(f[WIDE]!, {}, null), { file: 'release_manifest.json', line: 0, field: '', reason: /^malformed JSON: / });
    const g = scratch.freshFolder({ 'release_manifest.json': JSON.stringify({ cells: [{ model: 'M' }] }), [WIDE]: 'sample_id,8f\nq1,A\n' });
    await expectImportError(readWideCsv(g[WIDE]!, {}, null), { file: 'release_manifest.json', line: 0, field: 'cells.0.split' });
  });

  it('refuses a header that does not start with sample_id or names no config, and an empty file', async () => {
    const bad = async (text: string, where: Parameters<typeof expectImportError>[1]) =>
      expectImportError(readWideCsv(scratch.freshFolder({ [WIDE]: text })[WIDE]!, {}, null), where);
    await bad('id,8f\nq1,A\n', { file: WIDE, line: 1, field: 'id', reason: /^unknown header "id": the first column must be sample_id$/ });
    await bad('sample_id,8f,frames\n', {
      file: WIDE,
      line: 1,
      field: 'frames',
      reason: /^unknown header "frames": not a config key \(textonly, <frames>f or <frames>f_<pixels>\)$/,
    });
    await bad('', { file: WIDE, line: 1, field: '', reason: /^empty file: no header row$/ });
  });

  it('refuses an empty sample id, a cell that is no letter, and a repeated sample that differs; takes one that agrees once', async () => {
    const bad = async (text: string, where: Parameters<typeof expectImportError>[1]) =>
      expectImportError(readWideCsv(scratch.freshFolder({ [WIDE]: text })[WIDE]!, {}, null), where);
    await bad('sample_id,8f\n,A\n', { file: WIDE, line: 2, field: 'sample_id', reason: /^empty$/ });
    await bad('sample_id,8f\nq1,a\n', { file: WIDE, line: 2, field: '8f', reason: /^expected an option letter A–H or empty, got "a"$/ });
    await bad('sample_id,8f\nq1,I\n', { file: WIDE, line: 2, field: '8f' });
    await bad('sample_id,8f,16f\nq1,A,B\nq1,A,\n', { file: WIDE, line: 3, field: '16f', reason: /^duplicate sample_id q1 with a different value: "" here, "B" at line 2$/ });
    const f = scratch.freshFolder({ [WIDE]: 'sample_id,8f\nq1,A\nq1,A\n' });
    expect((await readWideCsv(f[WIDE]!, {}, null)).responses).toHaveLength(1);
    // A config column given twice is read once, when both copies agree.
    const twice = scratch.freshFolder({ [WIDE]: 'sample_id,8f,8f\nq1,A,A\n' });
    expect(cells(await readWideCsv(twice[WIDE]!, {}, null))).toEqual([['q1', '8f', 'A', null, null, null, null, 2]]);
    await bad('sample_id,8f,8f\nq1,A,B\n', { file: WIDE, line: 2, field: '8f', reason: /^duplicated column "8f"/ });
  });
});
