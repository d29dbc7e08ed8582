/**
 * The release's own pipeline files (docs/formats.md "The release's pipeline files"), in the
 * exact shapes its code writes (video-mme-scalegrid commit f3e595dbd0258ecc32fedd7c72009b58c5c1d68f:
 * `code/run_inference.py`, `run_inference_internvl.py`, `run_inference_llava.py` write one row per
 * sample with `json.dumps(row, ensure_ascii=False)`, keys in the order below; `code/cascade.py`
 * reads `config_key`, `sample_id`, `base_margin`, `wall_clock_s`, `gpu_mem_gb`). The rows are
 * written here as those scripts print them (Python's `", "` / `": "` separators).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { budgetFromFileName } from '../../../electron/importers/scalegrid-pipeline';
import { openProject } from '../../../electron/store/project';
import { Scratch, expectImportError } from './helpers';
import { flipbook } from '../cli/cli-helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

type Py = string | number | boolean | null | Py[] | { [k: string]: Py };
/** Python's json.dumps(x, ensure_ascii=False) separators `", "` and `": "` (a whole float prints as 1, not 1.0: the same JSON value). */
function pyDumps(v: Py): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(pyDumps).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}: ${pyDumps(x)}`)
    .join(', ')}}`;
}

const OK_QWEN = (id: string, video: string, gt: string, pred: string, probs: Record<string, number>, indices: number[], sampling: 'uniform' | 'random' = 'uniform', seed = 42) => {
  const ranked = Object.values(probs).sort((a, b) => b - a);
  return {
    sample_id: id,
    video_id: video,
    correct_letter: gt,
    task_type: 'Counting Problem',
    duration_category: 'short',
    base_pred: pred,
    base_correct: pred === gt ? 1 : 0,
    base_option_probs: probs,
    base_margin: ranked[0]! - ranked[1]!,
    final_pred: pred,
    final_correct: pred === gt ? 1 : 0,
    cached_frame_count: indices.length,
    cached_sample_fps: indices.length / 120.5,
    cached_raw_fps: 1.0,
    prompt_style: 'cached',
    inference_mode: 'prob',
    subtitle_mode: 'none',
    subtitle_char_count: 0,
    frame_sampling: sampling,
    frame_sampling_seed: seed,
    selected_frame_indices: indices,
  };
};
// run_inference.py's two error rows: a cache that failed to load (no video_id first) and an inference error.
const CACHE_ERROR = (id: string, video: string, gt: string) => ({
  sample_id: id,
  correct_letter: gt,
  task_type: 'Object Reasoning',
  duration_category: 'short',
  video_id: video,
  error: `cache_load_error: Missing metadata for ${video}: /cache/${video}/metadata.json`,
  final_correct: 0,
  base_correct: 0,
});
const INFER_ERROR = (id: string, video: string, gt: string) => ({
  sample_id: id,
  video_id: video,
  correct_letter: gt,
  task_type: 'Object Reasoning',
  duration_category: 'short',
  error: 'CUDA out of memory. Tried to allocate 2.00 GiB',
  final_correct: 0,
  base_correct: 0,
});
const uniform = (total: number, n: number) => [...new Set(Array.from({ length: n }, (_, i) => Math.min(total - 1, Math.round((i * (total - 1)) / (n - 1)))))].sort((a, b) => a - b);

const jsonl = (rows: object[]) => rows.map((r) => pyDumps(r as Py)).join('\n') + '\n';
const PROBS_A = { A: 0.61, B: 0.2, C: 0.15, D: 0.04 };
const PROBS_B = { A: 0.3, B: 0.45, C: 0.2, D: 0.05 };

