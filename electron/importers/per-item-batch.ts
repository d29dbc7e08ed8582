/**
 * The ImportBatch of a parsed per_item.csv: the columns as the batch carries them (typed
 * arrays and interned tables, views of the reader's own arrays), the items with an answer,
 * the configs, the warnings, and the rows as ResponseRows built only if read.
 */
import { basename } from 'node:path';
import type { ColumnTables, ImportBatch, InternedStrings, ItemMeta, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import { specFor } from './config-keys';
import { LETTERS, nullable, type Col } from './per-item-column';
import type { Rows } from './per-item-rows';

export interface Parsed {
  configs: { key: string; frames: number; pixelCount: number | null }[];
  answered: { split: string; sampleId: string; answer: string }[];
  columns: ResponseColumnBatch[];
  inconsistent: number;
  duplicates: number;
}

/** What the rows of a file came to, once every row is read. */
export function parsedOf(rows: Rows): Parsed {
  // The fields a column has no values of are shared, read-only (ResponseColumnBatch): one
  // all-NaN array as long as the longest column, and one all-null frames array per column
  // length (a split's columns mostly have one). Sized per cell of the file, they were ~1.2 MB
  // and ~1.1 MB of memory a 145k-row import filled for nothing.
  let longest = 0;
  for (const c of rows.columns) longest = Math.max(longest, c.length);
  const nan = new Float64Array(longest).fill(NaN);
  const nulls = new Map<number, null[]>();
  const noFrames = (len: number): null[] => {
    let a = nulls.get(len);
    if (!a) nulls.set(len, (a = new Array<null>(len).fill(null)));
    return a;
  };
  const notes = rows.notes.strings.slice(1); // without the empty note (see Rows)
  const built = rows.columns.map((c) => batchColumn(c, rows.splits[c.s]!.ids.strings, rows.tags.strings, notes, nan.subarray(0, c.length), noFrames));
  return {
    configs: rows.configs.map((c) => ({ key: c.key, frames: c.frames, pixelCount: c.pixelCount < 0 ? null : c.pixelCount })),
    answered: rows.answered.map(({ split, item }) => ({
      split: rows.splitNames.strings[split]!,
      sampleId: rows.splits[split]!.ids.strings[item]!,
      answer: LETTERS[rows.splits[split]!.gt[item]!]!,
    })),
    columns: built,
    inconsistent: rows.inconsistent,
    duplicates: rows.duplicates,
  };
}

/** The strings of an interned field, built on first read. */
function materialize(f: InternedStrings): (string | null)[] {
  const out = new Array<string | null>(f.index.length);
  for (let k = 0; k < out.length; k++) {
    const i = f.index[k]!;
    out[k] = i < 0 ? null : f.table[i]!;
  }
  return out;
}

/**
 * A column as the batch carries it: typed arrays and interned tables; its string arrays are
 * built only if a consumer reads them (the store reads the tables). The typed arrays are views
 * of the column's own arrays (which no longer grow), not copies: at 1.45M rows a copy of each
 * was ~40 MB more memory to allocate and fill.
 */
function batchColumn(
  c: Col,
  sampleIds: readonly string[],
  tags: readonly string[],
  notes: readonly string[],
  nan: Float64Array,
  noFrames: (len: number) => null[],
): ResponseColumnBatch {
  const len = c.length;
  const tables: ColumnTables = {
    sampleIds: { table: sampleIds, index: c.item.subarray(0, len) },
    pred: { table: LETTERS, index: c.pred.subarray(0, len) },
    groundTruth: { table: LETTERS, index: c.gt.subarray(0, len) },
    sourceTag: { table: tags, index: c.tag.subarray(0, len) },
    protocolNote: { table: notes, index: c.note.subarray(0, len) },
  };
  const cache: Partial<Record<keyof ColumnTables, (string | null)[]>> = {};
  const lazy = (k: keyof ColumnTables): (string | null)[] => (cache[k] ??= materialize(tables[k]));
  const frames = c.frames ? c.frames.slice(0, len) : null;
  return {
    model: c.model,
    split: c.split,
    config: c.config,
    length: len,
    get sampleIds() {
      return lazy('sampleIds') as string[];
    },
    get pred() {
      return lazy('pred');
    },
    correct: c.correct.subarray(0, len),
    score: c.score ? c.score.subarray(0, len) : nan,
    get groundTruth() {
      return lazy('groundTruth');
    },
    confidence: c.confidence ? c.confidence.subarray(0, len) : nan,
    margin: c.margin ? c.margin.subarray(0, len) : nan,
    latencyMs: c.latencyMs ? c.latencyMs.subarray(0, len) : nan,
    get frameIndices() {
      return frames ?? noFrames(len);
    },
    get sourceTag() {
      return lazy('sourceTag');
    },
    get protocolNote() {
      return lazy('protocolNote');
    },
    line: c.line.subarray(0, len),
    tables,
  };
}

/** Cell `k` of a column as a ResponseRow. */
function columnRow(c: ResponseColumnBatch, k: number): ResponseRow {
  const cor = c.correct[k]!;
  return {
    model: c.model,
    split: c.split,
    sampleId: c.sampleIds[k]!,
    config: c.config,
    pred: c.pred[k] ?? null,
    correct: cor < 0 ? null : cor === 1,
    score: nullable(c.score[k]!),
    groundTruth: c.groundTruth[k] ?? null,
    confidence: nullable(c.confidence[k]!),
    margin: nullable(c.margin[k]!),
    latencyMs: nullable(c.latencyMs[k]!),
    frameIndices: c.frameIndices[k] ?? null,
    sourceTag: c.sourceTag[k] ?? null,
    protocolNote: c.protocolNote[k] ?? null,
    line: c.line[k]!,
  };
}

/** The ImportBatch of a parsed per_item.csv: the cells as `columns`; `responses` built only if read. */
export function batchOf(path: string, file: string, p: Parsed, sha256: string): ImportBatch {
  const warnings: string[] = [];
  if (p.inconsistent > 0) {
    warnings.push(`${file}: ${p.inconsistent} row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)`);
  }
  if (p.duplicates > 0) warnings.push(`${basename(file)}: ${p.duplicates} repeated identical row(s) ignored`);
  // Each (split, sample) with an answer is listed once, so the items need no merging.
  const items: ItemMeta[] = p.answered.map((a) => ({ split: a.split, sampleId: a.sampleId, answer: a.answer, kind: 'mcqa' }));
  const columns = p.columns;
  let rows: ResponseRow[] | null = null;
  return {
    run: { sourcePath: path, sha256, format: 'per-item-csv', toolkit: 'flipbook-release', modelArgs: null },
    items,
    configs: p.configs.map((c) => specFor(c.key, { frames: c.frames, pixelCount: c.pixelCount })),
    warnings,
    columns,
    get responses(): ResponseRow[] {
      if (rows === null) {
        rows = [];
        for (const c of columns) for (let k = 0; k < c.length; k++) rows.push(columnRow(c, k));
        rows.sort((a, b) => a.line - b.line);
      }
      return rows;
    },
  };
}
