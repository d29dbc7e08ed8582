import { readdir } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join } from 'node:path';
import * as z from 'zod';
import type { ImportBatch, ItemContext, ItemMeta } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, expandSplit, parseWith, type ImportOptions } from './batch-builder';
import { parseKey, resolveConfigKey, specFor, withVariant } from './config-keys';
import { ImportError } from './errors';
import { parsePythonJson } from './py-json';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { readLines } from './line-reader';
import { readTextFile } from './text-input';
import { splitMcqPrompt, stripOptionPrefix } from './mcq-text';
import { mlvuSampleId } from './mlvu-id';
import { framesFromArgs, parseModelArgs, pixelsFromArgs } from './model-args';
import { ClosedScorer, extractYesNo, givenOutcome, YES_NO_OPTIONS, yesNoAnswer, yesNoLetter } from './closed-answer';
import { OpenScorer, checkKind, referencesOf } from './open-ended';
import { extractOptionLetter, isOptionLetter } from './option-letter';

/**
 * lmms-eval `--log_samples` output, both layouts (docs/formats.md "lmms-eval"):
 * - v0.3+: `<YYYYMMDD_HHMMSS>_samples_<task>.jsonl`, one record per line; v0.7+ writes
 *   `filtered_resps` (and `resps`) as a plain string instead of a one-element list.
 * - before v0.3: `<task>.json` = `{args, model_configs, logs, time}` in a
 *   `<MMDD_HHMM>_<suffix>_<model>_model_args_<hash>/` folder; `logs` holds the records
 *   (with `doc`, the prompt in `arguments`), `args.model_args` the budget.
 *
 * - Items are keyed by the benchmark's `question_id` (from `<task>_perception_score` or
 *   `doc`), never by `doc_id` (a row index that changes with dataset order); `doc_id` is
 *   the fallback only when no question id exists, with a warning. MLVU's tasks put the
 *   question *text* in `question_id`, and MLVU asks the same question of several videos:
 *   such items are keyed `<video stem>#<sha1(question)[:8]>` from the record's `doc` (the
 *   MLVU importer's key, so the two join); a log without `doc` (v0.4+) falls back to doc_id.
 * - The option letter is re-extracted from `filtered_resps` (option-letter.ts documents the
 *   rule) and compared with the toolkit's own `pred_answer`; disagreements are warnings.
 * - Frames/pixels come from the `model_args` of the `<same timestamp>_results.json` beside
 *   the file; the model from its `model_name` (basename); `--model/--config` override.
 * - Split: `--split` if given (a `{duration}` placeholder is replaced per item, e.g.
 *   `V1_{duration}` → `V1_short`, the release's split names); otherwise the task name
 *   (`videomme`), so one log is one (model, split).
 * - Open-ended tasks (no options in `doc` or the prompt, and an answer that is free text or a
 *   list of reference texts): `pred` is the response text and `score` the task's own
 *   per-sample score when the log has one (a numeric `score`/`<name>_score` field, or such an
 *   object's numeric `score`), else Token-F1 against the references (`target`, else
 *   `doc.answer`, else the metric object's `answer`); open-ended.ts says which wins and why.
 *   A log holds one kind: a multiple-choice record among open-ended ones is rejected.
 * - Yes/no tasks (TempCompass `yes_no`: no options, and every such record's answer is yes or
 *   no) are closed, never free text: options `yes`, `no`, the response's yes/no by the task's
 *   own rule, and the task's own per-sample outcome (`avg_accuracy.rating`) where the record
 *   has one (closed-answer.ts). A log whose free-text answers are only partly yes/no is an
 *   open-ended task and stays one.
 */
const StringList: z.ZodType<unknown[]> = z.array(z.union([z.string(), z.lazy(() => StringList)]));
/** An answer: an option letter (MCQA), or reference text(s) of an open-ended task. */
const AnswerValue = z.union([z.string(), z.number(), StringList]).nullish();

const ScoreSchema = z
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

const LineSchema = z
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
    args: z
      .object({ model: z.string().nullish(), model_args: z.string().nullish(), tasks: z.string().nullish() })
      .passthrough(),
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

function firstString(list: unknown[] | string): string | null {
  if (typeof list === 'string') return list;
  for (const v of list) {
    if (typeof v === 'string') return v;
    if (Array.isArray(v)) {
      const s = firstString(v);
      if (s !== null) return s;
    }
  }
  return null;
}

