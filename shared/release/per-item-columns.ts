/**
 * The columns of labels/per_item.csv (docs/release-format.md), shared by the importer (which
 * rejects any other header) and the exporter (which writes them in this order).
 */
export const PER_ITEM_COLUMNS = [
  'sample_id',
  'model',
  'split',
  'config',
  'frame_count',
  'pixel_count',
  'predicted_option',
  'ground_truth_option',
  'correct',
  'source_tag',
  'protocol_note',
] as const;

/** Flipbook's optional columns, always in this order after the eleven. */
export const PER_ITEM_OPTIONAL_COLUMNS = ['confidence', 'margin', 'latency_s', 'frame_indices', 'score'] as const;
