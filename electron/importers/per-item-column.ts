/**
 * One (model, split, config) column of a per_item.csv as the reader fills it: growable typed
 * arrays in the store's own layout, and the refusal of a repeated cell that differs from the
 * first (docs/formats.md "Duplicated columns").
 */
import { ImportError } from './errors';
import { grow32, grow8, growF64 } from './per-item-bytes';
import type { Column } from './per-item-header';

/** Option letters A–H: a letter cell is stored as its index into this table. */
export const LETTERS: readonly string[] = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];

/**
 * A column's first capacity in cells. Small on purpose: its arrays then grow (Col.reserve)
 * within a file's first few hundred rows, while V8 is still collecting type feedback for `row`;
 * a first growth after V8 had optimised `row` deoptimised it (~40 ms of recompiling).
 */
const FIRST_CELLS = 16;

/** The cells of one (model, split, config), on growable typed arrays. */
export class Col {
  length = 0;
  /** The bytes and number of the column's last source tag (a cell usually repeats it). */
  tagStart = 0;
  tagLen = -1;
  tagId = -1;
  /** Item number → cell position + 1; 0 = no cell yet. */
  pos = new Int32Array(256);
  item = new Int32Array(FIRST_CELLS);
  pred = new Int32Array(FIRST_CELLS);
  gt = new Int32Array(FIRST_CELLS);
  tag = new Int32Array(FIRST_CELLS);
  note = new Int32Array(FIRST_CELLS);
  correct = new Int8Array(FIRST_CELLS);
  line = new Int32Array(FIRST_CELLS);
  score: Float64Array<ArrayBuffer> | null;
  confidence: Float64Array<ArrayBuffer> | null;
  margin: Float64Array<ArrayBuffer> | null;
  latencyMs: Float64Array<ArrayBuffer> | null;
  frames: (number[] | null)[] | null;

  constructor(
    readonly model: string,
    readonly split: string,
    readonly config: string,
    readonly m: number,
    readonly s: number,
    readonly c: number,
    idx: Record<Column, number>,
  ) {
    this.score = idx.score >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.confidence = idx.confidence >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.margin = idx.margin >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.latencyMs = idx.latency_s >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.frames = idx.frame_indices >= 0 ? [] : null;
  }

  /**
   * Room for cell `k`. A column holds at most one cell per item of its split, so it grows
   * straight to `items`, the split's items so far, when that is more than doubling gives: the
   * columns of a split whose items an earlier model already named grow once, not a dozen times
   * (at 10×, ~8k typed-array allocations and copies, ~80 ms).
   */
  reserve(k: number, items: number): void {
    if (k < this.item.length) return;
    const last = Math.max(k, items - 1);
    this.item = grow32(this.item, last);
    this.pred = grow32(this.pred, last);
    this.gt = grow32(this.gt, last);
    this.tag = grow32(this.tag, last);
    this.note = grow32(this.note, last);
    this.correct = grow8(this.correct, last);
    this.line = grow32(this.line, last);
    if (this.score) this.score = growF64(this.score, last);
    if (this.confidence) this.confidence = growF64(this.confidence, last);
    if (this.margin) this.margin = growF64(this.margin, last);
    if (this.latencyMs) this.latencyMs = growF64(this.latencyMs, last);
  }
}

export const nullable = (v: number): number | null => (v !== v ? null : v);

/** Throws the refusal of a repeated cell that differs from the first (compared as ResponseRow fields). */
export function sameCell(
  file: string,
  line: number,
  col: Col,
  k: number,
  sampleId: string,
  pred: number,
  correct: number,
  score: number,
  gt: number,
  confidence: number,
  margin: number,
  latencyMs: number,
): void {
  const letterOf = (i: number): string | null => (i < 0 ? null : LETTERS[i]!);
  const bool = (c: number): boolean | null => (c < 0 ? null : c === 1);
  const at = (a: Float64Array | null): number | null => (a ? nullable(a[k]!) : null);
  const pairs: [string, unknown, unknown][] = [
    ['predicted_option', letterOf(pred), letterOf(col.pred[k]!)],
    ['correct', bool(correct), bool(col.correct[k]!)],
    ['score', nullable(score), at(col.score)],
    ['ground_truth_option', letterOf(gt), letterOf(col.gt[k]!)],
    ['confidence', nullable(confidence), at(col.confidence)],
    ['margin', nullable(margin), at(col.margin)],
    ['latency_s', nullable(latencyMs), at(col.latencyMs)],
  ];
  for (const [field, here, first] of pairs) {
    if (here !== first) {
      throw new ImportError(
        file,
        line,
        field,
        `duplicate key (model ${col.model}, split ${col.split}, sample ${sampleId}, config ${col.config}) ` +
          `with a different value: ${JSON.stringify(here)} here, ${JSON.stringify(first)} at line ${col.line[k]}`,
      );
    }
  }
}
