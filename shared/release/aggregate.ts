/**
 * The release's objects computed from response matrices (docs/release-format.md): the aggregated
 * JSON of one (model, split), derived.csv rows, release_manifest cells and table2_metrics.json.
 * Percentages are ×100 and rounded like Python's round(x, 4), as the release's scripts do;
 * values are computed as the release's pandas code does (100 × (count / N)) so rounding of
 * near-halves matches too.
 */
import type { ResponseMatrix } from '../domain/types';
import { compareCodePoints } from '../engine/config';
import { sortedItemOrder } from '../engine/matrix';
import { type McqaMetrics, mcqaMetrics } from '../engine/mcqa';
import { openMetrics } from '../engine/open-ended';
import { trajectories } from '../engine/trajectories';
import { pyRound } from './py-round';

export { pyRound, roundHalfEven4 } from './py-round';

export type MatchedGridStatus = 'complete' | 'incomplete_matched_grid';

export interface AggregatedJson {
  n: number;
  configs: string[];
  accuracy_by_config: Record<string, number | null>;
  best_fixed: number | null;
  oracle: number | null;
  headroom: number | null;
  visual_confusion_rate: number | null;
  overwrite_rate: number | null;
  /** null when the project has no matched grid yet. */
  matched_grid_status: MatchedGridStatus | null;
  n_excluded: number;
}

export interface AggregatedOpenJson {
  n: number;
  configs: string[];
  metric: string;
  mean_by_config: Record<string, number | null>;
  best_fixed: number | null;
  oracle: number | null;
  headroom: number | null;
  /** The open-ended analogue of confusion: items with some a ≺ b and s(b) < s(a) − ε (docs/metrics.md §4). */
  visual_confusion_rate: number | null;
  /** Text overwrite is not defined for continuous scores. */
  overwrite_rate: null;
  regression_epsilon: number;
  matched_grid_status: MatchedGridStatus | null;
  n_excluded: number;
}

export interface AggregateOptions {
  matchedGrid: readonly string[] | null;
}

/** ×100 rounded to 4 decimals; null where the rate is undefined (no items). */
function pct(fraction: number): number | null {
  return Number.isFinite(fraction) ? pyRound(100 * fraction, 4) : null;
}

export function matchedGridStatus(m: ResponseMatrix, matchedGrid: readonly string[] | null): MatchedGridStatus | null {
  if (!matchedGrid || matchedGrid.length === 0) return null;
  const have = new Set(m.configs.map((c) => c.key));
  return matchedGrid.every((k) => have.has(k)) ? 'complete' : 'incomplete_matched_grid';
}

/**
 * `labels/aggregated/<model>_<split>.json` of an MCQA matrix (all of its configs). `metrics`:
 * the matrix's {@link mcqaMetrics} over all its configs when the caller already has them
 * (the release export takes them from the derived.csv pass: metricsFromTrajectories).
 */
export function aggregatedJson(m: ResponseMatrix, opts: AggregateOptions, metrics?: McqaMetrics): AggregatedJson {
  const mm = metrics ?? mcqaMetrics(m);
  const N = mm.n;
  const acc: Record<string, number | null> = {};
  for (const k of mm.configs) acc[k] = pct(mm.correctCounts[k]! / N);
  const bestCount = mm.bestFixed !== null ? mm.correctCounts[mm.bestFixed]! : Number.NaN;
  return {
    n: N,
    configs: mm.configs,
    accuracy_by_config: acc,
    best_fixed: pct(bestCount / N),
    oracle: pct(mm.counts.oracle / N),
    headroom: pct(mm.counts.oracle / N - bestCount / N),
    visual_confusion_rate: pct(mm.visualConfusionRate),
    // The release writes 0 (not null) for a grid without text only.
    overwrite_rate: pct(mm.textOverwriteRate ?? (N > 0 ? 0 : Number.NaN)),
    matched_grid_status: matchedGridStatus(m, opts.matchedGrid),
    n_excluded: mm.nExcluded,
  };
}

/** The aggregated JSON of an open-ended matrix (metric e.g. `token_f1`). */
export function aggregatedOpenJson(m: ResponseMatrix, opts: AggregateOptions & { metric: string; eps?: number }): AggregatedOpenJson {
  const om = openMetrics(m, null, opts.eps ?? 0.05);
  const mean: Record<string, number | null> = {};
  for (const k of om.configs) mean[k] = pct(om.mean[k]!);
  const best = om.bestFixed !== null ? om.mean[om.bestFixed]! : Number.NaN;
  return {
    n: om.n,
    configs: om.configs,
    metric: opts.metric,
    mean_by_config: mean,
    best_fixed: pct(best),
    oracle: pct(om.oracleMean),
    headroom: pct(om.oracleMean - best),
    visual_confusion_rate: pct(om.regressionRate),
    overwrite_rate: null,
    regression_epsilon: om.eps,
    matched_grid_status: matchedGridStatus(m, opts.matchedGrid),
    n_excluded: om.nExcluded,
  };
}