describe("the release pipeline's run_inference*.py rows", () => {
  it('run_inference.py (Qwen): letters, outcome, confidence and margin from the option probabilities, frames, error rows missing', async () => {
    const file = scratch.write(
      'qwen25_16f_v1_short.jsonl',
      jsonl([
        OK_QWEN('001-1', '001', 'C', 'B', PROBS_B, uniform(121, 16)),
        OK_QWEN('001-2', '001', 'A', 'A', PROBS_A, uniform(121, 16)),
        CACHE_ERROR('002-1', '002', 'D'),
        INFER_ERROR('003-1', '003', 'B'),
      ]),
    );
    expect(await detectFormat(file)).toBe('scalegrid-jsonl');
    const [b] = await readImport(file, { model: 'Qwen2.5-VL-7B', split: 'V1_{duration}' });
    expect(b!.configs.map((c) => [c.key, c.frames, c.pipeline, c.sampling])).toEqual([['16f_151k', 16, 'cache', { policy: 'scalegrid-uniform', seed: null, fps: 1 }]]);
    const r = b!.responses;
    // The two error rows are no cells at all: a failed load is not a wrong answer.
    expect(r.map((x) => [x.split, x.sampleId, x.config, x.pred, x.correct, x.groundTruth])).toEqual([
      ['V1_short', '001-1', '16f_151k', 'B', false, 'C'],
      ['V1_short', '001-2', '16f_151k', 'A', true, 'A'],
    ]);
    expect(r[0]!.confidence).toBe(0.45);
    expect(r[0]!.margin).toBeCloseTo(0.15, 15);
    expect(r[1]!.confidence).toBe(0.61);
    expect(r[0]!.frameIndices).toEqual(uniform(121, 16));
    expect(b!.warnings.join('\n')).toMatch(/2 error row\(s\) \(1 cache_load_error, 1 CUDA out of memory\. Tried to allocate 2\.00 GiB\) kept as missing cells, not wrong answers/);
    expect(b!.warnings.join('\n')).toMatch(/16f_151k is the model's default pixel budget, named 151k/);
    // The items carry what the rows say (the error rows' items too).
    expect(b!.items.find((i) => i.sampleId === '002-1')).toMatchObject({ split: 'V1_short', answer: 'D', videoId: '002', videoFile: '002.mp4', taskType: 'Object Reasoning' });
  });

  it('sampling fields are the protocol: random → @random (seed 42), another seed, dense_start; text only keeps no tag', async () => {
    const rows = (s: 'uniform' | 'random', seed = 42) => jsonl([OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [3, 9, 40, 77], s, seed)]);
    const read = async (name: string, text: string) => (await readImport(scratch.write(name, text), { model: 'Q', split: 'S' }))[0]!;
    const rnd = await read('qwen25_64f_random.jsonl', rows('random'));
    expect(rnd.configs.map((c) => [c.key, c.sampling])).toEqual([['64f_151k@random', { policy: 'scalegrid-random', seed: 42, fps: 1 }]]);
    expect((await read('qwen25_64f_random7.jsonl', rows('random', 7))).configs[0]!.key).toBe('64f_151k@random_seed7');
    const dense = { ...OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [0, 5, 10]), frame_sampling: 'dense_start' };
    expect((await read('qwen25_64f_dense.jsonl', jsonl([dense]))).configs[0]!.key).toBe('64f_151k@dense_start');
    const text = { ...OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, []), cached_frame_count: 0, frame_sampling: 'random' };
    expect((await read('qwen25_textonly_short.jsonl', jsonl([text]))).configs.map((c) => c.key)).toEqual(['textonly']);
    const subs = { ...text, subtitle_mode: 'only', prompt_style: 'videomme_v2' };
    expect((await read('qwen25_textonly_subs.jsonl', jsonl([subs]))).configs.map((c) => c.key)).toEqual(['textonly@subs_v2prompt']);
    // Each protocol field in the tag, in one order; uniform sampling and text without subtitles add none.
    const all = {
      ...OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [0, 5, 10]),
      frame_sampling: 'dense_start',
      subtitle_mode: 'interleave',
      prompt_style: 'videomme_v2',
      inference_mode: 'generate',
    };
    expect((await read('qwen25_64f_all.jsonl', jsonl([all]))).configs.map((c) => [c.key, c.sampling.policy])).toEqual([
      ['64f_151k@dense_start_subs_interleave_v2prompt_generate', 'scalegrid-dense-start'],
    ]);
    const plain = { ...OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [0, 5, 10]), subtitle_mode: 'none', prompt_style: 'cached', inference_mode: 'prob' };
    expect((await read('qwen25_64f_plain.jsonl', jsonl([plain]))).configs.map((c) => [c.key, c.sampling.policy, c.sampling.seed])).toEqual([
      ['64f_151k', 'scalegrid-uniform', null],
    ]);
    const concat = { ...OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [0, 5, 10]), subtitle_mode: 'concat' };
    expect((await read('qwen25_64f_concat.jsonl', jsonl([concat]))).configs[0]!.key).toBe('64f_151k@subs');
  });

  it('run_inference_internvl.py: generated text, a pred that may be None, input_size in the key unless the default 448', async () => {
    const row = (id: string, pred: string | null, gt: string, frames: number, size: number) => ({
      sample_id: id,
      video_id: '001',
      correct_letter: gt,
      task_type: 'Temporal Perception',
      duration_category: 'medium',
      base_pred: pred,
      base_text: pred ? `The answer is ${pred}.` : 'I cannot tell.',
      base_correct: pred ? (pred === gt ? 1 : 0) : 0,
      final_pred: pred,
      final_correct: pred ? (pred === gt ? 1 : 0) : 0,
      cached_frame_count: frames,
      input_size: size,
    });
    const f = scratch.write('internvl3_128f_v2_medium.jsonl', jsonl([row('010-1', 'B', 'B', 128, 224), row('010-2', null, 'C', 128, 224)]));
    const [b] = await readImport(f, { model: 'InternVL3-8B', split: 'V2_medium' });
    expect(b!.configs.map((c) => [c.key, c.modelArgs])).toEqual([['128f_input224', 'input_size=224']]);
    expect(b!.responses.map((r) => [r.pred, r.correct, r.confidence, r.margin, r.frameIndices])).toEqual([
      ['B', true, null, null, null],
      [null, false, null, null, null],
    ]);
    const g = scratch.write('internvl3_16f_short.jsonl', jsonl([row('010-1', 'B', 'B', 16, 448)]));
    expect((await readImport(g, { model: 'InternVL3-8B', split: 'V1_short' }))[0]!.configs[0]!.key).toBe('16f_151k');
    // The summary beside a file names its frame count when the file name does not.
    const dir = path.join(scratch.dir, 'bysummary');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'run.jsonl'), jsonl([row('010-1', 'B', 'B', 32, 448)]));
    fs.writeFileSync(path.join(dir, 'run.summary.json'), JSON.stringify({ method: 'base', num_frames: 32, input_size: 448, total: 1, errors: 0, base_correct: 1 }, null, 2));
    expect((await readImport(path.join(dir, 'run.jsonl'), { model: 'InternVL3-8B', split: 'S' }))[0]!.configs[0]!.key).toBe('32f_151k');
    await expectImportError(detectFormat(path.join(dir, 'run.summary.json')), {
      file: 'run.summary.json',
      line: 0,
      field: '',
      reason: /a run_inference summary \(no per-item rows\): import the \.jsonl beside it/,
    });
  });

  it('run_inference_llava.py: option probabilities, no frame indices (the cached uniform sampler)', async () => {
    const row = {
      sample_id: '001-3',
      video_id: '001',
      correct_letter: 'D',
      task_type: 'OCR Problems',
      duration_category: 'short',
      base_pred: 'D',
      base_correct: 1,
      base_option_probs: { A: 0.1, B: 0.1, C: 0.1, D: 0.7 },
      base_margin: 0.6,
      final_pred: 'D',
      final_correct: 1,
      cached_frame_count: 32,
    };
    const [b] = await readImport(scratch.write('llava_32f_short.jsonl', jsonl([row])), { model: 'LLaVA-NeXT-Video-7B', split: 'V1_short' });
    expect(b!.configs.map((c) => [c.key, c.sampling.policy])).toEqual([['32f_151k', 'scalegrid-uniform']]);
    expect(b!.responses[0]).toMatchObject({ pred: 'D', correct: true, confidence: 0.7, margin: 0.6, frameIndices: null });
  });

  it("cascade.py's timed rows: config_key (16f → 16f_151k), wall_clock_s → latency", async () => {
    const timed = (cfg: string, id: string, pred: string, wc: number, idx: number[]) => ({
      ...OK_QWEN(id, '001', 'A', pred, pred === 'A' ? PROBS_A : PROBS_B, idx),
      config_key: cfg,
      wall_clock_s: wc,
      gpu_mem_gb: 17.25,
    });
    const f = scratch.write(
      'timed_rows.jsonl',
      jsonl([timed('16f', '001-1', 'B', 1.25, uniform(121, 16)), timed('128f', '001-1', 'A', 4.5, uniform(121, 121)), timed('textonly', '001-1', 'B', 0.31, [])]),
    );
    expect(await detectFormat(f)).toBe('scalegrid-jsonl');
    const [b] = await readImport(f, { model: 'Qwen2.5-VL-7B', split: 'V1_short' });
    expect(b!.responses.map((r) => [r.config, r.latencyMs, r.margin === null])).toEqual([
      ['16f_151k', 1250, false],
      ['128f_151k', 4500, false],
      ['textonly', 310, false],
    ]);
  });
});

