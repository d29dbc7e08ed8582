import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { parse, type Options as CsvOptions } from 'csv-parse';
import { ImportError } from './errors';
import { StrictUtf8 } from './text-input';

export type CsvRecordHandler = (fields: string[], line: number) => void;

interface NumberedRecord {
  r: string[];
  l: number;
}

/**
 * Streams the records of a CSV/TSV file to `onRecord(fields, line)` (line = 1-based line
 * where the record ends; empty lines are skipped).
 *
 * Why two paths: csv-parse alone needs ~0.55 s for a 145k-row per_item.csv on the target
 * machine — more than the whole import+export budget (the release bench). A record that holds
 * no quote character cannot contain a delimiter or a line break inside a field (RFC 4180),
 * so until the first `"` appears a plain split is exactly what csv-parse would return.
 * From the first line holding a quote onwards everything (that line included) goes through
 * csv-parse's streaming API, which handles quoting, escaped quotes and embedded newlines.
 * test/electron/importers/csv-records.test.ts checks both paths give identical records.
 *
 * Resolves to the sha256 (hex) of the bytes read, so an importer that records the run's
 * hash need not read the file a second time.
 */
export async function readCsvRecords(
  path: string,
  file: string,
  onRecord: CsvRecordHandler,
  delimiter = ',',
): Promise<string> {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  const hash = createHash('sha256');
  // Strict: an invalid byte is refused at its line and column (text-input.ts); drops a BOM.
  const decoder = new StrictUtf8(path, file, { delimiter });
  let carry = '';
  let line = 0;
  let parser: ReturnType<typeof parse> | null = null;
  let parserDone: Promise<void> | null = null;

  const startParser = (initial: string): void => {
    const offset = line;
    const options: CsvOptions<NumberedRecord, string[]> = {
      delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (record, context) => ({ r: record, l: offset + context.lines }),
    };
    const p = parse(options as unknown as CsvOptions);
    parser = p;
    parserDone = (async () => {
      try {
        for await (const rec of p as AsyncIterable<NumberedRecord>) onRecord(rec.r, rec.l);
      } catch (e) {
        if (e instanceof ImportError) throw e;
        const err = e as { lines?: number; message?: string };
        throw new ImportError(file, offset + (err.lines ?? 0), '', `malformed CSV: ${err.message ?? String(e)}`);
      }
    })();
    // Rejections are observed at the final await; this keeps Node from flagging them early.
    parserDone.catch(() => undefined);
    p.write(initial);
  };

  try {
    for await (const chunk of stream) {
      hash.update(chunk as Buffer);
      let text = decoder.decode(chunk as Buffer);
      if (parser) {
        if (!(parser as ReturnType<typeof parse>).write(text)) {
          // If the consumer failed (bad row) it never drains: stop on either.
          await Promise.race([
            new Promise((r) => (parser as ReturnType<typeof parse>).once('drain', r)),
            parserDone,
          ]);
        }
        continue;
      }
      text = carry + text;
      let start = 0;
      let nl = text.indexOf('\n');
      const quote = text.indexOf('"');
      while (nl !== -1 && (quote === -1 || nl < quote)) {
        line += 1;
        const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
        if (end > start) onRecord(text.slice(start, end).split(delimiter), line);
        start = nl + 1;
        nl = text.indexOf('\n', start);
      }
      if (quote !== -1 && quote >= start) {
        startParser(text.slice(start));
        carry = '';
      } else {
        carry = text.slice(start);
      }
    }
    const rest = decoder.end();
    if (parser) {
      (parser as ReturnType<typeof parse>).end(rest);
      await parserDone;
      return hash.digest('hex');
    }
    carry += rest;
    if (carry.includes('"')) {
      startParser(carry);
      (parser as unknown as ReturnType<typeof parse>).end();
      await parserDone;
      return hash.digest('hex');
    }
    if (carry.length > 0) {
      line += 1;
      const text = carry.endsWith('\r') ? carry.slice(0, -1) : carry;
      if (text.length > 0) onRecord(text.split(delimiter), line);
    }
    return hash.digest('hex');
  } finally {
    stream.destroy();
    if (parser) (parser as ReturnType<typeof parse>).destroy();
  }
}
