/**
 * The shared checks every importer's text goes through (docs/formats.md, "Damaged input"):
 *
 * - bytes must be valid UTF-8: a reader decodes with `StrictUtf8` (streams) or `readTextFile`
 *   (whole files), which refuse the first invalid byte as `file:line: field: invalid UTF-8`
 *   instead of letting it become U+FFFD in an id or a prediction;
 * - a UTF-8 byte-order mark at the start is dropped (Excel and Windows editors write one);
 * - ids and names (`checkId`) may not hold control characters (NUL included), U+FFFD or
 *   lone surrogates, and free text (`checkText`) may not hold NUL.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { ImportError } from './errors';

/** Byte offset of the first byte that is not part of a valid UTF-8 sequence, or -1. */
export function firstInvalidUtf8(buf: Uint8Array, from = 0): number {
  let i = from;
  const n = buf.length;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let min: number;
    if (b >= 0xc2 && b <= 0xdf) ((need = 1), (min = 0x80));
    else if (b >= 0xe0 && b <= 0xef) ((need = 2), (min = 0x800));
    else if (b >= 0xf0 && b <= 0xf4) ((need = 3), (min = 0x10000));
    else return i;
    if (i + need >= n) return i; // a sequence cut by the end of the bytes
    let cp = b & (need === 1 ? 0x1f : need === 2 ? 0x0f : 0x07);
    for (let k = 1; k <= need; k++) {
      const c = buf[i + k]!;
      if ((c & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return -1;
}

/** Where a refusal points in a text file: its 1-based line and the field the offset falls in. */
export interface TextLayout {
  /** CSV/TSV: the delimiter (the field is the header's column name); JSON: null (the nearest key). */
  delimiter: string | null;
}

function locate(bytes: Uint8Array, offset: number, layout: TextLayout): { line: number; field: string } {
  const text = (a: number, b: number): string => Buffer.from(bytes.buffer, bytes.byteOffset + a, Math.max(0, b - a)).toString('utf8');
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < bytes.length; i++) {
    if (bytes[i] === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  const prefix = text(lineStart, offset);
  if (layout.delimiter !== null) {
    const nl = bytes.indexOf(10);
    const header = text(0, nl < 0 ? Math.min(bytes.length, 65536) : nl)
      .replace(/^\uFEFF/, '')
      .replace(/\r$/, '')
      .split(layout.delimiter);
    if (line === 1 || prefix.includes('"')) return { line, field: '' };
    const col = prefix.split(layout.delimiter).length - 1;
    return { line, field: header[col] !== undefined && header[col] !== '' ? header[col] : `column ${col + 1}` };
  }
  // JSON: the last key before the bad byte (looking back at most 4 KB).
  const back = text(Math.max(0, offset - 4096), offset);
  let field = '';
  for (const m of back.matchAll(/"((?:[^"\\\n]|\\.){1,200})"\s*:/g)) field = m[1] ?? '';
  return { line, field };
}

/** The refusal of the invalid byte at `offset` of `whole` (the file's bytes). */
function invalidError(display: string, whole: Uint8Array, offset: number, layout: TextLayout): ImportError {
  const { line, field } = locate(whole, offset, layout);
  const shown = Array.from(whole.subarray(offset, Math.min(offset + 4, whole.length)), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return new ImportError(display, line, field, `invalid UTF-8 (bytes ${shown} at byte ${offset}): the file is damaged or not UTF-8; re-save it as UTF-8`);
}

/**
 * A streaming UTF-8 decoder that refuses invalid bytes (naming file, line and field) and
 * drops a leading byte-order mark. Feed it the file's chunks in order.
 */
export class StrictUtf8 {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  private consumed = 0;
  private first = true;
  private tail: Uint8Array = new Uint8Array(0);

  constructor(
    private readonly path: string,
    private readonly display: string,
    private readonly layout: TextLayout,
  ) {}

  decode(chunk: Uint8Array): string {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      throw this.fail(chunk);
    }
    this.advance(chunk);
    return this.bom(text);
  }

  end(): string {
    let text: string;
    try {
      text = this.decoder.decode();
    } catch {
      throw this.fail(new Uint8Array(0));
    }
    return this.bom(text);
  }

  private bom(text: string): string {
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) return text.slice(1);
    }
    return text;
  }

  private advance(chunk: Uint8Array): void {
    // Keep the last 3 bytes: an invalid sequence in the next chunk may start in them.
    const joined = new Uint8Array(this.tail.length + chunk.length);
    joined.set(this.tail);
    joined.set(chunk, this.tail.length);
    this.tail = joined.subarray(Math.max(0, joined.length - 3));
    this.consumed += chunk.length;
  }

  private fail(chunk: Uint8Array): ImportError {
    const joined = new Uint8Array(this.tail.length + chunk.length);
    joined.set(this.tail);
    joined.set(chunk, this.tail.length);
    const base = this.consumed - this.tail.length;
    // Start from the first byte of the tail that begins a sequence (continuation bytes of an
    // already decoded character are not errors).
    let from = 0;
    while (from < this.tail.length && (joined[from]! & 0xc0) === 0x80) from++;
    let at = firstInvalidUtf8(joined, from);
    if (at < 0) at = Math.max(0, joined.length - 1);
    let whole: Uint8Array;
    try {
      // Only on this error path: the whole file, to count lines and find the column.
      whole = readFileSync(this.path);
    } catch {
      return new ImportError(this.display, 0, '', `invalid UTF-8 at byte ${base + at}`);
    }
    return invalidError(this.display, whole, base + at, this.layout);
  }
}

/** Throws the refusal of the first invalid UTF-8 byte of `bytes` (a file already read whole), if any. */
export function refuseInvalidUtf8(bytes: Uint8Array, display: string, layout: TextLayout): void {
  const at = firstInvalidUtf8(bytes);
  if (at >= 0) throw invalidError(display, bytes, at, layout);
}

/** A whole text file, strictly decoded, without a leading byte-order mark. */
export async function readTextFile(path: string, display = path, layout: TextLayout = { delimiter: null }): Promise<string> {
  return decodeText(await readFile(path), display, layout);
}

/** `readTextFile` for bytes already in memory (e.g. a zip entry); `display` names them in errors. */
export function decodeText(bytes: Uint8Array, display: string, layout: TextLayout = { delimiter: null }): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalidError(display, bytes, Math.max(0, firstInvalidUtf8(bytes)), layout);
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// C0 and C1 controls, DEL, U+FFFD (what a damaged byte decodes to elsewhere, e.g. inside an
// xlsx or parquet file) and unpaired surrogates.
const BAD_ID = /[\u0000-\u001f\u007f-\u009f\ufffd]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const BAD_TEXT = /\u0000/;

function describe(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  if (cp === 0) return 'a NUL byte';
  if (cp === 0xfffd) return 'U+FFFD (an undecodable byte)';
  if (cp >= 0xd800 && cp <= 0xdfff) return `an unpaired surrogate U+${cp.toString(16).toUpperCase()}`;
  return `the control character U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * An id or a name (sample id, model, split, config, video id/file) must be printable text:
 * refuses control characters (NUL, tab, line breaks …), U+FFFD and lone surrogates.
 */
export function checkId(value: string, file: string, line: number, field: string): void {
  const m = BAD_ID.exec(value);
  if (m) throw new ImportError(file, line, field, `holds ${describe(m[0])} at character ${m.index + 1}: ids and names must be printable text`);
}

/** Free text (question, prediction, options …) may hold anything but NUL. */
export function checkText(value: string | null | undefined, file: string, line: number, field: string): void {
  if (typeof value !== 'string') return;
  const m = BAD_TEXT.exec(value);
  if (m) throw new ImportError(file, line, field, `holds a NUL byte at character ${m.index + 1}`);
}
