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
