/**
 * Where the per_item.csv reader's rows come from (csv-tokenize.ts offsets): a file read and
 * tokenized on the reader's thread a window at a time, or the scan thread's chunks
 * (per-item-scan.ts). The row code is the same for both.
 */
import { isUtf8 } from 'node:buffer';
import type { Hash } from 'node:crypto';
import { readSync } from 'node:fs';
import { ImportError } from './errors';
import { bomLength, CHUNK_ROWS, recordStrings, recordsEnd, tokenize, type Cursor } from './csv-tokenize';
import type { Rows } from './per-item-rows';
import type { Scan } from './per-item-scan';

/**
 * Bytes per window of a file read on the reader's thread (a window holds more when one record
 * is longer). Not the whole file: memory a process touches for the first time costs a page
 * fault per 4 KiB, and reading a 14.6 MB file into a fresh buffer of its own took ~70 ms of a
 * CLI import where a reused window takes ~25 ms (docs/architecture.md "Import at lab scale").
 */
export const WINDOW_BYTES = 1 << 20;

/** Where the rows' field offsets come from (csv-tokenize.ts): this thread, or the scan thread. */
export interface RowSource {
  /** The bytes the rows' offsets index: the window (after `header`), or the file. */
  readonly buf: Buffer;
  /** The header's fields as read ([] = none). */
  header(): Promise<string[]>;
  /** Sets `rows.offs` and `rows.quoted` to the next chunk's rows and returns their count; 0 at the end. */
  next(rows: Rows): Promise<number>;
}

/**
 * A file read and tokenized on this thread, one window of `windowBytes` at a time, each chunk
 * into one array. A window is cut after its last whole record (recordsEnd); the rest is carried
 * to the front of the next. On each move the rows' kept byte ranges are forgotten (Rows.moved).
 * Every byte read is hashed into `hash`, and each window's records are checked for UTF-8 before
 * they are tokenized.
 */
export function windowRows(fd: number, file: string, hash: Hash, windowBytes: number): RowSource & { lastByte(): number } {
  let buf = Buffer.allocUnsafeSlow(windowBytes);
  /** Bytes [0, held) are the file's, from `at.p` on not yet tokenized; [0, end) are whole records. */
  let held = 0;
  let end = 0;
  let view = buf.subarray(0, 0);
  let pos = 0;
  let eof = false;
  let last = -1;
  const at: Cursor = { p: 0, line: 1, quote: -1 };
  let width = 0;

  /** The next window: false when the file has no more bytes. */
  function advance(): boolean {
    // Only called once the window's records are all tokenized: at the end of the file, none is left.
    if (eof) return false;
    if (at.p > 0) {
      buf.copy(buf, 0, at.p, held);
      held -= at.p;
      at.p = 0;
    }
    at.quote = -1;
    for (;;) {
      if (held === buf.length) {
        // One record longer than the window: a larger one.
        const grown = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(grown, 0, 0, held);
        buf = grown;
      }
      const n = readSync(fd, buf, held, buf.length - held, pos);
      if (n === 0) eof = true;
      else {
        hash.update(buf.subarray(held, held + n));
        if (pos === 0) at.p = bomLength(buf.subarray(0, n));
        held += n;
        pos += n;
        last = buf[held - 1]!;
      }
      end = eof ? held : recordsEnd(buf, 0, held);
      if (eof || end > at.p) break;
    }
    view = buf.subarray(0, end);
    if (!isUtf8(view)) throw new ImportError(file, at.line, '', 'not UTF-8'); // named precisely by refuseDamaged
    return at.p < end;
  }

  return {
    get buf() {
      return buf;
    },
    header() {
      let names: string[] = [];
      while (names.length === 0 && (at.p < end || advance())) names = recordStrings(view, at, file);
      width = names.length;
      return Promise.resolve(names);
    },
    next(rows) {
      for (;;) {
        if (at.p < end) {
          if (rows.offs.length === 0) rows.offs = new Int32Array(CHUNK_ROWS * (2 + 2 * width));
          const got = tokenize(view, at, file, width, rows.offs, rows.quoted);
          if (got > 0) return Promise.resolve(got);
        }
        if (!advance()) return Promise.resolve(0);
        rows.moved(buf);
      }
    },
    lastByte: () => last,
  };
}

/** A file the scan thread reads and tokenizes: each chunk's slot is given back when the next is asked for. */
export function scannedRows(scan: Scan): RowSource {
  let held = false;
  return {
    buf: scan.buf,
    header: () => scan.header(),
    async next(rows) {
      if (held) scan.release();
      held = false;
      const c = await scan.next();
      if (c === null) return 0;
      held = true;
      rows.offs = c.offs;
      rows.quoted = c.quoted;
      return c.rows;
    },
  };
}
