/**
 * provenance/configs.json and the opt-in labels/items.csv (benchmark text).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { compareCodePoints, compareKeys, csvText, jsonText, type JsonValue } from './format';

/** `{"<config>": {...}}`, configs in code-point order, unknown fields null. */
export function configsJson(configs: readonly ConfigSpec[]): string {
  const out: { [k: string]: JsonValue } = {};
  for (const c of configs.slice().sort((a, b) => compareCodePoints(a.key, b.key))) {
    out[c.key] = {
      frames: c.frames,
      pixel_count: c.pixelCount,
      width: c.width,
      height: c.height,
      sampling: { policy: c.sampling.policy, seed: c.sampling.seed, fps: c.sampling.fps },
      pipeline: c.pipeline,
      toolkit: c.toolkit,
      model_args: c.modelArgs,
      notes: c.notes,
    };
  }
  return jsonText(out);
}

/**
 * labels/items.csv — written only with --include-text, because Video-MME and MLVU forbid
 * redistributing their question text. `options` is a JSON array of the option texts in
 * letter order (unambiguous even when an option holds a comma or a newline); `references`
 * likewise for open-ended items.
 */
export const ITEM_COLUMNS = [
  'split',
  'sample_id',
  'question',
  'options',
  'answer',
  'references',
  'task_type',
  'duration_s',
  'duration_bucket',
  'domain',
  'sub_category',
  'video_id',
  'video_file',
] as const;

export function itemsCsv(items: readonly ItemMeta[]): string {
  const sorted = items.slice().sort((a, b) => compareKeys([a.split, a.sampleId], [b.split, b.sampleId]));
  return csvText(
    ITEM_COLUMNS,
    sorted.map((it) => [
      it.split,
      it.sampleId,
      it.question ?? null,
      it.options ? JSON.stringify(it.options) : null,
      it.answer ?? null,
      it.references ? JSON.stringify(it.references) : null,
      it.taskType ?? null,
      it.durationS ?? null,
      it.durationBucket ?? null,
      it.domain ?? null,
      it.subCategory ?? null,
      it.videoId ?? null,
      it.videoFile ?? null,
    ]),
  );
}