describe('budgetFromFileName', () => {
  it("reads the budget from a pipeline file name's parts, and a pixel label after it", () => {
    expect(budgetFromFileName('runs/qwen25_16f_v2_medium.jsonl')).toEqual({ frames: 16, pixelLabel: null });
    expect(budgetFromFileName('qwen25_16f_151k_short.JSONL')).toEqual({ frames: 16, pixelLabel: '151k' });
    expect(budgetFromFileName('internvl_32f_input224.jsonl')).toEqual({ frames: 32, pixelLabel: 'input224' });
    expect(budgetFromFileName('qwen25_8f')).toEqual({ frames: 8, pixelLabel: null });
    expect(budgetFromFileName('qwen25_textonly_short.jsonl')).toEqual({ frames: 0, pixelLabel: null });
    expect(budgetFromFileName('qwen25_0f_short.jsonl')).toEqual({ frames: 0, pixelLabel: null });
    // Text only has no pixel budget, whatever follows.
    expect(budgetFromFileName('qwen25_0f_151k.jsonl')).toEqual({ frames: 0, pixelLabel: null });
    // The first budget part wins; a part that is no pixel label is none.
    expect(budgetFromFileName('m_4f_8f_x.jsonl')).toEqual({ frames: 4, pixelLabel: null });
    expect(budgetFromFileName('m_4f_@@.jsonl')).toEqual({ frames: 4, pixelLabel: null });
    for (const name of ['qwen25_short.jsonl', 'qwen25_16frames.jsonl', 'f_x.jsonl', '16f.jsonl.bak']) expect(budgetFromFileName(name), name).toBeNull();
    expect(budgetFromFileName('16f.jsonl')).toEqual({ frames: 16, pixelLabel: null });
  });
});

