/**
 * What the per_item.csv scan thread (per-item-scan-thread.ts) and the reader's thread
 * (per-item-scan.ts) pass to each other. The bulk — the file's bytes and each chunk's field
 * offsets — is in shared memory; messages carry only what is small: the header, which ring
 * slot holds the next chunk (and that chunk's quoted fields, decoded), the file's length, an error.
 *
 * No zod here: the scan thread loads this module, and zod's module alone takes longer to load
 * in a fresh thread than the thread saves on a mid-sized file. The reader's thread parses every
 * message with the schema in per-item-scan.ts; the scan thread checks its input by hand.
 */
import type { ErrorData } from '../threads/worker-thread';

/**
 * Bytes per read of the scan thread: large enough that a read costs little per byte, small
 * enough that the reader's thread does not run out of tokenized rows while one is read.
 */
export const BLOCK = 4 << 20;

/** Chunks in flight between the threads (~128k rows): the scan thread waits when every slot is unread. */
export const RING_SLOTS = 32;

/** Control words in shared memory (Int32Array indexes). */
export const CTRL_RELEASED = 0; // chunks the reader's thread has finished with
export const CTRL_STOP = 1; // 1: the reader stopped (an error); tokenize no further
export const CTRL_WORDS = 2;

export interface ScanInput {
  path: string;
  /** How the file is named in errors. */
  display: string;
  /** The file's bytes land here (its size when the read started). */
  data: SharedArrayBuffer;
  ctrl: SharedArrayBuffer;
}

export type ScanMessage =
  /** The header's fields as read ([] = no header row); chunks of `stride` int32 per row follow in `ring`. */
  | { t: 'header'; names: string[]; ring: SharedArrayBuffer; stride: number }
  /** `rows` tokenized rows in ring slot `slot`; `quoted` holds their quoted fields; the file's bytes before `end` are final. */
  | { t: 'chunk'; slot: number; rows: number; quoted: string[]; end: number }
  /** The file could not be tokenized from here on (an ImportError); the read goes on to the end ('end' follows). */
  | { t: 'refused'; error: ErrorData }
  /** The whole file is in `data`: its length. */
  | { t: 'end'; length: number }
  /** Anything else went wrong (the file cannot be read, …); nothing follows. */
  | { t: 'failed'; error: ErrorData };
