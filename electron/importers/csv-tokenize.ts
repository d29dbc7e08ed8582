/**
 * The CSV/TSV tokenizer every reader of delimited text uses (RFC 4180, docs/release-format.md
 * "General rules"; docs/formats.md for the toolkits' files). Two ways out of the same quoting
 * rules: `tokenize` writes each record's field boundaries as byte offsets, chunk by chunk,
 * without making a string per field (per_item.csv, the one file read at lab scale; it runs on
 * either thread: inline for a small file, on a thread of its own for a large one,
 * per-item-scan.ts), and `recordStrings` gives one record's fields as strings
 * (csv-records.ts, for every other CSV or TSV). Measured on the real files and the bench's
 * per_item.csv, csv-parse took 4–7× as long for string records and ~60× as long as the
 * offsets (docs/performance.md "Import at lab scale"), so the library is not used.
 */
import { ImportError } from './errors';

export const COMMA = 44;
export const LF = 10;
export const CR = 13;
export const QUOTE = 34;

/**
 * The first comma in bytes [e, end) of `dv`, or `end`. Four bytes per step: a word with a
 * comma byte has a zero byte after XOR with 0x2c2c2c2c, which the classic has-zero-byte test
 * finds; its lowest flagged byte is the first comma (little-endian reads). The last word may
 * reach past `end` (into the line break and the next row): a comma found there is not this
 * row's, nor are bytes past the text the tokenizer was given (`dv` spans the whole buffer: a
 * window of the file, or the file). Only the buffer's last 3 bytes take the byte loop. (A byte
 * loop for every field's last 1–3 bytes ran first, in some files, after V8 had optimised this,
 * deoptimising it and tokenize.)
 */
function nextComma(dv: DataView, e: number, end: number): number {
  const n = dv.byteLength;
  for (; e < end; e += 4) {
    if (e + 4 > n) return lastBytesComma(dv, e, end);
    const w = dv.getUint32(e, true) ^ 0x2c2c2c2c;
    const t = (w - 0x01010101) & ~w & 0x80808080;
    if (t !== 0) {
      const at = e + ((31 - Math.clz32(t & -t)) >> 3);
      return at < end ? at : end;
    }
  }
  return end;
}

function lastBytesComma(dv: DataView, e: number, end: number): number {
  while (e < end && dv.getUint8(e) !== COMMA) e++;
  return e;
}

/** Bytes of a UTF-8 byte order mark at the start of `buf` (3), else 0: the tokenizer starts after it. */
export function bomLength(buf: Uint8Array): number {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

/** Where the tokenizer stands: byte offset and 1-based line. */
export interface Cursor {
  p: number;
  line: number;
  /** The next quote at or after `p` (the text's length when none): found once, not per chunk. */
  quote: number;
}

/** Reads the quoted field at `at.p` (its opening quote), leaves `at.p` after the closing quote. */
function readQuoted(buf: Buffer, at: Cursor, file: string, delimiter: number): string {
  const n = buf.length;
  const parts: string[] = [];
  let p = at.p + 1;
  let s = p;
  // Named where it opens: the end of the file, where it is found, says nothing to a reader.
  const opened = at.line;
  for (;;) {
    if (p >= n) throw new ImportError(file, opened, '', 'malformed CSV: the quoted field opened on this line is not closed before the end of the file');
    const c = buf[p]!;
    if (c === QUOTE) {
      parts.push(buf.toString('utf8', s, p));
      if (buf[p + 1] === QUOTE) {
        parts.push('"');
        p += 2;
        s = p;
        continue;
      }
      p++;
      const after = p < n ? buf[p]! : LF;
      if (after !== delimiter && after !== LF && !(after === CR && (p + 1 >= n || buf[p + 1] === LF))) {
        throw new ImportError(file, at.line, '', 'malformed CSV: unexpected character after a closing quote');
      }
      at.p = p;
      return parts.join('');
    }
    if (c === LF) at.line++;
    p++;
  }
}

/**
 * One record at `at.p`, every field as a string (a header row, or any record of a CSV or TSV
 * that is not per_item.csv); `at` moves past its line break. An empty line gives []. A record
 * without a quote is split at its delimiters by indexOf (machine code from the first call);
 * one with a quote is read byte by byte, and a quote inside an unquoted field is refused.
 */
export function recordStrings(buf: Buffer, at: Cursor, file: string, delimiter: number = COMMA): string[] {
  const n = buf.length;
  const out: string[] = [];
  let le = buf.indexOf(LF, at.p);
  if (le < 0) le = n;
  const end = le > at.p && buf[le - 1] === CR ? le - 1 : le;
  if (end === at.p) {
    at.p = le + 1;
    at.line++;
    return out;
  }
  if (at.quote < at.p) {
    at.quote = buf.indexOf(QUOTE, at.p);
    if (at.quote < 0) at.quote = n;
  }
  if (at.quote >= le) {
    for (let s = at.p; ;) {
      let e = buf.indexOf(delimiter, s);
      if (e < 0 || e > end) e = end;
      out.push(buf.toString('utf8', s, e));
      if (e >= end) break;
      s = e + 1;
    }
    at.p = le + 1;
    at.line++;
    return out;
  }
  for (;;) {
    let c = at.p < n ? buf[at.p]! : LF;
    if (c === QUOTE) {
      out.push(readQuoted(buf, at, file, delimiter));
      c = at.p < n ? buf[at.p]! : LF;
    } else {
      const s = at.p;
      let p = s;
      c = LF;
      while (p < n) {
        const b = buf[p]!;
        if (b === delimiter || b === LF) break;
        if (b === QUOTE) throw new ImportError(file, at.line, '', 'malformed CSV: a quote inside an unquoted field');
        p++;
      }
      if (p < n) c = buf[p]!;
      out.push(buf.toString('utf8', s, c === LF && p > s && buf[p - 1] === CR ? p - 1 : p));
      at.p = p;
    }
    at.p += c === CR ? 2 : 1;
    if (c !== delimiter) {
      at.line++;
      return out;
    }
  }
}

/** Rows tokenized per chunk (the field offsets of 4096 rows: ~0.4 MB for eleven columns). */
export const CHUNK_ROWS = 4096;

/**
 * Tokenizes up to CHUNK_ROWS records from `at` into `offs`: per row its line (the line it
 * ends on), its field count, then [start, end) byte offsets of each of its first `width`
 * fields — or −1 and an index into `quoted` for a quoted field. Empty lines are skipped.
 * Returns the number of rows.
 *
 * `text` is the file as latin1 (one character per byte, so its offsets are byte offsets):
 * line breaks and commas are found with String.prototype.indexOf, which V8 runs as machine
 * code from the first call — a per-byte loop in JavaScript ran interpreted for most of a cold
 * import before V8 optimised it. A record holding a quote takes the byte loop (quotedRecord).
 */
export function tokenize(buf: Buffer, at: Cursor, file: string, width: number, offs: Int32Array, quoted: string[]): number {
  const n = buf.length;
  // Over the whole buffer, not just `buf`: see nextComma.
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.buffer.byteLength - buf.byteOffset);
  const stride = 2 + 2 * width;
  let p = at.p;
  let line = at.line;
  let rows = 0;
  let q = at.quote;
  if (q < p) {
    q = buf.indexOf(QUOTE, p);
    if (q < 0) q = n;
  }
  at.quote = q;
  quoted.length = 0;
  // `at` is updated per row, not once after the loop: V8 compiles this loop (OSR) during the
  // first call, before any code after the loop has run, and code after it then deoptimised
  // that compiled loop at the end of every call until the whole function was optimised.
  while (p < n && rows < CHUNK_ROWS) {
    let le = buf.indexOf(LF, p);
    if (le < 0) le = n;
    const end = le > p && buf[le - 1] === CR ? le - 1 : le;
    if (end === p) {
      p = le + 1;
      line++;
      at.p = p;
      at.line = line;
      continue; // an empty line
    }
    const base = rows * stride;
    let fields = 0;
    if (q < le) {
      at.p = p;
      at.line = line;
      fields = quotedRecord(buf, at, file, width, offs, base, quoted);
      p = at.p;
      line = at.line;
      q = buf.indexOf(QUOTE, p);
      if (q < 0) q = n;
      at.quote = q;
    } else {
      // Commas by a byte loop: fields are short, and V8 optimises this small loop early.
      let s = p;
      let e = p;
      for (;;) {
        e = nextComma(dv, e, end);
        if (fields < width) {
          offs[base + 2 + 2 * fields] = s;
          offs[base + 3 + 2 * fields] = e;
        }
        fields++;
        if (e >= end) break;
        s = ++e;
      }
      p = le + 1;
      line++;
    }
    offs[base] = line - 1;
    offs[base + 1] = fields;
    rows++;
    at.p = p;
    at.line = line;
  }
  return rows;
}