describe('damaged pipeline files: file:line: field: reason, and nothing changes', () => {
  const good = OK_QWEN('001-1', '001', 'A', 'A', PROBS_A, [0, 8]);
  const cases: [string, object[], { line: number; field: string; reason: RegExp }][] = [
    [
      'an outcome that contradicts the letters',
      [good, { ...good, sample_id: '001-2', final_correct: 1, base_correct: 1, final_pred: 'B', base_pred: 'B', base_option_probs: PROBS_B }],
      { line: 2, field: 'final_correct', reason: /1 contradicts the letters: predicted B, the answer is A/ },
    ],
    ['a probability above 1', [{ ...good, base_option_probs: { A: 1.5, B: 0.1 } }], { line: 1, field: 'base_option_probs.A', reason: /1/ }],
    ['a letter that is no option', [{ ...good, final_pred: 'Z' }], { line: 1, field: 'final_pred', reason: /option letter/ }],
    [
      'more frames loaded than the budget',
      [good, { ...good, sample_id: '001-2', cached_frame_count: 40 }],
      { line: 2, field: 'cached_frame_count', reason: /40 frames were loaded but config 16f_151k has 16/ },
    ],
    ['two protocols in one file', [good, { ...good, sample_id: '001-2', cached_raw_fps: 2.0 }], { line: 2, field: 'frame_sampling', reason: /differs from line 1/ }],
  ];
  for (const [what, rows, where] of cases) {
    it(what, async () => {
      const f = scratch.write(`bad/${what.replace(/\W+/g, '_')}/qwen25_16f_short.jsonl`, jsonl(rows));
      await expectImportError(readImport(f, { model: 'Q', split: 'S' }), { file: 'qwen25_16f_short.jsonl', ...where });
    });
  }
  it('a truncated last line and a missing --split', async () => {
    const f = scratch.write('bad/cut/qwen25_16f_short.jsonl', jsonl([good]) + pyDumps(good as unknown as Py).slice(0, 40));
    await expectImportError(readImport(f, { model: 'Q', split: 'S' }), { file: 'qwen25_16f_short.jsonl', line: 2, field: '', reason: /truncated JSONL line/ });
    const g = scratch.write('bad/nosplit/qwen25_16f_short.jsonl', jsonl([good]));
    await expectImportError(readImport(g, { model: 'Q' }), { file: 'qwen25_16f_short.jsonl', line: 0, field: 'split', reason: /pass --split/ });
  });
  it('through the CLI the refused file leaves the project byte-identical', () => {
    const project = path.join(scratch.dir, 'p.flipbook');
    const ok = scratch.write('cli/qwen25_16f_short.jsonl', jsonl([good]));
    expect(flipbook('import', ok, '--project', project, '--model', 'Q', '--split', 'S').code).toBe(0);
    const before = fs.readFileSync(project);
    const bad = scratch.write('cli/qwen25_32f_short.jsonl', jsonl([good, { ...good, sample_id: '001-2', final_correct: 0, base_correct: 0 }]));
    const r = flipbook('import', bad, '--project', project, '--model', 'Q', '--split', 'S');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/qwen25_32f_short\.jsonl:2: final_correct: 0 contradicts the letters/);
    expect(fs.readFileSync(project).equals(before)).toBe(true);
    const p = openProject(project, { readOnly: true });
    try {
      expect(p.listGrids().map((g) => g.configs.map((c) => c.key))).toEqual([['16f_151k']]);
    } finally {
      p.close();
    }
  });
});
