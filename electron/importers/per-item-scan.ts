/**
 * A large per_item.csv on two threads (docs/architecture.md "Import at lab scale"): the scan
 * thread (per-item-scan-thread.ts) reads the file into shared memory and tokenizes it chunk by
 * chunk, while this thread interns each chunk's rows as it arrives and hashes the bytes they
 * end — the same tokenizer and the same row code as a small file, which this thread tokenizes
 * itself. At 1.45M rows that takes reading and tokenizing (~0.6 s of the reader's ~1.5 s) off
 * the thread the user waits on.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { errorFromData } from './error-data';
import { startWorkerThread, WorkerError, workerEntry } from '../threads/worker-thread';
import { CHUNK_ROWS } from './csv-tokenize';
import { CTRL_RELEASED, CTRL_STOP, CTRL_WORDS, type ScanInput, type ScanMessage } from './per-item-scan-protocol';

export interface Chunk {
  /** The chunk's rows: `stride` int32 each (csv-tokenize.ts). */
  offs: Int32Array;
  rows: number;
  quoted: string[];
}

export interface Scan {
  /** The file's bytes: complete once `end` has resolved; before that, those of the chunks received. */
  readonly buf: Buffer;
  /** The header's fields as read ([] = none). */
  header(): Promise<string[]>;
  /** The next chunk, or null after the last. Its slot is reused once `release` is called. */
  next(): Promise<Chunk | null>;
  /** Gives the last chunk's slot back, and hashes the bytes up to the end of its rows. */
  release(): void;
  /**
   * Waits until the whole file has been read (stopping the tokenizing, if it is still going):
   * its bytes (`buf` cut to its length).
   */
  end(): Promise<Buffer>;
  /** After `end`: the file's SHA-256 (hashing the bytes after the last chunk released). */
  sha256(): string;
}

/** The scan thread's messages, as per-item-scan-protocol.ts describes them. */
const ScanMessage: z.ZodType<ScanMessage> = z.discriminatedUnion('t', [
  z.object({ t: z.literal('header'), names: z.array(z.string()), ring: z.instanceof(SharedArrayBuffer), stride: z.number().int().positive() }),
  z.object({ t: z.literal('chunk'), slot: z.number().int().nonnegative(), rows: z.number().int().positive(), quoted: z.array(z.string()), end: z.number().int().nonnegative() }),
  z.object({ t: z.literal('refused'), error: WorkerError }),
  z.object({ t: z.literal('end'), length: z.number().int().nonnegative() }),
  z.object({ t: z.literal('failed'), error: WorkerError }),
]);

type Message = ScanMessage;

export function startScan(path: string, display: string, size: number): Scan {
  const data = new SharedArrayBuffer(size);
  const ctrlBuf = new SharedArrayBuffer(CTRL_WORDS * 4);
  const ctrl = new Int32Array(ctrlBuf);
  const queue: Message[] = [];
  let wake: (() => void) | null = null;
  let exited: Error | null = null;
  let ended = false;
  const input: ScanInput = { path, display, data, ctrl: ctrlBuf };
  startWorkerThread(workerEntry(import.meta.url, 'per-item-scan-worker'), input, {
    message(m) {
      queue.push(ScanMessage.parse(m));
      wake?.();
    },
    exit(code, error) {
      ended = true;
      if (code !== 0 || error) exited = error ?? new Error(`the scan thread of ${display} exited with code ${code}`);
      wake?.();
    },
  });

  async function take(): Promise<Message> {
    for (;;) {
      const m = queue.shift();
      if (m) {
        if (m.t === 'failed') throw errorFromData(m.error);
        return m;
      }
      if (ended) throw exited ?? new Error(`the scan thread of ${display} ended before the end of the file`);
      await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
    }
  }

  let ring: Int32Array | null = null;
  let stride = 0;
  let refused: Error | null = null;
  let last: { length: number } | null = null;
  const buf = Buffer.from(data);
  const hash = createHash('sha256');
  let hashed = 0;
  let chunkEnd = 0;
  const stop = (): void => {
    Atomics.store(ctrl, CTRL_STOP, 1);
    Atomics.notify(ctrl, CTRL_RELEASED);
  };

  return {
    buf,
    async header() {
      const m = await take();
      if (m.t === 'refused') throw (refused = errorFromData(m.error));
      if (m.t !== 'header') throw new Error(`the scan thread of ${display} sent ${m.t} before the header`);
      ring = new Int32Array(m.ring);
      stride = m.stride;
      return m.names;
    },
    async next() {
      if (last || refused) return null;
      const m = await take();
      switch (m.t) {
        case 'chunk':
          chunkEnd = m.end;
          return { offs: ring!.subarray(m.slot * CHUNK_ROWS * stride, (m.slot + 1) * CHUNK_ROWS * stride), rows: m.rows, quoted: m.quoted };
        case 'refused':
          // Rows after the refused record never arrive; the reader throws this after its own checks.
          throw (refused = errorFromData(m.error));
        case 'end':
          last = m;
          return null;
        default:
          throw new Error(`the scan thread of ${display} sent ${m.t} among the chunks`);
      }
    },
    release() {
      Atomics.add(ctrl, CTRL_RELEASED, 1);
      Atomics.notify(ctrl, CTRL_RELEASED);
      hash.update(buf.subarray(hashed, chunkEnd));
      hashed = chunkEnd;
    },
    async end() {
      stop();
      while (!last) {
        const m = await take();
        if (m.t === 'end') last = m;
      }
      return buf.subarray(0, last.length);
    },
    sha256() {
      if (!last) throw new Error('sha256() before end()');
      hash.update(buf.subarray(hashed, last.length));
      hashed = last.length;
      return hash.digest('hex');
    },
  };
}
