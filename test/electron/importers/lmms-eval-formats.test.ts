import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { splitMcqPrompt } from '../../../electron/importers/mcq-text';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import { Scratch, repoRoot } from './helpers';

/** lmms-eval log layouts of test/fixtures/formats/ (shapes and sources in its README.md). */
const formats = join(repoRoot, 'test/fixtures/formats');
const scratch = new Scratch();
afterAll(() => scratch.cleanup());

describe('lmms-eval layouts', () => {
  it('v0.7+: filtered_resps as a plain string; the Qwen3-VL prompt layout gives the real question', async () => {
    const p = scratch.lmmsEvalLog('videomme');
    expect(await detectFormat(p)).toBe('lmms-eval');
    const [b] = await readImport(p);
    expect(b!.configs.map((c) => c.key)).toEqual(['32f_151k']);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual([
      ['Qwen3-VL-8B-Instruct', 'videomme', '001-1', 'C', true],
      ['Qwen3-VL-8B-Instruct', 'videomme', '001-2', 'B', false],
      ['Qwen3-VL-8B-Instruct', 'videomme', '302-1', 'B', true],
    ]);
    expect(b!.items.find((i) => i.sampleId === '001-1')).toMatchObject({
      question: 'How many paper lanterns hang above the doorway?',
      options: ['Two.', 'Three.', 'Four.', 'Five.'],
      answer: 'C',
      durationBucket: 'short',
      // No `doc` in the log: the video comes from the metric object's `videoID`.
      videoId: 'vid001',
      videoFile: 'vid001.mp4',
    });
  });

  it("a log without doc whose metric object names the video by another field: the file name, never the evaluating machine's path", async () => {
    const p = scratch.lmmsEvalLog('videomme', 'video-path');
    const { readFileSync, writeFileSync } = await import('node:fs');
    writeFileSync(
      p,
      readFileSync(p, 'utf8')
        .replaceAll('"videoID": "vid001"', '"video_path": "/mnt/eval/Video-MME/data/vid001.mp4"')
        .replaceAll('"videoID": "vid302"', '"video_name": "clips/vid302.mkv"'),
    );
    const [b] = await readImport(p);
    expect(b!.items.find((i) => i.sampleId === '001-1')).toMatchObject({ videoId: 'vid001', videoFile: 'vid001.mp4' });
    expect(b!.items.find((i) => i.sampleId === '302-1')).toMatchObject({ videoId: 'vid302', videoFile: 'clips/vid302.mkv' });
  });

  it('videomme_w_subtitle / videomme_long: the same items as videomme; subtitles are a config variant', async () => {
    for (const [task, config] of [
      ['videomme_w_subtitle', '32f_151k@subs'],
      ['videomme_long', '32f_151k'],
    ] as const) {
      const [b] = await readImport(scratch.lmmsEvalLog(task));
      expect(b!.configs.map((c) => c.key)).toEqual([config]);
      expect(new Set(b!.responses.map((r) => `${r.split} ${r.config}`))).toEqual(new Set([`videomme ${config}`]));
    }
  });

  it('before v0.3: <task>.json {args, model_configs, logs, time} in a …_model_args_<hash>/ folder', async () => {
    const p = join(formats, 'lmms-eval-v0.2-videomme/0613_1530__llava_vid_model_args_3f9a1c/videomme.json');
    expect(await detectFormat(p)).toBe('lmms-eval');
    const [b] = await readImport(p, { split: 'V1_{duration}' });
    expect(b!.run.format).toBe('lmms-eval');
    expect(b!.run.modelArgs).toBe('pretrained=lmms-lab/LLaVA-NeXT-Video-7B-Qwen2,max_frames_num=32');
    expect(b!.configs.map((c) => c.key)).toEqual(['32f']);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual([
      ['LLaVA-NeXT-Video-7B-Qwen2', 'V1_short', '001-1', 'C', true],
      ['LLaVA-NeXT-Video-7B-Qwen2', 'V1_short', '001-2', 'B', false],
      ['LLaVA-NeXT-Video-7B-Qwen2', 'V1_medium', '302-1', 'B', true],
    ]);
    expect(b!.items.find((i) => i.sampleId === '302-1')).toMatchObject({
      question: 'What does the player in red do after the whistle?',
      options: ['Sits down.', 'Shoots a free throw.', 'Leaves the court.', 'Argues with the referee.'],
      videoFile: 'vid302.mp4',
      taskType: 'Action Recognition',
    });
  });

  it('mlvu_dev (v0.3.2, doc logged): question text as question_id → one item per (video, question), MLVU ids', async () => {
    const p = join(formats, 'lmms-eval-v0.3.2-mlvu_dev/20241201_093000_samples_mlvu_dev.jsonl');
    const [b] = await readImport(p, { split: 'MLVU' });
    const q = 'How many times does the kettle whistle?';
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.correct])).toEqual([
      [mlvuSampleId('count_01.mp4', q), 'B', true],
      [mlvuSampleId('count_07.mp4', q), 'A', true],
      [mlvuSampleId('order_03.mp4', 'In what order does the chef add the ingredients?'), 'D', true],
    ]);
    expect(b!.items.find((i) => i.sampleId === mlvuSampleId('count_07.mp4', q))).toMatchObject({
      question: q,
      options: ['2', '3', '5', '6'],
      answer: 'A',
      taskType: 'count',
      videoFile: 'count_07.mp4',
    });
  });

  it('mlvu_dev (v0.4+, no doc): the repeated question stays two items, keyed by doc_id with a warning', async () => {
    const p = join(formats, 'lmms-eval-v0.4-mlvu_dev/20250410_141000_samples_mlvu_dev.jsonl');
    const [b] = await readImport(p);
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.groundTruth])).toEqual([
      ['0', 'B', 'B'],
      ['1', 'A', 'A'],
      ['2', 'D', 'D'],
    ]);
    expect(b!.items.find((i) => i.sampleId === '1')).toMatchObject({ question: 'How many times does the kettle whistle?', options: ['2', '3', '5', '6'] });
    expect(b!.warnings.join('\n')).toMatch(/3 line\(s\) use the question text as question_id and the log has no doc/);
  });
});

