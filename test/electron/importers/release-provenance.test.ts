/**
 * A release folder's provenance/configs.json and annotations/codebook.json read with its
 * per_item.csv (docs/release-format.md): the configs' protocols join the cells' configs, and a
 * file that is not JSON, not its shape, or contradicts per_item.csv is refused naming it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readRelease } from '../../../electron/importers/release-layout';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const PER_ITEM =
  'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note\n' +
  'q1,M,S,16f_151k,16,151000,A,A,1,t,\nq1,M,S,textonly,0,0,B,A,0,t,\n';

function release(files: Record<string, string | Uint8Array>): string {
  const dir = scratch.freshDir();
  scratch.write(`${dir}/labels/per_item.csv`, PER_ITEM);
  for (const [name, text] of Object.entries(files)) scratch.write(`${dir}/${name}`, text);
  return scratch.path(dir);
}

describe('provenance/configs.json', () => {
  it('gives each config its protocol, the per_item.csv counts where it says none, and adds configs it alone names', async () => {
    const configs = {
      '16f_151k': {
        frames: 16,
        sampling: { policy: 'uniform-linspace', seed: 3, fps: 2 },
        pipeline: 'cache',
        toolkit: 'lmms-eval',
        model_args: 'max_frames_num=16',
        notes: 'n',
        width: 640,
        height: 360,
      },
      textonly: {},
      '32f_151k': { frames: 32, pixel_count: 151000 },
    };
    const b = await readRelease(release({ 'provenance/configs.json': JSON.stringify(configs) }));
    const byKey = Object.fromEntries(b.configs.map((c) => [c.key, c]));
    expect(byKey['16f_151k']).toEqual({
      key: '16f_151k',
      frames: 16,
      pixelCount: 151000,
      width: 640,
      height: 360,
      sampling: { policy: 'uniform-linspace', seed: 3, fps: 2 },
      pipeline: 'cache',
      toolkit: 'lmms-eval',
      modelArgs: 'max_frames_num=16',
      notes: 'n',
    });
    expect(byKey.textonly).toMatchObject({ frames: 0, pixelCount: 0, sampling: { policy: null, seed: null, fps: null }, pipeline: null, toolkit: null });
    expect(byKey['32f_151k']).toMatchObject({ frames: 32, pixelCount: 151000 });
    expect(b.run.format).toBe('release');
    // A pixel count of null in configs.json says none, over per_item.csv's.
    const c = await readRelease(release({ 'provenance/configs.json': JSON.stringify({ '16f_151k': { pixel_count: null } }) }));
    expect(c.configs.find((x) => x.key === '16f_151k')?.pixelCount).toBeNull();
  });

  it('refuses a file that is not JSON or not its shape, a key that is none, and frames that contradict per_item.csv', async () => {
    const file = 'configs.json';
    await expectImportError(readRelease(release({ 'provenance/configs.json': '{"16f_151k": ' })), { file, line: 0, field: '', reason: /^malformed JSON: / });
    await expectImportError(readRelease(release({ 'provenance/configs.json': Buffer.concat([Buffer.from('{"x": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]) })), {
      file,
      line: 1,
      field: 'x',
      reason: /^invalid UTF-8/,
    });
    await expectImportError(readRelease(release({ 'provenance/configs.json': JSON.stringify({ '16f_151k': { pipeline: 'disk' } }) })), {
      file,
      line: 0,
      field: '16f_151k.pipeline',
    });
    await expectImportError(readRelease(release({ 'provenance/configs.json': JSON.stringify({ sixteen: { frames: 16 } }) })), {
      file,
      line: 0,
      field: 'sixteen',
      reason: /config key "sixteen" is not understood/,
    });
    await expectImportError(readRelease(release({ 'provenance/configs.json': JSON.stringify({ '16f_151k': { frames: 8 } }) })), {
      file,
      line: 0,
      field: '16f_151k.frames',
      reason: /^configs\.json says 8 frames, per_item\.csv says 16$/,
    });
  });
});

describe('annotations/codebook.json', () => {
  it('is read with the release, and refused when it is not JSON or not a codebook', async () => {
    const codebook = { id: 'mine', version: 2, pathways: [{ id: 'p1', label: 'P one' }] };
    const b = await readRelease(release({ 'annotations/codebook.json': JSON.stringify(codebook) }));
    expect(b.annotations).toEqual({ codebook, pathways: [], evidenceSpans: [] });
    await expectImportError(readRelease(release({ 'annotations/codebook.json': '{' })), { file: 'codebook.json', line: 0, field: '', reason: /^malformed JSON: / });
    await expectImportError(readRelease(release({ 'annotations/codebook.json': JSON.stringify({ id: 'x', version: 1, pathways: [{ id: '' }] }) })), {
      file: 'codebook.json',
      line: 0,
      field: 'pathways.0.id',
    });
    await expectImportError(readRelease(release({ 'annotations/codebook.json': Buffer.concat([Buffer.from('{"id": "'), Buffer.from([0xff]), Buffer.from('"}')]) })), {
      file: 'codebook.json',
      line: 1,
      field: 'id',
      reason: /^invalid UTF-8/,
    });
    // An annotations folder without files gives empty annotations.
    const empty = await readRelease(release({ 'annotations/readme.txt': 'x' }));
    expect(empty.annotations).toEqual({ pathways: [], evidenceSpans: [] });
  });
});
