import { clipMessage } from '../../shared/api/clip';

/**
 * A rejected input. Every importer and the store throw this for bad data so the user sees
 * `file:line: field: message`, and the import transaction is rolled back (nothing changes).
 */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    /** 1-based line (JSONL/CSV data rows count from the file's first line); 0 = whole file. */
    readonly line: number,
    /** The offending field or column, or '' when the problem is the whole line/file. */
    readonly field: string,
    readonly reason: string,
  ) {
    // Reasons quote the refused value: bounded, so a huge cell does not come back whole.
    super(`${clipMessage(file, 500)}:${line}${field ? `: ${clipMessage(field, 200)}` : ''}: ${clipMessage(reason)}`);
    this.name = 'ImportError';
  }
}
