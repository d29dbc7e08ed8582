import { basename, extname } from 'node:path';
import * as z from 'zod';
import type { ImportBatch, ItemMeta } from '../../shared/domain/types';
import { BatchBuilder, emptyResponse, parseWith, type ImportOptions } from './batch-builder';
import { guessWarning, resolveConfigKey, specFor, withVariant } from './config-keys';
import { ImportError } from './errors';
import { parseResultName } from './file-name-budget';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { mlvuSampleId } from './mlvu-id';
import { OpenScorer, checkKind, parseScore, referencesOf } from './open-ended';
import { extractOptionLetter, isOptionLetter, letterOf, optionLetterAt, lastOptionLetter } from './option-letter';

/**
 * MLVU: its task JSON files (metadata: `video, duration, question, candidates, answer,
 * question_type`) and its evaluation outputs (records, or `{res_list: [...]}`, with a
 * prediction in `pred`/`option`/`prediction`/`response` and the answer in `gt`/`answer`).
 *
 * Sample ids: MLVU's dev files carry none. An explicit `question_id`/`id` wins; otherwise
 * the id is `<video stem>#<first 8 hex of sha1(question)>`, so metadata and results of the
 * same question get the same id without a shared row order. Split: --split or `MLVU`.
 * Answers given as option text are mapped to their letter through `candidates`.
 *
 * Generation tasks (sub-scene captioning `subPlot`, video summary `summary`): records without
 * candidates whose answer is free text are open-ended — metadata gives items of kind `open`
 * with `references: [answer]`; outputs (also MLVU's generation-inference layout
 * `{video_name, Q, A, pred}`) give rows whose `pred` is the text and whose score is the
 * record's numeric `score` in [0, 1] when present, else Token-F1 against the answer
 * (open-ended.ts). A file holds one kind (multiple-choice or open-ended). Open-ended items
 * default to the split `MLVU_gen` (the release's name), multiple-choice ones to `MLVU`: one
 * (model, split) grid is of one kind.
 *
 * MLVU's `choice_bench.py` output (`{acc_dict, res_list: [{pred, gt: "(B) text", question:
 * <the full prompt>, question_type, video: <path>}]}`) is multiple choice: the question and
 * options are read back out of the prompt, the letter out of `gt`, so its items join the
 * metadata's.
 *
 * Answers given as option text take the letter MLVU's own scorer gives them (`choice_bench.py`'s
 * `qa_template`): the last candidate equal to the answer, so a repeated candidate is its later
 * letter, and a blank answer beside a blank candidate is that blank candidate's letter.
 *
 * Benchmark quirks (docs/formats.md "MLVU quirks"): MLVU's own files hold rows that cannot be
 * scored — an answer that is not among the candidates, a blank answer with no blank candidate,
 * the same video and question again with other candidates. Each such row is skipped with a
 * warning naming file:line and why, and counted; the rest of the file imports. A row whose
 * answer is a blank candidate (a blank row of the benchmark among them) is scorable as MLVU
 * scores it, and in its scorer's denominator: it is kept with that letter, with a warning.
 */
const Meta = z
  .object({
    video: z.string().min(1).optional(),
    video_name: z.string().min(1).optional(),
    duration: z.union([z.number(), z.string()]).nullish(),
    question: z.string(),
    candidates: z.array(z.string()).nullish(),
    answer: z.string().nullish(),
    question_type: z.string().nullish(),
    question_id: z.union([z.string(), z.number()]).nullish(),
    id: z.union([z.string(), z.number()]).nullish(),
  })
  .passthrough();

const Result = Meta.extend({
  question: z.string().nullish(),
  /** MLVU's generation-inference output names question and answer Q and A. */
  Q: z.string().nullish(),
  A: z.string().nullish(),
  score: z.unknown().optional(),
  pred: z.string().nullish(),
  option: z.string().nullish(),
  prediction: z.string().nullish(),
  response: z.string().nullish(),
  gt: z.string().nullish(),
});

export function sampleIdOf(r: { question_id?: string | number | null; id?: string | number | null; video?: string; video_name?: string; question?: string | null }): string | null {
  if (r.question_id != null && r.question_id !== '') return String(r.question_id);
  if (r.id != null && r.id !== '') return String(r.id);
  const video = r.video ?? r.video_name;
  // A blank question (a blank row of the benchmark) still has an id: its video and the empty text.
  if (!video || r.question == null) return null;
  return mlvuSampleId(video, r.question);
}