export const DERIVED_COLUMNS = [
  'sample_id',
  'model',
  'split',
  'is_visually_confused',
  'is_text_overwritten',
  'trajectory_class',
  'best_config',
  'matched_grid_best_config',
] as const;

export type DerivedRow = Record<(typeof DERIVED_COLUMNS)[number], string>;

/**
 * `labels/derived.csv` rows of one (model, split): one per item complete on the model's grid,
 * sorted by sample_id in code-point order, values as the CSV writes them.
 */
export function derivedRows(m: ResponseMatrix, matchedGrid: readonly string[] | null): DerivedRow[] {
  const t = trajectories(m, { matchedGrid });
  const out: DerivedRow[] = [];
  for (const i of sortedItemOrder(m)) {
    const tr = t[i]!;
    if (!tr.complete) continue;
    out.push({
      sample_id: tr.sampleId,
      model: m.model,
      split: m.split,
      is_visually_confused: tr.isVisuallyConfused ? '1' : '0',
      is_text_overwritten: tr.isTextOverwritten ? '1' : '0',
      trajectory_class: tr.trajectoryClass ?? '',
      best_config: tr.bestConfig,
      matched_grid_best_config: tr.matchedGridBestConfig ?? '',
    });
  }
  return out;
}

export interface ManifestCell {
  model: string;
  split: string;
  config: string;
  total: number;
  correct: number;
  source_tag: string;
  protocol_note: string;
}

export type ProvenanceLookup = (config: string) => { sourceTag: string | null; protocolNote: string | null } | null | undefined;

/**
 * release_manifest.json `cells` of one (model, split), in config order: `total` = items with an
 * outcome in that config, `correct` = those correct (open-ended: the summed score is not a count,
 * so `correct` is the number of items with score 1).
 */
export function manifestCells(m: ResponseMatrix, lookup?: ProvenanceLookup): ManifestCell[] {
  const counts = new Int32Array(2);
  return m.configs.map((c, col) => {
    countColumn(m, col, counts);
    const p = lookup?.(c.key);
    return {
      model: m.model,
      split: m.split,
      config: c.key,
      total: counts[0]!,
      correct: counts[1]!,
      source_tag: p?.sourceTag ?? '',
      protocol_note: p?.protocolNote ?? '',
    };
  });
}

/**
 * [total, correct] of one column into `out`. A function of its own whose code after the loop
 * needs no type feedback, so its optimised loop does not deoptimise on every column (cold JIT).
 */
function countColumn(m: ResponseMatrix, col: number, out: Int32Array): void {
  const C = m.configs.length;
  const n = m.itemIds.length;
  let total = 0;
  let correct = 0;
  // The array read once, not per cell (a matrix may fill its arrays on first read: the export's).
  if (m.kind === 'mcqa') {
    const y = m.correct;
    for (let i = 0; i < n; i++) {
      const v = y[i * C + col]!;
      if (v === -1) continue;
      total++;
      correct += v;
    }
  } else {
    const score = m.score;
    for (let i = 0; i < n; i++) {
      const s = score[i * C + col]!;
      if (Number.isNaN(s)) continue;
      total++;
      if (s === 1) correct++;
    }
  }
  out[0] = total;
  out[1] = correct;
}

/**
 * table2_metrics.json: `{split: {model: aggregated object}}`. Splits follow `splitOrder` where
 * given (the release lists V1_medium, V1_short, V2_medium, MLVU), others after it in code-point
 * order; models in code-point order.
 */
export function table2<T>(entries: readonly { model: string; split: string; json: T }[], splitOrder: readonly string[] = []): Record<string, Record<string, T>> {
  const splits = [...new Set(entries.map((e) => e.split))].sort((a, b) => {
    const ia = splitOrder.indexOf(a);
    const ib = splitOrder.indexOf(b);
    if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
    return compareCodePoints(a, b);
  });
  const out: Record<string, Record<string, T>> = {};
  for (const s of splits) {
    const inner: Record<string, T> = {};
    const rows = entries.filter((e) => e.split === s).sort((a, b) => compareCodePoints(a.model, b.model));
    for (const r of rows) {
      if (Object.prototype.hasOwnProperty.call(inner, r.model)) throw new Error(`table2: ${r.model} / ${s} given twice`);
      inner[r.model] = r.json;
    }
    out[s] = inner;
  }
  return out;
}
