/**
 * What the thread that decodes a parquet table does (parquet-rows.ts starts the thread, one per
 * file; parquet-rows-worker.ts is its entry): reads the footer, then the rows a slice at a time,
 * posting each (parquet-rows-protocol.ts). It is a thread of its own so that the reader can stop
 * it: hyparquet trusts the run lengths a page declares, and a damaged page can make it loop for
 * minutes (docs/formats.md "Damaged input").
 */
import { open } from 'node:fs/promises';
import { errorData } from './error-data';
import type { ParquetRowsInput, ParquetRowsMessage } from './parquet-rows-protocol';

export interface Ranges {
  buffer: { byteLength: number; slice(start: number, end?: number): Promise<ArrayBuffer> };
  close(): Promise<void>;
}

/**
 * The file as hyparquet's AsyncBuffer, read by ranges (never whole) through one open handle, so
 * every range comes from the same file. hyparquet starts several reads at once and stops awaiting
 * the rest when one part fails to decode: each read is tracked, so the handle closes only once
 * the reads in flight have settled, and none is left to fail later, unhandled. A range outside
 * the file (a damaged footer can ask for one) is refused instead of allocated.
 */
export async function openRanges(path: string): Promise<Ranges> {
  const fh = await open(path, 'r');
  const inFlight = new Set<Promise<void>>();
  let size: number;
  try {
    size = (await fh.stat()).size;
  } catch (e) {
    await fh.close();
    throw e;
  }
  const read = async (start: number, end: number): Promise<ArrayBuffer> => {
    if (!(start >= 0 && end >= start && end <= size)) throw new Error(`bytes ${start} to ${end} are outside the file's ${size} bytes`);
    const out = new Uint8Array(end - start);
    for (let off = 0; off < out.length;) {
      const { bytesRead } = await fh.read(out, off, out.length - off, start + off);
      if (bytesRead === 0) throw new Error(`the file ended at byte ${start + off} of ${size}`);
      off += bytesRead;
    }
    return out.buffer;
  };
  return {
    buffer: {
      byteLength: size,
      slice(start: number, end: number = size): Promise<ArrayBuffer> {
        const p = read(start, end);
        const settled = p.then(
          () => undefined,
          () => undefined,
        );
        inFlight.add(settled);
        void settled.then(() => inFlight.delete(settled));
        return p;
      },
    },
    async close() {
      await Promise.all([...inFlight]);
      await fh.close();
    },
  };
}

async function decode({ path, slice }: ParquetRowsInput, post: (m: ParquetRowsMessage) => void): Promise<void> {
  const [{ parquetMetadataAsync, parquetReadObjects }, { compressors }] = await Promise.all([import('hyparquet'), import('hyparquet-compressors')]);
  const ranges = await openRanges(path);
  try {
    let meta;
    try {
      meta = await parquetMetadataAsync(ranges.buffer);
    } catch (e) {
      post({ t: 'unreadable', message: e instanceof Error ? e.message : String(e) });
      return;
    }
    const total = Number(meta.num_rows);
    post({ t: 'header', names: meta.schema.map((s) => s.name), rows: total });
    for (let start = 0; start < total; start += slice) {
      const rows = await parquetReadObjects({ file: ranges.buffer, metadata: meta, compressors, rowStart: start, rowEnd: Math.min(total, start + slice) });
      post({ t: 'rows', start, rows });
    }
    post({ t: 'end' });
  } finally {
    await ranges.close();
  }
}

/** The thread's input, checked field by field (as per-item-scan-thread.ts checks its own). */
function inputOf(workerData: unknown): ParquetRowsInput {
  const data = (workerData as { data?: unknown } | null)?.data as Partial<Record<keyof ParquetRowsInput, unknown>> | undefined;
  if (!data || typeof data.path !== 'string' || !Number.isInteger(data.slice) || (data.slice as number) < 1) {
    throw new Error('the parquet decoding thread was started without its input');
  }
  return { path: data.path, slice: data.slice as number };
}

/**
 * The thread's work, from its `workerData` to its last message: whatever stops it other than an
 * unreadable footer (the file cannot be opened or read, a page that does not decode, no input)
 * is posted as 'failed'.
 */
export async function runDecode(workerData: unknown, post: (m: ParquetRowsMessage) => void): Promise<void> {
  try {
    await decode(inputOf(workerData), post);
  } catch (e) {
    post({ t: 'failed', error: errorData(e) });
  }
}
