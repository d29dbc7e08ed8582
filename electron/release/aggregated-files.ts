/**
 * labels/derived.csv and labels/aggregated/* (docs/release-format.md). The numbers come from the
 * engine (shared/release/aggregate.ts); this file only arranges them into the release's files
 * and prints them as the release does.
 */
import type { ResponseMatrix } from '../../shared/domain/types';
import { gridScore, scoreSourceOf } from '../../shared/domain/score';
import { metricsFromTrajectories } from '../../shared/engine/mcqa';
import { trajectoryColumns } from '../../shared/engine/trajectories';
import { aggregatedJson, aggregatedOpenJson, manifestCells, table2, type AggregatedJson, type AggregatedOpenJson, type ManifestCell } from '../../shared/release/aggregate';
import { DERIVED_HEADER, derivedCsvBytes } from './derived-csv';
import { encodedIds } from './byte-lines';
import { compareCodePoints, compareKeys, JsonFloat, jsonText, type JsonValue } from './format';
import { wideCsvBytes } from './per-item-csv';
import type { ReleaseColumn, ReleaseData, ReleaseGrid, StringTable } from './release-data';
import type { ReleaseFile } from './zip';
import { protocolsJson } from './protocol-files';

/** The release's table2_metrics.json lists its splits in this order; others follow in code-point order. */
export const RELEASE_SPLIT_ORDER = ['V1_medium', 'V1_short', 'V2_medium', 'MLVU'];

/**
 * The metric name of an open-ended grid's aggregated JSON: the score its cells hold, as their
 * `score: <source>` notes name it (shared/domain/score.ts), `token_f1` (the §4 default) when
 * none does. A grid of judge scores is never labelled Token-F1.
 */
function openMetricOf(grid: ReleaseGrid): string {
  const sources: string[] = [];
  for (const c of grid.columns) {
    for (const note of c.protocolNote.dict) {
      const s = scoreSourceOf(note);
      if (s !== null) sources.push(s);
    }
  }
  return gridScore('open', sources);
}

const float = (x: number | null): JsonValue => (x === null ? null : new JsonFloat(x));

function floatMap(m: Record<string, number | null>, order: readonly string[]): JsonValue {
  const out: { [k: string]: JsonValue } = {};
  for (const k of order) out[k] = float(m[k] ?? null);
  return out;
}

/** The aggregated object in the release's key order, floats printed as Python floats. */
export function aggregatedValue(a: AggregatedJson | AggregatedOpenJson): JsonValue {
  if ('metric' in a) {
    return {
      n: a.n,
      configs: a.configs,
      metric: a.metric,
      mean_by_config: floatMap(a.mean_by_config, a.configs),
      best_fixed: float(a.best_fixed),
      oracle: float(a.oracle),
      headroom: float(a.headroom),
      visual_confusion_rate: float(a.visual_confusion_rate),
      overwrite_rate: null,
      regression_epsilon: new JsonFloat(a.regression_epsilon),
      matched_grid_status: a.matched_grid_status,
      n_excluded: a.n_excluded,
    };
  }
  return {
    n: a.n,
    configs: a.configs,
    accuracy_by_config: floatMap(a.accuracy_by_config, a.configs),
    best_fixed: float(a.best_fixed),
    oracle: float(a.oracle),
    headroom: float(a.headroom),
    visual_confusion_rate: float(a.visual_confusion_rate),
    overwrite_rate: float(a.overwrite_rate),
    matched_grid_status: a.matched_grid_status,
    n_excluded: a.n_excluded,
  };
}

/** Whether a grid's visual configs span more than one pixel budget (dominance ≠ config order there). */
export function isMixedResolution(m: ResponseMatrix): boolean {
  const ppf = new Set(m.configs.filter((c) => c.frames > 0).map((c) => c.pixelCount));
  return ppf.size > 1;
}

/**
 * Occurrences of each dictionary index of a string table. A column's cells mostly share one
 * source tag and one protocol note (or none): with at most one value besides null, a builtin
 * search tells whether every cell holds the first cell's index, and the count is then the
 * cell count, without a counting pass over every cell in code V8 has not optimised yet.
 */
