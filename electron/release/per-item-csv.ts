/**
 * labels/per_item.csv and the per-(model, split) wide CSVs (docs/release-format.md), written as
 * UTF-8 bytes from the store's column scan (release-data.ts) — see byte-lines.ts for why bytes.
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { ByteSink, encodedIds, encodeTexts, longestSegment, writeLines } from './byte-lines';
import { csvField, formatNumber } from './format';
import type { ReleaseColumn, ReleaseGrid, StringTable } from './release-data';

export { PER_ITEM_COLUMNS };

/**
 * Flipbook's optional columns, always in this order after the eleven. Rule: a column is
 * written iff at least one exported row has a value for it — so a project without
 * confidences exports exactly the release's eleven columns, and the same project always
 * gets the same header.
 */
export const OPTIONAL_COLUMNS = PER_ITEM_OPTIONAL_COLUMNS;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

const LETTER = /^[A-H]$/;
/** The item answers that can stand in for a missing ground truth. */
const LETTERS = 'ABCDEFGH';

/**
 * Seconds from milliseconds, rounded to the microsecond: `ms / 1000` printed in full would
 * not survive export → import (×1000) → export bit-for-bit; a value rounded to 6 decimals does.
 */
export function latencySeconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

const hasValue = (a: Float64Array | null): boolean => a !== null && a.some((v) => !Number.isNaN(v));

export function optionalColumnsOf(grids: readonly ReleaseGrid[]): OptionalColumn[] {
  const has = { confidence: false, margin: false, latency_s: false, frame_indices: false, score: false };
  for (const g of grids) {
    for (const c of g.columns) {
      if (hasValue(c.confidence)) has.confidence = true;
      if (hasValue(c.margin)) has.margin = true;
      if (hasValue(c.latencyMs)) has.latency_s = true;
      if (c.frames?.some((f) => f !== null)) has.frame_indices = true;
      if (hasValue(c.score)) has.score = true;
    }
  }
  return OPTIONAL_COLUMNS.filter((k) => has[k]);
}

/** A string-table value as a CSV field: null and '' are both empty (csvField('') is ''). */
const field = (v: string | null): string => (v === null ? '' : csvField(v));

/** The optional columns of one cell, `,v` each (ASCII: numbers and space-separated ints). */
function optionalSuffix(c: ReleaseColumn, k: number, optional: readonly OptionalColumn[]): string {
  const num = (a: Float64Array | null): string => {
    const x = a === null ? NaN : a[k]!;
    return Number.isNaN(x) ? '' : formatNumber(x);
  };
  let line = '';
  for (const col of optional) {
    switch (col) {
      case 'confidence':
        line += `,${num(c.confidence)}`;
        break;
      case 'margin':
        line += `,${num(c.margin)}`;
        break;
      case 'latency_s': {
        const ms = c.latencyMs === null ? NaN : c.latencyMs[k]!;
        line += `,${Number.isNaN(ms) ? '' : formatNumber(latencySeconds(ms))}`;
        break;
      }
      case 'frame_indices': {
        const f = c.frames?.[k] ?? null;
        line += `,${f === null ? '' : f.join(' ')}`;
        break;
      }
      case 'score':
        line += `,${num(c.score)}`;
        break;
    }
  }
  return line;
}

/**
 * Segments of a line after its sample id: head (`,model,split,config,frames,pixels,`), pred,
 * ground truth, correct, source tag, note, and the optional columns with the line end.
 */
const PARTS = 7;

/** Where a column's parts start in its grid's segments (its parts are contiguous, in this order). */
interface ColumnParts {
  head: number;
  pred: number;
  /** The ground-truth table's entries, then the eight answer letters A–H. */
  gt: number;
  src: number;
  note: number;
  /** The line ends: one per cell with optional columns, else the bare newline. */
  end: number;
  /** One past the column's last segment. */
  last: number;
}

/**
 * Per grid row, the segment indices of the row's cell in this column (−1 first: no cell; the
 * row's other entries are then left as they were), into `out` (PARTS per row).
 * An open-ended cell (a score, no correctness) writes no pred and no ground truth. A cell
 * without a ground truth takes its item's answer letter where `answerAt` (1–8 for A–H per row,
 * or null) has one. With optional columns, cell k's line end is segment `at.end + k`.
 * Column by column, so each loop reads one column's arrays.
 */