/**
 * Letter of an answer given as a letter, "(B)", "(B) text" (choice_bench.py), or the text of
 * one of the candidates. null = no answer; undefined = not understood / not a candidate.
 *
 * Option text takes the letter MLVU's `choice_bench.py` (`qa_template`) gives it: the last
 * candidate equal to it (a repeated candidate, as in `1_plotQA.json`, is its later letter; a
 * blank answer is the last blank candidate). Only then a candidate equal to it up to the ends'
 * white space, for a file whose cells lost it (choice_bench.py's prompt strips its last option).
 */
export function answerLetter(answer: string | null | undefined, candidates: string[] | null | undefined): string | null | undefined {
  if (answer == null) return null;
  const cands = candidates ?? [];
  if (answer === '') {
    const blank = cands.lastIndexOf('');
    return optionLetterAt(blank);
  }
  if (isOptionLetter(answer)) return answer;
  let i = cands.lastIndexOf(answer);
  if (i < 0) i = cands.map((c) => c.trim()).lastIndexOf(answer.trim());
  const letter = optionLetterAt(i);
  if (letter !== null) return letter;
  const l = /^\(?([A-H])[).]?$/.exec(answer.trim()) ?? /^\(([A-H])\)\s/.exec(answer.trim());
  return l?.[1] ?? undefined; // undefined = not understood
}

/**
 * choice_bench.py's prompt `Question: <q>\nOptions:\n(A) x\n(B) y…` back into question and
 * options; null when `prompt` is not in that shape.
 */
function splitChoicePrompt(prompt: string | null | undefined): { question: string; options: string[] } | null {
  if (!prompt) return null;
  const m = /^Question: ?([\s\S]*?)\nOptions:\n([\s\S]*)$/.exec(prompt);
  if (!m) return null;
  const options: string[] = [];
  for (const line of (m[2] as string).split('\n')) {
    const o = /^\(([A-H])\) ?(.*)$/.exec(line);
    if (!o || o[1] !== letterOf(options.length)) return null;
    options.push(o[2] as string);
  }
  return options.length > 0 ? { question: m[1] as string, options } : null;
}

type QuirkRow = { video?: string | null; question?: string | null; candidates?: string[] | null; answer?: string | null; kind: 'mcqa' | 'open' };
type QuirkFields = { question: string; answer: string; candidates: string };

/**
 * The rows MLVU itself ships that need a word (see the header): `skip` returns true for a row
 * that cannot be scored, after recording a warning `file:line: field: skipped — why`; a row
 * whose answer is a blank candidate is kept (false) with a warning `file:line: field: kept — …`.
 */
export class MlvuQuirks {
  private readonly seen = new Map<string, { candidates: string; line: number }>();
  private readonly skippedLines: string[] = [];
  private readonly keptLines: string[] = [];

  constructor(private readonly file: string) {}

  skip(r: QuirkRow, line: number, fields: QuirkFields): boolean {
    const why = this.reason(r, line, fields);
    if (!why) return false;
    if (why.keep) {
      this.keptLines.push(`${this.file}:${line}: ${why.field}: kept — ${why.text}`);
      return false;
    }
    this.skippedLines.push(`${this.file}:${line}: ${why.field}: skipped — ${why.text}`);
    return true;
  }

  private reason(r: QuirkRow, line: number, fields: QuirkFields): { field: string; text: string; keep?: true } | null {
    const blankQuestion = r.question == null || r.question.trim() === '';
    if (r.kind === 'open') return blankQuestion ? { field: fields.question, text: 'blank question (a blank row of the benchmark)' } : null;
    const cands = r.candidates ?? [];
    const letter = answerLetter(r.answer, cands);
    if (letter === undefined) {
      return { field: fields.answer, text: `answer ${JSON.stringify(r.answer)} is not among the candidates` };
    }
    const at = letter === null ? -1 : letter.charCodeAt(0) - 65;
    // The answer is a blank candidate (3_ego.json twice; 7_topic_reasoning.json's blank row, all
    // blank): choice_bench.py scores it as that letter and counts it, so it is kept.
    const blankAnswer = at >= 0 && (cands[at] ?? '').trim() === '';
    if (blankQuestion && !blankAnswer) return { field: fields.question, text: 'blank question (a blank row of the benchmark)' };
    if (letter === null) return { field: fields.answer, text: 'blank answer, and no blank candidate to be it' };
    const key = `${r.video ?? ''}\u0000${r.question ?? ''}`;
    const cs = JSON.stringify(cands);
    const prev = this.seen.get(key);
    if (prev && prev.candidates !== cs) {
      return { field: fields.candidates, text: `the same video and question as line ${prev.line} with different candidates` };
    }
    if (!prev) this.seen.set(key, { candidates: cs, line });
    if (blankAnswer) {
      const what = blankQuestion ? 'a blank row of the benchmark (blank question, candidates and answer)' : 'the answer is a blank candidate';
      return { field: `${fields.candidates}[${at}]`, text: `${what}; scored as MLVU's choice_bench.py scores it, with answer ${letter}`, keep: true };
    }
    return null;
  }

