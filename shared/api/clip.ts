/**
 * Error messages quote the input they refuse; an oversized input (a 10 MB cell, a huge
 * argument) must not come back whole in a message, a log or an HTTP body
 * (docs/security.md). Every refusal passes its text through `clipMessage`.
 */
export const MAX_MESSAGE_CHARS = 1000;

/** `text` cut to at most `max` characters (plus a note of how much was cut). */
export function clipMessage(text: string, max = MAX_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  // Do not split a surrogate pair.
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… (${text.length - end} more characters cut)`;
}
