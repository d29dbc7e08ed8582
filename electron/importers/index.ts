/**
 * The importers' entry point: `detectFormat` (extension + a sniff of the first bytes/lines)
 * and `readImport` (one or more ImportBatches, each applied by the store in one
 * transaction). Every bad input throws ImportError(file, line, field, reason).
 *
 * Formats and how they are recognised (`opts.format` overrides):
 * - `release`           a folder holding labels/per_item.csv, or a `.zip` of one
 * - `per-item-csv`      `.csv` whose header (quoted or not, any column order) has sample_id, model, split, config
 * - `wide-csv`          `.csv` whose header is sample_id + config keys (…_predictions_wide.csv)
 * - `lmms-eval`         `.jsonl` whose first record has doc_id and filtered_resps/resps, or a
 *                       pre-0.3 `<task>.json` holding {args, model_configs, logs}
 * - `vlmevalkit`        `.xlsx` / `.tsv`, or `.json` records with index + prediction
 * - `videomme-results`  `.json`: videos with `questions[]` + `response`, or flat question records with `response`
 * - `mlvu-results`      `.json` records (or `{res_list}`) with a prediction (pred/option) and question_type,
 *                       or MLVU's generation outputs `{video_name, Q, A, pred}` (open-ended)
 * - `videomme-parquet`  `.parquet` (Video-MME's dataset table) → item metadata
 * - `mlvu-meta`         `.json` records with candidates + question_type and no prediction → item metadata
 *                       (generation tasks: question_type + question + free-text answer, no candidates)
 * - `scalegrid-jsonl`   `.jsonl` rows of the release's own pipeline (`run_inference*.py`: sample_id +
 *                       correct_letter; `cascade.py`'s timed rows: config_key + wall_clock_s)
 * - `scalegrid-cache`   `cache_frames.py`'s `metadata.json` (video_id, extracted_fps, frame_count), or a
 *                       cache folder of `<video_id>/metadata.json` (no labels/per_item.csv)
 * - `avsd`              `.json` `{dialogs: [{image_id, dialog}]}` (a DSTC7/8 reference or a system's result) or
 *                       the multi-reference `{images, annotations}`
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { clipMessage } from '../../shared/api/clip';
import type { ImportBatch } from '../../shared/domain/types';
import type { ImportOptions } from './batch-builder';
import { recordStrings } from './csv-tokenize';
import { ImportError } from './errors';
import { GroundTruth, parseSplitMap } from './ground-truth';
import { readJsonSource } from './json-source';
import { readHead } from './line-reader';

export type { ImportOptions } from './batch-builder';
export { ImportError } from './errors';

/** The formats are listed once, with the options, in shared/api/import-options.ts. */
import { IMPORT_FORMATS as FORMATS, type ImportFormat } from '../../shared/api/import-options';
export { FORMATS, type ImportFormat };

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Classifies an already-parsed JSON document (shared by detection and the JSON readers). */
export function classifyJson(value: unknown): ImportFormat | null {
  if (isRecord(value) && Array.isArray(value.res_list)) return 'mlvu-results';
  // AVSD (DSTC7/DSTC8): the dialog files (reference or result) and the multi-reference file.
  if (isRecord(value) && (Array.isArray(value.dialogs) || (Array.isArray(value.images) && Array.isArray(value.annotations)))) return 'avsd';
  // lmms-eval before v0.3: `<task>.json` = {args, model_configs, logs, time}.
  if (isRecord(value) && Array.isArray(value.logs) && isRecord(value.args) && isRecord(value.model_configs)) return 'lmms-eval';
  if (isRecord(value) && isRecord(value.prediction) && isRecord(value.index)) return 'vlmevalkit';
  const first = Array.isArray(value) ? value.find(isRecord) : undefined;
  if (!first) return null;
  if (Array.isArray(first.questions)) return 'videomme-results';
  if ('prediction' in first && ('index' in first || 'question' in first)) return 'vlmevalkit';
  if ('response' in first && 'question_id' in first && 'video_id' in first) return 'videomme-results';
  if ('question_type' in first && ('pred' in first || 'option' in first || 'response' in first)) return 'mlvu-results';
  // MLVU's generation-inference output (sub-scene captioning / summary): {video_name, Q, A, pred}.
  if ('pred' in first && 'Q' in first && 'A' in first) return 'mlvu-results';
  if ('candidates' in first && 'question_type' in first) return 'mlvu-meta';
  // MLVU generation-task metadata has no candidates: a free-text answer per video question.
  if ('question_type' in first && 'question' in first && 'answer' in first && ('video' in first || 'video_name' in first)) return 'mlvu-meta';
  return null;
}

