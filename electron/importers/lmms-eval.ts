import { basename, extname } from 'node:path';
import type { ImportBatch, ItemMeta } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, expandSplit, parseWith, type ImportOptions } from './batch-builder';
import { parseKey, resolveConfigKey, specFor, withVariant } from './config-keys';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { splitMcqPrompt } from './mcq-text';
import { mlvuSampleId } from './mlvu-id';
import { ClosedScorer, extractYesNo, givenOutcome, YES_NO_OPTIONS, yesNoAnswer, yesNoLetter } from './closed-answer';
import { OpenScorer, checkKind, referencesOf } from './open-ended';
import { extractOptionLetter, isOptionLetter } from './option-letter';
import {
  answerLetterOf,
  docOptions,
  firstString,
  lastLine,
  metricAnswerLetter,
  metricItemId,
  metricString,
  openContext,
  optionIndexOf,
  promptOf,
  resolveAnswer,
  taskParsedLetter,
  videoOfMetrics,
} from './lmms-eval-fields';
import { jsonlRecords, legacySource, LineSchema, readResults, ScoreSchema, taskVariant, type LogSource } from './lmms-eval-sources';

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
        b.addItem({ ...meta, question, options: null, answer: null, references, kind: 'open', context: openContext(doc, input, question) }, line, { references: refField });
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
        b.addItem(
          {
            ...meta,
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
    b.warnings.push(`${basename(file)}: re-extracted letter differs from lmms-eval's pred_answer on ${disagreements} line(s): ${examples.join('; ')}`);
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
  return b.finish({
    sourcePath: path,
    sha256: await sha256File(path),
    format: 'lmms-eval',
    toolkit: 'lmms-eval',
    modelArgs: results?.modelArgs ?? null,
  });
}
