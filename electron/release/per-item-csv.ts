/**
 * labels/per_item.csv and the per-(model, split) wide CSVs (release-format.md).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { compareCodePoints, csvField, csvText, formatNumber, type CsvCell } from './format';
import { codePointRanks, sortedOrder } from './rank';
import type { ReleaseCell } from './release-data';

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

/**
 * Seconds from milliseconds, rounded to the microsecond: `ms / 1000` printed in full would
 * not survive export → import (×1000) → export bit-for-bit; a value rounded to 6 decimals does.
 */
export function latencySeconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

function inOrder(a: ReleaseCell, b: ReleaseCell): boolean {
  if (a.model !== b.model) return compareCodePoints(a.model, b.model) < 0;
  if (a.split !== b.split) return compareCodePoints(a.split, b.split) < 0;
  if (a.sampleId !== b.sampleId) return compareCodePoints(a.sampleId, b.sampleId) < 0;
  return compareCodePoints(a.config, b.config) < 0;
}

/** Cells sorted by (model, split, sample_id, config) in code-point order (returned as is when they already are). */
export function sortCells(cells: readonly ReleaseCell[]): readonly ReleaseCell[] {
  let sorted = true;
  for (let i = 1; i < cells.length && sorted; i++) sorted = inOrder(cells[i - 1] as ReleaseCell, cells[i] as ReleaseCell);
  if (sorted) return cells;
  const models = codePointRanks(cells.map((c) => c.model));
  const splits = codePointRanks(cells.map((c) => c.split));
  const ids = codePointRanks(cells.map((c) => c.sampleId));
  const configs = codePointRanks(cells.map((c) => c.config));
  const n = cells.length;
  const cols = [new Int32Array(n), new Int32Array(n), new Int32Array(n), new Int32Array(n)] as const;
  for (let i = 0; i < n; i++) {
    const c = cells[i] as ReleaseCell;
    cols[0][i] = models.get(c.model) as number;
    cols[1][i] = splits.get(c.split) as number;
    cols[2][i] = ids.get(c.sampleId) as number;
    cols[3][i] = configs.get(c.config) as number;
  }
  const order = sortedOrder(n, cols);
  const out = new Array<ReleaseCell>(n);
  for (let i = 0; i < n; i++) out[i] = cells[order[i] as number] as ReleaseCell;
  return out;
}

export function optionalColumnsOf(cells: readonly ReleaseCell[]): OptionalColumn[] {
  const has = { confidence: false, margin: false, latency_s: false, frame_indices: false, score: false };
  for (const c of cells) {
    if (c.confidence != null) has.confidence = true;
    if (c.margin != null) has.margin = true;
    if (c.latencyMs != null) has.latency_s = true;
    if (c.frameIndices != null) has.frame_indices = true;
    if (c.score != null) has.score = true;
  }
  return OPTIONAL_COLUMNS.filter((k) => has[k]);
}

/**
 * The text of labels/per_item.csv; `sorted` must come from {@link sortCells}.
 *
 * Lines are built directly (no per-row arrays) and the few distinct strings of the repeated
 * columns are escaped once each: this file is ~145k lines in the benchmark and its garbage was
 * the export's main cost.
 */
export function perItemCsv(sorted: readonly ReleaseCell[], configs: readonly ConfigSpec[], items: readonly ItemMeta[]): string {
  const specs = new Map(configs.map((c) => [c.key, c]));
  const answers = new Map<string, string>();
  for (const it of items) if (it.answer != null && LETTER.test(it.answer)) answers.set(`${it.split}\u0000${it.sampleId}`, it.answer);
  const optional = optionalColumnsOf(sorted);
  const cache = new Map<string, string>();
  const esc = (v: string | null): string => {
    if (v === null || v === '') return '';
    let e = cache.get(v);
    if (e === undefined) {
      e = csvField(v);
      if (cache.size < 100_000) cache.set(v, e);
    }
    return e;
  };
  // `<sample_id>,<model>,<split>,<config>,<frame_count>,<pixel_count>` differs per row only
  // by sample_id; the rest is cached per (model, split, config).
  const head = new Map<string, string>();
  const lines: string[] = new Array(sorted.length + 1);
  lines[0] = [...PER_ITEM_COLUMNS, ...optional].join(',');
  const num = (x: number | null): string => (x === null ? '' : formatNumber(x));
  for (let i = 0; i < sorted.length; i++) {
    const c = sorted[i] as ReleaseCell;
    const hk = `${c.model}\u0000${c.split}\u0000${c.config}`;
    let h = head.get(hk);
    if (h === undefined) {
      const spec = specs.get(c.config);
      h = `${esc(c.model)},${esc(c.split)},${esc(c.config)},${spec ? spec.frames : ''},${spec?.pixelCount ?? ''}`;
      head.set(hk, h);
    }
    const open = c.score != null && c.correct == null;
    // The cell's own ground truth, else its item's answer when that is a letter.
    const gt = open ? '' : (c.groundTruth ?? answers.get(`${c.split}\u0000${c.sampleId}`) ?? '');
    let line = `${csvField(c.sampleId)},${h},${open ? '' : esc(c.pred)},${esc(gt)},${c.correct == null ? '' : c.correct ? '1' : '0'},${esc(c.sourceTag)},${esc(c.protocolNote)}`;
    for (const col of optional) {
      switch (col) {
        case 'confidence':
          line += `,${num(c.confidence)}`;
          break;
        case 'margin':
          line += `,${num(c.margin)}`;
          break;
        case 'latency_s':
          line += `,${c.latencyMs == null ? '' : formatNumber(latencySeconds(c.latencyMs))}`;
          break;
        case 'frame_indices':
          line += `,${c.frameIndices == null ? '' : c.frameIndices.join(' ')}`;
          break;
        case 'score':
          line += `,${num(c.score)}`;
          break;
      }
    }
    lines[i + 1] = line;
  }
  return lines.join('\n') + '\n';
}

/**
 * The wide CSV of one (model, split): `sample_id` and one column per config in code-point
 * order holding `predicted_option` (empty where the cell is missing). `cells` are that
 * pair's cells, already sorted by sample_id then config.
 */
export function wideCsv(cells: readonly ReleaseCell[]): string {
  const configs = [...new Set(cells.map((c) => c.config))].sort(compareCodePoints);
  const col = new Map(configs.map((k, i) => [k, i + 1]));
  const rows: CsvCell[][] = [];
  let current: CsvCell[] | null = null;
  let currentId: string | null = null;
  for (const c of cells) {
    if (c.sampleId !== currentId) {
      currentId = c.sampleId;
      current = new Array<CsvCell>(configs.length + 1).fill('');
      current[0] = c.sampleId;
      rows.push(current);
    }
    const open = c.score != null && c.correct == null;
    (current as CsvCell[])[col.get(c.config) as number] = open ? '' : (c.pred ?? '');
  }
  return csvText(['sample_id', ...configs], rows);
}
