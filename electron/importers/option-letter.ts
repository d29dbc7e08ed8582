/**
 * Re-extracting the chosen option letter from a model's raw answer text.
 *
 * The rule (documented because accuracy depends on it; importers compare it with any
 * letter the toolkit itself extracted and warn where they disagree):
 *  1. If the response, stripped of whitespace, starts with a letter A–H standing alone —
 *     optionally in ( ) or [ ], followed by the end, whitespace or one of `. ) ] : ,` —
 *     that letter is the answer ("B." → B, "(C) The cat" → C, "D" → D). Only a capital
 *     counts: "a dog" is no answer.
 *  2. Otherwise the first "answer is X" / "answer: X" / "option X" / "choice X" phrase
 *     anywhere, the phrase in any case, the letter a capital standing alone as in 1
 *     ("The best answer is: A." → A).
 *  3. Otherwise the first letter in parentheses "(C)" anywhere.
 *  4. Otherwise, if exactly one distinct standalone capital A–H occurs, that one.
 *  5. Otherwise no letter (null): the response counts as wrong when ground truth is known.
 * `maxLetter` narrows the alphabet (e.g. 'D' for four options).
 *
 * Each step's pattern is built when the step is reached, not kept between calls: building
 * one costs about half a microsecond, and a bare "B" or "B." never reaches them. (A
 * leading answer phrase needs no step of its own: step 2 finds it where it stands.)
 */

export function extractOptionLetter(text: string | null | undefined, maxLetter = 'H'): string | null {
  if (text == null) return null;
  const trimmed = text.trim();
  // Fast path: the common case of a bare letter, "B" or "B.".
  if (trimmed.length <= 2) {
    const c = trimmed.charCodeAt(0);
    if (c >= 65 && c <= maxLetter.charCodeAt(0) && (trimmed.length === 1 || /[.):,\]]/.test(trimmed[1] ?? ''))) {
      return trimmed[0] ?? null;
    }
  }
  const letter = `([A-${maxLetter}])`;
  // A colon is ASCII or full-width (U+FF1A, as an escape: the CLI's build is kept ASCII,
  // docs/architecture.md "CLI start-up").
  const answerPhrase = '(?:[Aa][Nn][Ss][Ww][Ee][Rr](?:\\s+[Ii][Ss])?|[Oo][Pp][Tt][Ii][Oo][Nn]|[Cc][Hh][Oo][Ii][Cc][Ee])\\s*[:\\uff1a]?\\s*';
  // What may follow a letter that stands alone.
  const after = '(?:$|[\\s.)\\]:,])';
  const lead = new RegExp(`^[(\\[]?${letter}${after}`).exec(trimmed);
  if (lead?.[1]) return lead[1];
  // Case-insensitive phrase, but the letter itself must be a capital ("answer is a cat" is no answer).
  const phrase = new RegExp(`${answerPhrase}[(\\[]?${letter}${after}`).exec(trimmed);
  if (phrase?.[1]) return phrase[1];
  const paren = new RegExp(`\\(${letter}\\)`).exec(trimmed);
  if (paren?.[1]) return paren[1];
  const seen = new Set<string>();
  const standalone = new RegExp(`(?:^|[^A-Za-z0-9])${letter}(?=$|[^A-Za-z0-9])`, 'g');
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
