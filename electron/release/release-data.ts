/**
 * A snapshot of everything a release export writes, read from a project in one go
 * (project-source.ts). The writers depend only on this shape, so the
 * file layout is tested and benchmarked independently of how the store names things.
 */
import type { AnnotationEvent } from '../../shared/domain/annotations';
import type { ConfigSpec, ItemMeta, ResponseMatrix } from '../../shared/domain/types';
import type { ScannedGrid as ReleaseGrid } from '../store/column-scan';

/**
 * The cells as the store's column scan gives them (electron/store/column-scan.ts): grid by
 * grid, typed arrays and string tables per config. Cells stay column-wise: the release's files
 * are written by walking grids, rows and columns in order, so no per-cell object or string is
 * ever built.
 */
export type { ScannedColumn as ReleaseColumn, ScannedGrid as ReleaseGrid, StringTable } from '../store/column-scan';

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
  /** The main protocol (docs/metrics.md §6): aggregated files, derived.csv and wide CSVs are its grids'. */
  mainProtocol: string;
  /** `grids` restricted to the main protocol's columns (grids without any left out). */
  mainGrids: ReleaseGrid[];
  /** One matrix per main grid, columns in config order. */
  matrices: ResponseMatrix[];
  /** Every config's matrix of the grids with more than one protocol (model \0 split → matrix). */
  protocolMatrices: Map<string, ResponseMatrix>;
  /** The matched grid in force (docs/release-format.md): the setting, or the given override. */
  matchedGrid: string[];
  codebook: ReleaseCodebook | null;
  pathways: ReleasePathwayRow[];
  spans: ReleaseSpanRow[];
  /** The annotation event log (annotations/events.jsonl): what makes a merge lossless. */
  events: AnnotationEvent[];
}
