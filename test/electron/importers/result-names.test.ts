/**
 * Model, dataset, budget and variant from a result file's name (docs/formats.md "File names"),
 * every field of the answer, for each shape the field's tools write and each fallback.
 * real-formats.test.ts checks the names of the real files; this file checks the rules.
 */
import { describe, expect, it } from 'vitest';
import { parseResultName, type ResultName } from '../../../electron/importers/file-name-budget';

const name = (over: Partial<ResultName>): ResultName => ({ frames: null, fps: null, model: null, dataset: null, variant: null, guess: null, ...over });

describe('parseResultName', () => {
  it("knows each dataset name the field's tools write, in any case, also when the model's name has underscores", () => {
    const datasets = [
      'Video-MME-v2',
      'Video-MME',
      'videomme_v2',
      'videomme',
      'MLVU_MCQ',
      'MLVU_OpenEnded',
      'mlvu_dev',
      'mlvu_test',
      'MLVU',
      'AVSD',
      'MVBench_MP4',
      'MVBench',
      'LongVideoBench',
      'MMBench_Video',
      'TempCompass_MCQ',
      'TempCompass_YorN',
      'TempCompass_Captioning',
      'TempCompass',
      'EgoSchema',
      'VideoMMMU',
      'WorldSense',
      'Video_Holmes',
      'Video_MMLU_CAP',
      'Video_MMLU_QA',
      'Video_TT',
      'CGBench_MCQ_Grounding_Mini',
      'CGBench_MCQ_Grounding',
      'CGBench_OpenEnded_Mini',
      'CGBench_OpenEnded',
      'QBench_Video',
      'MVTamperBench',
      'DREAM-1K',
      'VDC',
      'EgoExoBench',
      'MEGABench_core',
      'MEGABench_open',
      'MVU-Eval',
      'V2PBench',
      'VCRBench',
    ];
    for (const ds of datasets) {
      expect(parseResultName(`llava_video_7b_${ds}_8frame`), ds).toEqual(name({ frames: 8, model: 'llava_video_7b', dataset: ds }));
      expect(parseResultName(`m_${ds.toUpperCase()}_16f_subs`), ds).toEqual(name({ frames: 16, model: 'm', dataset: ds.toUpperCase(), variant: 'subs' }));
    }
  });

  it('keeps each config-variant word before an evaluation suffix, and drops a judge name there', () => {
    for (const word of ['subs', 'interleave', 'reasoning', 'resize', 'nopack', 'pack', 'SUBS']) {
      expect(parseResultName(`M_MLVU_8frame_${word}_score`).variant, word).toBe(word);
    }
    expect(parseResultName('M_MLVU_8frame_gpt4_score').variant).toBeNull();
  });

  it.each([
    // <model>_<dataset>_<budget>: the longest known dataset wins, any case.
    ['llava_video_7b_MLVU_MCQ_16frame', name({ frames: 16, model: 'llava_video_7b', dataset: 'MLVU_MCQ' })],
    ['M_video-mme_8FRAMES', name({ frames: 8, model: 'M', dataset: 'video-mme' })],
    ['M_CGBench_MCQ_Grounding_Mini_32f', name({ frames: 32, model: 'M', dataset: 'CGBench_MCQ_Grounding_Mini' })],
    ['M_TempCompass_2.5fps', name({ fps: 2.5, model: 'M', dataset: 'TempCompass' })],
    ['M_AVSD_4frame', name({ frames: 4, model: 'M', dataset: 'AVSD' })],
    // No budget: the dataset is still found.
    ['Qwen2-VL_MVBench', name({ model: 'Qwen2-VL', dataset: 'MVBench' })],
    // Dataset first (the Video-MME-v2 script's order), only with a model after it.
    ['videomme_v2_M_x_16frame', name({ frames: 16, model: 'M_x', dataset: 'videomme_v2' })],
    // Variant words after the budget; evaluation suffixes and the judge before them dropped.
    ['M_MLVU_8frame_score', name({ frames: 8, model: 'M', dataset: 'MLVU' })],
    ['M_MLVU_8frame_SCORED', name({ frames: 8, model: 'M', dataset: 'MLVU' })],
    ['M_MLVU_8frame_subs_score', name({ frames: 8, model: 'M', dataset: 'MLVU', variant: 'subs' })],
    ['M_MLVU_8frame_resize_gpt4o_score', name({ frames: 8, model: 'M', dataset: 'MLVU', variant: 'resize' })],
    ['M_MLVU_8frame_nopack_PACK', name({ frames: 8, model: 'M', dataset: 'MLVU', variant: 'nopack_PACK' })],
    // Unknown dataset: two parts are model and dataset; more, the first is a guess.
    ['Foo_Bench_8frame', name({ frames: 8, model: 'Foo', dataset: 'Bench' })],
    ['Foo_Bar_Bench_8frame', name({ frames: 8, model: 'Foo', dataset: 'Bar_Bench', guess: 'Foo' })],
    // One part: no model to tell.
    ['Bench_8frame', name({ frames: 8, dataset: 'Bench' })],
    ['8frame', name({ dataset: '8frame' })],
    ['Video-MME_8frame', name({ frames: 8, dataset: 'Video-MME' })],
    ['results', name({ dataset: 'results' })],
    // The budget is the last budget-like part.
    ['M_16f_MLVU_8frame', name({ frames: 8, model: 'M_16f', dataset: 'MLVU' })],
    ['M_MLVU_8framex', name({ model: 'M', dataset: 'MLVU_8framex', guess: 'M' })],
    ['M_MLVU_fps', name({ model: 'M', dataset: 'MLVU_fps', guess: 'M' })],
  ])('%s', (stem, want) => {
    expect(parseResultName(stem)).toEqual(want);
  });
});