/** The last non-empty line of a rendered prompt (the question follows the instructions). */
function lastLine(input: string | null | undefined): string | null {
  if (!input) return null;
  const lines = input.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines[lines.length - 1] ?? null;
}

/**
 * A string a record's metric objects carry (TempCompass's `avg_accuracy: {video_id, question,
 * …}`): what a 0.4+ log, which drops `doc`, still says about the item. The first such object.
 */
function metricString(rec: Record<string, unknown>, name: string): string | null {
  for (const [k, v] of Object.entries(rec)) {
    if (k === 'doc' || v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    const x = (v as Record<string, unknown>)[name];
    if (typeof x === 'string' && x.trim() !== '') return x;
  }
  return null;
}

/**
 * The video a row's metric object names, for logs without `doc` (lmms-eval ≥ 0.4 logs none by
 * default): Video-MME's `videomme_perception_score` carries `videoID` (for its clustered
 * standard error), other tasks `video_id`, `video_name`, `video` or `video_path`. An id becomes
 * `<id>.mp4` (Video-MME's file naming); a file name is kept relative to the media root, and of
 * an absolute path (the evaluating machine's) only the file name is kept.
 */
function videoOfMetrics(rec: Record<string, unknown>): { id: string; file: string } | null {
  const id = metricString(rec, 'videoID') ?? metricString(rec, 'video_id');
  if (id !== null) return { id, file: `${id}.mp4` };
  const named = metricString(rec, 'video_name') ?? metricString(rec, 'video') ?? metricString(rec, 'video_path');
  if (named === null) return null;
  const file = isAbsolute(named) || /^[A-Za-z]:[\\/]/.test(named) ? basename(named.replace(/\\/g, '/')) : named;
  if (extname(file) === '') return { id: file, file: `${file}.mp4` };
  return { id: basename(file, extname(file)), file };
}

const TurnSchema = z.object({ question: z.string(), answer: z.string() });

/**
 * What an open-ended record tells of its item beyond the question (docs/formats.md
 * "lmms-eval"): the earlier turns of a dialogue — `doc.history`, or `doc.dialog` up to the turn
 * asked (the one with the doc's question, else the last) — and the rendered prompt when it holds
 * more than the question (a history or instructions the model saw). Null when neither.
 */
function openContext(doc: Record<string, unknown> | undefined, input: string | null, question: string | null): ItemContext | null {
  const turns = (v: unknown) => (Array.isArray(v) && v.length > 0 && v.every((t) => TurnSchema.safeParse(t).success) ? (v as { question: string; answer: string }[]) : null);
  let history: { question: string; answer: string }[] = [];
  const h = turns(doc?.history);
  const d = turns(doc?.dialog);
  if (h) history = h;
  else if (d) {
    const at = d.findIndex((t) => question !== null && t.question.trim() === question.trim());
    history = d.slice(0, at >= 0 ? at : d.length - 1);
  }
  const prompt = input !== null && input.trim() !== '' && input.trim() !== (question ?? '').trim() ? input : null;
  if (history.length === 0 && prompt === null) return null;
  return { history: history.map((t) => ({ question: t.question, answer: t.answer })), caption: null, summary: null, prompt };
}

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

async function readResults(samplesPath: string): Promise<ResultsInfo | null> {
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
    model: name ? basename(name.replace(/[\\/]+$/, '')) : null,
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
function taskVariant(task: string | null): { split: string | null; subs: boolean } {
  if (task === null) return { split: null, subs: false };
  const m = /^(videomme(?:_v2)?)(_long)?(_w_subtitle)?$/.exec(task);
  if (!m) return { split: task, subs: false };
  return { split: m[1] as string, subs: m[3] !== undefined };
}

interface LogSource {
  task: string | null;
  results: ResultsInfo | null;
  records: AsyncIterable<{ line: number; json: unknown }>;
}

async function* jsonlRecords(file: string): AsyncIterable<{ line: number; json: unknown }> {
  for await (const { line, text, terminated } of readLines(file)) {
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = parsePythonJson(text);
    } catch (e) {
      throw new ImportError(
        file,
        line,
        '',
        terminated ? `malformed JSON: ${(e as Error).message}` : 'truncated JSONL line (the file ends mid-record)',
      );
    }
    yield { line, json };
  }
}

/** A pre-0.3 `<task>.json`: the budget and model from its own `args`, records from `logs`. */
async function legacySource(path: string): Promise<LogSource> {
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
      model: pretrained ? basename(pretrained.replace(/[\\/]+$/, '')) : (doc.args.model ?? null),
      modelArgs,
      frames: fr ? fr.frames : null,
      pixels: pixelsFromArgs(args),
    },
    records: (async function* () {
      for (let k = 0; k < logs.length; k++) yield { line: src.lineOf(logs[k]) || k + 1, json: logs[k] };
    })(),
  };
}

