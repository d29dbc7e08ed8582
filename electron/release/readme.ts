/**
 * The generated README.md of an export: contents, counts, licence note, the one date line
 * (the only bytes that differ between two exports of the same project), and why Flipbook's
 * confusion figure differs from the release's on mixed-resolution grids.
 */

export interface ReadmeFacts {
  date: Date;
  cells: number;
  derivedRows: number;
  items: number;
  models: string[];
  splits: string[];
  configs: string[];
  pairs: number;
  excluded: number;
  matchedGrid: string[];
  optionalColumns: string[];
  pathwayRows: number;
  spanRows: number;
  includeText: boolean;
  /** (model, split) grids whose configs span more than one pixel budget, with Flipbook's confusion rate. */
  mixedResolution: { model: string; split: string; configs: number; visualConfusionRate: number | null }[];
}

/** The line that carries the export date; tests compare everything else byte for byte. */
export const README_DATE_PREFIX = 'Exported by Flipbook on ';

export function readmeText(f: ReadmeFacts): string {
  const L: string[] = [];
  L.push('# Flipbook release export', '');
  L.push(`${README_DATE_PREFIX}${f.date.toISOString().slice(0, 10)}.`, '');
  L.push(
    'This folder has the layout of the public `video-mme-scalegrid` release (*Stable Curves, Unstable Items*):',
    "the release's own reproduction scripts read `labels/`; Flipbook's annotations are in `annotations/`.",
    '',
  );
  L.push('## Contents', '');
  L.push('| path | holds |', '|---|---|');
  L.push('| `labels/per_item.csv` | one row per (sample_id, model, split, config), sorted by (model, split, sample_id, config) |');
  L.push('| `labels/derived.csv` | one row per (sample_id, model, split) complete on its grid: flags, trajectory class, best configs |');
  L.push('| `labels/aggregated/<model>_<split>.json` | metrics of one (model, split), percentages rounded to 4 decimals |');
  L.push('| `labels/aggregated/<model>_<split>_predictions_wide.csv` | predicted option per config (columns in code-point order) |');
  L.push('| `labels/aggregated/table2_metrics.json` | `{split: {model: metrics}}` |');
  L.push('| `labels/aggregated/release_manifest.json` | per-cell totals and correct counts; grids that came from one older source under `wide_sources` |');
  if (f.includeText) {
    L.push("| `labels/items.csv` | benchmark question, options (JSON array), answer, metadata and a generation item's context (dialogue history) per (split, sample_id) |");
    L.push('| `labels/generations.csv` | the text each config generated for an open-ended item (written when there is any) |');
  }
  L.push('| `labels/aggregated/protocols.json` | the other protocols against the main grid, iso-compute groups |');
  L.push('| `annotations/codebook.json` | the evidence-pathway codebook used |');
  L.push('| `annotations/pathways.csv` | one row per (sample_id, model, split, annotator) |');
  L.push('| `annotations/evidence_spans.csv` | one row per marked evidence span |');
  L.push('| `annotations/events.jsonl` | the annotation event log (every edit, undo and redo), one JSON object per line: what makes a merge lossless |');
  L.push('| `provenance/configs.json` | every config: frames, pixels, sampling, pipeline |');
  L.push(
    "| `provenance/videos.csv` | each item's video id, video file name and duration (no benchmark text): a project importing this release finds the videos under its own media root |",
  );
  L.push('');
  L.push('## Counts', '');
  L.push(`- ${f.cells} response cells (per_item.csv rows) over ${f.items} items`);
  L.push(`- ${f.models.length} models: ${f.models.join(', ') || '—'}`);
  L.push(`- ${f.splits.length} splits: ${f.splits.join(', ') || '—'}`);
  L.push(`- ${f.configs.length} configs: ${f.configs.join(', ') || '—'}`);
  L.push(`- ${f.pairs} (model, split) grids; ${f.derivedRows} derived rows; ${f.excluded} item rows excluded for a missing cell`);
  L.push(`- matched grid: ${f.matchedGrid.length ? f.matchedGrid.join(', ') : '(none set)'}`);
  L.push(`- ${f.pathwayRows} pathway annotations, ${f.spanRows} evidence spans`);
  L.push('');
  L.push('## Columns Flipbook adds', '');
  L.push(
    "`per_item.csv` has the release's eleven columns; after them Flipbook writes, in the order",
    '`confidence, margin, latency_s, frame_indices, score`, each optional column that at least one row of',
    'the export has a value for (here: ' + (f.optionalColumns.length ? f.optionalColumns.join(', ') : 'none') + ').',
    '`latency_s` is rounded to the microsecond; `frame_indices` are space-separated. The aggregated JSONs add',
    '`n_excluded` (items missing a cell of the grid). Readers ignore columns and fields they do not know.',
    '',
  );
  L.push('## Visual confusion on mixed-resolution grids', '');
  L.push(
    'Flipbook counts an item as visually confused only when it is correct at a lower budget and wrong at a',
    'higher one under dominance: fewer-or-equal frames AND fewer-or-equal pixels per frame. Iso-compute',
    'pairs (e.g. 32 frames at high resolution vs 128 at low) are not an ordering and are never counted as',
    "confusion. On the release's one mixed-resolution grid (Qwen2.5-VL-7B, V1_short, 11 configs) the",
    "release reports 30.4071; Flipbook's figure there is lower. Single-resolution grids agree exactly.",
  );
  if (f.mixedResolution.length) {
    L.push('', 'Mixed-resolution grids in this export:', '');
    for (const m of f.mixedResolution) {
      const rate = m.visualConfusionRate == null ? 'n/a' : m.visualConfusionRate.toFixed(4);
      L.push(`- ${m.model} ${m.split} (${m.configs} configs): visual_confusion_rate ${rate}`);
    }
  }
  L.push('');
  L.push('## Licence', '');
  L.push(
    '- Labels and annotations: CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). Attribute the',
    '  `video-mme-scalegrid` release when the labels derive from it.',
    '- Videos are not redistributed: obtain Video-MME / MLVU under their own licences.',
    f.includeText
      ? "- This export INCLUDES benchmark question text (`--include-text`, `labels/items.csv`): check the benchmark's licence before sharing it."
      : "- Benchmark question text, options and answers are omitted (Video-MME and MLVU forbid redistribution); `ground_truth_option` is a letter. Export with `--include-text` to add them, or import the benchmark's own question file (the Video-MME parquet, the MLVU metadata JSON) into the project that imports this release.",
    '',
  );
  return L.join('\n');
}