describe('prompt layouts of lmms-eval Video-MME / MLVU tasks → the real question', () => {
  const opts = 'A. red\nB. blue\nC. green\nD. white';
  const cases: [string, string][] = [
    [
      'default',
      `Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option.\nWhat colour is the car?\n${opts}\nThe best answer is:`,
    ],
    [
      'default + post prompt',
      `Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option.\nWhat colour is the car?\n${opts}\n\nAnswer with the option's letter from the given choices directly.`,
    ],
    ['qwen3_vl', `Question: What colour is the car?\nOptions:\n${opts}\nAnswer with the option letter only.`],
    ['subtitles + qwen3_vl', `This video's subtitles are listed below: \nhello there\nQuestion: What colour is the car?\nOptions:\n${opts}\nAnswer with the option letter only.`],
    [
      'videomme_v2',
      `Question: What colour is the car?\n${opts}\nSelect the best answer to the following multiple-choice question based on the video. Respond with only the letter (A, B, C, D, E, F, G, or H) of the correct option.`,
    ],
    ['mlvu', 'What colour is the car?\n(A) red\n(B) blue\n(C) green\n(D) white\nOnly give the best option.\nBest option: ('],
    ['pre-0.3 list literal', "What colour is the car?\n['A. red', 'B. blue', 'C. green', 'D. white']\nAnswer the question with A, B, C, or D."],
    [
      'xcomposer2_4khd',
      `Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option.\nWhat colour is the car?\n${opts}\n Answer this question with A, B, C, or D.[UNUSED_TOKEN_145]\n[UNUSED_TOKEN_146]assistant\n`,
    ],
  ];
  for (const [name, prompt] of cases) {
    it(name, () => {
      expect(splitMcqPrompt(prompt)).toEqual({ question: 'What colour is the car?', options: ['red', 'blue', 'green', 'white'] });
    });
  }
});