/** The rendered prompt: `input` (v0.3+), else the first string of a pre-0.3 `arguments`. */
function promptOf(rec: { input?: string | null; arguments?: unknown }): string | null {
  if (rec.input) return rec.input;
  return Array.isArray(rec.arguments) ? firstString(rec.arguments as unknown[]) : null;
}

/** Option texts of a doc: a list (`A. x` prefixes stripped) or v2's one string of lines. */
function docOptions(options: string[] | string | null | undefined): string[] | null {
  if (options == null) return null;
  if (Array.isArray(options)) return options.map(stripOptionPrefix);
  return splitMcqPrompt(`?\n${options}`).options;
}

/**
 * An answer as a letter: `B`; MLVU's `(B)` / `(B) text`; TempCompass's `D. text` / `D) text`;
 * anything else unchanged (an option text or an index is resolved against the options later).
 */
function answerLetterOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^\(([A-H])\)(\s.*)?$/s.exec(v.trim()) ?? /^([A-H])[.)](\s.*)?$/s.exec(v.trim());
  return m ? m[1] : v;
}

/** A 0-based option index: LongVideoBench's `correct_choice`, EgoSchema's `answer` (a number or its digits). */
function optionIndexOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string' && /^\d{1,2}$/.test(v.trim())) return Number(v.trim());
  return null;
}

const LETTERS = 'ABCDEFGH';

/**
 * The answer letter a task's own metric object states (docs/formats.md "lmms-eval", the tasks'
 * `process_results`): MVBench `mvbench_accuracy.gt_answer`, LongVideoBench `lvb_acc.answer`; the
 * first letter-valued `gt_answer` / `answer` of an object other than `doc`.
 */
