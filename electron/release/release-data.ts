/**
 * A snapshot of everything a release export writes, read from a project in one go
 * (project-source.ts). The writers (release-files.ts) depend only on this shape, so the
 * file layout is tested and benchmarked independently of how the store names things.
 */
import type { AnnotationEvent } from '../../shared/domain/annotations';
import type { ConfigSpec, ItemMeta, ResponseMatrix } from '../../shared/domain/types';
import type { StringTable } from './column-blobs';

/**
 * One config of a grid as the store holds it (electron/store/response-columns.ts), decoded
 * into typed arrays and string tables. Cells stay column-wise: the release's files are written
 * by walking grids, rows and columns in order, so no per-cell object is ever built (145k of
 * them, sorted, used to be the export's main cost). The string columns stay index arrays over
 * a dictionary (column-blobs.ts), so no JS string exists per cell either.
 */
export interface ReleaseColumn {
  config: string;
  /** Cell position of each grid row (index into the arrays below), −1 = no cell. */
  at: Int32Array;
  /** Number of cells. */
  length: number;
  /** 1 correct, 0 wrong, −1 unknown. */
  correct: Int8Array;
  pred: StringTable;
  groundTruth: StringTable;
  /** NaN = no value; null = no cell of the column has one. */
  score: Float64Array | null;
  confidence: Float64Array | null;
  margin: Float64Array | null;
  latencyMs: Float64Array | null;
  frames: (Int32Array | null)[] | null;
  sourceTag: StringTable;
  protocolNote: StringTable;
}

/** One (model, split): rows in sample_id code-point order, columns in config-key code-point order. */
export interface ReleaseGrid {
  model: string;
  split: string;
  sampleIds: string[];
  /** The store's item id of each row: unique per (split, sample_id), so items count without string keys. */
  rowItems: Int32Array;
  columns: ReleaseColumn[];
}

/** One pathway-annotation row of annotations/pathways.csv (docs/release-format.md). */
export interface ReleasePathwayRow {
  sampleId: string;
  model: string;
  split: string;
  annotator: string;
  status: string;
  primaryPathway: string | null;
  pathways: string[];
  transition: string | null;
  notes: string | null;
  confidence: number | null;
  codebookVersion: number | string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** One evidence span of annotations/evidence_spans.csv. */
export interface ReleaseSpanRow {
  sampleId: string;
  model: string;
  split: string;
  annotator: string;
  startS: number;
  endS: number;
  label: string | null;
  coveredBy: string[];
}

export interface ReleaseCodebookPathway {
  id: string;
  label: string;
  description: string;
  appliesTo: string | string[] | null;
  shortcut: string | null;
}

export interface ReleaseCodebook {
  id: string;
  version: number | string;
  pathways: ReleaseCodebookPathway[];
}

export interface ReleaseData {
  /** Every response cell, grid by grid in (model, split) code-point order. */
  grids: ReleaseGrid[];
  /** Every config the cells use (and any others the project knows). */
  configs: ConfigSpec[];
  /** Item metadata; only read for --include-text and for ground-truth letters. */
  items: ItemMeta[];
  /** One matrix per (model, split), columns in config order. */
  matrices: ResponseMatrix[];
  /** The matched grid in force (docs/release-format.md): the setting, or the given override. */
  matchedGrid: string[];
  codebook: ReleaseCodebook | null;
  pathways: ReleasePathwayRow[];
  spans: ReleaseSpanRow[];
  /** The annotation event log (annotations/events.jsonl): what makes a merge lossless. */
  events: AnnotationEvent[];
}
