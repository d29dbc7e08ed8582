/**
 * The per-config JSONL that the release's own pipeline writes (video-mme-scalegrid `code/`,
 * docs/formats.md "The release's pipeline files"): `run_inference.py` (Qwen2.5-VL / Qwen3-VL,
 * option probabilities), `run_inference_internvl.py` (generated text, `input_size`) and
 * `run_inference_llava.py` (option probabilities), and the timed rows `cascade.py` reads
 * (`config_key`, `wall_clock_s`, `base_margin`, `gpu_mem_gb`).
 *
 * - One row per sample: `final_pred`/`final_correct` (the scripts' answer; `base_*` when there
 *   is no `final_*`), the answer `correct_letter`; the file's own outcome is kept, and a
 *   `final_correct` that contradicts the letters is refused.
 * - `base_option_probs` → confidence (the chosen letter's probability) and `base_margin` →
 *   margin (top-1 minus top-2, the cascade's signal); an empty probability map (generation
 *   mode) records neither.
 * - `selected_frame_indices` → the cell's frame indices, over the cache frames.
 * - `error` rows (a cache that failed to load, an inference error) are missing cells, never
 *   wrong answers: the scripts write them with `final_correct: 0`, which would score a failure.
 * - `wall_clock_s` → latency.
 * - The sampling fields name the protocol (docs/metrics.md §6): `frame_sampling` dense_start /
 *   random (with its seed when not the scripts' default 42), `subtitle_mode`, `prompt_style`
 *   videomme_v2 and `inference_mode` generate become the config's `@variant`.
 */
import { basename, dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import * as z from 'zod';
import type { ConfigSpec, ImportBatch, SamplingPolicy } from '../../shared/domain/types';
import { parseConfigKey } from '../../shared/engine/config';
import { BatchBuilder, emptyResponse, parseWith, splitFor, type ImportOptions } from './batch-builder';
import { guessWarning, specFor } from './config-keys';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { readLines } from './line-reader';
import { parsePythonJson } from './py-json';
import { readTextFile } from './text-input';

/** The scripts' default `--frame-sampling-seed`: a random run with it is `@random`, any other `@random_seed<k>`. */
const DEFAULT_SEED = 42;
/** InternVL's default `--input-size`: the release names that budget like every model's default, `151k`. */
const INTERNVL_DEFAULT_INPUT = 448;
/** The release's name for a model's default pixel budget (docs/formats.md "One config identity"). */
const DEFAULT_PIXEL_LABEL = '151k';

const Letter = z.string().regex(/^[A-H]$/, 'expected an option letter A–H');
const Probability = z.number().min(0).max(1);
const Int01 = z.union([z.literal(0), z.literal(1), z.boolean()]).transform((v) => (v === true || v === 1 ? 1 : 0));

const RowSchema = z
  .object({
    sample_id: z.union([z.string().min(1), z.number().int()]).transform(String),
    video_id: z.union([z.string(), z.number()]).transform(String).nullish(),
    correct_letter: Letter.nullish(),
    task_type: z.string().nullish(),
    duration_category: z.string().nullish(),
    error: z.string().nullish(),
    base_pred: Letter.nullish(),
    base_correct: Int01.nullish(),
    base_option_probs: z.record(z.string(), Probability).nullish(),
    base_margin: z.number().min(-1).max(1).nullish(),
    base_text: z.string().nullish(),
    final_pred: Letter.nullish(),
    final_correct: Int01.nullish(),
    cached_frame_count: z.number().int().nonnegative().nullish(),
    cached_sample_fps: z.number().nullish(),
    cached_raw_fps: z.number().nonnegative().nullish(),
    input_size: z.number().int().positive().nullish(),
    prompt_style: z.enum(['cached', 'videomme_v2']).nullish(),
    inference_mode: z.enum(['prob', 'generate']).nullish(),
    subtitle_mode: z.enum(['none', 'concat', 'interleave', 'only']).nullish(),
    frame_sampling: z.enum(['uniform', 'dense_start', 'random']).nullish(),
    frame_sampling_seed: z.number().int().nullish(),
    selected_frame_indices: z.array(z.number().int().nonnegative()).nullish(),
    /** cascade.py's timed rows. */
    config_key: z.string().min(1).nullish(),
    wall_clock_s: z.number().nonnegative().nullish(),
    gpu_mem_gb: z.number().nullish(),
  })
  .passthrough();
type Row = z.infer<typeof RowSchema>;

/** The run's summary JSON (`<out>.summary.json`): its frame count where the script writes one. */
const SummarySchema = z.object({ num_frames: z.number().int().nonnegative().nullish(), max_frames: z.number().int().nonnegative().nullish() }).passthrough();

/** The budget a file name states, read from its `_` parts: `qwen25_16f_v2_medium` → 16 frames; `…_16f_151k_…` → 16f_151k. */
export function budgetFromFileName(file: string): { frames: number; pixelLabel: string | null } | null {
  const parts = basename(file)
    .replace(/\.jsonl$/i, '')
    .split('_');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p === 'textonly' || p === '0f') return { frames: 0, pixelLabel: null };
    const m = /^(\d+)f$/.exec(p);
    if (!m) continue;
    const next = parts[i + 1];
    let label: string | null = null;
    if (next !== undefined) {
      try {
        if (parseConfigKey(`1f_${next}`).pixelCount !== null) label = next;
      } catch {
        label = null;
      }
    }
    return { frames: Number(m[1]), pixelLabel: label };
  }
  return null;
}

