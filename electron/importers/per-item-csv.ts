/**
 * The per_item.csv reader (docs/release-format.md "labels/per_item.csv"; docs/formats.md
 * "Damaged input", "Duplicated columns"). One reader for every per_item.csv: the file is read
 * a window at a time and tokenized byte by byte (RFC 4180 quoting included; csv-tokenize.ts
 * — from 32 MB up, read whole on a scan thread of its own, per-item-scan.ts), and each cell
 * goes straight into the typed arrays of its (model, split, config) column — the store's own
 * layout — with every string field interned per table: a value becomes a string only the
 * first time its bytes are seen (≈ 5k sample ids, ≈ 120 source tags and a few names in the
 * 145k-row bench file), so there is no string per field and no object per row.
 *
 * Field offsets rather than strings: a string per field and an array per record (what csv-parse
 * hands over) took ~60× as long as these offsets on the 145k-row bench file, longer than this
 * whole reader (csv-tokenize.ts). This format's fields are short and mostly unquoted; a record holding a
 * quote takes a slower byte loop here (its quoted fields decoded to strings and interned by
 * those), so a quoted and an unquoted spelling of one value are the same value.
 *
 * Cold start matters (a CLI import runs this once, in a fresh process): the per-byte work is in
 * small functions (tokenize, nextComma, same) that V8 optimises within the first few thousand
 * rows, and the per-row checks keep their rare paths (a new value, an error) in separate methods.
 *
 * The reader's parts, by job (docs/architecture.md "Import at lab scale"):
 * - this file: the entry, which chooses the thread, hashes the bytes and gives a damaged file's
 *   refusal before a row's error; and the parse, header then rows chunk by chunk;
 * - per-item-sources.ts: the rows' field offsets, from windows read here or the scan thread;
 * - per-item-header.ts: the header's columns and their positions;
 * - per-item-rows.ts: one row's fields checked and decoded into its column's cells;
 * - per-item-intern.ts: the string fields' values, interned by their bytes;
 * - per-item-column.ts: a (model, split, config) column's growable arrays, and a repeated cell;
 * - per-item-fields.ts: single fields (counts, numbers, frame indices, a config's counts);
 * - per-item-bytes.ts: the byte comparison and typed-array growth they share;
 * - per-item-damage.ts: the refusals of a truncated or non-UTF-8 file;
 * - per-item-batch.ts: the ImportBatch the parsed rows come to.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import type { ImportBatch } from '../../shared/domain/types';
import type { ImportOptions } from './batch-builder';
import { ImportError } from './errors';
import { Header } from './header';
import { LF } from './csv-tokenize';
import { batchOf, parsedOf, type Parsed } from './per-item-batch';
import { refuseDamaged, refuseTruncated } from './per-item-damage';
import { readHeader, type Layout } from './per-item-header';
import { Rows } from './per-item-rows';
import { scannedRows, WINDOW_BYTES, windowRows, type RowSource } from './per-item-sources';

/**
 * Below this size a file is tokenized on the reader's thread: starting a thread costs more than
 * it saves (measured at 14.6 MB: ~60 ms slower with the thread). The thread's code is loaded
 * only for a larger file.
 */
export const SCAN_THREAD_MIN_BYTES = 32 << 20;

/**
 * Reads a release `per_item.csv`. `display` names the file in errors (e.g.
 * `release.zip!labels/per_item.csv`). A file below `scanThreadMinBytes` is read a window at a
 * time on this thread; a larger one is read whole, into shared memory, by the scan thread
 * (147 MB for 1.45M rows, the lab-scale bench: its cells end up in memory anyway, as the
 * batch's columns). Either way a truncated or non-UTF-8 file is refused as such, before any
 * error of a row.
 */
export async function readPerItemCsv(
  path: string,
  opts: ImportOptions = {},
  display = path,
  scanThreadMinBytes = SCAN_THREAD_MIN_BYTES,
  windowBytes = WINDOW_BYTES,
): Promise<ImportBatch> {
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
    if (size < scanThreadMinBytes) {
      const hash = createHash('sha256');
      const source = windowRows(fd, display, hash, Math.max(64, Math.min(windowBytes, size + 1)));
      let parsed: Parsed;
      try {
        parsed = await parse(source, display, opts);
      } catch (e) {
        // A window's bad UTF-8 (or a row's error) may come before the damage that makes the
        // whole file refused: that refusal is the one given.
        refuseDamaged(readFileSync(path), display);
        throw e;
      }
      // Every window was checked for UTF-8 as it was read; a file that does not end in a line
      // break may be a truncated copy (refuseTruncated also lets a last line of blanks pass).
      const last = source.lastByte();
      if (last >= 0 && last !== LF) refuseTruncated(readFileSync(path), display);
      return batchOf(path, display, parsed, hash.digest('hex'));
    }
  } finally {
    closeSync(fd);
  }
  // A large file: read, hashed and tokenized on a thread of its own while this one takes its
  // rows (per-item-scan.ts). The whole file is checked at the end, and a truncated or
  // non-UTF-8 file is refused as such, as above, before any error of a row.
  const { startScan } = await import('./per-item-scan');
  const scan = startScan(path, display, size);
  let parsed: Parsed;
  try {
    parsed = await parse(scannedRows(scan), display, opts);
  } catch (e) {
    refuseDamaged(await scan.end(), display);
    throw e;
  }
  refuseDamaged(await scan.end(), display);
  return batchOf(path, display, parsed, scan.sha256());
}

/** The parse proper: the header, then the rows chunk by chunk. */
async function parse(source: RowSource, file: string, opts: ImportOptions): Promise<Parsed> {
  let names = await source.header();
  if (names.length === 0) throw new ImportError(file, 1, '', 'empty file: no header row');
  names = names.map((h) => h.trim());
  const header = new Header(names, file);
  const idx = readHeader(file, header);
  const layout: Layout = {
    width: names.length,
    idx,
    header,
    copies: header.width > header.names.length,
  };
  const rows = new Rows(source.buf, file, layout, opts.model ?? null, opts.split ?? null);
  const stride = 2 + 2 * layout.width;
  for (let got = await source.next(rows); got > 0; got = await source.next(rows)) {
    for (let r = 0; r < got; r++) rows.row(r * stride);
  }
  return parsedOf(rows);
}
