/**
 * What an lmms-eval record's fields mean (docs/formats.md "lmms-eval"): the prompt and its last
 * line, the doc's options, the answer as a letter (from a letter, an option index, the option
 * text or the task's own metric), the item id and video a metric object names, and an
 * open-ended item's context.
 */
import { basename, extname, isAbsolute } from 'node:path';
import * as z from 'zod';
import type { ItemContext } from '../../shared/domain/types';
import { ImportError } from './errors';
import { splitMcqPrompt, stripOptionPrefix } from './mcq-text';
import { isOptionLetter, optionLetterAt } from './option-letter';

export function firstString(list: unknown[] | string): string | null {
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
export function lastLine(input: string | null | undefined): string | null {
  if (!input) return null;
  const lines = input
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return lines[lines.length - 1] ?? null;
}

/**
 * A string a record's metric objects carry (TempCompass's `avg_accuracy: {video_id, question,
 * …}`): what a 0.4+ log, which drops `doc`, still says about the item. The first such object.
 */
export function metricString(rec: Record<string, unknown>, name: string): string | null {
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
export function videoOfMetrics(rec: Record<string, unknown>): { id: string; file: string } | null {
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
export function openContext(doc: Record<string, unknown> | undefined, input: string | null, question: string | null): ItemContext | null {
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

/** The rendered prompt: `input` (v0.3+), else the first string of a pre-0.3 `arguments`. */
export function promptOf(rec: { input?: string | null; arguments?: unknown }): string | null {
  if (rec.input) return rec.input;
  return Array.isArray(rec.arguments) ? firstString(rec.arguments as unknown[]) : null;
}

/** Option texts of a doc: a list (`A. x` prefixes stripped) or v2's one string of lines. */
export function docOptions(options: string[] | string | null | undefined): string[] | null {
  if (options == null) return null;
  if (Array.isArray(options)) return options.map(stripOptionPrefix);
  return splitMcqPrompt(`?\n${options}`).options;
}

/**
 * An answer as a letter: `B`; MLVU's `(B)` / `(B) text`; TempCompass's `D. text` / `D) text`;
 * anything else unchanged (an option text or an index is resolved against the options later).
 */
export function answerLetterOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^\(([A-H])\)(\s.*)?$/s.exec(v.trim()) ?? /^([A-H])[.)](\s.*)?$/s.exec(v.trim());
  return m ? m[1] : v;
}

/** A 0-based option index: LongVideoBench's `correct_choice`, EgoSchema's `answer` (a number or its digits). */
export function optionIndexOf(v: unknown): number | null {
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
export function metricAnswerLetter(rec: Record<string, unknown>): { letter: string; field: string } | null {
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
export function metricItemId(rec: Record<string, unknown>): string | null {
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
export function resolveAnswer(
  raw: unknown,
  options: string[] | null | undefined,
  stated: { letter: string; field: string } | null,
  file: string,
  line: number,
  field: string,
): string | null {
  if (stated !== null) return stated.letter;
  if (raw === null || raw === undefined || raw === '') return null;
  if (typeof raw === 'string' && isOptionLetter(raw)) return raw;
  const n = optionIndexOf(raw);
  if (n !== null) {
    const count = options?.length ?? LETTERS.length;
    if (n >= count)
      throw new ImportError(
        file,
        line,
        field,
        `option index ${n} is past the ${count} options (0-based: ${LETTERS.slice(0, count)
          .split('')
          .map((l, i) => `${i} = ${l}`)
          .join(', ')})`,
      );
    // A ninth option has no letter: such an answer cannot be scored as one.
    const letter = optionLetterAt(n);
    if (letter === null) throw new ImportError(file, line, field, `option index ${n} names the ${n + 1}th option, and options are lettered A–H`);
    return letter;
  }
  if (typeof raw === 'string' && options) {
    const at = options.findIndex((o) => o.trim() === raw.trim());
    const letter = optionLetterAt(at);
    if (letter !== null) return letter;
    throw new ImportError(
      file,
      line,
      field,
      `the answer ${JSON.stringify(raw)} is neither an option letter nor one of the options (${options.map((o, i) => `${LETTERS[i]}. ${o}`).join('; ')})`,
    );
  }
  throw new ImportError(file, line, field, `expected an option letter A–H, got ${JSON.stringify(raw)}`);
}

/**
 * The letter a task's own code read from the response, to compare with Flipbook's (the summary
 * says where they differ): LongVideoBench's `lvb_acc.parsed_pred` (a random letter when its
 * parser found none), EgoSchema's `score.pred` index (−1: none). Undefined when the record has
 * neither (Video-MME's `pred_answer` is compared on its own).
 */
export function taskParsedLetter(rec: Record<string, unknown>): string | null | undefined {
  const lvb = rec.lvb_acc;
  if (lvb && typeof lvb === 'object' && !Array.isArray(lvb)) {
    const p = (lvb as Record<string, unknown>).parsed_pred;
    if (typeof p === 'string') return isOptionLetter(p) ? p : null;
  }
  const sc = rec.score;
  if (sc && typeof sc === 'object' && !Array.isArray(sc) && 'ground_truth' in sc) {
    const p = (sc as Record<string, unknown>).pred;
    if (typeof p === 'number') return optionLetterAt(p);
  }
  return undefined;
}
