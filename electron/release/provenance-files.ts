/**
 * provenance/configs.json, provenance/videos.csv and the opt-in labels/items.csv (benchmark text).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { ITEM_COLUMNS, VIDEO_COLUMNS } from '../../shared/release/item-columns';
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

/** labels/items.csv, in the columns of shared/release/item-columns.ts. */
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

/**
 * provenance/videos.csv, in every export (shared/release/item-columns.ts VIDEO_COLUMNS): the
 * items that name a video or a duration, so that the next annotator's project finds the videos
 * under its media root and draws the same exact strips. No question, option or answer text.
 */
export function videosCsv(items: readonly ItemMeta[]): string {
  const rows = items.filter((it) => it.videoId != null || it.videoFile != null || it.durationS != null || it.durationBucket != null);
  rows.sort((a, b) => compareKeys([a.split, a.sampleId], [b.split, b.sampleId]));
  return csvText(
    VIDEO_COLUMNS,
    rows.map((it) => [it.split, it.sampleId, it.videoId ?? null, it.videoFile ?? null, it.durationS ?? null, it.durationBucket ?? null]),
  );
}
