/**
 * A snapshot of everything a release export writes, read from a project in one go
 * (project-source.ts). The writers (release-files.ts) depend only on this shape, so the
 * file layout is tested and benchmarked independently of how the store names things.
 */
import type { AnnotationEvent } from '../../shared/domain/annotations';
import type { ConfigSpec, ItemMeta, ResponseMatrix, ResponseRow } from '../../shared/domain/types';

/** One response cell as exported: a ResponseRow without the source line. */
export type ReleaseCell = Omit<ResponseRow, 'line'>;

/** One pathway-annotation row of annotations/pathways.csv (release-format.md). */
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
  /** Every response cell, in any order (the writers sort). */
  cells: ReleaseCell[];
  /** Every config the cells use (and any others the project knows). */
  configs: ConfigSpec[];
  /** Item metadata; only read for --include-text and for ground-truth letters. */
  items: ItemMeta[];
  /** One matrix per (model, split), columns in config order. */
  matrices: ResponseMatrix[];
  /** The matched grid in force (release-format.md): the setting, or the given override. */
  matchedGrid: string[];
  codebook: ReleaseCodebook | null;
  pathways: ReleasePathwayRow[];
  spans: ReleaseSpanRow[];
  /** The annotation event log (annotations/events.jsonl): what makes a merge lossless. */
  events: AnnotationEvent[];
}