function indexCounts(t: StringTable): Int32Array {
  const out = new Int32Array(t.dict.length);
  const n = t.idx.length;
  if (n === 0) return out;
  const first = t.idx[0]!;
  if (t.dict.length <= 2 && t.idx.indexOf(1 - first) < 0) out[first] = n;
  else countIndices(t.idx, out);
  return out;
}

/** Its own function returning right after the loop: no deopt there on each call when cold. */
function countIndices(idx: StringTable['idx'], out: Int32Array): void {
  for (let k = 0; k < idx.length; k++) out[idx[k]!]!++;
}

/** The most common value of a table from its per-index counts, null counting as '' (ties → code-point first); '' when none. */
function modeOf(t: StringTable, perIndex: Int32Array): string {
  // Merged by value: null and '' are one.
  const counts = new Map<string, number>();
  for (let i = 0; i < perIndex.length; i++) {
    if (perIndex[i] === 0) continue;
    const v = t.dict[i] ?? '';
    counts.set(v, (counts.get(v) ?? 0) + perIndex[i]!);
  }
  let best = '';
  let bestN = 0;
  for (const [v, n] of counts) {
    if (n > bestN || (n === bestN && compareCodePoints(v, best) < 0)) {
      best = v;
      bestN = n;
    }
  }
  return best;
}

/** A column's source tags and protocol notes, counted per dictionary index (once per export). */
interface ColumnProvenance {
  column: ReleaseColumn;
  tags: Int32Array;
  notes: Int32Array;
}

function columnProvenance(column: ReleaseColumn): ColumnProvenance {
  return { column, tags: indexCounts(column.sourceTag), notes: indexCounts(column.protocolNote) };
}

/** A column's most common source tag and protocol note. */
function provenanceOf(p: ColumnProvenance): { sourceTag: string; protocolNote: string } {
  return { sourceTag: modeOf(p.column.sourceTag, p.tags), protocolNote: modeOf(p.column.protocolNote, p.notes) };
}

/**
 * The one source tag and protocol note every cell of a grid carries, or null when the cells
 * differ (null and '' count as one value).
 */
function soleProvenance(columns: Iterable<ColumnProvenance>): { sourceTag: string; protocolNote: string } | null {
  const used = (t: StringTable, n: Int32Array): Set<string> => {
    const vals = new Set<string>();
    for (let i = 0; i < n.length; i++) if (n[i]! > 0) vals.add(t.dict[i] ?? '');
    return vals;
  };
  let out: { sourceTag: string; protocolNote: string } | null = null;
  for (const p of columns) {
    const ts = used(p.column.sourceTag, p.tags);
    const ns = used(p.column.protocolNote, p.notes);
    if (ts.size !== 1 || ns.size !== 1) return null;
    const here = { sourceTag: [...ts][0]!, protocolNote: [...ns][0]! };
    if (out && (out.sourceTag !== here.sourceTag || out.protocolNote !== here.protocolNote)) return null;
    out = here;
  }
  return out;
}

/**
 * A grid whose cells all carry one source tag naming no config (no `:<config>` suffix) and no
 * protocol note came as one block from an older per-item or wide source: the manifest lists it
 * under `wide_sources`, not cell by cell (docs/release-format.md "release_manifest.json").
 */
function wideSourceTag(grid: ReleaseGrid, columns: Iterable<ColumnProvenance>): string | null {
  const p = soleProvenance(columns);
  if (!p || p.sourceTag === '' || p.protocolNote !== '') return null;
  if (grid.columns.some((c) => p.sourceTag.endsWith(`:${c.config}`))) return null;
  return p.sourceTag;
}

export interface AggregatedFiles {
  /** Text files, and the wide CSVs as bytes. */
  files: ({ path: string; text: string } | ReleaseFile)[];
  derivedRows: number;
  grids: number;
  excluded: number;
  mixedResolution: { model: string; split: string; configs: number; visualConfusionRate: number | null }[];
}

