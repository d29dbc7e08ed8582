import { basename } from 'node:path';
import type * as z from 'zod';
import type { ConfigSpec, ImportBatch, ItemMeta, ResponseRow, RunInfo } from '../../shared/domain/types';
import { ImportError } from './errors';
import { checkId, checkText } from './text-input';

/** Options every importer accepts (the CLI's --format/--model/--split/--config/--ground-truth). */
export interface ImportOptions {
  format?: string;
  model?: string;
  split?: string;
  config?: string;
  groundTruth?: string;
  /** Source split → target split (template) rules for --ground-truth (ground-truth.ts). */
  groundTruthSplit?: string;
  /** Every file of the same import (a reader whose file refers to another one, as an AVSD result to its reference, finds it here). */
  companions?: readonly string[];
  /** `role=column,…` for the generic table reader (columns.ts). */
  columns?: string;
}

/** A response with every optional column unset; importers override what the file gives. */
export function emptyResponse(model: string, split: string, sampleId: string, config: string, line: number): ResponseRow {
  return {
    model,
    split,
    sampleId,
    config,
    pred: null,
    correct: null,
    score: null,
    groundTruth: null,
    confidence: null,
    margin: null,
    latencyMs: null,
    frameIndices: null,
    sourceTag: null,
    protocolNote: null,
    line,
  };
}

/**
 * The fields a repeated key must agree on, the answer before the outcome: most formats derive
 * `correct` from the prediction and the answer, so a repeat with another answer is named by the
 * answer's column, which the file holds, rather than by an outcome it may not hold at all.
 */
const COMPARED: (keyof ResponseRow)[] = ['pred', 'groundTruth', 'correct', 'score', 'confidence', 'margin', 'latencyMs'];

/**
 * Collects the rows of one file and rejects a second row for the same key that says
 * something different (the same row twice is tolerated and reported as a warning).
 */
export class BatchBuilder {
  readonly responses: ResponseRow[] = [];
  readonly items = new Map<string, ItemMeta & { line: number }>();
  readonly configs = new Map<string, ConfigSpec>();
  readonly warnings: string[] = [];
  /** (model, split, config) → sampleId → row index; nested so no per-row key string is built. */
  private readonly byCell = new Map<string, Map<string, Map<string, Map<string, number>>>>();
  private last: { model: string; split: string; config: string; rows: Map<string, number> } | null = null;
  private duplicates = 0;

  constructor(readonly file: string) {}

  /** The column name to report for a ResponseRow field (importers may rename). */
  fieldName: (field: keyof ResponseRow) => string = (f) => String(f);

  private rowsOf(model: string, split: string, config: string): Map<string, number> {
    const last = this.last;
    // Files are usually grouped by (model, split, config): reuse the previous lookup.
    if (last && last.model === model && last.split === split && last.config === config) return last.rows;
    let bySplit = this.byCell.get(model);
    if (!bySplit) this.byCell.set(model, (bySplit = new Map()));
    let byConfig = bySplit.get(split);
    if (!byConfig) bySplit.set(split, (byConfig = new Map()));
    let rows = byConfig.get(config);
    if (!rows) byConfig.set(config, (rows = new Map()));
    this.last = { model, split, config, rows };
    return rows;
  }

  addResponse(row: ResponseRow): void {
    const last = this.last;
    if (!last || last.model !== row.model || last.split !== row.split || last.config !== row.config) {
      // Names are checked when the (model, split, config) changes, not per row.
      checkId(row.model, this.file, row.line, this.fieldName('model'));
      checkId(row.split, this.file, row.line, this.fieldName('split'));
      checkId(row.config, this.file, row.line, this.fieldName('config'));
    }
    checkId(row.sampleId, this.file, row.line, this.fieldName('sampleId'));
    checkText(row.pred, this.file, row.line, this.fieldName('pred'));
    checkText(row.groundTruth, this.file, row.line, this.fieldName('groundTruth'));
    checkText(row.sourceTag, this.file, row.line, this.fieldName('sourceTag'));
    checkText(row.protocolNote, this.file, row.line, this.fieldName('protocolNote'));
    if (row.frameIndices !== null && row.frameIndices.length > 0 && (row.config === 'textonly' || row.config.startsWith('textonly@'))) {
      throw new ImportError(this.file, row.line, this.fieldName('frameIndices'), `config ${row.config} sees no frames but the row lists ${row.frameIndices.length} frame indices`);
    }
    const rows = this.rowsOf(row.model, row.split, row.config);
    const prev = rows.get(row.sampleId);
    if (prev === undefined) {
      rows.set(row.sampleId, this.responses.length);
      this.responses.push(row);
      return;
    }
    const first = this.responses[prev] as ResponseRow;
    for (const f of COMPARED) {
      if (first[f] !== row[f]) {
        throw new ImportError(
          this.file,
          row.line,
          this.fieldName(f),
          `duplicate key (model ${row.model}, split ${row.split}, sample ${row.sampleId}, config ${row.config}) ` +
            `with a different value: ${JSON.stringify(row[f])} here, ${JSON.stringify(first[f])} at line ${first.line}`,
        );
      }
    }
    this.duplicates += 1;
  }