  /** Each skipped row, then the count; each kept blank-answer row, then the count: the import's warnings. */
  warnings(): string[] {
    const out: string[] = [];
    if (this.skippedLines.length > 0) out.push(...this.skippedLines, `${basename(this.file)}: ${this.skippedLines.length} benchmark row(s) skipped (MLVU quirks listed above)`);
    if (this.keptLines.length > 0)
      out.push(...this.keptLines, `${basename(this.file)}: ${this.keptLines.length} blank-answer row(s) kept with the answer MLVU's scorer gives them (listed above)`);
    return out;
  }

  get count(): number {
    return this.skippedLines.length;
  }
}

/** Default split of MLVU items: multiple-choice `MLVU`, generation (open-ended) `MLVU_gen`. */
export function mlvuSplit(kind: 'mcqa' | 'open', given: string | undefined): string {
  if (given) return given;
  return kind === 'open' ? 'MLVU_gen' : 'MLVU';
}

/** MLVU's generation task types (no candidates; free-text answers). */
const GENERATION_TYPES = new Set(['subPlot', 'summary', 'sub_scene', 'subscene', 'sub_plot']);

/** Open-ended: no candidates, and a free-text answer or a generation task type. */
function isOpenRecord(answer: string | null | undefined, candidates: string[] | null | undefined, questionType: string | null | undefined): boolean {
  if (candidates && candidates.length > 0) return false;
  if (questionType != null && GENERATION_TYPES.has(questionType)) return true;
  return answer != null && answer !== '' && answerLetter(answer, candidates) === undefined;
}

function itemOf(split: string, sampleId: string, r: z.infer<typeof Meta> | z.infer<typeof Result>, answer: string | null): ItemMeta {
  const video = r.video ?? r.video_name ?? null;
  const d = typeof r.duration === 'number' ? r.duration : r.duration != null && r.duration !== '' ? Number(r.duration) : null;
  return {
    split,
    sampleId,
    question: r.question ?? null,
    options: r.candidates ?? null,
    answer,
    taskType: r.question_type ?? null,
    durationS: d !== null && Number.isFinite(d) ? d : null,
    videoId: video ? basename(video, extname(video)) : null,
    // choice_bench.py writes the full path it read the video from; the item names the file.
    videoFile: video ? basename(video) : null,
    kind: 'mcqa',
  };
}

function records(value: unknown, file: string): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object' && Array.isArray((value as { res_list?: unknown }).res_list)) {
    return (value as { res_list: unknown[] }).res_list;
  }
  throw new ImportError(file, 1, '', 'expected a JSON list of questions or {"res_list": [...]}');
}

export async function readMlvuMeta(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const src = await readJsonSource(path);
  const b = new BatchBuilder(file);
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const quirks = new MlvuQuirks(file);
  records(src.value, file).forEach((rec, i) => {
    const line = src.lineOf(rec);
    const r = parseWith(Meta, rec, file, line, `[${i}]`);
    const open = isOpenRecord(r.answer, r.candidates, r.question_type);
    const kind = open ? 'open' : 'mcqa';
    const fields = { question: `[${i}].question`, answer: `[${i}].answer`, candidates: `[${i}].candidates` };
    if (quirks.skip({ ...r, video: r.video ?? r.video_name ?? null, kind }, line, fields)) return;
    const id = sampleIdOf(r);
    if (!id) throw new ImportError(file, line, `[${i}].video`, 'no question_id and no video to derive a sample id from');
    checkKind(kindState, kind, file, line, `[${i}].${open ? 'answer' : 'candidates'}`);
    const split = mlvuSplit(kind, opts.split);
    if (open) {
      const references = referencesOf(r.answer || null, file, line, `[${i}].answer`);
      b.addItem({ ...itemOf(split, id, r, null), options: null, references, kind: 'open' }, line, { references: `[${i}].answer` });
      return;
    }
    const answer = answerLetter(r.answer, r.candidates);
    if (answer === undefined) throw new ImportError(file, line, `[${i}].answer`, `answer ${JSON.stringify(r.answer)} is neither a letter nor one of the candidates`);
    b.addItem(itemOf(split, id, r, answer), line);
  });
  b.warnings.push(...quirks.warnings());
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'mlvu-meta', toolkit: 'mlvu', modelArgs: null });
}

