/**
 * The files of an lmms-eval log (docs/formats.md "lmms-eval"): the records' shapes, the v0.3+
 * samples JSONL and the `<same timestamp>_results.json` beside it (model and budget), and the
 * pre-0.3 `<task>.json` that carries both; which split and variant a task name means.
 */
import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import * as z from 'zod';
import { parseWith } from './batch-builder';
import { ImportError } from './errors';
import { parsePythonJson } from './py-json';
import { readJsonSource } from './json-source';
import { readLines } from './line-reader';
import { readTextFile } from './text-input';
import { framesFromArgs, parseModelArgs, pixelsFromArgs } from './model-args';

const StringList: z.ZodType<unknown[]> = z.array(z.union([z.string(), z.lazy(() => StringList)]));
/** An answer: an option letter (MCQA), or reference text(s) of an open-ended task. */
const AnswerValue = z.union([z.string(), z.number(), StringList]).nullish();

export const ScoreSchema = z
  .object({
    question_id: z.union([z.string(), z.number()]).optional(),
    duration: z.string().nullish(),
    category: z.string().nullish(),
    sub_category: z.string().nullish(),
    task_category: z.string().nullish(),
    task_type: z.string().nullish(),
    pred_answer: z.string().nullish(),
    answer: AnswerValue,
  })
  .passthrough();

const DocSchema = z
  .object({
    question_id: z.union([z.string(), z.number()]).optional(),
    videoID: z.string().nullish(),
    video_id: z.union([z.string(), z.number()]).nullish(),
    duration: z.union([z.string(), z.number()]).nullish(),
    domain: z.string().nullish(),
    sub_category: z.string().nullish(),
    task_type: z.string().nullish(),
    question: z.string().nullish(),
    options: z.union([z.array(z.string()), z.string()]).nullish(),
    /** MLVU's docs: the video file and the option texts. */
    video_name: z.string().nullish(),
    video: z.string().nullish(),
    candidates: z.array(z.string()).nullish(),
    answer: AnswerValue,
  })
  .passthrough();

/** v0.7+ writes a one-element response list as the plain string. */
const Responses = z.union([z.string(), StringList]);

export const LineSchema = z
  .object({
    doc_id: z.number().int(),
    target: AnswerValue,
    filtered_resps: Responses,
    resps: Responses.nullish(),
    doc: DocSchema.optional(),
    input: z.string().nullish(),
    /** Pre-0.3 logs: `[[prompt, …], …]` (0.3 wrote a dict here and the prompt in `input`). */
    arguments: z.unknown().optional(),
  })
  .passthrough();

/** Pre-0.3 `<task>.json`. */
const LegacySchema = z
  .object({
    args: z.object({ model: z.string().nullish(), model_args: z.string().nullish(), tasks: z.string().nullish() }).passthrough(),
    model_configs: z.object({ task: z.string().nullish() }).passthrough(),
    logs: z.array(z.unknown()),
    time: z.string().nullish(),
  })
  .passthrough();

const ResultsSchema = z
  .object({
    config: z.object({ model: z.string().nullish(), model_args: z.string().nullish() }).passthrough().optional(),
    model_name: z.string().nullish(),
    model_name_sanitized: z.string().nullish(),
  })
  .passthrough();

interface ResultsInfo {
  path: string;
  model: string | null;
  modelArgs: string | null;
  frames: number | null;
  pixels: number | null;
}

/** `20251106_202956_samples_videomme.jsonl` → `20251106_202956_results.json` beside it. */
async function findResults(samplesPath: string): Promise<string | null> {
  const m = /^(\d{8}_\d{6})_/.exec(basename(samplesPath));
  if (!m) return null;
  const dir = dirname(samplesPath);
  const names = await readdir(dir);
  const exact = `${m[1]}_results.json`;
  if (names.includes(exact)) return join(dir, exact);
  const other = names.find((n) => n.startsWith(`${m[1]}_`) && n.endsWith('results.json'));
  return other ? join(dir, other) : null;
}

/**
 * A model's name from `pretrained`: the last part of a Hub id or a path, a Windows path too
 * (`C:\models\LLaVA-7B\` → `LLaVA-7B`; node's basename splits only at `/` here).
 */
function modelNameOf(pretrained: string): string {
  return basename(pretrained.replace(/\\/g, '/').replace(/\/+$/, ''));
}

export async function readResults(samplesPath: string): Promise<ResultsInfo | null> {
  const path = await findResults(samplesPath);
  if (!path) return null;
  let json: unknown;
  try {
    json = parsePythonJson(await readTextFile(path));
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(path, 0, '', `malformed JSON: ${(e as Error).message}`);
  }
  const r = parseWith(ResultsSchema, json, path, 0);
  const modelArgs = r.config?.model_args ?? null;
  const args = parseModelArgs(modelArgs);
  const fr = framesFromArgs(args);
  const name = r.model_name ?? args.get('pretrained') ?? null;
  return {
    path,
    model: name ? modelNameOf(name) : null,
    modelArgs,
    frames: fr ? fr.frames : null,
    pixels: pixelsFromArgs(args),
  };
}

/**
 * The split and config variant a task's name implies. Video-MME's tasks with subtitles
 * (`videomme_w_subtitle`) and of the long videos only (`videomme_long`) ask the same
 * questions as `videomme`: same split, so the items are one; subtitles are a config variant.
 */
export function taskVariant(task: string | null): { split: string | null; subs: boolean } {
  if (task === null) return { split: null, subs: false };
  const m = /^(videomme(?:_v2)?)(_long)?(_w_subtitle)?$/.exec(task);
  if (!m) return { split: task, subs: false };
  return { split: m[1] as string, subs: m[3] !== undefined };
}

export interface LogSource {
  task: string | null;
  results: ResultsInfo | null;
  records: AsyncIterable<{ line: number; json: unknown }>;
}

export async function* jsonlRecords(file: string): AsyncIterable<{ line: number; json: unknown }> {
  for await (const { line, text, terminated } of readLines(file)) {
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = parsePythonJson(text);
    } catch (e) {
      throw new ImportError(file, line, '', terminated ? `malformed JSON: ${(e as Error).message}` : 'truncated JSONL line (the file ends mid-record)');
    }
    yield { line, json };
  }
}

/** A pre-0.3 `<task>.json`: the budget and model from its own `args`, records from `logs`. */
export async function legacySource(path: string): Promise<LogSource> {
  const src = await readJsonSource(path);
  const doc = parseWith(LegacySchema, src.value, path, 1);
  const modelArgs = doc.args.model_args ?? null;
  const args = parseModelArgs(modelArgs);
  const pretrained = args.get('pretrained');
  const fr = framesFromArgs(args);
  const logs = doc.logs;
  return {
    task: doc.model_configs.task ?? basename(path, extname(path)),
    results: {
      path,
      model: pretrained ? modelNameOf(pretrained) : (doc.args.model ?? null),
      modelArgs,
      frames: fr ? fr.frames : null,
      pixels: pixelsFromArgs(args),
    },
    records: (async function* () {
      for (let k = 0; k < logs.length; k++) yield { line: src.lineOf(logs[k]) || k + 1, json: logs[k] };
    })(),
  };
}
