import { parseListLiteral } from './list-literal';

/**
 * Splitting a rendered multiple-choice prompt back into its question and option texts
 * (lmms-eval's `input`, or the prompt in a pre-0.3 log's `arguments`). The layouts
 * lmms-eval's Video-MME, Video-MME v2 and MLVU tasks render (docs/formats.md "lmms-eval
 * prompt layouts"):
 *   default     `<instruction>\n<question>\nA. x\nB. y…\n<post prompt>`
 *   qwen3_vl    `Question: <question>\nOptions:\nA. x…\n<post prompt>`
 *   v2          `Question: <question>\nA. x…\n<instruction>`
 *   subtitles   `<subtitle block>\n` before either of the above
 *   MLVU        `<question>\n(A) x\n(B) y…\nOnly give the best option.…`
 *   pre-0.3     `<question>\n['A. x', 'B. y', …]<post prompt>` (a Python list literal)
 * Rule: the options are the first run of consecutive lines `X. text` / `X) text` /
 * `(X) text` starting at A (or one line holding a list literal of such options); the
 * question is the last non-empty line before them, skipping an `Options:`-style label
 * line and dropping a `Question:` prefix (instructions and subtitles come earlier).
 */
const OPTION = /^\(?([A-H])[.)]\s?(.*)$/;
// MVBench's lmms-eval prompt labels its options `Option:`.
const LABEL = /^(options?|choices|candidates)\s*:?$/i;
const QUESTION_PREFIX = /^question\s*:\s*/i;

export interface McqText {
  question: string | null;
  options: string[] | null;
}

/** Option texts from one line holding a list literal `['A. x', 'B. y']`, else null. */
function listLine(line: string): string[] | null {
  const t = line.trim();
  if (!t.startsWith('[') || !t.endsWith(']')) return null;
  const list = parseListLiteral(t);
  if (!list || list.length < 2) return null;
  const out = list.map((o, k) => {
    const m = OPTION.exec(o.trim());
    return m && m[1] === String.fromCharCode(65 + k) ? (m[2] ?? '').trim() : null;
  });
  return out.every((o): o is string => o !== null) ? out : null;
}

function questionBefore(lines: string[], i: number): string | null {
  for (let k = i - 1; k >= 0; k--) {
    const q = (lines[k] ?? '').trim();
    if (!q || LABEL.test(q)) continue;
    return q.replace(QUESTION_PREFIX, '').trim() || null;
  }
  return null;
}

export function splitMcqPrompt(prompt: string): McqText {
  const lines = prompt.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const listed = listLine(lines[i] ?? '');
    if (listed) return { question: questionBefore(lines, i), options: listed };
    const m = OPTION.exec((lines[i] ?? '').trim());
    if (!m || m[1] !== 'A') continue;
    const options: string[] = [];
    for (let j = i; j < lines.length; j++) {
      const o = OPTION.exec((lines[j] ?? '').trim());
      if (!o || o[1] !== String.fromCharCode(65 + options.length)) break;
      options.push((o[2] ?? '').trim());
    }
    if (options.length < 2) continue;
    return { question: questionBefore(lines, i), options };
  }
  return { question: null, options: null };
}

/** Strips a leading `A. ` / `(A) ` from an option text (Video-MME stores options with it). */
export function stripOptionPrefix(text: string, index: number): string {
  const m = OPTION.exec(text.trim());
  if (m && m[1] === String.fromCharCode(65 + index)) return (m[2] ?? '').trim();
  return text.trim();
}