export async function readMlvuResults(path: string, opts: ImportOptions = {}): Promise<ImportBatch> {
  const file = path;
  const src = await readJsonSource(path);
  const rn = parseResultName(basename(path, extname(path)));
  const model = opts.model ?? rn.model;
  if (!model) throw new ImportError(file, 0, 'model', 'model unknown from the file name; pass --model');
  const config = withVariant(file, resolveConfigKey(file, { frames: rn.frames, pixels: null, what: 'the file name' }, opts.config), rn.variant);
  const b = new BatchBuilder(file);
  b.addConfig(specFor(config, { toolkit: 'mlvu', sampling: { policy: null, seed: null, fps: rn.fps } }));
  if (rn.guess && !opts.model) b.warnings.push(guessWarning(file, rn.guess));
  const kindState: { kind: 'mcqa' | 'open' | null; line: number } = { kind: null, line: 0 };
  const scorer = new OpenScorer(file);
  const quirks = new MlvuQuirks(file);
  records(src.value, file).forEach((rec, i) => {
    const line = src.lineOf(rec);
    const parsed = parseWith(Result, rec, file, line, `[${i}]`);
    // choice_bench.py: `question` is the whole prompt, `gt` is "(B) text".
    const prompt = splitChoicePrompt(parsed.question);
    const r = {
      ...parsed,
      question: prompt ? prompt.question : (parsed.question ?? parsed.Q ?? null),
      candidates: parsed.candidates ?? prompt?.options ?? null,
    };
    // The field to name: the one present, else the one of the record's layout (Q/A or question/answer).
    const gtField = r.gt != null ? 'gt' : r.answer != null ? 'answer' : r.A != null || parsed.Q != null ? 'A' : 'answer';
    const gtValue = r.gt ?? r.answer ?? r.A ?? null;
    const open = isOpenRecord(gtValue, r.candidates, r.question_type);
    const kind = open ? 'open' : 'mcqa';
    const fields = { question: `[${i}].${parsed.Q != null ? 'Q' : 'question'}`, answer: `[${i}].${gtField}`, candidates: `[${i}].candidates` };
    const hasId = (r.question_id != null && r.question_id !== '') || (r.id != null && r.id !== '');
    // MLVU's test-set outputs carry ids and no text to check; its dev-set rows are checked.
    if (!hasId && quirks.skip({ question: r.question, candidates: r.candidates, answer: gtValue, video: r.video ?? r.video_name ?? null, kind }, line, fields)) return;
    const id = sampleIdOf(r);
    if (!id) throw new ImportError(file, line, `[${i}].question_id`, 'no question_id, and no video + question to derive a sample id from');
    checkKind(kindState, kind, file, line, `[${i}].${open ? gtField : 'candidates'}`);
    const split = mlvuSplit(kind, opts.split);
    if (open) {
      const references = referencesOf(gtValue || null, file, line, `[${i}].${gtField}`);
      const given = parseScore(r.score, file, line, `[${i}].score`);
      const row = emptyResponse(model, split, id, config, line);
      row.sourceTag = 'mlvu-results';
      scorer.apply(row, {
        pred: r.pred ?? r.prediction ?? r.response ?? r.option ?? null,
        references,
        given,
        givenField: 'score',
        referenceField: `[${i}].${gtField}`,
        line,
      });
      b.addResponse(row);
      b.addItem({ ...itemOf(split, id, r, null), options: null, references, kind: 'open' }, line, { references: `[${i}].${gtField}` });
      return;
    }
    const answer = answerLetter(gtValue, r.candidates);
    if (answer === undefined) throw new ImportError(file, line, `[${i}].${gtField}`, `answer ${JSON.stringify(gtValue)} is neither a letter nor one of the candidates`);
    const raw = r.option ?? r.pred ?? r.prediction ?? r.response ?? null;
    const pred = extractOptionLetter(raw, lastOptionLetter(r.candidates));
    const row = emptyResponse(model, split, id, config, line);
    row.pred = pred;
    row.groundTruth = answer;
    row.correct = answer === null ? null : pred === answer;
    row.sourceTag = 'mlvu-results';
    b.addResponse(row);
    b.addItem(itemOf(split, id, r, answer), line);
  });
  b.warnings.push(...scorer.warnings(), ...quirks.warnings());
  return b.finish({ sourcePath: path, sha256: await sha256File(path), format: 'mlvu-results', toolkit: 'mlvu', modelArgs: null });
}
