/**
 * labels/per_item.csv and the per-(model, split) wide CSVs (release-format.md).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { compareCodePoints, csvText, formatNumber, type CsvCell } from './format';
import { codePointRanks, sortedOrder } from './rank';
import type { ReleaseCell } from './release-data';

export const PER_ITEM_COLUMNS = [
  'sample_id',
  'model',
  'split',
  'config',
  'frame_count',
  'pixel_count',
  'predicted_option',
  'ground_truth_option',
  'correct',
  'source_tag',
  'protocol_note',
] as const;

/**
 * Flipbook's optional columns, always in this order after the eleven. Rule: a column is
 * written iff at least one exported row has a value for it — so a project without
 * confidences exports exactly the release's eleven columns, and the same project always
 * gets the same header.
 */
export const OPTIONAL_COLUMNS = ['confidence', 'margin', 'latency_s', 'frame_indices', 'score'] as const;
export type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];

const LETTER = /^[A-H]$/;

/**
 * Seconds from milliseconds, rounded to the microsecond: `ms / 1000` printed in full would
 * not survive export → import (×1000) → export bit-for-bit; a value rounded to 6 decimals does.
 */
export function latencySeconds(ms: number): number {
  return Math.round(ms * 1000) / 1e6;
}

/** Cells sorted by (model, split, sample_id, config) in code-point order. */
export function sortCells(cells: readonly ReleaseCell[]): ReleaseCell[] {
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

/** The ground-truth letter of a cell: its own, else its item's answer when that is a letter. */
function groundTruthOf(cell: ReleaseCell, answers: Map<string, string>): string {
  if (cell.groundTruth != null) return cell.groundTruth;
  return answers.get(`${cell.split}\u0000${cell.sampleId}`) ?? '';
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

/** The text of labels/per_item.csv; `sorted` must come from {@link sortCells}. */
export function perItemCsv(sorted: readonly ReleaseCell[], configs: readonly ConfigSpec[], items: readonly ItemMeta[]): string {
  const specs = new Map(configs.map((c) => [c.key, c]));
  const answers = new Map<string, string>();
  for (const it of items) if (it.answer != null && LETTER.test(it.answer)) answers.set(`${it.split}\u0000${it.sampleId}`, it.answer);
  const optional = optionalColumnsOf(sorted);
  const rows: CsvCell[][] = new Array(sorted.length);
  for (let i = 0; i < sorted.length; i++) {
    const c = sorted[i] as ReleaseCell;
    const spec = specs.get(c.config);
    const open = c.score != null && c.correct == null;
    const row: CsvCell[] = [
      c.sampleId,
      c.model,
      c.split,
      c.config,
      spec ? spec.frames : '',
      spec?.pixelCount ?? '',
      open ? '' : (c.pred ?? ''),
      open ? '' : groundTruthOf(c, answers),
      c.correct == null ? '' : c.correct ? 1 : 0,
      c.sourceTag ?? '',
      c.protocolNote ?? '',
    ];
    for (const col of optional) {
      switch (col) {
        case 'confidence':
          row.push(c.confidence);
          break;
        case 'margin':
          row.push(c.margin);
          break;
        case 'latency_s':
          row.push(c.latencyMs == null ? '' : formatNumber(latencySeconds(c.latencyMs)));
          break;
        case 'frame_indices':
          row.push(c.frameIndices == null ? '' : c.frameIndices.join(' '));
          break;
        case 'score':
          row.push(c.score);
          break;
      }
    }
    rows[i] = row;
  }
  return csvText([...PER_ITEM_COLUMNS, ...optional], rows);
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
