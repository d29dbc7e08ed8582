/**
 * A parquet table's rows, decoded on a thread of their own (parquet-rows-thread.ts) so that a
 * damaged file is refused within a deadline instead of holding the import: hyparquet trusts the
 * run lengths a page declares, and one flipped byte can make it loop for minutes. A thread that
 * sends nothing for ROWS_DEADLINE_MS — far longer than a healthy slice of rows takes — is
 * stopped, and the file refused (docs/formats.md "Damaged input").
 */
import * as z from 'zod';
import { ImportError } from './errors';
import { errorFromData } from './error-data';
import type { ParquetRowsInput, ParquetRowsMessage } from './parquet-rows-protocol';
import { startWorkerThread, WorkerError, workerEntry } from '../threads/worker-thread';

/** The longest the decoding thread may go without a message (a healthy 10,000-row slice takes well under a second). */
export const ROWS_DEADLINE_MS = 4000;

const Message: z.ZodType<ParquetRowsMessage> = z.discriminatedUnion('t', [
  z.object({ t: z.literal('header'), names: z.array(z.string()), rows: z.number().int().nonnegative() }),
  z.object({ t: z.literal('unreadable'), message: z.string() }),
  z.object({ t: z.literal('rows'), start: z.number().int().nonnegative(), rows: z.array(z.unknown()) }),
  z.object({ t: z.literal('end') }),
  z.object({ t: z.literal('failed'), error: WorkerError }),
]);

export interface ParquetRows {
  /** The table's column names and row count; an unreadable footer is refused as `file:0`. */
  header(): Promise<{ names: string[]; rows: number }>;
  /** The next slice of rows, or null after the last. */
  next(): Promise<{ start: number; rows: unknown[] } | null>;
  /** Stops the thread (after a refusal by the caller, or at the end). */
  stop(): void;
}

export function readParquetRows(path: string, file: string, slice: number): ParquetRows {
  const queue: ParquetRowsMessage[] = [];
  let wake: (() => void) | null = null;
  let exited: Error | null = null;
  let ended = false;
  const input: ParquetRowsInput = { path, slice };
  const thread = startWorkerThread(workerEntry(import.meta.url, 'parquet-rows-worker'), input, {
    message(m) {
      queue.push(Message.parse(m));
      wake?.();
    },
    exit(code, error) {
      ended = true;
      if (code !== 0 || error) exited = error ?? new Error(`the parquet thread of ${file} exited with code ${code}`);
      wake?.();
    },
  });
  let rowsSeen = 0;

  async function take(): Promise<ParquetRowsMessage> {
    for (;;) {
      const m = queue.shift();
      if (m) {
        if (m.t === 'failed') throw errorFromData(m.error);
        return m;
      }
      if (ended) throw exited ?? new Error(`the parquet thread of ${file} ended before the end of the table`);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await new Promise<boolean>((resolve) => {
        wake = () => resolve(false);
        timer = setTimeout(() => resolve(true), ROWS_DEADLINE_MS);
      });
      clearTimeout(timer);
      wake = null;
      if (timedOut && queue.length === 0 && !ended) {
        thread.terminate();
        throw new ImportError(file, rowsSeen + 1, '', `no rows decoded in ${ROWS_DEADLINE_MS / 1000} s after row ${rowsSeen}: the file is damaged`);
      }
    }
  }

  return {
    async header() {
      const m = await take();
      if (m.t === 'unreadable') throw new ImportError(file, 0, '', `not a readable parquet file: ${m.message}`);
      if (m.t !== 'header') throw new Error(`the parquet thread of ${file} sent ${m.t} before the header`);
      return { names: m.names, rows: m.rows };
    },
    async next() {
      const m = await take();
      if (m.t === 'end') return null;
      if (m.t !== 'rows') throw new Error(`the parquet thread of ${file} sent ${m.t} among the rows`);
      rowsSeen = m.start + m.rows.length;
      return { start: m.start, rows: m.rows };
    },
    stop: () => thread.terminate(),
  };
}
