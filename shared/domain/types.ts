/**
 * Flipbook's domain types, shared by every layer. Definitions follow
 * docs/metrics.md (§1 the response matrix) and docs/release-format.md.
 */

/** Sampling policies of docs/metrics.md §8. */
export const SAMPLING_POLICIES = [
  'uniform-linspace',
  'uniform-linspace-round',
  'uniform-center',
  'scalegrid-uniform',
  'scalegrid-dense-start',
  'scalegrid-random',
  'random',
  'explicit',
] as const;
export type SamplingPolicy = (typeof SAMPLING_POLICIES)[number];

export interface SamplingSpec {
  policy: SamplingPolicy | null;
  seed: number | null;
  /** Cache rate r for cached pipelines (frames come from ffmpeg's fps=r); null = native frames. */
  fps: number | null;
}

/** A visual configuration (docs/metrics.md §1). `key` is e.g. `textonly`, `16f_151k`, `128f_input224`. */
export interface ConfigSpec {
  key: string;
  /** 0 for text only. */
  frames: number;
  /** Pixels per frame (width×height or the toolkit's max_pixels); null = unknown. Text only: 0. */
  pixelCount: number | null;
  width: number | null;
  height: number | null;
  sampling: SamplingSpec;
  pipeline: 'raw' | 'cache' | null;
  toolkit: string | null;
  modelArgs: string | null;
  notes: string | null;
}

export type TaskKind = 'mcqa' | 'open';

/**
 * The responses of one (model, split) on typed arrays: cell (item i, config c) is at
 * index i * configs.length + c. Configs are in config order (docs/metrics.md §1).
 */
export interface ResponseMatrix {
  model: string;
  split: string;
  kind: TaskKind;
  /** sample ids, one per row. */
  itemIds: string[];
  configs: ConfigSpec[];
  /** MCQA: 1 correct, 0 wrong, -1 missing. For open-ended matrices all -1. */
  correct: Int8Array;
  /** Open-ended score in [0,1]; NaN = missing. */
  score: Float64Array;
  /** Probability of the chosen answer; NaN = not recorded. */
  confidence: Float64Array;
  /** Top-1 minus top-2 option probability; NaN = not recorded. */
  margin: Float64Array;
  /** NaN = not recorded. */
  latencyMs: Float64Array;
  /** Recorded frame indices per cell (sparse: undefined/null = not recorded). */
  frameIndices: (Int32Array | null | undefined)[];
}

/** What the outcome-only engines (grid plans, trajectories) read of a matrix. */
export type OutcomeMatrix = Pick<ResponseMatrix, 'model' | 'split' | 'kind' | 'itemIds' | 'configs' | 'correct'>;

/** Benchmark metadata of one item, keyed by (split, sampleId). */
export interface ItemMeta {
  split: string;
  sampleId: string;
  question?: string | null;
  /** Option texts in letter order (A, B, …). */
  options?: string[] | null;
  /** Ground-truth option letter (MCQA) or reference text(s) (open-ended). */
  answer?: string | null;
  references?: string[] | null;
  taskType?: string | null;
  durationS?: number | null;
  /** Duration bucket or benchmark category (e.g. Video-MME `short`). */
  durationBucket?: string | null;
  domain?: string | null;
  subCategory?: string | null;
  /** Video id of the benchmark (e.g. Video-MME videoID) — used by scalegrid-random. */
  videoId?: string | null;
  /** Path of the video file relative to the project's media root. */
  videoFile?: string | null;
  kind?: TaskKind | null;
  /** What a generation item is asked in (a dialogue's earlier turns, the benchmark's descriptions): shared/domain/item-context.ts. */
  context?: ItemContext | null;
  /** 1-based line (or row) in the source file, for error messages (optional). */
  line?: number;
}

/** One earlier turn of a dialogue (AVSD): the question asked and the answer given. */
export interface DialogTurn {
  question: string;
  answer: string;
}

/**
 * The context of a generation item (docs/metrics.md §4: context, not scored): the dialogue
 * history before the evaluated turn, oldest first, the descriptions the benchmark gives with
 * the item (AVSD's `caption` and `summary`), and the prompt a log rendered when it holds more
 * than the question. Benchmark text: exported only with --include-text.
 */
export interface ItemContext {
  history: DialogTurn[];
  caption: string | null;
  summary: string | null;
  prompt: string | null;
}

