import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { zipSync, strToU8 } from 'fflate';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const PER_ITEM =
  [
    'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note',
    '001-1,M,V1_short,16f_151k,16,151000,B,B,1,t,',
    '001-1,M,V1_short,textonly,0,0,A,B,0,t,',
  ].join('\n') + '\n';
const CONFIGS = JSON.stringify({
  '16f_151k': {
    frames: 16,
    pixel_count: 151000,
    width: null,
    height: null,
    sampling: { policy: 'uniform-linspace', seed: null, fps: null },
    pipeline: 'raw',
    toolkit: 'lmms-eval',
    model_args: 'max_frames_num=16',
    notes: null,
  },
});
const CODEBOOK = JSON.stringify({
  id: 'flipbook-default',
  version: 1,
  pathways: [{ id: 'sampling-miss', label: 'Sampling miss', description: 'd', applies_to: 'mcqa', shortcut: 's' }],
});
const PATHWAYS_HEADER = 'sample_id,model,split,annotator,status,primary_pathway,pathways,transition,notes,confidence,codebook_version,created_at,updated_at';
const PATHWAYS = `${PATHWAYS_HEADER}\n001-1,M,V1_short,ann,done,sampling-miss,sampling-miss,16f_151k>textonly,"note, with comma",4,1,2025-01-01,2025-01-02\n`;
const SPANS = 'sample_id,model,split,annotator,start_s,end_s,label,covered_by\n001-1,M,V1_short,ann,1.5,3,cat,16f_151k\n';

function folder(files: Record<string, string>): string {
  const dir = `rel-${Math.random().toString(36).slice(2)}`;
  for (const [name, text] of Object.entries(files)) scratch.write(`${dir}/${name}`, text);
  return scratch.path(dir);
}

const FULL = {
  'labels/per_item.csv': PER_ITEM,
  'provenance/configs.json': CONFIGS,
  'annotations/codebook.json': CODEBOOK,
  'annotations/pathways.csv': PATHWAYS,
  'annotations/evidence_spans.csv': SPANS,
};

describe('release layout', () => {
  it('reads a folder: rows, provenance configs and annotations', async () => {
    const dir = folder(FULL);
    expect(await detectFormat(dir)).toBe('release');
    const [b] = await readImport(dir);
    expect(b!.run.format).toBe('release');
    expect(b!.responses).toHaveLength(2);
    expect(b!.configs.find((c) => c.key === '16f_151k')).toMatchObject({
      frames: 16,
      pixelCount: 151000,
      pipeline: 'raw',
      toolkit: 'lmms-eval',
      sampling: { policy: 'uniform-linspace' },
    });
    expect(b!.annotations?.pathways[0]).toMatchObject({ status: 'done', notes: 'note, with comma', confidence: '4' });
    expect(b!.annotations?.evidenceSpans[0]).toMatchObject({ start_s: '1.5', end_s: '3' });
    expect((b!.annotations?.codebook as { id: string }).id).toBe('flipbook-default');
  });

  it('reads the same release from a .zip (streamed out to a temp folder)', async () => {
    const entries: Record<string, Uint8Array> = {};
    for (const [k, v] of Object.entries(FULL)) entries[`release/${k}`] = strToU8(v);
    const zip = scratch.write('release.zip', zipSync(entries));
    expect(await detectFormat(zip)).toBe('release');
    const [b] = await readImport(zip);
    expect(b!.responses).toHaveLength(2);
    expect(b!.annotations?.pathways).toHaveLength(1);
    expect(b!.run.sourcePath).toBe(zip);
    expect(b!.run.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(zip).length).toBeGreaterThan(0);
  });

  it('names the entry inside a zip in errors', async () => {
    const zip = scratch.write('bad.zip', zipSync({ 'labels/per_item.csv': strToU8(PER_ITEM + '001-2,M,V1_short,16f_151k,16,151000,A,A,yes,t,\n') }));
    await expectImportError(readImport(zip), { file: 'bad.zip!labels/per_item.csv', line: 4, field: 'correct' });
  });

  it('rejects a folder without labels/per_item.csv', async () => {
    await expectImportError(readImport(folder({ 'README.md': 'x' })), { file: 'rel-', line: 0, field: 'labels/per_item.csv' });
  });

  it('rejects a bad annotation status, an unknown annotation header, and a span ending before it starts', async () => {
    await expectImportError(readImport(folder({ ...FULL, 'annotations/pathways.csv': PATHWAYS.replace(',done,', ',finished,') })), {
      file: 'pathways.csv',
      line: 2,
      field: 'status',
    });
    await expectImportError(readImport(folder({ ...FULL, 'annotations/pathways.csv': PATHWAYS.replace('updated_at', 'mood') })), {
      file: 'pathways.csv',
      line: 1,
      field: 'mood',
      reason: /unknown header/,
    });
    await expectImportError(readImport(folder({ ...FULL, 'annotations/evidence_spans.csv': SPANS.replace('1.5,3', '4,3') })), {
      file: 'evidence_spans.csv',
      line: 2,
      field: 'end_s',
    });
    await expectImportError(readImport(folder({ ...FULL, 'annotations/pathways.csv': PATHWAYS.replace(',4,1,', ',9,1,') })), {
      file: 'pathways.csv',
      line: 2,
      field: 'confidence',
    });
  });

  it('rejects provenance whose frame count contradicts per_item.csv', async () => {
    await expectImportError(readImport(folder({ ...FULL, 'provenance/configs.json': CONFIGS.replace('"frames":16', '"frames":32') })), {
      file: 'configs.json',
      line: 0,
      field: '16f_151k.frames',
    });
  });
});