/** Whether a folder holds a `<name>/metadata.json` (a frame cache; the cache reader checks what it says). */
function hasCacheMetadata(dir: string): boolean {
  return readdirSync(dir, { withFileTypes: true }).some((e) => e.isDirectory() && existsSync(join(dir, e.name, 'metadata.json')));
}

async function detectFormatAs(path: string): Promise<ImportFormat> {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ImportError(path, 0, '', 'no such file or folder');
  }
  if (st.isDirectory()) {
    // A cache_frames.py --cache-dir: one <video_id>/metadata.json per video, and no release labels.
    if (!existsSync(join(path, 'labels', 'per_item.csv')) && hasCacheMetadata(path)) return 'scalegrid-cache';
    return 'release';
  }
  const ext = extname(path).toLowerCase();
  const head = await readHead(path, 8192);
  if (ext === '.zip' || (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04 && ext !== '.xlsx')) {
    return 'release';
  }
  if (ext === '.parquet' || head.subarray(0, 4).toString('latin1') === 'PAR1') return 'videomme-parquet';
  if (ext === '.xlsx' || ext === '.tsv') return 'vlmevalkit';
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  if (ext === '.csv') {
    // The header as a CSV record (it may be quoted); per_item.csv's columns may come in any order.
    const first = (text.split('\n')[0] ?? '').replace(/\r$/, '');
    let header: string[];
    try {
      header = recordStrings(Buffer.from(first, 'utf8'), { p: 0, line: 1, quote: -1 }, path);
    } catch {
      header = first.split(',');
    }
    const names = new Set(header.map((h) => h.trim()));
    if (['sample_id', 'model', 'split', 'config'].every((c) => names.has(c))) return 'per-item-csv';
    if (header[0] === 'sample_id') return 'wide-csv';
    throw new ImportError(path, 1, header[0] ?? '', 'unknown CSV: expected a per_item.csv or a *_predictions_wide.csv header');
  }
  if (ext === '.jsonl' || (ext !== '.json' && text.trimStart().startsWith('{') && text.includes('\n{'))) {
    const firstLine = text.split('\n')[0] ?? '';
    if (/"doc_id"\s*:/.test(firstLine) && /"(filtered_resps|resps)"\s*:/.test(firstLine)) return 'lmms-eval';
    // The release pipeline's rows (scalegrid-pipeline.ts, loaded only when such a file comes).
    const pipelineRow = /"sample_id"\s*:/.test(firstLine) && /"correct_letter"\s*:/.test(firstLine);
    const timedRow = /"config_key"\s*:/.test(firstLine) && /"wall_clock_s"\s*:/.test(firstLine);
    if (pipelineRow || timedRow) return 'scalegrid-jsonl';
    if (ext === '.jsonl') {
      throw new ImportError(
        path,
        1,
        '',
        "unknown JSONL: expected an lmms-eval --log_samples file (doc_id, filtered_resps) or the release pipeline's rows (sample_id, correct_letter; or config_key, wall_clock_s)",
      );
    }
  }
  if (ext === '.json') {
    const src = await readJsonSource(path);
    const f = classifyJson(src.value);
    if (f) return f;
    if (isRecord(src.value) && 'extracted_fps' in src.value && 'frame_count' in src.value && 'video_id' in src.value) return 'scalegrid-cache';
    if (isRecord(src.value) && 'cache_dir' in src.value && 'target_fps' in src.value && Array.isArray(src.value.results)) {
      throw new ImportError(path, 0, '', `a cache_frames.py manifest: import its cache folder (${String(src.value.cache_dir)}) or the metadata.json files in it`);
    }
    if (isRecord(src.value) && 'results' in src.value && 'config' in src.value) {
      throw new ImportError(path, 0, '', 'an lmms-eval results summary: import the *_samples_<task>.jsonl beside it');
    }
    if (isRecord(src.value) && 'method' in src.value && 'base_correct' in src.value && 'total' in src.value) {
      throw new ImportError(path, 0, '', 'a run_inference summary (no per-item rows): import the .jsonl beside it');
    }
    throw new ImportError(path, 0, '', 'unknown JSON layout (not Video-MME results, MLVU, VLMEvalKit records or AVSD dialogs)');
  }
  throw new ImportError(path, 0, '', `cannot tell the format of ${ext || 'this file'}; pass --format (${FORMATS.join(', ')})`);
}

/**
 * Every refusal names the file: a failure a reader did not turn into an ImportError itself (a
 * parser's stack overflow on 100k-deep JSON, a damaged parquet's thrift error, a cut zip)
 * becomes one here, at the two entry points every import passes (docs/security.md,
 * "Import limits").
 */
async function namingFile<T>(path: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof ImportError) throw e;
    const reason = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
    throw new ImportError(path, 0, '', `cannot read: ${clipMessage(reason)}`);
  }
}

