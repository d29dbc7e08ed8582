import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { bomLength, recordStrings, type Cursor } from './csv-tokenize';
import { refuseInvalidUtf8 } from './text-input';

export type CsvRecordHandler = (fields: string[], line: number) => void;

/**
 * Reads the records of a CSV/TSV file into `onRecord(fields, line)` (line = the 1-based line
 * where the record ends; empty lines are skipped), through the project's one tokenizer
 * (csv-tokenize.ts), as per_item.csv is read. The file is refused before any record when it is
 * not UTF-8, naming its line and field (text-input.ts); a leading byte-order mark is dropped.
 *
 * Resolves to the sha256 (hex) of the file's bytes, so an importer that records the run's hash
 * need not read the file a second time.
 */
export async function readCsvRecords(path: string, file: string, onRecord: CsvRecordHandler, delimiter = ','): Promise<string> {
  if (delimiter.length !== 1 || delimiter.charCodeAt(0) > 0x7f) throw new Error(`readCsvRecords: the delimiter must be one ASCII character, got ${JSON.stringify(delimiter)}`);
  const bytes = await readFile(path);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!isUtf8(bytes)) refuseInvalidUtf8(bytes, file, { delimiter });
  const d = delimiter.charCodeAt(0);
  const at: Cursor = { p: bomLength(bytes), line: 1, quote: -1 };
  while (at.p < bytes.length) {
    const fields = recordStrings(bytes, at, file, d);
    if (fields.length > 0) onRecord(fields, at.line - 1);
  }
  return sha256;
}