  /** Merges item metadata; a field that contradicts an earlier row of the same item is rejected. */
  addItem(item: ItemMeta, line: number, fieldNames: Partial<Record<keyof ItemMeta, string>> = {}): void {
    const name = (k: keyof ItemMeta): string => fieldNames[k] ?? k;
    checkId(item.split, this.file, line, name('split'));
    checkId(item.sampleId, this.file, line, name('sampleId'));
    if (item.videoId != null) checkId(item.videoId, this.file, line, name('videoId'));
    if (item.videoFile != null) checkId(item.videoFile, this.file, line, name('videoFile'));
    for (const k of ['question', 'answer', 'taskType', 'durationBucket', 'domain', 'subCategory'] as const) checkText(item[k], this.file, line, name(k));
    for (const k of ['options', 'references'] as const) for (const t of item[k] ?? []) checkText(t, this.file, line, name(k));
    const c = item.context;
    if (c) for (const t of [c.caption, c.summary, c.prompt, ...c.history.flatMap((h) => [h.question, h.answer])]) checkText(t, this.file, line, name('context'));
    const key = `${item.split}\u0000${item.sampleId}`;
    const prev = this.items.get(key);
    if (!prev) {
      this.items.set(key, { ...item, line });
      return;
    }
    for (const [k, v] of Object.entries(item) as [keyof ItemMeta, unknown][]) {
      if (v == null) continue;
      const old = prev[k];
      if (old == null) {
        (prev as unknown as Record<string, unknown>)[k] = v;
      } else if (JSON.stringify(old) !== JSON.stringify(v)) {
        throw new ImportError(
          this.file,
          line,
          fieldNames[k] ?? k,
          `duplicate item (split ${item.split}, sample ${item.sampleId}) with a different ${k}: ` + `${JSON.stringify(v)} here, ${JSON.stringify(old)} at line ${prev.line}`,
        );
      }
    }
  }

  addConfig(spec: ConfigSpec): void {
    if (!this.configs.has(spec.key)) this.configs.set(spec.key, spec);
  }

  finish(run: RunInfo): ImportBatch {
    if (this.duplicates > 0) {
      this.warnings.push(`${basename(this.file)}: ${this.duplicates} repeated identical row(s) ignored`);
    }
    const items: ItemMeta[] = [];
    for (const { line: _line, ...meta } of this.items.values()) items.push(meta);
    return {
      run,
      items,
      responses: this.responses,
      configs: [...this.configs.values()],
      warnings: this.warnings,
    };
  }
}

/** Parses `value` with `schema` or throws an ImportError naming the first bad field. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, file: string, line: number, prefix = ''): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const path = issue ? issue.path.map(String).join('.') : '';
  const field = prefix && path ? `${prefix}.${path}` : prefix || path;
  throw new ImportError(file, line, field, issue ? issue.message : 'invalid value');
}

/** Split name with `{duration}` replaced (e.g. `--split V1_{duration}` → `V1_short`). */
export function expandSplit(template: string, duration: string | null | undefined): string {
  if (!template.includes('{duration}')) return template;
  return template.replaceAll('{duration}', duration ?? 'unknown');
}

/**
 * `expandSplit` for a row: a `{duration}` template needs the row's duration bucket, and a row
 * without one is an ImportError naming the field — never a split silently named `…_unknown`.
 */
export function splitFor(template: string, duration: string | null | undefined, file: string, line: number, field: string): string {
  if (template.includes('{duration}') && (duration == null || duration.trim() === '')) {
    throw new ImportError(file, line, field, `--split ${template} needs a duration bucket (short/medium/long) and this row has none`);
  }
  return expandSplit(template, duration);
}