export function detectFormat(path: string): Promise<ImportFormat> {
  return namingFile(path, () => detectFormatAs(path));
}

/** Reads one file or release folder into batches (one batch per source file read). */
export function readImport(path: string, opts: ImportOptions = {}): Promise<ImportBatch[]> {
  return namingFile(path, () => readImportAs(path, opts));
}

async function readImportAs(path: string, opts: ImportOptions): Promise<ImportBatch[]> {
  // A 0-byte file is a failed write or copy, never a result file (docs/formats.md).
  let size = -1;
  try {
    const st = statSync(path);
    if (st.isFile()) size = st.size;
  } catch {
    throw new ImportError(path, 0, '', 'no such file or folder');
  }
  if (size === 0) throw new ImportError(path, 0, '', 'empty file (0 bytes)');
  const format = (opts.format ?? (opts.columns !== undefined ? 'columns' : await detectFormat(path))) as ImportFormat;
  if (!FORMATS.includes(format)) {
    throw new ImportError(path, 0, 'format', `unknown format "${format}"; one of ${FORMATS.join(', ')}`);
  }
  // Each reader is loaded when a file of its format comes, like the CLI's commands: a CLI call
  // imports one format, and the others' modules (zod schemas, option parsers) cost ~10 ms to
  // evaluate at start.
  switch (format) {
    case 'per-item-csv':
      return [await (await import('./per-item-csv')).readPerItemCsv(path, opts)];
    case 'wide-csv':
      return [await (await import('./wide-csv')).readWideCsv(path, opts, await loadGroundTruth(opts))];
    case 'lmms-eval':
      return [await (await import('./lmms-eval')).readLmmsEval(path, opts)];
    case 'release':
      return [await (await import('./release-layout')).readRelease(path, opts)];
    case 'vlmevalkit':
      return [await (await import('./vlmevalkit')).readVlmEvalKit(path, opts)];
    case 'videomme-results':
      return [await (await import('./videomme-results')).readVideoMmeResults(path, opts)];
    case 'mlvu-results':
      return [await (await import('./mlvu')).readMlvuResults(path, opts)];
    case 'mlvu-meta':
      return [await (await import('./mlvu')).readMlvuMeta(path, opts)];
    case 'videomme-parquet':
      return [await (await import('./videomme-parquet')).readVideoMmeParquet(path, opts)];
    case 'scalegrid-jsonl':
      return [await (await import('./scalegrid-pipeline')).readScalegridPipeline(path, opts)];
    case 'scalegrid-cache':
      return [await (await import('./scalegrid-cache')).readScalegridCache(path, opts)];
    case 'columns':
      if (opts.columns === undefined) throw new ImportError(path, 0, 'columns', '--format columns needs --columns role=column,…');
      return [await (await import('./columns')).readColumns(path, { ...opts, columns: opts.columns })];
    case 'avsd':
      return [await (await import('./avsd')).readAvsd(path, opts)];
  }
}

/**
 * The ground-truth source of a wide CSV (any importable file with answers), or null. One
 * command reads many wide files against the same source: the last source read is kept.
 */
let lastGroundTruth: { key: string; gt: Promise<GroundTruth> } | null = null;

async function loadGroundTruth(opts: ImportOptions): Promise<GroundTruth | null> {
  const path = opts.groundTruth;
  if (!path) return null;
  let mapping: Map<string, string> | null = null;
  if (opts.groundTruthSplit !== undefined) {
    try {
      mapping = parseSplitMap(opts.groundTruthSplit);
    } catch (e) {
      throw new ImportError(path, 0, 'ground-truth-split', (e as Error).message);
    }
  }
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ImportError(path, 0, '', 'no such file or folder');
  }
  const key = JSON.stringify([path, st.mtimeMs, st.size, opts.groundTruthSplit ?? null]);
  if (lastGroundTruth?.key !== key) lastGroundTruth = { key, gt: readGroundTruth(path, mapping) };
  const pending = lastGroundTruth.gt;
  try {
    return await pending;
  } catch (e) {
    if (lastGroundTruth?.gt === pending) lastGroundTruth = null;
    throw e;
  }
}

async function readGroundTruth(path: string, mapping: Map<string, string> | null): Promise<GroundTruth> {
  const batches = await readImport(path, {}).catch(async (e: unknown) => {
    // Only answers are needed: a log without its results.json (unknown model/budget) still serves.
    if (e instanceof ImportError && (e.field === 'config' || e.field === 'model')) {
      return readImport(path, { config: 'textonly', model: 'ground-truth' });
    }
    throw e;
  });
  const gt = new GroundTruth(batches, path, mapping);
  if (gt.size === 0) throw new ImportError(path, 0, '', 'the ground-truth source holds no answers');
  return gt;
}