function cellSegments(c: ReleaseColumn, at: ColumnParts, answerAt: Int8Array | null, perCellEnd: boolean, out: Int32Array): Int32Array {
  const rows = c.at.length;
  const pos = c.at;
  const score = c.score;
  const correct = c.correct;
  const pi = c.pred.idx;
  const gi = c.groundTruth.idx;
  const si = c.sourceTag.idx;
  const ni = c.protocolNote.idx;
  // The letters follow the table's entries: letter L (1–8) is entry dict.length − 1 + L.
  const letters = c.groundTruth.dict.length - 1;
  for (let r = 0; r < rows; r++) {
    const k = pos[r]!;
    const o = r * PARTS;
    if (k < 0) {
      out[o] = -1;
      continue;
    }
    const cor = correct[k]!;
    const open = cor < 0 && score !== null && !Number.isNaN(score[k]!);
    let p = 0;
    let g = 0;
    if (!open) {
      p = pi[k]!;
      g = gi[k]!;
      if (g === 0 && answerAt !== null && answerAt[r]! > 0) g = letters + answerAt[r]!;
    }
    out[o] = at.head;
    out[o + 1] = at.pred + p;
    out[o + 2] = at.gt + g;
    out[o + 3] = cor + 1; // the grid's first three segments: ',', '0,', '1,'
    out[o + 4] = at.src + si[k]!;
    out[o + 5] = at.note + ni[k]!;
    out[o + 6] = perCellEnd ? at.end + k : at.end;
  }
  return out;
}

/**
 * The cell segments of a grid's columns, in one array reused grid after grid: new arrays per
 * grid (~4 MB for the 145k-row bench) were memory the export touched for the first time, at a
 * page fault per 4 KiB (docs/architecture.md "Import at lab scale").
 */
class SegmentScratch {
  private block = new Int32Array(0);

  /** `columns` arrays of `size` entries each, valid until the next call. */
  take(columns: number, size: number): Int32Array[] {
    if (this.block.length < columns * size) this.block = new Int32Array(Math.max(columns * size, 2 * this.block.length));
    const out: Int32Array[] = [];
    for (let j = 0; j < columns; j++) out.push(this.block.subarray(j * size, (j + 1) * size));
    return out;
  }
}

/** One grid's lines: rows in order, each row's cells in column order. */
function writeGrid(
  sink: ByteSink,
  scratch: SegmentScratch,
  g: ReleaseGrid,
  specs: ReadonlyMap<string, ConfigSpec>,
  answerAt: Int8Array | null,
  optional: readonly OptionalColumn[],
): void {
  // The grid's segments: the correct flag's three, then per column its head, the CSV fields of
  // its tables' entries (each with the comma that follows it) and its line ends.
  const texts = [',', '0,', '1,'];
  const entries = (t: StringTable, after: string): number => {
    const first = texts.length;
    for (const v of t.dict) texts.push(field(v) + after);
    return first;
  };
  const parts = g.columns.map((c): ColumnParts => {
    const spec = specs.get(c.config);
    const head = texts.push(`,${csvField(g.model)},${csvField(g.split)},${csvField(c.config)},${spec ? spec.frames : ''},${spec?.pixelCount ?? ''},`) - 1;
    const pred = entries(c.pred, ',');
    const gt = entries(c.groundTruth, ',');
    for (const l of LETTERS) texts.push(`${l},`);
    const src = entries(c.sourceTag, ',');
    const note = entries(c.protocolNote, '');
    const end = texts.length;
    if (optional.length === 0) texts.push('\n');
    else for (let k = 0; k < c.length; k++) texts.push(`${optionalSuffix(c, k, optional)}\n`);
    return { head, pred, gt, src, note, end, last: texts.length };
  });
  const segs = encodeTexts(texts);
  // A bound on a cell's line after its id: the longest segment of each part.
  let lineMax = 0;
  for (const p of parts) {
    const bounds = [p.head, p.pred, p.gt, p.src, p.note, p.end, p.last];
    let len = 2; // the correct flag
    for (let i = 0; i + 1 < bounds.length; i++) len += longestSegment(segs, bounds[i]!, bounds[i + 1]!);
    lineMax = Math.max(lineMax, len);
  }
  let rows = 0;
  for (const c of g.columns) rows = Math.max(rows, c.at.length);
  const blocks = scratch.take(g.columns.length, rows * PARTS);
  const cells = g.columns.map((c, j) => cellSegments(c, parts[j]!, answerAt, optional.length > 0, blocks[j]!));
  writeLines(sink, encodedIds(g), segs, cells, PARTS, cells.length * lineMax);
}

/** Size of the chunks {@link writePerItemCsv} hands out. */
const CHUNK_BYTES = 1 << 20;

/**
 * labels/per_item.csv into `sink`: grids in (model, split) order, then rows, then columns —
 * already the release's (model, split, sample_id, config) order (the store's column scan).
 */