interface Protocol {
  tag: string | null;
  policy: SamplingPolicy;
  seed: number | null;
}

/** The protocol a row's sampling fields name (docs/formats.md): its variant tag and sampler. */
function protocolOf(r: Row, frames: number): Protocol {
  const parts: string[] = [];
  let policy: SamplingPolicy = 'scalegrid-uniform';
  let seed: number | null = null;
  // Text only sees no frame: its sampling fields change nothing.
  if (frames > 0 && r.frame_sampling === 'dense_start') {
    parts.push('dense_start');
    policy = 'scalegrid-dense-start';
  } else if (frames > 0 && r.frame_sampling === 'random') {
    seed = r.frame_sampling_seed ?? DEFAULT_SEED;
    parts.push(seed === DEFAULT_SEED ? 'random' : `random_seed${seed}`);
    policy = 'scalegrid-random';
  }
  if (r.subtitle_mode === 'concat' || r.subtitle_mode === 'only') parts.push('subs');
  else if (r.subtitle_mode === 'interleave') parts.push('subs_interleave');
  if (r.prompt_style === 'videomme_v2') parts.push('v2prompt');
  if (r.inference_mode === 'generate') parts.push('generate');
  return { tag: parts.length ? parts.join('_') : null, policy, seed };
}

/** A timed row's `config_key` (`16f`, `textonly`, or a full key) as a config key: `<N>f` is the default budget, `<N>f_151k`. */
function timedKey(key: string, file: string, line: number): string {
  let p;
  try {
    p = parseConfigKey(key);
  } catch (e) {
    throw new ImportError(file, line, 'config_key', (e as Error).message);
  }
  if (p.frames === 0 || p.pixelLabel !== null) return key;
  return `${p.frames}f_${DEFAULT_PIXEL_LABEL}${p.variant ? `@${p.variant}` : ''}`;
}

