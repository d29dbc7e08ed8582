/**
 * provenance/configs.json, provenance/videos.csv and the opt-in labels/items.csv (benchmark text).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { contextJson } from '../../shared/domain/item-context';
import { GENERATION_COLUMNS, ITEM_COLUMNS, ITEM_OPTIONAL_COLUMNS, VIDEO_COLUMNS } from '../../shared/release/item-columns';
import type { ReleaseGrid } from './release-data';
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

/** labels/items.csv, in the columns of shared/release/item-columns.ts (`context` only when an item has one). */
export function itemsCsv(items: readonly ItemMeta[]): string {
  const sorted = items.slice().sort((a, b) => compareKeys([a.split, a.sampleId], [b.split, b.sampleId]));
  const contexts = sorted.map((it) => contextJson(it.context));
  const withContext = contexts.some((c) => c !== null);
  return csvText(
    withContext ? [...ITEM_COLUMNS, ...ITEM_OPTIONAL_COLUMNS] : ITEM_COLUMNS,
    sorted.map((it, i) => {
      const row = [
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
      ];
      if (withContext) row.push(contexts[i]!);
      return row;
    }),
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

/**
 * labels/generations.csv: every open-ended cell's generated text (a score and no correctness,
 * as per_item.csv tells the two apart), in per_item.csv's order — grids come in (model, split)
 * order, rows in sample_id order and columns in config order from the store's scan. Null when
 * no cell has text.
 */
export function generationsCsv(grids: readonly ReleaseGrid[]): string | null {
  const rows: string[][] = [];
  for (const g of grids) {
    for (let r = 0; r < g.sampleIds.length; r++) {
      for (const c of g.columns) {
        const k = c.at[r]!;
        if (k < 0 || c.correct[k]! >= 0 || c.score === null || Number.isNaN(c.score[k]!)) continue;
        const text = c.pred.dict[c.pred.idx[k]!] ?? null;
        if (text !== null && text !== '') rows.push([g.sampleIds[r]!, g.model, g.split, c.config, text]);
      }
    }
  }
  return rows.length === 0 ? null : csvText(GENERATION_COLUMNS, rows);
}
