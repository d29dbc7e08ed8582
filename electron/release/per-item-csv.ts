/**
 * labels/per_item.csv and the per-(model, split) wide CSVs (release-format.md).
 */
import type { ConfigSpec, ItemMeta } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { csvField, formatNumber } from './format';
import type { ReleaseColumn, ReleaseGrid } from './release-data';

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

/**
 * csvField with a memo: the repeated columns (letters, source tags, notes, config names) take
 * a few distinct values, so each is escaped once instead of once per row. null/'' → ''.
 */
function csvFieldMemo(): (v: string | null | undefined) => string {
  const cache = new Map<string, string>();
  return (v) => {
    if (v === null || v === undefined || v === '') return '';
    let e = cache.get(v);
    if (e === undefined) {
      e = csvField(v);
      if (cache.size < 100_000) cache.set(v, e);
    }
    return e;
  };
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

/** An open-ended cell: a score and no correctness (its pred and ground truth are not written). */
export const isOpenCell = (c: ReleaseColumn, k: number): boolean => c.score !== null && !Number.isNaN(c.score[k]!) && c.correct[k]! < 0;

/**
 * The text of labels/per_item.csv: grids in (model, split) order, then rows, then columns —
 * already the release's (model, split, sample_id, config) order (response-scan.ts).
 *
 * Lines are built directly (no per-row arrays) and the few distinct strings of the repeated
 * columns are escaped once each; each grid's lines are joined into one chunk.
 */
export function perItemCsv(grids: readonly ReleaseGrid[], configs: readonly ConfigSpec[], items: readonly ItemMeta[]): string {
  const specs = new Map(configs.map((c) => [c.key, c]));
  const answers = new Map<string, string>();
  for (const it of items) if (it.answer != null && LETTER.test(it.answer)) answers.set(`${it.split}\u0000${it.sampleId}`, it.answer);
  const optional = optionalColumnsOf(grids);
  const esc = csvFieldMemo();
  const num = (a: Float64Array | null, k: number): string => {
    const x = a === null ? NaN : (a[k] as number);
    return Number.isNaN(x) ? '' : formatNumber(x);
  };
  const chunks: string[] = [[...PER_ITEM_COLUMNS, ...optional].join(',') + '\n'];
  for (const g of grids) {
    // `<model>,<split>,<config>,<frame_count>,<pixel_count>` is the same for a whole column.
    const heads = g.columns.map((c) => {
      const spec = specs.get(c.config);
      return `,${esc(g.model)},${esc(g.split)},${esc(c.config)},${spec ? spec.frames : ''},${spec?.pixelCount ?? ''},`;
    });
    const lines: string[] = [];
    for (let r = 0; r < g.sampleIds.length; r++) {
      const sampleId = g.sampleIds[r] as string;
      const id = csvField(sampleId);
      let answer: string | undefined | null = null;
      for (let j = 0; j < g.columns.length; j++) {
        const c = g.columns[j] as ReleaseColumn;
        const k = c.at[r] as number;
        if (k < 0) continue;
        const open = isOpenCell(c, k);
        const cor = c.correct[k] as number;
        // The cell's own ground truth, else its item's answer when that is a letter.
        let gt = '';
        if (!open) {
          const own = c.groundTruth[k];
          if (own != null) gt = own;
          else {
            if (answer === null) answer = answers.get(`${g.split}\u0000${sampleId}`);
            gt = answer ?? '';
          }
        }
        let line = `${id}${heads[j] as string}${open ? '' : esc(c.pred[k])},${esc(gt)},${cor < 0 ? '' : cor === 1 ? '1' : '0'},${esc(c.sourceTag[k])},${esc(c.protocolNote[k])}`;
        for (const col of optional) {
          switch (col) {
            case 'confidence':
              line += `,${num(c.confidence, k)}`;
              break;
            case 'margin':
              line += `,${num(c.margin, k)}`;
              break;
            case 'latency_s': {
              const ms = c.latencyMs === null ? NaN : (c.latencyMs[k] as number);
              line += `,${Number.isNaN(ms) ? '' : formatNumber(latencySeconds(ms))}`;
              break;
            }
            case 'frame_indices': {
              const f = c.frames?.[k] ?? null;
              line += `,${f === null ? '' : f.join(' ')}`;
              break;
            }
            case 'score':
              line += `,${num(c.score, k)}`;
              break;
          }
        }
        lines.push(line);
      }
    }
    if (lines.length) chunks.push(lines.join('\n') + '\n');
  }
  return chunks.join('');
}

/**
 * The wide CSV of one (model, split): `sample_id` and one column per config in code-point
 * order holding `predicted_option` (empty where the cell is missing or open-ended).
 */
export function wideCsv(g: ReleaseGrid): string {
  // Written line by line like per_item.csv (csvText would test every cell against a regex).
  const esc = csvFieldMemo();
  const lines = new Array<string>(g.sampleIds.length + 1);
  lines[0] = ['sample_id', ...g.columns.map((c) => c.config)].map(csvField).join(',');
  for (let r = 0; r < g.sampleIds.length; r++) {
    let line = csvField(g.sampleIds[r] as string);
    for (const c of g.columns) {
      const k = c.at[r] as number;
      line += k < 0 || isOpenCell(c, k) ? ',' : `,${esc(c.pred[k])}`;
    }
    lines[r + 1] = line;
  }
  return lines.join('\n') + '\n';
}
