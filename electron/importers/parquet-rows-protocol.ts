/**
 * What the parquet decoding thread (parquet-rows-thread.ts) and the Video-MME table reader
 * (videomme-parquet.ts) send each other. The reader posts the file and the slice size; the thread
 * posts the table's column names and row count, then the rows slice by slice (structured
 * clones of hyparquet's row objects), then `end` — or why it could not.
 */
import type { ErrorData } from '../threads/worker-thread';

export interface ParquetRowsInput {
  path: string;
  /** Rows per `rows` message. */
  slice: number;
}

export type ParquetRowsMessage =
  | { t: 'header'; names: string[]; rows: number }
  /** The footer could not be read: not a parquet file, or a damaged one. */
  | { t: 'unreadable'; message: string }
  /** The rows as hyparquet decoded them; the reader parses each with its table's row schema. */
  | { t: 'rows'; start: number; rows: unknown[] }
  | { t: 'end' }
  | { t: 'failed'; error: ErrorData };
