/**
 * Splitting a rendered multiple-choice prompt ("…instruction…\nQuestion?\nA. x\nB. y\n…")
 * back into its question and option texts. Used for lmms-eval's `input` field.
 * Rule: options are the consecutive lines `X. text` / `X) text` / `(X) text` (X = A, B, …
 * in order) — the first such run starting at A; the question is the last non-empty line
 * before that run (instructions and subtitles come earlier in the prompt).
 */
const OPTION = /^\(?([A-H])[.)]\s?(.*)$/;

export interface McqText {
  question: string | null;
  options: string[] | null;
}

export function splitMcqPrompt(prompt: string): McqText {
  const lines = prompt.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = OPTION.exec((lines[i] ?? '').trim());
    if (!m || m[1] !== 'A') continue;
    const options: string[] = [];
    for (let j = i; j < lines.length; j++) {
      const o = OPTION.exec((lines[j] ?? '').trim());
      if (!o || o[1] !== String.fromCharCode(65 + options.length)) break;
      options.push((o[2] ?? '').trim());
    }
    if (options.length < 2) continue;
    let question: string | null = null;
    for (let k = i - 1; k >= 0; k--) {
      const q = (lines[k] ?? '').trim();
      if (q) {
        question = q;
        break;
      }
    }
    return { question, options };
  }
  return { question: null, options: null };
}

/** Strips a leading `A. ` / `(A) ` from an option text (Video-MME stores options with it). */
export function stripOptionPrefix(text: string, index: number): string {
  const m = OPTION.exec(text.trim());
  if (m && m[1] === String.fromCharCode(65 + index)) return (m[2] ?? '').trim();
  return text.trim();
}
