/**
 * The files of an lmms-eval log (docs/formats.md "lmms-eval"), one rule at a time: the
 * `<timestamp>_results.json` found beside a samples file and what it says of model and budget,
 * the split and variant a task name means, the samples' JSONL records, and a pre-0.3
 * `<task>.json` that carries both.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { jsonlRecords, legacySource, readResults, taskVariant } from '../../../electron/importers/lmms-eval-sources';
import { Scratch, expectImportError, lineOf } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const SAMPLES = '20251106_202956_samples_videomme.jsonl';
const results = (over: object = {}) =>
  JSON.stringify({ config: { model: 'qwen2_5_vl', model_args: 'pretrained=Qwen/Qwen2.5-VL-7B-Instruct/,max_num_frames=32,max_pixels=768*28*28' }, ...over });

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('readResults', () => {
  it('reads model, model_args, frames and pixels from the results file of the same timestamp', async () => {
    const f = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_results.json': results(), '20251106_202957_results.json': results({ model_name: 'wrong' }) });
    expect(await readResults(f[SAMPLES]!)).toEqual({
      path: f['20251106_202956_results.json'],
      model: 'Qwen2.5-VL-7B-Instruct',
      modelArgs: 'pretrained=Qwen/Qwen2.5-VL-7B-Instruct/,max_num_frames=32,max_pixels=768*28*28',
      frames: 32,
      pixels: 602112,
    });
  });

  it('takes model_name over pretrained, and another results file of the same timestamp when the exact name is missing', async () => {
    const f = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_videomme_results.json': results({ model_name: 'My-Model' }) });
    expect(await readResults(f[SAMPLES]!)).toMatchObject({ path: f['20251106_202956_videomme_results.json'], model: 'My-Model', frames: 32 });
    // The exact name wins over another of the same timestamp.
    const both = scratch.freshFolder({
      [SAMPLES]: '',
      '20251106_202956_a_results.json': results({ model_name: 'A' }),
      '20251106_202956_results.json': results({ model_name: 'Exact' }),
    });
    expect(await readResults(both[SAMPLES]!)).toMatchObject({ model: 'Exact' });
    const bare = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_results.json': JSON.stringify({}) });
    expect(await readResults(bare[SAMPLES]!)).toEqual({ path: bare['20251106_202956_results.json'], model: null, modelArgs: null, frames: null, pixels: null });
    const windows = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_results.json': results({ config: { model_args: 'pretrained=C:\\models\\LLaVA-7B\\,nframes=abc' } }) });
    expect(await readResults(windows[SAMPLES]!)).toMatchObject({ model: 'LLaVA-7B', frames: null });
  });

  it('finds none for a samples file without a timestamp or without a results file', async () => {
    const f = scratch.freshFolder({ 'samples_videomme.jsonl': '', '20251106_202956_results.json': results(), [`x${SAMPLES}`]: '' });
    expect(await readResults(f['samples_videomme.jsonl']!)).toBeNull();
    expect(await readResults(f[`x${SAMPLES}`]!)).toBeNull();
    const g = scratch.freshFolder({ [SAMPLES]: '', '20251106_202957_results.json': results(), '20251106_202956_results.txt': '' });
    expect(await readResults(g[SAMPLES]!)).toBeNull();
  });

  it('refuses a results file that is not JSON or not its shape, naming it', async () => {
    const f = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_results.json': '{"config": ' });
    await expectImportError(readResults(f[SAMPLES]!), { file: '20251106_202956_results.json', line: 0, field: '', reason: /^malformed JSON: / });
    // Invalid UTF-8 is refused as such, at its line and key.
    const bytes = Buffer.concat([Buffer.from('{"config": {\n"model": "caf'), Buffer.from([0xe9]), Buffer.from('"}}')]);
    const u = scratch.freshFile('20251106_202956_results.json', bytes);
    await expectImportError(readResults(u.replace('20251106_202956_results.json', SAMPLES)), {
      file: '20251106_202956_results.json',
      line: 2,
      field: 'model',
      reason: /^invalid UTF-8/,
    });
    const g = scratch.freshFolder({ [SAMPLES]: '', '20251106_202956_results.json': JSON.stringify({ config: { model_args: 7 } }) });
    await expectImportError(readResults(g[SAMPLES]!), { file: '20251106_202956_results.json', line: 0, field: 'config.model_args' });
  });
});

describe('taskVariant', () => {
  it("reads Video-MME's subtitle and long-video tasks as the same split, subtitles as a variant", () => {
    expect([
      taskVariant('videomme'),
      taskVariant('videomme_w_subtitle'),
      taskVariant('videomme_long'),
      taskVariant('videomme_long_w_subtitle'),
      taskVariant('videomme_v2_w_subtitle'),
      taskVariant('mlvu_dev'),
      taskVariant('videomme_short'),
      taskVariant(null),
    ]).toEqual([
      { split: 'videomme', subs: false },
      { split: 'videomme', subs: true },
      { split: 'videomme', subs: false },
      { split: 'videomme', subs: true },
      { split: 'videomme_v2', subs: true },
      { split: 'mlvu_dev', subs: false },
      { split: 'videomme_short', subs: false },
      { split: null, subs: false },
    ]);
  });
});

describe('jsonlRecords', () => {
  it('gives each non-blank line parsed (bare NaN as null) with its line number', async () => {
    const f = scratch.freshFolder({ 's.jsonl': '{"doc_id": 0, "x": NaN}\n\n   \n{"doc_id": 1}\n' });
    expect(await all(jsonlRecords(f['s.jsonl']!))).toEqual([
      { line: 1, json: { doc_id: 0, x: null } },
      { line: 4, json: { doc_id: 1 } },
    ]);
  });

  it('refuses a malformed line and a truncated last line at their lines', async () => {
    const f = scratch.freshFolder({ 's.jsonl': '{"doc_id": 0}\n{"doc_id": \n', 't.jsonl': '{"doc_id": 0}\n{"doc_id": 1' });
    await expectImportError(all(jsonlRecords(f['s.jsonl']!)), { file: 's.jsonl', line: 2, field: '', reason: /^malformed JSON: / });
    await expectImportError(all(jsonlRecords(f['t.jsonl']!)), { file: 't.jsonl', line: 2, field: '', reason: /^truncated JSONL line \(the file ends mid-record\)$/ });
  });
});

describe('legacySource', () => {
  const legacy = (over: object = {}) =>
    JSON.stringify(
      {
        args: { model: 'llava', model_args: 'pretrained=lmms-lab/LLaVA-Video-7B-Qwen2,max_frames_num=64', tasks: 'videomme' },
        model_configs: { task: 'videomme' },
        logs: [{ doc_id: 0 }, { doc_id: 1 }],
        ...over,
      },
      null,
      2,
    );

  it("reads task, model and budget from the file's own args, and each log with its line", async () => {
    const f = scratch.freshFolder({ 'videomme.json': legacy() });
    const src = await legacySource(f['videomme.json']!);
    expect([src.task, src.results]).toEqual([
      'videomme',
      { path: f['videomme.json'], model: 'LLaVA-Video-7B-Qwen2', modelArgs: 'pretrained=lmms-lab/LLaVA-Video-7B-Qwen2,max_frames_num=64', frames: 64, pixels: null },
    ]);
    expect(await all(src.records)).toEqual([
      { line: lineOf(f['videomme.json']!, '"doc_id": 0') - 1, json: { doc_id: 0 } },
      { line: lineOf(f['videomme.json']!, '"doc_id": 1') - 1, json: { doc_id: 1 } },
    ]);
  });

  it('falls back to the file name for the task, to args.model for the model, and to the position for a log that is no object', async () => {
    const f = scratch.freshFolder({ 'mlvu_dev.json': legacy({ args: { model: 'llava', model_args: 'max_frames_num=8' }, model_configs: {}, logs: [7, { doc_id: 1 }] }) });
    const src = await legacySource(f['mlvu_dev.json']!);
    expect([src.task, src.results?.model, src.results?.frames]).toEqual(['mlvu_dev', 'llava', 8]);
    expect((await all(src.records)).map((r) => r.line)).toEqual([1, lineOf(f['mlvu_dev.json']!, '"doc_id": 1') - 1]);
    const g = scratch.freshFolder({ 'x.json': legacy({ args: { model_args: null } }) });
    expect((await legacySource(g['x.json']!)).results).toMatchObject({ model: null, modelArgs: null, frames: null });
    const w = scratch.freshFolder({ 'y.json': legacy({ args: { model_args: 'pretrained=D:\\ckpt\\InternVL2-8B\\' } }) });
    expect((await legacySource(w['y.json']!)).results?.model).toBe('InternVL2-8B');
  });

  it('refuses a document without its parts, naming the field', async () => {
    const f = scratch.freshFolder({ 'videomme.json': JSON.stringify({ args: {}, model_configs: {} }) });
    await expectImportError(legacySource(f['videomme.json']!), { file: 'videomme.json', line: 1, field: 'logs' });
  });
});
