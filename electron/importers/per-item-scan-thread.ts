/**
 * What the scan thread of a large per_item.csv does (per-item-scan.ts starts the thread,
 * per-item-scan-worker.ts is its entry): reads the file block by block into shared memory and
 * tokenizes every complete record it holds into the ring's slots (csv-tokenize.ts), posting one
 * message per chunk. The reader's thread interns those rows
 * meanwhile, and hashes the bytes each chunk ends (it has time to spare: this thread, reading and
 * tokenizing, is the slower of the two).
 *
 * A record is tokenized only once its line break has been read: the bytes read so far are cut
 * at their last line break outside quotes (recordsEnd, csv-tokenize.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { errorData } from './error-data';
import { ImportError } from './errors';
import { bomLength, CHUNK_ROWS, recordStrings, recordsEnd, tokenize, type Cursor } from './csv-tokenize';
import { BLOCK, CTRL_RELEASED, CTRL_STOP, RING_SLOTS, type ScanInput, type ScanMessage } from './per-item-scan-protocol';

function scan(input: ScanInput, post: (m: ScanMessage) => void, block: number): void {
  const { path, display } = input;
  const bytes = new Uint8Array(input.data);
  const all = Buffer.from(input.data);
  const ctrl = new Int32Array(input.ctrl);
  const size = bytes.length;
  const fd = openSync(path, 'r');
  let loaded = 0;
  let eof = false;
  /** Bytes [0, complete) hold whole records only. */
  let complete = 0;
  const at: Cursor = { p: 0, line: 1, quote: -1 };
  let names: string[] | null = null;
  let width = 0;
  let offs: Int32Array | null = null;
  let stride = 0;
  let produced = 0;
  let tokenizing = true;
  try {
    while (!eof) {
      const n = loaded < size ? readSync(fd, bytes, loaded, Math.min(block, size - loaded), loaded) : 0;
      if (n > 0) {
        if (loaded === 0) at.p = bomLength(bytes.subarray(0, n));
        loaded += n;
      }
      // The file may have shrunk since its size was taken: what was read is the file.
      eof = n === 0 || loaded >= size;
      if (!tokenizing) continue;
      complete = eof ? loaded : recordsEnd(all, complete, loaded);
      if (at.p >= complete && !eof) continue;
      // A view that ends where the whole records end: the tokenizer never looks past it.
      const view = all.subarray(0, complete);
      at.quote = -1;
      try {
        if (names === null) {
          let got: string[] = [];
          while (at.p < complete && got.length === 0) got = recordStrings(view, at, display);
          if (got.length === 0 && !eof) continue;
          names = got;
          width = names.length;
          stride = 2 + 2 * width;
          const ring = new SharedArrayBuffer(RING_SLOTS * CHUNK_ROWS * stride * 4);
          offs = new Int32Array(ring);
          // No header row (width 0) is met only at the end of the file: nothing is left to tokenize.
          post({ t: 'header', names, ring, stride });
        }
        while (at.p < complete) {
          // Wait for a free slot: the reader's thread has released all but RING_SLOTS − 1 chunks.
          for (;;) {
            if (Atomics.load(ctrl, CTRL_STOP) !== 0) break;
            const released = Atomics.load(ctrl, CTRL_RELEASED);
            if (produced - released < RING_SLOTS) break;
            Atomics.wait(ctrl, CTRL_RELEASED, released);
          }
          if (Atomics.load(ctrl, CTRL_STOP) !== 0) {
            tokenizing = false;
            break;
          }
          const slot = produced % RING_SLOTS;
          const quoted: string[] = [];
          const rows = tokenize(view, at, display, width, offs!.subarray(slot * CHUNK_ROWS * stride, (slot + 1) * CHUNK_ROWS * stride), quoted);
          if (rows === 0) continue; // only empty lines
          produced++;
          post({ t: 'chunk', slot, rows, quoted, end: at.p });
        }
      } catch (e) {
        if (!(e instanceof ImportError)) throw e;
        // The reader's thread still wants the whole file (a truncated or non-UTF-8 file is
        // refused as such before any row's error), so the read goes on.
        post({ t: 'refused', error: errorData(e) });
        tokenizing = false;
      }
    }
    post({ t: 'end', length: loaded });
  } finally {
    closeSync(fd);
  }
}

/** The thread's input, checked field by field (per-item-scan-protocol.ts says why not with zod). */
function inputOf(workerData: unknown): ScanInput {
  const data = (workerData as { data?: unknown } | null)?.data as Partial<Record<keyof ScanInput, unknown>> | undefined;
  if (!data || typeof data.path !== 'string' || typeof data.display !== 'string' || !(data.data instanceof SharedArrayBuffer) || !(data.ctrl instanceof SharedArrayBuffer)) {
    throw new Error('the per_item.csv scan thread was started without its input');
  }
  return { path: data.path, display: data.display, data: data.data, ctrl: data.ctrl };
}

/**
 * The thread's work, from its `workerData` to its last message: whatever stops the scan other
 * than an ImportError (the file cannot be opened or read, no input) is posted as 'failed'. The
 * file is read `block` bytes at a time; a test passes a few bytes, to cross blocks with a small file.
 */
export function runScan(workerData: unknown, post: (m: ScanMessage) => void, block: number = BLOCK): void {
  try {
    scan(inputOf(workerData), post, block);
  } catch (e) {
    post({ t: 'failed', error: errorData(e) });
  }
}
