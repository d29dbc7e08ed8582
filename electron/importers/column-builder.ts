import type { InternedStrings, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import { ImportError } from './errors';

/** One response as the per_item.csv reader hands it over (scalars only; no object per row). */
export interface CellValues {
  pred: string | null;
  /** 1 / 0 / −1 = not known. */
  correct: number;
  /** NaN = null. */
  score: number;
  groundTruth: string | null;
  confidence: number;
  margin: number;
  latencyMs: number;
  frameIndices: number[] | null;
  sourceTag: string | null;
  protocolNote: string | null;
}

const grow = <T extends Float64Array | Int32Array | Int8Array>(a: T, n: number): T => {
  if (n < a.length) return a;
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
};

const nullable = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** A string field interned as cells are added: its distinct values once, an index per cell (−1 = null). */
class Interner {
  private readonly table: string[] = [];
  private readonly ids = new Map<string, number>();
  private index = new Int32Array(256);
  /** Neighbouring cells mostly repeat a value (a tag, a note, a letter): checked before the Map. */
  private last: string | null = null;
  private lastIndex = -1;

  add(k: number, v: string | null): void {
    this.index = grow(this.index, k);
    if (v !== this.last) {
      let i = -1;
      if (v !== null) {
        i = this.ids.get(v) ?? -1;
        if (i < 0) {
          i = this.table.length;
          this.table.push(v);
          this.ids.set(v, i);
        }
      }
      this.last = v;
      this.lastIndex = i;
    }
    this.index[k] = this.lastIndex;
  }

  finish(n: number): InternedStrings {
    return { table: this.table, index: this.index.slice(0, n) };
  }
}

/**
 * The cells of one (model, split, config) of a file, on growable typed arrays, with the
 * string fields also as tables (ResponseColumnBatch.tables, what the store's column path
 * reads). A second row for the same sample that says something different is rejected, as
 * BatchBuilder does for row-wise importers (the same row twice counts as a duplicate).
 */
export class ColumnBuilder {
  length = 0;
  duplicates = 0;
  /** Item number (per split, from the reader) → cell position + 1; 0 = no cell yet. */
  private pos = new Int32Array(256);
  /** Source tags and notes repeat down a column: keep one string object for a run of equal values. */
  private lastTag: string | null = null;
  private lastNote: string | null = null;
  private readonly sampleIds: string[] = [];
  private readonly pred: (string | null)[] = [];
  private readonly groundTruth: (string | null)[] = [];
  private readonly frameIndices: (number[] | null)[] = [];
  private readonly sourceTag: (string | null)[] = [];
  private readonly protocolNote: (string | null)[] = [];
  private correct = new Int8Array(256);
  private score = new Float64Array(256);
  private confidence = new Float64Array(256);
  private margin = new Float64Array(256);
  private latencyMs = new Float64Array(256);
  private line = new Int32Array(256);
  /** Per cell: its item number, which indexes `splitIds`. */
  private item = new Int32Array(256);
  private readonly interned = { pred: new Interner(), groundTruth: new Interner(), sourceTag: new Interner(), protocolNote: new Interner() };

  /** `splitIds`: the reader's sample ids of the split by item number, shared by the split's columns. */
  constructor(
    readonly model: string,
    readonly split: string,
    readonly config: string,
    private readonly splitIds: readonly string[],
  ) {}

  /**
   * Adds a cell of item number `item` (dense per split, the same for every column of the
   * split); `fieldName` names a ResponseRow field as the file's column for errors.
   * Returns false for an exact duplicate (not added).
   */
  add(file: string, line: number, sampleId: string, item: number, v: CellValues, fieldName: (f: keyof ResponseRow) => string): boolean {
    if (item >= this.pos.length) {
      const p = new Int32Array(Math.max(item + 1, this.pos.length * 2));
      p.set(this.pos);
      this.pos = p;
    }
    const prev = this.pos[item]! - 1;
    if (prev >= 0) {
      this.checkSame(file, line, sampleId, prev, v, fieldName);
      this.duplicates++;
      return false;
    }
    const k = this.length++;
    this.pos[item] = k + 1;
    this.correct = grow(this.correct, k);
    this.score = grow(this.score, k);
    this.confidence = grow(this.confidence, k);
    this.margin = grow(this.margin, k);
    this.latencyMs = grow(this.latencyMs, k);
    this.line = grow(this.line, k);
    this.item = grow(this.item, k);
    this.item[k] = item;
    this.interned.pred.add(k, v.pred);
    this.interned.groundTruth.add(k, v.groundTruth);
    this.interned.sourceTag.add(k, v.sourceTag);
    this.interned.protocolNote.add(k, v.protocolNote);
    this.sampleIds.push(sampleId);
    this.pred.push(v.pred);
    this.groundTruth.push(v.groundTruth);
    this.frameIndices.push(v.frameIndices);
    if (v.sourceTag !== this.lastTag) this.lastTag = v.sourceTag;
    if (v.protocolNote !== this.lastNote) this.lastNote = v.protocolNote;
    this.sourceTag.push(this.lastTag);
    this.protocolNote.push(this.lastNote);
    this.correct[k] = v.correct;
    this.score[k] = v.score;
    this.confidence[k] = v.confidence;
    this.margin[k] = v.margin;
    this.latencyMs[k] = v.latencyMs;
    this.line[k] = line;
    return true;
  }

  /** The compared fields in BatchBuilder's order, with its message (values as ResponseRow holds them). */
  private checkSame(file: string, line: number, sampleId: string, k: number, v: CellValues, fieldName: (f: keyof ResponseRow) => string): void {
    const bool = (c: number): boolean | null => (c < 0 ? null : c === 1);
    const pairs: [keyof ResponseRow, unknown, unknown][] = [
      ['pred', v.pred, this.pred[k]],
      ['correct', bool(v.correct), bool(this.correct[k]!)],
      ['score', nullable(v.score), nullable(this.score[k]!)],
      ['groundTruth', v.groundTruth, this.groundTruth[k]],
      ['confidence', nullable(v.confidence), nullable(this.confidence[k]!)],
      ['margin', nullable(v.margin), nullable(this.margin[k]!)],
      ['latencyMs', nullable(v.latencyMs), nullable(this.latencyMs[k]!)],
    ];
    for (const [f, here, first] of pairs) {
      if (here !== first) {
        throw new ImportError(
          file,
          line,
          fieldName(f),
          `duplicate key (model ${this.model}, split ${this.split}, sample ${sampleId}, config ${this.config}) ` +
            `with a different value: ${JSON.stringify(here)} here, ${JSON.stringify(first)} at line ${this.line[k]}`,
        );
      }
    }
  }

  finish(): ResponseColumnBatch {
    const n = this.length;
    return {
      model: this.model,
      split: this.split,
      config: this.config,
      length: n,
      sampleIds: this.sampleIds,
      pred: this.pred,
      correct: this.correct.slice(0, n),
      score: this.score.slice(0, n),
      groundTruth: this.groundTruth,
      confidence: this.confidence.slice(0, n),
      margin: this.margin.slice(0, n),
      latencyMs: this.latencyMs.slice(0, n),
      frameIndices: this.frameIndices,
      sourceTag: this.sourceTag,
      protocolNote: this.protocolNote,
      line: this.line.slice(0, n),
      tables: {
        sampleIds: { table: this.splitIds, index: this.item.slice(0, n) },
        pred: this.interned.pred.finish(n),
        groundTruth: this.interned.groundTruth.finish(n),
        sourceTag: this.interned.sourceTag.finish(n),
        protocolNote: this.interned.protocolNote.finish(n),
      },
    };
  }
}

/** Cell `k` of a column as a ResponseRow (for callers that want rows; the store reads columns). */
export function columnRow(c: ResponseColumnBatch, k: number): ResponseRow {
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

/** Every cell of `columns` as ResponseRows, in file (line) order. */
export function columnRows(columns: readonly ResponseColumnBatch[]): ResponseRow[] {
  const rows: ResponseRow[] = [];
  for (const c of columns) for (let k = 0; k < c.length; k++) rows.push(columnRow(c, k));
  return rows.sort((a, b) => a.line - b.line);
}