/** One response cell as an importer produces it. */
export interface ResponseRow {
  model: string;
  split: string;
  sampleId: string;
  config: string;
  /** Chosen option letter (MCQA) or the free-text answer (open-ended); null = none. */
  pred: string | null;
  /** MCQA correctness; null when not MCQA or not known yet (ground truth may arrive later). */
  correct: boolean | null;
  /** Open-ended score in [0,1]; null for MCQA. */
  score: number | null;
  /** Ground-truth letter as the source file states it, if it does. */
  groundTruth: string | null;
  confidence: number | null;
  margin: number | null;
  latencyMs: number | null;
  frameIndices: number[] | null;
  sourceTag: string | null;
  protocolNote: string | null;
  /** 1-based line (or row) in the source file, for error messages and provenance. */
  line: number;
}

/**
 * The responses of one (model, split, config), column-wise: index k of every array is one
 * cell. The per_item.csv importer produces these (ImportBatch.columns) so that a 145k-row file
 * reaches the store without a ResponseRow object per cell. Read-only for consumers: a reader
 * may share one array between fields or columns (the per_item.csv reader's all-NaN numeric fields),
 * and the store reads a new column's cells from the batch's own arrays (import-apply.ts).
 */
export interface ResponseColumnBatch {
  model: string;
  split: string;
  config: string;
  length: number;
  sampleIds: string[];
  pred: (string | null)[];
  /** 1 correct, 0 wrong, −1 not known. */
  correct: Int8Array;
  /** NaN = null in the Float64Arrays. */
  score: Float64Array;
  groundTruth: (string | null)[];
  confidence: Float64Array;
  margin: Float64Array;
  latencyMs: Float64Array;
  frameIndices: (number[] | null)[];
  sourceTag: (string | null)[];
  protocolNote: (string | null)[];
  /** 1-based source line of each cell. */
  line: Int32Array;
  /**
   * The string fields as indices into tables of distinct values (the same values as the
   * arrays above): the store's column path reads these and spares a string per cell.
   */
  tables: ColumnTables;
}

/** A string field of a column: `table[index[k]]` is cell k's value, index −1 = null. */
export interface InternedStrings {
  /** Distinct values (no two equal). */
  table: readonly string[];
  index: Int32Array;
}

/** The string fields of a ResponseColumnBatch as tables (same cells, same values). */
export interface ColumnTables {
  /** The table is shared by every column of the split; no index is −1. */
  sampleIds: InternedStrings;
  pred: InternedStrings;
  groundTruth: InternedStrings;
  sourceTag: InternedStrings;
  protocolNote: InternedStrings;
}

/** Provenance of one imported file. */
export interface RunInfo {
  sourcePath: string;
  sha256: string;
  format: string;
  toolkit: string | null;
  modelArgs: string | null;
}

/** One item whose sample id an importer derived rather than read (ImportBatch.derivedIds). */
export interface DerivedId {
  split: string;
  sampleId: string;
  /** The row's question text, checked against the project's item of that id. */
  question: string | null;
  videoId: string | null;
  line: number;
  /** The column the id was derived from (for the error message). */
  field: string;
}

/**
 * One video's frame cache of a cached pipeline (the release's cache_frames.py metadata.json):
 * the frames written at rate `fps` and the time of each (docs/metrics.md §8).
 */
export interface VideoCache {
  videoId: string;
  fps: number;
  frameCount: number;
  durationS: number | null;
  /** Seconds of cache frame x, for x = 0…frameCount−1. */
  timestampsS: number[];
  /** The file it came from (provenance), and its line for errors. */
  source: string | null;
  line?: number;
}

/** Everything an importer read from one file, applied to a project in one transaction. */
export interface ImportBatch {
  /** Frame caches of a cached pipeline (cache_frames.py metadata), keyed by (video id, fps). */
  videoCaches?: VideoCache[];
  /**
   * Items whose ids were derived from the benchmark's structure (docs/formats.md "How items
   * join"), with how: the store checks each against the question text of the project's item of
   * that id (or of another file of the same import) before applying anything.
   */
  derivedIds?: { how: string; rows: DerivedId[] };
  run: RunInfo;
  items: ItemMeta[];
  /** With `columns` set, the same cells as rows in file order, built only when read. */
  responses: ResponseRow[];
  /** Optional: the responses column-wise; when present the store applies these, not `responses`. */
  columns?: ResponseColumnBatch[];
  configs: ConfigSpec[];
  warnings: string[];
  /**
   * Annotation rows of a release's `annotations/` folder (docs/release-format.md), validated by the
   * importer, applied by the store. Rows are keyed by their CSV column names.
   */
  annotations?: {
    codebook?: unknown;
    pathways: Record<string, string>[];
    evidenceSpans: Record<string, string>[];
  };
}
