/**
 * The columns of annotations/pathways.csv and annotations/evidence_spans.csv
 * (docs/release-format.md), shared by the exporter that writes them and the two readers that
 * take them back: the release importer and the annotation bundle of `flipbook merge`.
 */
export const PATHWAY_COLUMNS = [
  'sample_id',
  'model',
  'split',
  'annotator',
  'status',
  'primary_pathway',
  'pathways',
  'transition',
  'notes',
  'confidence',
  'codebook_version',
  'created_at',
  'updated_at',
] as const;

export const SPAN_COLUMNS = ['sample_id', 'model', 'split', 'annotator', 'start_s', 'end_s', 'label', 'covered_by'] as const;
