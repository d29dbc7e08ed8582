// The release's pipeline rows (electron/importers/scalegrid-pipeline.ts), rule by rule: where a
// row's config comes from (its own key, --config, the file name, a summary beside it), the
// protocol its sampling fields name, what it states against its letters, and which field an
// error names. The files in the pipeline's exact shapes are scalegrid-pipeline.test.ts's.
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportOptions } from '../../../electron/importers/batch-builder';
import { readScalegridPipeline } from '../../../electron/importers/scalegrid-pipeline';
import type { ImportBatch } from '../../../shared/domain/types';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());
let n = 0;

/** A row that the answer C, predicted C, decides. */
const row = (id: string, extra: object = {}): object => ({ sample_id: id, video_id: 'v1', correct_letter: 'C', final_pred: 'C', ...extra });

/** `rows` as the pipeline file `name` (in a folder of its own, beside `summary` if given). */
function write(rows: object[], name = 'Toy_16f.jsonl', summary?: object): string {
  const dir = `p-${n++}`;
  if (summary) scratch.write(`${dir}/${name.replace(/\.jsonl$/, '')}.summary.json`, JSON.stringify(summary));
  return scratch.write(`${dir}/${name}`, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}
const read = (rows: object[], opts: Partial<ImportOptions> = {}, name?: string, summary?: object): Promise<ImportBatch> =>
  readScalegridPipeline(write(rows, name, summary), { split: 'V1', ...opts });
const keys = (b: ImportBatch): string[] => b.configs.map((c) => c.key);

describe('the pipeline rows', () => {
  it('names the model by the first part of the file name, with a warning; a name with no part before .jsonl names none', async () => {
    const b = await read([row('1')]);
    expect(b.responses[0]!.model).toBe('Toy');
    expect(b.warnings.join('\n')).toMatch(/Toy/);
    await expectImportError(read([row('1')], {}, 'run.jsonl'), { file: 'run.jsonl', line: 0, field: 'model' });
  });

  it("takes the budget from the file name, else from a summary's num_frames or max_frames beside it, else asks for --config", async () => {
    expect(keys(await read([row('1')], {}, 'Toy_8f_151k.jsonl'))).toEqual(['8f_151k']);
    expect(keys(await read([row('1')], {}, 'Toy_run.jsonl', { num_frames: 32 }))).toEqual(['32f_151k']);
    expect(keys(await read([row('1')], {}, 'Toy_run.jsonl', { max_frames: 4 }))).toEqual(['4f_151k']);
    expect(keys(await read([row('1')], {}, 'Toy_run.jsonl', { num_frames: 0 }))).toEqual(['textonly']);
    await expectImportError(read([row('1')], {}, 'Toy_run.jsonl'), { file: 'Toy_run.jsonl', line: 1, field: 'config' });
  });

  it('a budget without a pixel label is the default 151k, with a warning, unless the row names another input size', async () => {
    const b = await read([row('1')], {}, 'Toy_16f.jsonl');
    expect(keys(b)).toEqual(['16f_151k']);
    expect(b.warnings.join('\n')).toMatch(/config 16f_151k is the model's default pixel budget/);
    const input = await read([row('1', { input_size: 336 })], {}, 'Toy_16f.jsonl');
    expect(keys(input)).toEqual(['16f_input336']);
    expect(input.warnings.join('\n')).not.toMatch(/default pixel budget/);
    expect(input.configs[0]!.modelArgs).toBe('input_size=336');
    expect(keys(await read([row('1', { input_size: 448 })], {}, 'Toy_16f.jsonl'))).toEqual(['16f_151k']);
  });

  it('--config names the config, with the protocol tag unless it has one; a --config that is no key names itself', async () => {
    // The rows' sampler is the config's, whatever names its budget.
    const dense = await read([row('1', { frame_sampling: 'dense_start' })], { config: '8f_151k' }, 'Toy_run.jsonl');
    expect(dense.configs.map((c) => [c.key, c.sampling.policy])).toEqual([['8f_151k@dense_start', 'scalegrid-dense-start']]);
    expect(keys(await read([row('1', { frame_sampling: 'dense_start' })], { config: 'textonly' }, 'Toy_run.jsonl'))).toEqual(['textonly']);
    expect(keys(await read([row('1', { frame_sampling: 'dense_start' })], { config: '8f_151k@mine' }, 'Toy_run.jsonl'))).toEqual(['8f_151k@mine']);
    expect(keys(await read([row('1')], { config: '8f_151k' }, 'Toy_run.jsonl'))).toEqual(['8f_151k']);
    // --config wins over the file name's budget.
    expect(keys(await read([row('1')], { config: '4f_151k' }, 'Toy_16f.jsonl'))).toEqual(['4f_151k']);
    const e = await expectImportError(read([row('1')], { config: 'lots' }, 'Toy_run.jsonl'), { file: 'Toy_run.jsonl', line: 1, field: 'config' });
    expect(e.reason).toMatch(/^--config lots: /);
  });

  it("a timed row's own config_key names its config (16f is 16f_151k), with the protocol tag; a key that is none is named", async () => {
    const b = await read([
      row('1', { config_key: '16f', frame_sampling: 'random', wall_clock_s: 1.5, base_margin: 0.25 }),
      row('2', { config_key: 'textonly', subtitle_mode: 'concat' }),
    ]);
    expect(keys(b)).toEqual(['16f_151k@random', 'textonly@subs']);
    expect(b.responses.map((r) => [r.config, r.latencyMs, r.margin])).toEqual([
      ['16f_151k@random', 1500, 0.25],
      ['textonly@subs', null, null],
    ]);
    expect(keys(await read([row('1', { config_key: '8f_151k@mine', frame_sampling: 'random' })]))).toEqual(['8f_151k@mine']);
    await expectImportError(read([row('1', { config_key: 'lots' })]), { file: 'Toy_16f.jsonl', line: 1, field: 'config_key' });
  });

  it('names the protocol by the sampling fields; text only sees no frame, so its sampling changes nothing', async () => {
    const cases: [object, string, string | null, string | null, number | null][] = [
      [{ frame_sampling: 'uniform' }, '16f_151k', 'frame_sampling=uniform', 'scalegrid-uniform', null],
      [{ frame_sampling: 'dense_start' }, '16f_151k@dense_start', 'frame_sampling=dense_start', 'scalegrid-dense-start', null],
      [{ frame_sampling: 'random' }, '16f_151k@random', 'frame_sampling=random,frame_sampling_seed=42', 'scalegrid-random', 42],
      [{ frame_sampling: 'random', frame_sampling_seed: 7 }, '16f_151k@random_seed7', 'frame_sampling=random,frame_sampling_seed=7', 'scalegrid-random', 7],
      [{ subtitle_mode: 'only' }, '16f_151k@subs', 'subtitle_mode=only', 'scalegrid-uniform', null],
      [{ subtitle_mode: 'interleave' }, '16f_151k@subs_interleave', 'subtitle_mode=interleave', 'scalegrid-uniform', null],
      [{ subtitle_mode: 'none', prompt_style: 'cached', inference_mode: 'prob' }, '16f_151k', null, 'scalegrid-uniform', null],
      [{ prompt_style: 'videomme_v2', inference_mode: 'generate' }, '16f_151k@v2prompt_generate', 'prompt_style=videomme_v2,inference_mode=generate', 'scalegrid-uniform', null],
    ];
    for (const [fields, key, args, policy, seed] of cases) {
      const b = await read([row('1', fields)]);
      expect([b.configs[0]!.key, b.configs[0]!.modelArgs, b.configs[0]!.sampling], JSON.stringify(fields)).toEqual([key, args, { policy, seed, fps: 1 }]);
    }
    const text = await read([row('1', { frame_sampling: 'random', cached_raw_fps: 30 })], {}, 'Toy_textonly.jsonl');
    expect([text.configs[0]!.key, text.configs[0]!.modelArgs, text.configs[0]!.sampling]).toEqual(['textonly', null, { policy: null, seed: null, fps: null }]);
    const fps = await read([row('1', { cached_raw_fps: 30 })]);
    expect(fps.configs[0]!.sampling.fps).toBe(30);
  });

  it('refuses rows of one config whose protocol differs, naming both; rows of another config are another config', async () => {
    const e = await expectImportError(read([row('1', { cached_raw_fps: 30 }), row('2', { cached_raw_fps: 25 })]), { file: 'Toy_16f.jsonl', line: 2, field: 'frame_sampling' });
    expect(e.reason).toBe("config 16f_151k: this row's protocol (defaults, fps 25) differs from line 1's (defaults, fps 30)");
    await expectImportError(read([row('1', { input_size: 448 }), row('2', {})]), { file: 'Toy_16f.jsonl', line: 2, field: 'frame_sampling' });
    const two = await read([row('1'), row('1', { frame_sampling: 'dense_start' }), row('2')]);
    expect(keys(two)).toEqual(['16f_151k', '16f_151k@dense_start']);
    expect(two.responses.map((r) => r.config)).toEqual(['16f_151k', '16f_151k@dense_start', '16f_151k']);
  });

  it('the final letter and outcome first, else the base ones; an outcome that contradicts the letters is refused, naming its field', async () => {
    const b = await read([
      row('1', { final_pred: 'B', base_pred: 'C' }),
      row('2', { final_pred: undefined, base_pred: 'C' }),
      row('3', { final_pred: null, base_pred: 'C' }),
      row('4', { correct_letter: null, final_pred: 'A', final_correct: 1, base_correct: 0 }),
      row('5', { correct_letter: null, final_pred: 'A', base_correct: true }),
    ]);
    expect(b.responses.map((r) => [r.pred, r.groundTruth, r.correct])).toEqual([
      ['B', 'C', false],
      ['C', 'C', true],
      [null, 'C', false],
      ['A', null, true],
      ['A', null, true],
    ]);
    const final = await expectImportError(read([row('1', { final_correct: 0 })]), { file: 'Toy_16f.jsonl', line: 1, field: 'final_correct' });
    expect(final.reason).toBe('0 contradicts the letters: predicted C, the answer is C');
    const base = await expectImportError(read([row('1', { final_pred: null, base_correct: 1 })]), { file: 'Toy_16f.jsonl', line: 1, field: 'base_correct' });
    expect(base.reason).toBe('1 contradicts the letters: predicted nothing, the answer is C');
    await expectImportError(read([row('1', { correct_letter: null })]), { file: 'Toy_16f.jsonl', line: 1, field: 'correct_letter' });
  });

  it("keeps the predicted letter's probability and the margin; a key that is no letter, or no probability for the letter, is refused", async () => {
    const b = await read([
      row('1', { base_option_probs: { A: 0.1, C: 0.7 }, base_margin: 0.6 }),
      row('2', { final_pred: null, base_option_probs: { A: 0.5 } }),
      row('3', { base_option_probs: {}, base_margin: 0.3 }),
    ]);
    expect(b.responses.map((r) => [r.confidence, r.margin])).toEqual([
      [0.7, 0.6],
      [null, null],
      [null, null],
    ]);
    await expectImportError(read([row('1', { base_option_probs: { C: 0.5, x: 0.5 } })]), { file: 'Toy_16f.jsonl', line: 1, field: 'base_option_probs.x' });
    await expectImportError(read([row('1', { base_option_probs: { A: 0.5 } })]), { file: 'Toy_16f.jsonl', line: 1, field: 'base_option_probs' });
  });

  it('keeps the frames a row saw, and refuses more frames than its config has', async () => {
    const b = await read([row('1', { selected_frame_indices: [0, 5, 9], cached_frame_count: 4 })], {}, 'Toy_4f.jsonl');
    expect(b.responses[0]!.frameIndices).toEqual([0, 5, 9]);
    await expectImportError(read([row('1', { selected_frame_indices: [0, 1, 2, 3, 4] })], {}, 'Toy_4f.jsonl'), { file: 'Toy_4f.jsonl', line: 1, field: 'selected_frame_indices' });
    await expectImportError(read([row('1', { cached_frame_count: 5 })], {}, 'Toy_4f.jsonl'), { file: 'Toy_4f.jsonl', line: 1, field: 'cached_frame_count' });
    // Text only keeps no frames.
    const text = await read([row('1', { selected_frame_indices: [3, 4] })], {}, 'Toy_textonly.jsonl');
    expect(text.responses[0]!.frameIndices).toBeNull();
    expect(text.warnings.join('\n')).not.toMatch(/default pixel budget/);
  });

  it('an error row is a missing cell, counted by kind; blank lines are skipped; a file of none is refused', async () => {
    const b = await read([row('1'), row('2', { error: 'OutOfMemoryError: CUDA out of memory' }), row('3', { error: 'OutOfMemoryError: again' }), row('4', { error: 'decode' })]);
    expect(b.responses.map((r) => r.sampleId)).toEqual(['1']);
    expect(b.items).toHaveLength(4);
    expect(b.warnings.join('\n')).toMatch(/Toy_16f\.jsonl: 3 error row\(s\) \(2 OutOfMemoryError, 1 decode\) kept as missing cells, not wrong answers/);
    const blanks = await readScalegridPipeline(scratch.write(`p-${n++}/Toy_16f.jsonl`, `\n${JSON.stringify(row('1'))}\n   \n`), { split: 'V1' });
    expect(blanks.responses.map((r) => r.line)).toEqual([2]);
    await expectImportError(readScalegridPipeline(scratch.write(`p-${n++}/Toy_16f.jsonl`, '\n  \n'), { split: 'V1' }), { file: 'Toy_16f.jsonl', line: 0, field: '' });
  });

  it("the item's duration bucket, task and video; an empty text is none", async () => {
    const b = await read([row('1', { duration_category: 'short', task_type: 'Counting' }), row('2', { duration_category: '', task_type: '', video_id: '' })]);
    expect(b.items.map((i) => [i.durationBucket, i.taskType, i.videoId, i.videoFile])).toEqual([
      ['short', 'Counting', 'v1', 'v1.mp4'],
      [null, null, null, null],
    ]);
  });

  it("names the release's own fields when a sample comes twice with another letter or answer", async () => {
    await expectImportError(read([row('1'), row('1', { final_pred: 'B' })]), { file: 'Toy_16f.jsonl', line: 2, field: 'final_pred' });
    await expectImportError(read([row('1', { final_pred: 'B' }), row('1', { final_pred: 'B', correct_letter: 'D' })]), { file: 'Toy_16f.jsonl', line: 2, field: 'correct_letter' });
  });
});
