/**
 * Re-extracting the chosen option letter from a model's raw answer text.
 *
 * The rule (documented because accuracy depends on it; importers compare it with any
 * letter the toolkit itself extracted and warn where they disagree):
 *  1. Strip whitespace and a leading answer phrase ("The best answer is", "The correct
 *     answer is", "Answer:", "Option", "Best option:" …, case-insensitive).
 *  2. If what is left starts with a letter A–H standing alone — optionally in ( ) or [ ],
 *     followed by the end, whitespace or one of `. ) ] : ,` — that letter is the answer
 *     ("B." → B, "(C) The cat" → C, "D" → D). Only a capital counts: "a dog" is no answer.
 *  3. Otherwise the first "answer is X" / "answer: X" / "option X" phrase anywhere.
 *  4. Otherwise the first letter in parentheses "(C)" anywhere.
 *  5. Otherwise, if exactly one distinct standalone capital A–H occurs, that one.
 *  6. Otherwise no letter (null): the response counts as wrong when ground truth is known.
 * `maxLetter` narrows the alphabet (e.g. 'D' for four options).
 */

// A colon is ASCII or full-width (U+FF1A, as an escape: the CLI's build is kept ASCII,
// docs/architecture.md "CLI start-up").
const PREFIX = /^(?:the\s+)?(?:best\s+|correct\s+|final\s+)?(?:answer|option|choice)(?:\s+is)?\s*[:\uff1a]?\s*/i;

function letterRange(maxLetter: string): string {
  return `A-${maxLetter}`;
}

const cache = new Map<string, RegExp[]>();

function patterns(maxLetter: string): RegExp[] {
  const hit = cache.get(maxLetter);
  if (hit) return hit;
  const r = letterRange(maxLetter);
  const list = [
    new RegExp(`^[(\\[]?([${r}])(?:$|[\\s.)\\]:,])`),
    // Case-insensitive phrase, but the letter itself must be a capital ("answer is a cat" is no answer).
    new RegExp(`(?:[Aa][Nn][Ss][Ww][Ee][Rr](?:\\s+[Ii][Ss])?|[Oo][Pp][Tt][Ii][Oo][Nn]|[Cc][Hh][Oo][Ii][Cc][Ee])\\s*[:\uff1a]?\\s*[(\\[]?([${r}])(?:$|[\\s.)\\]:,])`),
    new RegExp(`\\(([${r}])\\)`),
    new RegExp(`(?:^|[^A-Za-z0-9])([${r}])(?=$|[^A-Za-z0-9])`, 'g'),
  ];
  cache.set(maxLetter, list);
  return list;
}

export function extractOptionLetter(text: string | null | undefined, maxLetter = 'H'): string | null {
  if (text == null) return null;
  const trimmed = text.trim();
  if (trimmed.length === 0) return null;
  // Fast path: the common case of a bare letter, "B" or "B.".
  if (trimmed.length <= 2) {
    const c = trimmed.charCodeAt(0);
    if (c >= 65 && c <= maxLetter.charCodeAt(0) && (trimmed.length === 1 || /[.):,\]]/.test(trimmed[1] ?? ''))) {
      return trimmed[0] ?? null;
    }
  }
  const [lead, phrase, paren, standalone] = patterns(maxLetter) as [RegExp, RegExp, RegExp, RegExp];
  const body = trimmed.replace(PREFIX, '');
  const m1 = lead.exec(body);
  if (m1?.[1]) return m1[1];
  const m2 = phrase.exec(trimmed);
  if (m2?.[1]) return m2[1];
  const m3 = paren.exec(trimmed);
  if (m3?.[1]) return m3[1];
  const seen = new Set<string>();
  standalone.lastIndex = 0;
  for (let m = standalone.exec(trimmed); m; m = standalone.exec(trimmed)) {
    if (m[1]) seen.add(m[1]);
  }
  if (seen.size === 1) return [...seen][0] ?? null;
  return null;
}

/** Letter of option index i (0 → A). */
export function letterOf(index: number): string {
  return String.fromCharCode(65 + index);
}

/** Options an answer may have: the letters A–H. */
const MAX_OPTIONS = 8;

/**
 * The letter of option `index` (0 → A), or null when no letter names it (below 0, past H): the
 * readers' one bound on an answer found among the options.
 */
export function optionLetterAt(index: number): string | null {
  return index >= 0 && index < MAX_OPTIONS ? letterOf(index) : null;
}

/** The last letter a response may give for these options; H when they are not known. */
export function lastOptionLetter(options: readonly string[] | null | undefined): string {
  return options && options.length > 0 ? letterOf(Math.min(options.length, MAX_OPTIONS) - 1) : 'H';
}

/** True for a single capital option letter A–H. */
export function isOptionLetter(s: string): boolean {
  return s.length === 1 && s >= 'A' && s <= 'H';
}
