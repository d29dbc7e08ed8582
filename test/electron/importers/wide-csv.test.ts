import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError, fixtures, sharedFixtures } from './helpers';
import { realFixturesPresent } from '../../real-fixtures';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const LOG = join(sharedFixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const AGG = join(sharedFixtures, 'scalegrid/labels/aggregated');
const REAL = realFixturesPresent('wide-csv real-data tests', LOG, AGG);

describe('wide CSV', () => {
  it('reads the committed scalegrid excerpt; model and split from the file name; no ground truth → correct null', async () => {
    const p = join(fixtures, 'scalegrid/Qwen2.5-VL-7B_V1_short_predictions_wide.csv');
    expect(await detectFormat(p)).toBe('wide-csv');
    const [b] = await readImport(p);
    expect(b!.responses.length).toBe(20 * 11);
    expect(b!.responses.every((r) => r.model === 'Qwen2.5-VL-7B' && r.split === 'V1_short' && r.correct === null)).toBe(true);
    expect(b!.configs.map((c) => c.key)).toContain('128f_76k');
    expect(b!.configs.find((c) => c.key === '128f_76k')).toMatchObject({ frames: 128, pixelCount: 76000 });
  });

  it('uses a per_item.csv as ground truth', async () => {
    const gt = scratch.write(
      'gt/per_item.csv',
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n001-1,X,V1_short,16f,16,,C,C,1,,\n001-2,X,V1_short,16f,16,,A,A,1,,\n',
    );
    const p = scratch.write('Foo_V1_short_predictions_wide.csv', 'sample_id,16f_151k,textonly\n001-1,C,\n001-2,B,A\n');
    const [b] = await readImport(p, { groundTruth: gt });
    expect(b!.responses.map((r) => [r.sampleId, r.config, r.pred, r.correct])).toEqual([
      ['001-1', '16f_151k', 'C', true],
      ['001-1', 'textonly', null, false],
      ['001-2', '16f_151k', 'B', false],
      ['001-2', 'textonly', 'A', true],
    ]);
  });

  it.skipIf(!REAL)('joins the real scalegrid wide files with the lmms-eval ground truth and reproduces the published accuracies', async () => {
    const manifest = JSON.parse(readFileSync(join(AGG, 'release_manifest.json'), 'utf8')) as {
      cells: { model: string; split: string; config: string; total: number; correct: number; source_tag: string }[];
    };
    for (const name of ['InternVL3-8B_V1_medium', 'Qwen2.5-VL-7B_V1_short', 'Qwen3-VL-8B_V1_short']) {
      const [b] = await readImport(join(AGG, `${name}_predictions_wide.csv`), { groundTruth: LOG });
      const published = JSON.parse(readFileSync(join(AGG, `${name}.json`), 'utf8')) as { n: number; accuracy_by_config: Record<string, number> };
      for (const [config, acc] of Object.entries(published.accuracy_by_config)) {
        const rows = b!.responses.filter((r) => r.config === config);
        expect(rows.length).toBe(published.n);
        const mine = Math.round((rows.filter((r) => r.correct).length / rows.length) * 100 * 1e4) / 1e4;
        expect([name, config, mine]).toEqual([name, config, acc]);
      }
      const [model, ...split] = name.split('_');
      for (const c of manifest.cells.filter((x) => x.model === model && x.split === split.join('_'))) {
        expect(b!.responses.find((r) => r.config === c.config)!.sourceTag).toBe(c.source_tag);
      }
    }
    // The grid listed under wide_sources (not cell by cell) keeps its source_tag too.
    const [q] = await readImport(join(AGG, 'Qwen2.5-VL-7B_V1_short_predictions_wide.csv'), { groundTruth: LOG });
    expect(new Set(q!.responses.map((r) => r.sourceTag))).toEqual(new Set(['legacy_clean:Qwen2.5-VL-7B:V1_short:extended_per_item']));
  });

  it("takes a grid's source_tag from the manifest's wide_sources list", async () => {
    scratch.write(
      'ws/release_manifest.json',
      JSON.stringify({
        cells: [{ model: 'B', split: 'S', config: '16f', total: 1, correct: 1, source_tag: 'official:B:S:16f', protocol_note: 'n' }],
        wide_sources: [{ source_tag: 'legacy:A:S:per_item', cells: { textonly: { total: 1, correct: 0 }, '16f': { total: 1, correct: 1 } } }],
      }),
    );
    const a = scratch.write('ws/A_S_predictions_wide.csv', 'sample_id,16f,textonly\n1,A,B\n');
    const [b] = await readImport(a);
    expect(b!.responses.map((r) => [r.config, r.sourceTag, r.protocolNote])).toEqual([
      ['16f', 'legacy:A:S:per_item', null],
      ['textonly', 'legacy:A:S:per_item', null],
    ]);
    const other = scratch.write('ws/B_S_predictions_wide.csv', 'sample_id,16f\n1,A\n');
    const [c] = await readImport(other);
    expect(c!.responses.map((r) => [r.config, r.sourceTag, r.protocolNote])).toEqual([['16f', 'official:B:S:16f', 'n']]);
    scratch.write('bad/release_manifest.json', JSON.stringify({ cells: [], wide_sources: [{ source_tag: 'x:A:S', cells: { '16f': { total: -1, correct: 0 } } }] }));
    await expectImportError(readImport(scratch.write('bad/A_S_predictions_wide.csv', 'sample_id,16f\n1,A\n')), {
      file: 'release_manifest.json',
      line: 0,
      field: 'wide_sources.0.cells.16f.total',
    });
  });

  it('rejects an unknown header', async () => {
    const p = scratch.write('A_S_predictions_wide.csv', 'sample_id,16f_151k,sixteen\n');
    await expectImportError(readImport(p), { file: 'A_S_predictions_wide.csv', line: 1, field: 'sixteen', reason: /unknown header/ });
  });

  it('rejects a malformed row, a wrong type and a duplicate with a different value', async () => {
    const mal = scratch.write('m/A_S_predictions_wide.csv', 'sample_id,16f,32f\n1,A,B\n2,A\n');
    await expectImportError(readImport(mal), { file: 'A_S_predictions_wide.csv', line: 3, field: '', reason: /malformed row/ });
    const typ = scratch.write('t/A_S_predictions_wide.csv', 'sample_id,16f,32f\n1,A,B\n2,A,yes\n');
    await expectImportError(readImport(typ), { file: 'A_S_predictions_wide.csv', line: 3, field: '32f' });
    const dup = scratch.write('d/A_S_predictions_wide.csv', 'sample_id,16f,32f\n1,A,B\n2,A,C\n1,A,D\n');
    await expectImportError(readImport(dup), { file: 'A_S_predictions_wide.csv', line: 4, field: '32f', reason: /duplicate/ });
  });
});