function metricAnswerLetter(rec: Record<string, unknown>): { letter: string; field: string } | null {
  for (const [k, v] of Object.entries(rec)) {
    if (k === 'doc' || v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    for (const f of ['gt_answer', 'answer']) {
      const x = (v as Record<string, unknown>)[f];
      if (typeof x === 'string' && isOptionLetter(x)) return { letter: x, field: `${k}.${f}` };
    }
  }
  return null;
}

/**
 * The item id a task's metric object names when there is no question_id: LongVideoBench's
 * `lvb_acc.id`, EgoSchema's one `submission` key (its video_idx). Null otherwise.
 */
function metricItemId(rec: Record<string, unknown>): string | null {
  const lvb = rec.lvb_acc;
  if (lvb && typeof lvb === 'object' && !Array.isArray(lvb)) {
    const id = (lvb as Record<string, unknown>).id;
    if (typeof id === 'string' && id !== '') return id;
  }
  const sub = rec.submission;
  if (sub && typeof sub === 'object' && !Array.isArray(sub)) {
    const keys = Object.keys(sub);
    if (keys.length === 1 && keys[0] !== '') return keys[0]!;
  }
  return null;
}

/**
 * The answer's letter: the task's metric object's letter; a letter (or `(B)`, `D. text`); a
 * 0-based option index (LongVideoBench, EgoSchema); an option's text (MVBench's target). Null
 * when the record gives none; anything else is refused.
 */
function resolveAnswer(raw: unknown, options: string[] | null | undefined, stated: { letter: string; field: string } | null, file: string, line: number, field: string): string | null {
  if (stated !== null) return stated.letter;
  if (raw === null || raw === undefined || raw === '') return null;
  if (typeof raw === 'string' && isOptionLetter(raw)) return raw;
  const n = optionIndexOf(raw);
  if (n !== null) {
    const count = options?.length ?? LETTERS.length;
    if (n >= count) throw new ImportError(file, line, field, `option index ${n} is past the ${count} options (0-based: ${LETTERS.slice(0, count).split('').map((l, i) => `${i} = ${l}`).join(', ')})`);
    return LETTERS[n]!;
  }
  if (typeof raw === 'string' && options) {
    const at = options.findIndex((o) => o.trim() === raw.trim());
    if (at >= 0 && at < LETTERS.length) return LETTERS[at]!;
    throw new ImportError(file, line, field, `the answer ${JSON.stringify(raw)} is neither an option letter nor one of the options (${options.map((o, i) => `${LETTERS[i]}. ${o}`).join('; ')})`);
  }
  throw new ImportError(file, line, field, `expected an option letter A–H, got ${JSON.stringify(raw)}`);
}

/**
 * The letter a task's own code read from the response, to compare with Flipbook's (the summary
 * says where they differ): LongVideoBench's `lvb_acc.parsed_pred` (a random letter when its
 * parser found none), EgoSchema's `score.pred` index (−1: none). Undefined when the record has
 * neither (Video-MME's `pred_answer` is compared on its own).
 */
function taskParsedLetter(rec: Record<string, unknown>): string | null | undefined {
  const lvb = rec.lvb_acc;
  if (lvb && typeof lvb === 'object' && !Array.isArray(lvb)) {
    const p = (lvb as Record<string, unknown>).parsed_pred;
    if (typeof p === 'string') return isOptionLetter(p) ? p : null;
  }
  const sc = rec.score;
  if (sc && typeof sc === 'object' && !Array.isArray(sc) && 'ground_truth' in sc) {
    const p = (sc as Record<string, unknown>).pred;
    if (typeof p === 'number') return p >= 0 && p < LETTERS.length ? LETTERS[p]! : null;
  }
  return undefined;
}

export async function readLmmsEval(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const legacy = extname(path).toLowerCase() === '.json';
  const source: LogSource = legacy
    ? await legacySource(path)
    : {
        task: /_samples_(.+)\.jsonl$/.exec(basename(path))?.[1] ?? null,
        results: await readResults(path),
        records: jsonlRecords(path),
      };
  const { task, results } = source;
  const variant = taskVariant(task);
  const model = opts.model ?? results?.model ?? null;
  if (!model) {
    throw new ImportError(file, 0, 'model', 'model unknown: no *_results.json with model_name beside the file; pass --model');
  }
  const budget = resolveConfigKey(
    results?.path ?? file,
    { frames: results?.frames ?? null, pixels: results?.pixels ?? null, field: legacy ? 'args.model_args' : 'model_args', what: 'model_args' },
    opts.config,
  );
  // With subtitles the same budget is another config of the same items (`16f@subs`).
  const config = withVariant(file, budget, variant.subs ? 'subs' : null);
  const b = new BatchBuilder(file);
  b.fieldName = (f) => (f === 'pred' ? 'filtered_resps' : f === 'groundTruth' ? 'answer' : f);
  b.addConfig(
    specFor(config, {
      // A key that names its pixel budget (`32f_151k`) stands for that budget; the exact
      // max_pixels stays in model_args (docs/formats.md "One config identity").
      pixelCount: parseKey(config)?.pixelCount ?? results?.pixels ?? null,
      toolkit: 'lmms-eval',
      modelArgs: results?.modelArgs ?? null,
    }),
  );

  let scoreKey: string | null = null;
  let disagreements = 0;
  const examples: string[] = [];
  let parsedDisagreements = 0;
  const parsedExamples: string[] = [];
  let byDocId = 0;
  let textIdsWithoutVideo = 0;
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const scorer = new OpenScorer(file);
  const closed = new ClosedScorer(file);
  const mcqClosed = new ClosedScorer(file);
  // Records whose free-text answer is yes or no: closed when every free-text record of the log
  // is one (a yes/no task), else open-ended like the rest; decided once the log is read.
  const yesNo: (() => void)[] = [];
  const asOpen: (() => void)[] = [];
  let freeText = 0;

  for await (const { line, json } of source.records) {
    const rec = parseWith(LineSchema, json, file, line);
    if (scoreKey === null) {
      scoreKey =
        // lmms-eval spells it `_percetion_score` in its MLVU task and early Video-MME task.
        Object.keys(rec).find((k) => k.endsWith('_perception_score') || k.endsWith('_percetion_score')) ??
        Object.keys(rec).find((k) => {
          const v = (rec as Record<string, unknown>)[k];
          return typeof v === 'object' && v !== null && !Array.isArray(v) && 'question_id' in v && k !== 'doc';
        }) ??
        '';
    }
    const rawScore = scoreKey ? (rec as Record<string, unknown>)[scoreKey] : undefined;
    const score = rawScore === undefined ? undefined : parseWith(ScoreSchema, rawScore, file, line, scoreKey ?? '');
    const doc = rec.doc;
    const input = promptOf(rec);
    const prompt = input ? splitMcqPrompt(input) : { question: null, options: null };
    // MLVU's doc.question holds the question and then its options, one per line.
    const docSplit = doc?.question && doc.question.includes('\n') ? splitMcqPrompt(doc.question) : null;
    const docQuestion = docSplit?.options ? docSplit.question : (doc?.question ?? null);
    const video = doc?.video_name ?? doc?.video ?? null;

    let sampleId: string;
    const qid = score?.question_id ?? doc?.question_id;
    const qidIsText = typeof qid === 'string' && /\s/.test(qid.trim());
    if (qidIsText) {
      // A question text is no id (MLVU): the same question over different videos is different items.
      const q = docQuestion ?? splitMcqPrompt(qid).question ?? qid.split('\n')[0]!.trim();
      if (video) sampleId = mlvuSampleId(video, q);
      else {
        sampleId = String(rec.doc_id);
        textIdsWithoutVideo += 1;
      }
    } else if (qid !== undefined && qid !== '') sampleId = String(qid);
    else {
      const named = metricItemId(rec as Record<string, unknown>);
      if (named !== null) sampleId = named;
      else {
        sampleId = String(rec.doc_id);
        byDocId += 1;
      }
    }
    const duration = score?.duration ?? (typeof doc?.duration === 'string' ? doc.duration : null);
    const split = opts.split ? expandSplit(opts.split, duration) : (variant.split ?? 'lmms-eval');

    const rawAnswer = answerLetterOf(score?.answer ?? doc?.answer ?? rec.target ?? null) as typeof rec.target;
    const answerField = score?.answer != null ? `${scoreKey}.answer` : doc?.answer != null ? 'doc.answer' : 'target';
    const options = docOptions(doc?.options) ?? (doc?.candidates?.length ? doc.candidates : null) ?? docSplit?.options ?? prompt.options;
    const hasOptions = (options?.length ?? 0) > 0;
    const stated = metricAnswerLetter(rec as Record<string, unknown>);
    const letterLike = (typeof rawAnswer === 'string' && (rawAnswer === '' || isOptionLetter(rawAnswer))) || optionIndexOf(rawAnswer) !== null || stated !== null;
    const open = !hasOptions && rawAnswer !== null && !letterLike;
    if (!open) checkKind(kindState, 'mcqa', file, line, answerField);
    const raw = firstString(rec.filtered_resps) ?? (rec.resps ? firstString(rec.resps) : null);
    const row = emptyResponse(model, split, sampleId, config, line);
    row.sourceTag = `lmms-eval:${task ?? 'unknown'}`;
    // Metadata both kinds of item carry.
    const named = video === null && !doc?.videoID ? videoOfMetrics(rec as Record<string, unknown>) : null;
    const videoId = doc?.videoID ?? (video ? basename(video, extname(video)) : null) ?? named?.id ?? null;
    const meta = {
      split,
      sampleId,
      taskType: score?.task_category ?? score?.task_type ?? doc?.task_type ?? null,
      durationBucket: duration,
      durationS: typeof doc?.duration === 'number' ? doc.duration : null,
      domain: score?.category ?? doc?.domain ?? null,
      subCategory: score?.sub_category ?? doc?.sub_category ?? null,
      videoId,
      videoFile: doc?.videoID ? `${doc.videoID}.mp4` : (video ?? named?.file ?? null),
    };

    if (open) {
      // lmms-eval's own target (doc_to_target) first: it is what the task scored against.
      const refField = rec.target != null ? 'target' : doc?.answer != null ? 'doc.answer' : `${scoreKey}.answer`;
      const references = referencesOf(rec.target ?? doc?.answer ?? score?.answer, file, line, refField);
      const given = givenOutcome(rec as Record<string, unknown>, file, line);
      const openRow = () => {
        checkKind(kindState, 'open', file, line, answerField);
        scorer.apply(row, { pred: raw, references, given: given?.value ?? null, givenField: given?.field ?? '', referenceField: refField, line });
        b.addResponse(row);
        const question = docQuestion ?? lastLine(input);
        b.addItem(
          { ...meta, question, options: null, answer: null, references, kind: 'open', context: openContext(doc, input, question) },
          line,
          { references: refField },
        );
      };
      const yn = yesNoAnswer(rawAnswer);
      if (yn === null) {
        freeText++;
        openRow();
        continue;
      }
      asOpen.push(openRow);
      yesNo.push(() => {
        checkKind(kindState, 'mcqa', file, line, answerField);
        const said = extractYesNo(raw);
        closed.apply(row, { pred: said === null ? null : yesNoLetter(said), answer: yesNoLetter(yn), given, line });
        b.addResponse(row);
        const r = rec as Record<string, unknown>;
        const vid = metricString(r, 'video_id');
        b.addItem(
          {
            ...meta,
            ...(meta.videoFile === null && vid !== null && { videoId: vid, videoFile: `${vid}.mp4` }),
            taskType: meta.taskType ?? metricString(r, 'dim'),
            question: docQuestion ?? metricString(r, 'question') ?? lastLine(input),
            options: [...YES_NO_OPTIONS],
            answer: yesNoLetter(yn),
            kind: 'mcqa',
          },
          line,
          { answer: answerField },
        );
      });
      continue;
    }
    const answer = resolveAnswer(rawAnswer, options, stated, file, line, answerField);

    const pred = extractOptionLetter(raw);
    const toolkitPred = score?.pred_answer;
    if (toolkitPred != null && (toolkitPred || null) !== pred) {
      disagreements += 1;
      if (examples.length < 5) examples.push(`line ${line} (${sampleId}): ${JSON.stringify(raw)} → ${pred ?? 'none'} vs pred_answer ${JSON.stringify(toolkitPred)}`);
    }
    const parsed = toolkitPred == null ? taskParsedLetter(rec as Record<string, unknown>) : undefined;
    if (parsed !== undefined && parsed !== pred) {
      parsedDisagreements += 1;
      if (parsedExamples.length < 5) parsedExamples.push(`line ${line} (${sampleId}): ${JSON.stringify(raw)} → ${pred ?? 'none'} vs ${JSON.stringify(parsed)}`);
    }

    // The task's own per-sample outcome (MVBench's mcq_acc score, TempCompass's rating) is kept
    // where the record has one; otherwise the letters decide (closed-answer.ts).
    const given = answer === null ? null : givenOutcome(rec as Record<string, unknown>, file, line);
    if (answer !== null && given !== null) mcqClosed.apply(row, { pred, answer, given, line });
    else {
      row.pred = pred;
      row.groundTruth = answer;
      row.correct = answer === null ? null : pred === answer;
    }
    b.addResponse(row);

    const item: ItemMeta = {
      ...meta,
      question: docQuestion ?? prompt.question,
      options,
      answer,
      kind: 'mcqa',
    };
    b.addItem(item, line, { answer: answerField });
  }
  for (const emit of freeText === 0 ? yesNo : asOpen) emit();
  b.warnings.push(...closed.warnings('yes/no'));
  b.warnings.push(...mcqClosed.warnings('multiple-choice'));
  if (disagreements > 0) {
    b.warnings.push(
      `${basename(file)}: re-extracted letter differs from lmms-eval's pred_answer on ${disagreements} line(s): ${examples.join('; ')}`,
    );
  }
  if (parsedDisagreements > 0) {
    b.warnings.push(`${basename(file)}: re-extracted letter differs from the task's own parsed answer on ${parsedDisagreements} line(s): ${parsedExamples.join('; ')}`);
  }
  b.warnings.push(...scorer.warnings());
  if (byDocId > 0) b.warnings.push(`${basename(file)}: ${byDocId} line(s) have no question_id; keyed by doc_id`);
  if (textIdsWithoutVideo > 0) {
    b.warnings.push(
      `${basename(file)}: ${textIdsWithoutVideo} line(s) use the question text as question_id and the log has no doc (video): keyed by doc_id, so they do not join MLVU metadata`,
    );
  }
  if (!results && !opts.config && !legacy) b.warnings.push(`${basename(file)}: no *_results.json beside it`);
  return b.finish({
    sourcePath: path,
    sha256: await sha256File(path),
    format: 'lmms-eval',
    toolkit: 'lmms-eval',
    modelArgs: results?.modelArgs ?? null,
  });
}