/** One record holding a quote, byte by byte (RFC 4180); returns its field count and moves `at` past it. */
function quotedRecord(buf: Buffer, at: Cursor, file: string, width: number, offs: Int32Array, base: number, quoted: string[]): number {
  const n = buf.length;
  let p = at.p;
  let fields = 0;
  for (;;) {
    let ch = p < n ? buf[p]! : LF;
    let s: number;
    let e: number;
    if (ch === QUOTE) {
      at.p = p;
      quoted.push(readQuoted(buf, at, file, COMMA));
      p = at.p;
      s = -1;
      e = quoted.length - 1;
      ch = p < n ? buf[p]! : LF;
    } else {
      s = p;
      while (p < n) {
        ch = buf[p]!;
        if (ch === COMMA || ch === LF) break;
        if (ch === QUOTE) throw new ImportError(file, at.line, '', 'malformed CSV: a quote inside an unquoted field');
        p++;
      }
      if (p >= n) ch = LF;
      e = ch === LF && p > s && buf[p - 1] === CR ? p - 1 : p;
    }
    if (fields < width) {
      offs[base + 2 + 2 * fields] = s;
      offs[base + 3 + 2 * fields] = e;
    }
    fields++;
    p += ch === CR ? 2 : 1;
    if (ch !== COMMA) break;
  }
  at.p = p;
  at.line++;
  return fields;
}

/**
 * Where the whole records among bytes [from, to) of `buf` end, `from` being the start of a
 * record: after the last line break with an even number of quote characters between `from`
 * and it (a doubled quote inside a quoted field counts twice, so the parity holds), else
 * `from`. A line break inside a quoted field is not a record's end. For a malformed file the
 * parity may be wrong, but only past the first malformed record, where tokenize stops with
 * its error.
 */
export function recordsEnd(buf: Buffer, from: number, to: number): number {
  const part = buf.subarray(from, to);
  let end = 0;
  // The start of the current stretch outside quotes; −1 inside a quoted one.
  let outside = 0;
  for (let q = part.indexOf(QUOTE); q >= 0; q = part.indexOf(QUOTE, q + 1)) {
    if (outside < 0) {
      outside = q + 1;
      continue;
    }
    // Searched within the stretch only: a line with many quoted fields stays linear.
    const lf = q > outside ? part.subarray(outside, q).lastIndexOf(LF) : -1;
    if (lf >= 0) end = outside + lf + 1;
    outside = -1;
  }
  if (outside >= 0 && outside < part.length) {
    const lf = part.subarray(outside).lastIndexOf(LF);
    if (lf >= 0) end = outside + lf + 1;
  }
  return from + end;
}
