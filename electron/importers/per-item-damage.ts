/**
 * The refusals of a damaged per_item.csv as a whole (docs/formats.md "Damaged input"): a
 * truncated copy, then a file that is not UTF-8. The reader gives these before any error of a
 * row, since a row's error may only be a symptom of the damage.
 */
import { isUtf8 } from 'node:buffer';
import { ImportError } from './errors';
import { LF } from './csv-tokenize';
import { decodeText } from './text-input';

/**
 * Refuses a truncated file, then one that is not UTF-8, naming the line and field of its
 * first invalid byte (text-input.ts).
 */
export function refuseDamaged(buf: Buffer, display: string): void {
  refuseTruncated(buf, display);
  // (A copy: the text decoder that finds the byte does not take shared memory.)
  if (!isUtf8(buf)) decodeText(new Uint8Array(buf), display, { delimiter: ',' });
}

/**
 * Every row of a per_item.csv ends in a line break (docs/release-format.md "General rules").
 * A file that stops inside its last row is a truncated copy (an interrupted download or
 * transfer): importing it would keep a cut row whose last field may still parse (a tag or
 * a note cut short) or drop the row silently, so it is refused, naming the cut row and the
 * field it stops in.
 */
export function refuseTruncated(buf: Buffer, file: string): void {
  if (buf.length === 0 || buf[buf.length - 1] === LF) return;
  const lines = buf.toString('utf8').split('\n');
  const cut = lines[lines.length - 1]!;
  if (cut.trim() === '') return;
  let fields = 1;
  let quoted = false;
  for (let i = 0; i < cut.length; i++) {
    const c = cut.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) fields++;
  }
  // trim() drops a byte-order mark before the first name and a CR after the last.
  // No header (the cut row is the first line): no field to name.
  const header = lines.length > 1 ? lines[0]!.split(',') : [];
  const field = (header[Math.min(fields, header.length) - 1] ?? '').trim();
  throw new ImportError(file, lines.length, field, 'the file ends inside this row (no line break after it): a truncated copy? Nothing was imported; copy or export the file again');
}