export async function readScalegridPipeline(path: string, opts: ImportOptions): Promise<ImportBatch> {
  const file = path;
  const b = new BatchBuilder(file);
  b.fieldName = (f) =>
    ({
      pred: 'final_pred',
      correct: 'final_correct',
      groundTruth: 'correct_letter',
      sampleId: 'sample_id',
      frameIndices: 'selected_frame_indices',
      margin: 'base_margin',
      config: 'config_key',
    })[f as string] ?? String(f);
  if (opts.split === undefined) {
    throw new ImportError(file, 0, 'split', "the release's pipeline rows do not name their benchmark: pass --split (e.g. V1_{duration}, V2_medium, MLVU)");
  }
  const split = opts.split;
  let model = opts.model;
  if (!model) {
    model = basename(file).split('_')[0] ?? '';
    if (model === '' || model.endsWith('.jsonl')) throw new ImportError(file, 0, 'model', 'the file name does not name the model: pass --model');
    b.warnings.push(guessWarning(file, model));
  }
  const fromName = budgetFromFileName(file);
  let summaryFrames: number | null = null;
  const summaryPath = join(dirname(file), `${basename(file).replace(/\.jsonl$/i, '')}.summary.json`);
  if (existsSync(summaryPath)) {
    const s = parseWith(SummarySchema, parsePythonJson(await readTextFile(summaryPath)), summaryPath, 0);
    summaryFrames = s.num_frames ?? s.max_frames ?? null;
  }
  // The budget of rows without a key of their own, when --config does not name it.
  const fixedFrames = fromName?.frames ?? summaryFrames;

  /** config key → the protocol and spec fields its rows gave, to refuse a file that mixes them. */
  const seen = new Map<string, { tag: string | null; line: number; spec: ConfigSpec }>();
  let errors = 0;
  const errorKinds = new Map<string, number>();
  let defaultPixels = 0;
  let lastKey: string | null = null;
  for await (const { line, text, terminated } of readLines(file)) {
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = parsePythonJson(text);
    } catch (e) {
      throw new ImportError(file, line, '', terminated ? `malformed JSON: ${(e as Error).message}` : 'truncated JSONL line (the file ends mid-record)');
    }
    const r = parseWith(RowSchema, json, file, line);
    const lineSplit = splitFor(split, r.duration_category, file, line, 'duration_category');
    b.addItem(
      {
        split: lineSplit,
        sampleId: r.sample_id,
        answer: r.correct_letter ?? null,
        taskType: r.task_type || null,
        durationBucket: r.duration_category || null,
        videoId: r.video_id || null,
        // Video-MME's and MLVU's files are <video id>.mp4, as the other readers name them.
        videoFile: r.video_id ? `${r.video_id}.mp4` : null,
      },
      line,
      { answer: 'correct_letter', taskType: 'task_type', durationBucket: 'duration_category', videoId: 'video_id', videoFile: 'video_id', sampleId: 'sample_id' },
    );
    if (r.error != null) {
      // A failed load or inference: no answer was given, so the cell is missing, not wrong.
      errors++;
      const kind = r.error.split(':')[0]!.slice(0, 60);
      errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
      continue;
    }

    // The config: the timed row's own key, else --config / the file name / the summary, with the
    // row's pixels; then the protocol its sampling fields name, for the frames that config has.
    let frames: number;
    let key: string;
    if (r.config_key != null) {
      key = timedKey(r.config_key, file, line);
      frames = parseConfigKey(key).frames;
    } else if (opts.config !== undefined) {
      try {
        frames = parseConfigKey(opts.config).frames;
      } catch (e) {
        throw new ImportError(file, line, 'config', `--config ${opts.config}: ${(e as Error).message}`);
      }
      key = opts.config;
    } else {
      if (fixedFrames === null) {
        throw new ImportError(file, line, 'config', 'the frame budget is not in the rows, the file name (…_16f_…) or a .summary.json beside it: pass --config (e.g. 16f_151k)');
      }
      frames = fixedFrames;
      let label = fromName?.pixelLabel ?? null;
      if (label === null && frames > 0) {
        if (r.input_size != null && r.input_size !== INTERNVL_DEFAULT_INPUT) label = `input${r.input_size}`;
        else {
          label = DEFAULT_PIXEL_LABEL;
          defaultPixels++;
        }
      }
      key = frames === 0 ? 'textonly' : `${frames}f_${label}`;
    }
    const proto = protocolOf(r, frames);
    if (proto.tag && !key.includes('@')) key = frames === 0 ? `textonly@${proto.tag}` : `${key}@${proto.tag}`;
    if (r.cached_frame_count != null && r.cached_frame_count > frames) {
      throw new ImportError(file, line, 'cached_frame_count', `${r.cached_frame_count} frames were loaded but config ${key} has ${frames}`);
    }
    const indices = r.selected_frame_indices ?? null;
    if (indices !== null && frames > 0 && indices.length > frames) {
      throw new ImportError(file, line, 'selected_frame_indices', `${indices.length} frame indices for config ${key} of ${frames} frames`);
    }
    const spec = specFor(key, {
      frames,
      sampling: { policy: frames === 0 ? null : proto.policy, seed: proto.seed, fps: frames === 0 ? null : r.cached_raw_fps || 1 },
      pipeline: 'cache',
      toolkit: 'video-mme-scalegrid',
      modelArgs:
        [
          r.frame_sampling && frames > 0 ? `frame_sampling=${r.frame_sampling}` : null,
          proto.seed !== null ? `frame_sampling_seed=${proto.seed}` : null,
          r.input_size != null ? `input_size=${r.input_size}` : null,
          r.subtitle_mode && r.subtitle_mode !== 'none' ? `subtitle_mode=${r.subtitle_mode}` : null,
          r.prompt_style && r.prompt_style !== 'cached' ? `prompt_style=${r.prompt_style}` : null,
          r.inference_mode && r.inference_mode !== 'prob' ? `inference_mode=${r.inference_mode}` : null,
        ]
          .filter((x) => x !== null)
          .join(',') || null,
    });
    const prev = seen.get(key);
    if (!prev) seen.set(key, { tag: proto.tag, line, spec });
    else if (prev.spec.sampling.fps !== spec.sampling.fps || prev.spec.modelArgs !== spec.modelArgs) {
      throw new ImportError(
        file,
        line,
        'frame_sampling',
        `config ${key}: this row's protocol (${spec.modelArgs ?? 'defaults'}, fps ${spec.sampling.fps}) differs from line ${prev.line}'s (${prev.spec.modelArgs ?? 'defaults'}, fps ${prev.spec.sampling.fps})`,
      );
    }
    if (key !== lastKey) {
      b.addConfig(spec);
      lastKey = key;
    }

    const pred = r.final_pred !== undefined ? (r.final_pred ?? null) : (r.base_pred ?? null);
    const given = r.final_correct ?? r.base_correct ?? null;
    const gt = r.correct_letter ?? null;
    if (given !== null && gt !== null && given !== (pred !== null && pred === gt ? 1 : 0)) {
      throw new ImportError(
        file,
        line,
        r.final_correct != null ? 'final_correct' : 'base_correct',
        `${given} contradicts the letters: predicted ${pred ?? 'nothing'}, the answer is ${gt}`,
      );
    }
    if (given === null && gt === null) throw new ImportError(file, line, 'correct_letter', 'a row needs the answer (correct_letter) or its outcome (final_correct)');
    const row = emptyResponse(model, lineSplit, r.sample_id, key, line);
    row.pred = pred;
    row.correct = given === null ? pred === gt : given === 1;
    row.groundTruth = gt;
    const probs = r.base_option_probs;
    if (probs && Object.keys(probs).length > 0) {
      for (const k of Object.keys(probs)) if (!/^[A-H]$/.test(k)) throw new ImportError(file, line, `base_option_probs.${k}`, 'expected option letters A–H as keys');
      row.confidence = pred !== null ? (probs[pred] ?? null) : null;
      if (pred !== null && probs[pred] === undefined) throw new ImportError(file, line, 'base_option_probs', `no probability for the predicted letter ${pred}`);
      row.margin = r.base_margin ?? null;
    } else if (r.config_key != null && r.base_margin != null) {
      // A timed row: cascade.py reads its margin whatever the rest says.
      row.margin = r.base_margin;
    }
    row.latencyMs = r.wall_clock_s != null ? r.wall_clock_s * 1000 : null;
    if (indices !== null && frames > 0) row.frameIndices = indices;
    b.addResponse(row);
  }
  if (b.responses.length === 0 && errors === 0) throw new ImportError(file, 0, '', 'no rows: the file holds no sample');
  if (errors > 0) {
    const kinds = [...errorKinds].map(([k, n]) => `${n} ${k}`).join(', ');
    b.warnings.push(`${basename(file)}: ${errors} error row(s) (${kinds}) kept as missing cells, not wrong answers`);
  }
  if (defaultPixels > 0) {
    const keys = [...seen.keys()].filter((k) => k.includes(`_${DEFAULT_PIXEL_LABEL}`));
    b.warnings.push(
      `${basename(file)}: config ${keys.join(', ')} is the model's default pixel budget, named ${DEFAULT_PIXEL_LABEL} as the release does; pass --config if the run used another`,
    );
  }
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'scalegrid-jsonl', toolkit: 'video-mme-scalegrid', modelArgs: null });
}