export function aggregatedFiles(data: ReleaseData): AggregatedFiles {
  const grids = new Map<string, ReleaseGrid>(data.mainGrids.map((g) => [`${g.model}\u0000${g.split}`, g]));

  const matrices = data.matrices.slice().sort((a, b) => compareKeys([a.model, a.split], [b.model, b.split]));
  const mg = data.matchedGrid.length ? data.matchedGrid : null;
  const files: ({ path: string; text: string } | ReleaseFile)[] = [];
  const derived: Uint8Array[] = [new TextEncoder().encode(DERIVED_HEADER)];
  let derivedCount = 0;
  const entries: { model: string; split: string; json: JsonValue }[] = [];
  const cellsOut: ManifestCell[] = [];
  const wideSources: JsonValue[] = [];
  const mixed: AggregatedFiles['mixedResolution'] = [];
  let excluded = 0;

  for (const m of matrices) {
    const name = `${m.model}_${m.split}`;
    // data.matrices are built from data.mainGrids, one per grid.
    const grid = grids.get(`${m.model}\u0000${m.split}`) as ReleaseGrid;
    // An MCQA grid's aggregated numbers come from the pass that classifies its rows for
    // derived.csv (one walk over the grid's cells instead of two).
    const t = m.kind === 'mcqa' ? trajectoryColumns(m, { matchedGrid: mg }) : null;
    const agg = t === null ? aggregatedOpenJson(m, { matchedGrid: mg, metric: openMetricOf(grid) }) : aggregatedJson(m, { matchedGrid: mg }, metricsFromTrajectories(t));
    excluded += agg.n_excluded;
    const value = aggregatedValue(agg);
    entries.push({ model: m.model, split: m.split, json: value });
    files.push({ path: `labels/aggregated/${name}.json`, text: jsonText(value) });
    if (isMixedResolution(m)) mixed.push({ model: m.model, split: m.split, configs: m.configs.length, visualConfusionRate: agg.visual_confusion_rate });

    const widePath = `labels/aggregated/${name}_predictions_wide.csv`;
    files.push({ path: widePath, data: wideCsvBytes(grid) });

    if (t !== null) {
      // The grid's rows are the matrix's, in sample_id order (the store's column scan): its ids as
      // per_item.csv encoded them serve derived.csv too.
      const lines = derivedCsvBytes(m, mg, { t, sortedIds: encodedIds(grid) });
      derived.push(lines.data);
      derivedCount += lines.rows;
    }

    // Each column's provenance is counted once, for the wide-source check and its manifest cell.
    const provenance = new Map(grid.columns.map((c) => [c.config, columnProvenance(c)]));
    const wideTag = wideSourceTag(grid, provenance.values());
    // The matrix's configs are the grid's columns (gridMatrices), so each key has its provenance.
    if (wideTag === null) cellsOut.push(...manifestCells(m, (key) => provenanceOf(provenance.get(key) as ColumnProvenance)));
    else {
      // A wide source's entry holds counts only (docs/release-format.md "release_manifest.json").
      const byConfig: { [k: string]: JsonValue } = {};
      for (const c of manifestCells(m)) byConfig[c.config] = { total: c.total, correct: c.correct };
      wideSources.push({ source_tag: wideTag, cells: byConfig });
    }
  }

  files.push({ path: 'labels/derived.csv', data: Buffer.concat(derived) });
  files.push({ path: 'labels/aggregated/table2_metrics.json', text: jsonText(table2(entries, RELEASE_SPLIT_ORDER)) });
  const manifest: JsonValue = {
    cells: cellsOut.map((c) => ({
      model: c.model,
      split: c.split,
      config: c.config,
      total: c.total,
      correct: c.correct,
      source_tag: c.source_tag,
      protocol_note: c.protocol_note,
    })),
    wide_sources: wideSources,
  };
  files.push({ path: 'labels/aggregated/release_manifest.json', text: jsonText(manifest) });
  files.push({ path: 'labels/aggregated/protocols.json', text: jsonText(protocolsJson(data.mainProtocol, matrices, data.protocolMatrices)) });
  return { files, derivedRows: derivedCount, grids: matrices.length, excluded, mixedResolution: mixed };
}