function perItemCsv(sink: ByteSink, grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[], items: readonly ItemMeta[]): void {
  const specs = new Map(configs.map((c) => [c.key, c]));
  // The answer letter (1–8 for A–H) of each item that has one.
  const answers = new Map<string, number>();
  for (const it of items) if (it.answer != null && LETTER.test(it.answer)) answers.set(`${it.split}\u0000${it.sampleId}`, LETTERS.indexOf(it.answer) + 1);
  const optional = optionalColumnsOf(grids);
  sink.put(new TextEncoder().encode([...PER_ITEM_COLUMNS, ...optional].join(',') + '\n'));
  const scratch = new SegmentScratch();
  for (const g of grids) {
    // The answer letter (1–8 for A–H, 0 none) of each row's item, where items carry answers.
    let answerAt: Int8Array | null = null;
    if (answers.size > 0) {
      answerAt = new Int8Array(g.sampleIds.length);
      for (let r = 0; r < answerAt.length; r++) answerAt[r] = answers.get(`${g.split}\u0000${g.sampleIds[r]}`) ?? 0;
    }
    writeGrid(sink, scratch, g, specs, answerAt, optional);
  }
}

/** An estimate of per_item.csv's size (the whole-file block rarely has to grow). */
function sizeEstimate(grids: readonly ReleaseGrid[]): number {
  let cells = 0;
  for (const g of grids) for (const c of g.columns) cells += c.length;
  return 4096 + cells * 112;
}

/** labels/per_item.csv as UTF-8 bytes, whole (a zip export, the team-sync release identity). */
export function perItemCsvBytes(grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[], items: readonly ItemMeta[]): Uint8Array {
  const sink = new ByteSink(sizeEstimate(grids));
  perItemCsv(sink, grids, configs, items);
  return sink.end();
}

/**
 * The bytes of {@link perItemCsvBytes} handed to `emit` in chunks of about `chunkBytes`, each a
 * view of one reused buffer that is valid only during the call (a folder export writes them to
 * the file). Returns the number of bytes emitted.
 */
export function writePerItemCsv(
  grids: readonly ReleaseGrid[],
  configs: readonly ConfigSpec[],
  items: readonly ItemMeta[],
  emit: (bytes: Uint8Array) => void,
  chunkBytes = CHUNK_BYTES,
): number {
  const sink = new ByteSink(chunkBytes, emit);
  perItemCsv(sink, grids, configs, items);
  const total = sink.total;
  sink.end();
  return total;
}

/**
 * The wide CSV of one (model, split): `sample_id` and one column per config in code-point
 * order holding `predicted_option` (empty where the cell is missing or open-ended), as UTF-8.
 * Each column's distinct predictions are encoded once with their leading comma (entry 0, null,
 * is the bare comma), and each row is copied together from them.
 */
export function wideCsvBytes(g: ReleaseGrid): Uint8Array {
  const header = `${['sample_id', ...g.columns.map((c) => c.config)].map(csvField).join(',')}\n`;
  const texts: string[] = [];
  const first = g.columns.map((c) => {
    const at = texts.length;
    for (const v of c.pred.dict) texts.push(`,${field(v)}`);
    return at;
  });
  const newline = texts.push('\n') - 1;
  const segs = encodeTexts(texts);
  let rowMax = 1;
  g.columns.forEach((c, j) => (rowMax += longestSegment(segs, first[j]!, first[j]! + c.pred.dict.length)));
  const ids = encodedIds(g);
  const sink = new ByteSink(header.length * 3 + ids.bytes.length + g.sampleIds.length * rowMax);
  sink.put(new TextEncoder().encode(header));
  writeLines(sink, ids, segs, [wideRows(g, first, newline)], g.columns.length + 1, rowMax);
  return sink.end();
}

/**
 * Per grid row, the segment of each column's prediction — the column's first segment (the
 * bare comma) where the row has no cell or an open-ended one — then the line end.
 */
function wideRows(g: ReleaseGrid, first: readonly number[], newline: number): Int32Array {
  const K = g.columns.length + 1;
  const rows = g.sampleIds.length;
  const out = new Int32Array(rows * K);
  g.columns.forEach((c, j) => widePredictions(c, first[j]!, out, j, K));
  for (let r = 0; r < rows; r++) out[r * K + K - 1] = newline;
  return out;
}

/** One column's predictions into `out` (row r at r * K + j). */
function widePredictions(c: ReleaseColumn, first: number, out: Int32Array, j: number, K: number): void {
  const at = c.at;
  const score = c.score;
  const correct = c.correct;
  const pi = c.pred.idx;
  for (let r = 0; r < at.length; r++) {
    const k = at[r]!;
    // No cell, or an open-ended one: the bare comma.
    out[r * K + j] = first + (k < 0 || (correct[k]! < 0 && score !== null && !Number.isNaN(score[k]!)) ? 0 : pi[k]!);
  }
}
