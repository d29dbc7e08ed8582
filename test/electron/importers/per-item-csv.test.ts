import { afterAll, describe, expect, it } from 'vitest';
import { readImport, detectFormat } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
const GOOD = [
  HEADER,
  '001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M:V1_short:16f_151k,',
  '001-1,M,V1_short,textonly,0,0,C,C,1,official:M:V1_short:textonly,',
  '001-2,M,V1_short,16f_151k,16,150528,,A,0,official:M:V1_short:16f_151k,"fallback, note"',
].join('\n');

function withRow(row: string, header = HEADER): string {
  return scratch.write(`case-${Math.random().toString(36).slice(2)}/per_item.csv`, `${header}\n${GOOD.split('\n').slice(1).join('\n')}\n${row}\n`);
}

describe('per_item.csv', () => {
  it('reads rows, configs, items and provenance', async () => {
    const p = scratch.write('good/per_item.csv', GOOD + '\n');
    expect(await detectFormat(p)).toBe('per-item-csv');
    const [b] = await readImport(p);
    expect(b!.run).toMatchObject({ format: 'per-item-csv', sourcePath: p });
    expect(b!.run.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(b!.responses).toHaveLength(3);
    expect(b!.responses[0]).toMatchObject({
      sampleId: '001-1',
      config: '16f_151k',
      pred: 'B',
      groundTruth: 'C',
      correct: false,
      line: 2,
      sourceTag: 'official:M:V1_short:16f_151k',
      protocolNote: null,
    });
    expect(b!.responses[2]).toMatchObject({ pred: null, correct: false, protocolNote: 'fallback, note', line: 4 });
    expect(b!.configs.map((c) => [c.key, c.frames, c.pixelCount])).toEqual([
      ['16f_151k', 16, 150528],
      ['textonly', 0, 0],
    ]);
    expect(b!.items).toEqual(expect.arrayContaining([expect.objectContaining({ split: 'V1_short', sampleId: '001-2', answer: 'A' })]));
  });

  it('reads the documented optional columns', async () => {
    const p = scratch.write(
      'opt/per_item.csv',
      `${HEADER},confidence,margin,latency_s,frame_indices,score\n001-1,M,V1_short,16f_151k,16,150528,B,B,1,t,,0.9,0.5,1.25,0 10 20,\nq9,M,OE,16f_151k,16,150528,,,,t,,,,,,0.42\n`,
    );
    const [b] = await readImport(p);
    expect(b!.responses[0]).toMatchObject({ confidence: 0.9, margin: 0.5, latencyMs: 1250, frameIndices: [0, 10, 20] });
    expect(b!.responses[1]).toMatchObject({ correct: null, score: 0.42 });
  });

  it('rejects an unknown header, naming the column', async () => {
    const p = scratch.write('hdr/per_item.csv', `${HEADER},mood\n`);
    await expectImportError(readImport(p), { file: 'per_item.csv', line: 1, field: 'mood', reason: /unknown header/ });
  });

  it('rejects a missing required header', async () => {
    const p = scratch.write('miss/per_item.csv', HEADER.replace(',protocol_note', '') + '\n');
    await expectImportError(readImport(p, { format: 'per-item-csv' }), { file: 'per_item.csv', line: 1, field: 'protocol_note' });
  });

  it('rejects a malformed row', async () => {
    await expectImportError(readImport(withRow('001-3,M,V1_short,16f_151k,16')), { file: 'per_item.csv', line: 5, field: '', reason: /malformed row/ });
  });

  it('rejects a wrong type (correct = "yes")', async () => {
    await expectImportError(readImport(withRow('001-3,M,V1_short,16f_151k,16,150528,A,A,yes,t,')), { file: 'per_item.csv', line: 5, field: 'correct' });
  });

  it('rejects a non-integer frame_count and a bad option letter', async () => {
    await expectImportError(readImport(withRow('001-3,M,V1_short,16f_151k,sixteen,150528,A,A,1,t,')), { file: 'per_item.csv', line: 5, field: 'frame_count' });
    await expectImportError(readImport(withRow('001-3,M,V1_short,16f_151k,16,150528,Z,A,0,t,')), { file: 'per_item.csv', line: 5, field: 'predicted_option' });
  });

  it('rejects a duplicate key with a different value', async () => {
    const err = await expectImportError(readImport(withRow('001-1,M,V1_short,16f_151k,16,150528,C,C,1,official:M:V1_short:16f_151k,')), {
      file: 'per_item.csv',
      line: 5,
      field: 'predicted_option',
      reason: /duplicate key/,
    });
    expect(err.reason).toContain('line 2');
  });

  it('tolerates the same row twice (with a warning)', async () => {
    const [b] = await readImport(withRow('001-1,M,V1_short,16f_151k,16,150528,B,C,0,official:M:V1_short:16f_151k,'));
    expect(b!.responses).toHaveLength(3);
    expect(b!.warnings.join()).toMatch(/1 repeated identical row/);
  });

  it('rejects one item with two different ground truths', async () => {
    await expectImportError(readImport(withRow('001-1,M,V1_short,32f_151k,32,150528,B,B,1,t,')), { file: 'per_item.csv', line: 5, field: 'ground_truth_option' });
  });

  it('rejects a config name contradicting its frame count', async () => {
    await expectImportError(readImport(withRow('001-3,M,V1_short,16f_151k,32,150528,A,A,1,t,')), {
      file: 'per_item.csv',
      line: 5,
      field: 'frame_count',
      reason: /16f_151k means 16 frames but frame_count is 32/,
    });
  });

  it('rejects an unparseable config key', async () => {
    await expectImportError(readImport(withRow('001-3,M,V1_short,sixteen,16,150528,A,A,1,t,')), { file: 'per_item.csv', line: 5, field: 'config' });
  });

  it('refuses a file cut inside its last row (a truncated copy), naming the row and the field it stops in', async () => {
    // The cut falls inside protocol_note: the partial row still has eleven fields and would parse.
    const whole = `${GOOD}\n001-3,M,V1_short,16f_151k,16,150528,A,A,1,official:M:V1_short:16f_151k,llava_native_processor;max_32f\n`;
    const cut = whole.slice(0, whole.length - 'processor;max_32f\n'.length);
    const p = scratch.write('cut-note/per_item.csv', cut);
    await expectImportError(readImport(p), { file: 'per_item.csv', line: 5, field: 'protocol_note', reason: /ends inside this row/ });
    // Cut inside source_tag: fewer fields.
    const q = scratch.write('cut-tag/per_item.csv', whole.slice(0, whole.indexOf('official:M:V1_short:16f_151k,llava') + 'official:M'.length));
    await expectImportError(readImport(q), { file: 'per_item.csv', line: 5, field: 'source_tag', reason: /truncated/ });
    // The same rows with their line break import.
    const ok = await readImport(scratch.write('whole/per_item.csv', whole));
    expect(ok[0]!.responses.map((r) => r.protocolNote)).toContain('llava_native_processor;max_32f');
  });
});
