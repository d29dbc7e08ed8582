/**
 * Model, dataset, budget and config variant from a result file's name (docs/formats.md
 * "File names"). The shapes written by the field's tools:
 *  - VLMEvalKit `run.py`: `<model>_<dataset>_<N>frame[_subs].xlsx` (or `_<x>fps`), where the
 *    dataset part is the name of its video config (`Video-MME_8frame_subs`, `MLVU_64frame`);
 *  - the official Video-MME-v2 script: `Video-MME-v2_<model>_<N>frame[_subs[_interleave]][_reasoning].tsv`
 *    (dataset first);
 *  - hand-named files: `<model>_<dataset>_16f.json`.
 * Model names contain underscores (`llava_video_qwen2_7b`), so the name is read from the
 * right: the budget part, then a known dataset name just before it (or at the very start for
 * the dataset-first order); the model is what is left. Words after the budget are a config
 * variant (`subs` → `8f@subs`), except VLMEvalKit's evaluation suffixes (`_score`, and the
 * judge model before it), which name the same run.
 */
export interface ResultName {
  frames: number | null;
  fps: number | null;
  /** Null when the name does not tell it apart from the dataset (pass --model). */
  model: string | null;
  /** The dataset part as written (`Video-MME`, `MLVU`), or null when none is known. */
  dataset: string | null;
  /** Config variant from the words after the budget (`subs`, `subs_interleave`), or null. */
  variant: string | null;
  /** Set when the model was taken from an ambiguous name (a warning for the user). */
  guess: string | null;
}

const FRAMES = /^(\d+)(?:frames?|f)$/i;
const FPS = /^(\d+(?:\.\d+)?)fps$/i;

/**
 * Dataset names as they appear in file names: VLMEvalKit's video datasets
 * (vlmeval/dataset/video_dataset_config.py) and the lmms-eval / hand-written spellings of the
 * benchmarks Flipbook reads. Matched case-insensitively, longest first.
 */
const DATASETS = [
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
const DATASET_PARTS = DATASETS.map((d) => d.toLowerCase().split('_')).sort((a, b) => b.length - a.length);

/**
 * Evaluation outputs of the same predictions: VLMEvalKit's `<pred file>[_<judge>]_score.xlsx`
 * and the Video-MME-v2 script's `<pred file>_scored.tsv`.
 */
const EVAL_SUFFIXES = new Set(['score', 'scored']);

/** The config-variant words of VLMEvalKit's video configs and the Video-MME-v2 script. */
const VARIANT_WORDS = new Set(['subs', 'interleave', 'reasoning', 'resize', 'nopack', 'pack']);

function matchAt(parts: string[], at: number, ds: string[]): boolean {
  if (at < 0 || at + ds.length > parts.length) return false;
  return ds.every((p, k) => (parts[at + k] as string).toLowerCase() === p);
}

export function parseResultName(stem: string): ResultName {
  const parts = stem.split('_');
  let budgetAt = -1;
  let frames: number | null = null;
  let fps: number | null = null;
  for (let i = parts.length - 1; i >= 1; i--) {
    const p = parts[i] as string;
    const f = FRAMES.exec(p);
    const s = f ? null : FPS.exec(p);
    if (f || s) {
      budgetAt = i;
      frames = f ? Number(f[1]) : null;
      fps = s ? Number(s[1]) : null;
      break;
    }
  }
  const before = budgetAt >= 0 ? parts.slice(0, budgetAt) : parts;
  let after = budgetAt >= 0 ? parts.slice(budgetAt + 1) : [];
  const scoreAt = after.findIndex((p) => EVAL_SUFFIXES.has(p.toLowerCase()));
  if (scoreAt >= 0) {
    // A judge model's name may stand between the variant and `score`; variant words stay.
    const judge = scoreAt > 0 && !VARIANT_WORDS.has((after[scoreAt - 1] as string).toLowerCase());
    after = after.slice(0, judge ? scoreAt - 1 : scoreAt);
  }
  const variant = after.length > 0 ? after.join('_') : null;

  // <model>_<dataset>: a known dataset at the end of the part before the budget.
  for (const ds of DATASET_PARTS) {
    const at = before.length - ds.length;
    if (at >= 1 && matchAt(before, at, ds)) {
      return { frames, fps, model: before.slice(0, at).join('_'), dataset: before.slice(at).join('_'), variant, guess: null };
    }
  }
  // <dataset>_<model>: the official Video-MME-v2 script's order.
  for (const ds of DATASET_PARTS) {
    if (before.length > ds.length && matchAt(before, 0, ds)) {
      return { frames, fps, model: before.slice(ds.length).join('_'), dataset: before.slice(0, ds.length).join('_'), variant, guess: null };
    }
  }
  if (before.length === 2) return { frames, fps, model: before[0] as string, dataset: before[1] as string, variant, guess: null };
  if (before.length > 2) {
    // Unknown dataset: the first part is the model, as before; say so, names may have underscores.
    const model = before[0] as string;
    return { frames, fps, model, dataset: before.slice(1).join('_'), variant, guess: model };
  }
  return { frames, fps, model: null, dataset: before[0] ?? null, variant, guess: null };
}
