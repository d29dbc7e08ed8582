/**
 * The columns of labels/items.csv (docs/release-format.md), shared by the exporter, which
 * writes them only with --include-text (Video-MME and MLVU forbid redistributing their
 * question text), and the release importer, which reads them back. `options` is a JSON array
 * of the option texts in letter order (unambiguous even when an option holds a comma or a
 * newline); `references` likewise for open-ended items.
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

/**
 * The columns of provenance/videos.csv (docs/release-format.md): what an item's video needs
 * that is not benchmark text, written by every export so that a project imported from it
 * finds its videos under its own media root and samples the same frames (scalegrid-random
 * seeds with the video id). A subset of ITEM_COLUMNS, read back the same way.
 */
export const VIDEO_COLUMNS = ['split', 'sample_id', 'video_id', 'video_file', 'duration_s', 'duration_bucket'] as const;

/**
 * Columns of labels/items.csv written after the thirteen only when some exported item has a
 * value (as per_item.csv's optional columns): `context`, the item's context as the canonical
 * JSON of shared/domain/item-context.ts (a dialogue's earlier turns, the benchmark's
 * descriptions). An export of a project without any is byte for byte what it was before.
 */
export const ITEM_OPTIONAL_COLUMNS = ['context'] as const;

/**
 * labels/generations.csv (with --include-text): the text each config generated for an
 * open-ended item, one row per cell with text, sorted as per_item.csv is (model, split,
 * sample_id, config). per_item.csv's option columns stay empty for such cells.
 */
export const GENERATION_COLUMNS = ['sample_id', 'model', 'split', 'config', 'text'] as const;
