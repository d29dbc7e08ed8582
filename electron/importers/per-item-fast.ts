/**
 * The fast path of the per_item.csv reader (per-item-csv.ts): the whole file in memory, fields
 * found by a byte scan and interned by their bytes — no string per field, no string per row.
 * Only values seen for the first time become strings (≈ 5k sample ids, ≈ 120 source tags and a
 * few names in a 145k-row release).
 *
 * The byte-level work runs as WebAssembly (wasm/per-item-kernel.ts, AssemblyScript): an import
 * runs each loop once over ~145k rows, and in JS those loops ran mostly before V8 had optimised
 * them (≈ 110 ms of a cold 14.6 MB import); WebAssembly is machine code from the first row.
 * This file holds the header, the few checks that need strings, and the batch's assembly.
 *
 * It handles the release's own shape — the eleven columns in any order, no quoting, MCQA
 * letters — and nothing else: on anything it does not handle, or anything the general reader
 * would reject or treat specially, it returns null and the caller reads the file again with
 * the general reader, which then reports the exact error (file:line:field) or handles the
 * case. So it never throws an ImportError of its own and cannot disagree with the general
 * reader about what a file means; test/electron/importers/per-item-fast.test.ts compares both
 * on valid and invalid files.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { ColumnTables, InternedStrings, ResponseColumnBatch } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS } from '../../shared/release/per-item-columns';
import { parseKey } from './config-keys';
import { type KernelBase, instantiate } from '../wasm-kernels/instantiate';
import { PER_ITEM_KERNEL_WASM } from './per-item-kernel-wasm';

/** What both readers produce before the ImportBatch is assembled (per-item-csv.ts). */
export interface PerItemParse {
  /** Each config once, in order of first appearance. */
  configs: { key: string; frames: number; pixelCount: number | null }[];
  /** Items with a ground truth, each once, in the order their first ground truth appeared. */
  answered: { split: string; sampleId: string; answer: string }[];
  /** One per (model, split, config), in order of first appearance. */
  columns: ResponseColumnBatch[];
  /** Rows whose `correct` disagrees with predicted vs ground truth (kept; a warning). */
  inconsistent: number;
  /** Exact repeats of a row (ignored; a warning). */
  duplicates: number;
}

const LF = 10;
const CR = 13;
/** The kernel's name tables (its `names` array). */
const MODEL = 0;
const SPLIT = 1;
const CONFIG = 2;
const SAMPLE = 3;
const TAG = 4;
const NOTE = 5;

/** The kernel's exports (wasm/per-item-kernel.ts). Pointers and counts are byte offsets / u32 into `memory`. */
interface Kernel extends KernelBase {
  parse(src: number, from: number, n: number, ...columns: number[]): number;
  namesCount(k: number): number;
  namesStarts(k: number): number;
  namesLens(k: number): number;
  namesGroups(k: number): number;
  namesJoined(k: number): number;
  namesJoinedLength(k: number): number;
  getConfigSpecs(): number;
  getColumnCount(): number;
  getColumnKeys(): number;
  getColumnFirst(): number;
  getFlatItem(): number;
  getFlatPred(): number;
  getFlatGt(): number;
  getFlatTag(): number;
  getFlatNote(): number;
  getFlatCorrect(): number;
  getFlatLine(): number;
  getAnswered(): number;
  getAnsweredCount(): number;
  getInconsistent(): number;
  getDuplicates(): number;
}

/** A fresh kernel instance (its memory is bump-allocated for one file, then dropped whole). */
const kernel = (): Kernel => instantiate<Kernel>('per-item-kernel', PER_ITEM_KERNEL_WASM);

/** Non-negative integer of at most 12 digits, else NaN (per-item-csv.ts parseCount on bytes). */
function countOf(buf: Uint8Array, s: number, e: number): number {
  if (e === s || e - s > 12) return NaN;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i]! - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

const LETTERS: (string | null)[] = Array.from({ length: 73 }, (_, c) => (c >= 65 ? String.fromCharCode(c) : null));

/**
 * The distinct values of one of the kernel's name tables, decoded in one call (the kernel
 * joins them with '\n'); per group (the sample ids of each split) when `groups` > 1, each
 * group's values in id order. `mem` views the kernel's whole memory. Null when a value is not
 * valid UTF-8: two different invalid byte runs can decode to the same string (U+FFFD), which
 * the general reader (working on decoded text) would treat as one value and the kernel as
 * two — such a file goes to the general reader.
 */
function namesOf(k: Kernel, mem: Buffer, table: number, groups: number, ids: boolean): string[][] | null {
  const count = k.namesCount(table);
  const out: string[][] = Array.from({ length: groups }, () => []);
  if (count === 0) return out;
  const at = k.namesJoined(table);
  const text = mem.toString('utf8', at, at + k.namesJoinedLength(table));
  // A control character in an id (NUL in any value): the general reader refuses it at its line
  // (text-input.ts checkId / checkText); '\n' is the kernel's separator.
  if (ids ? /[\x00-\x09\x0b-\x1f\x7f]/.test(text) : text.includes('\0')) return null;
  if (/[^\x00-\x7f]/.test(text)) {
    // Not ASCII: each value must round-trip (decoded alone, as the general reader sees it).
    const starts = new Int32Array(mem.buffer, k.namesStarts(table), count);
    const lens = new Int32Array(mem.buffer, k.namesLens(table), count);
    for (let e = 0; e < count; e++) {
      const value = mem.subarray(starts[e]!, starts[e]! + lens[e]!);
      if (!Buffer.from(value.toString('utf8'), 'utf8').equals(value)) return null;
    }
  }
  const values = text.split('\n');
  if (groups === 1) return [values];
  const group = new Int32Array(mem.buffer, k.namesGroups(table), count);
  for (let e = 0; e < count; e++) out[group[e]!]!.push(values[e]!);
  return out;
}

/** The strings of an interned field, built on first read. */
function materialize(f: InternedStrings): (string | null)[] {
  const out = new Array<string | null>(f.index.length);
  for (let k = 0; k < out.length; k++) {
    const i = f.index[k]!;
    out[k] = i < 0 ? null : f.table[i]!;
  }
  return out;
}

/**
 * A ResponseColumnBatch over interned fields: the string arrays are built on first access, so
 * a consumer that reads `tables` (the store's import applier) never pays a string per cell.
 */
function tableColumn(model: string, split: string, config: string, tables: ColumnTables, correct: Int8Array, line: Int32Array, nan: Float64Array): ResponseColumnBatch {
  const len = correct.length;
  const cache: Partial<Record<'sampleIds' | 'pred' | 'groundTruth' | 'sourceTag' | 'protocolNote', (string | null)[]>> = {};
  const lazy = (k: keyof typeof cache): (string | null)[] => (cache[k] ??= materialize(tables[k]));
  let frames: (number[] | null)[] | null = null;
  return {
    model,
    split,
    config,
    length: len,
    get sampleIds() {
      return lazy('sampleIds') as string[];
    },
    get pred() {
      return lazy('pred');
    },
    correct,
    score: nan,
    get groundTruth() {
      return lazy('groundTruth');
    },
    confidence: nan,
    margin: nan,
    latencyMs: nan,
    get frameIndices() {
      return (frames ??= new Array<number[] | null>(len).fill(null));
    },
    get sourceTag() {
      return lazy('sourceTag');
    },
    get protocolNote() {
      return lazy('protocolNote');
    },
    line,
    tables,
  };
}

/** A file's bytes in a fresh kernel's memory, at `src` (n bytes, then 16 bytes of padding for the kernel's 16-byte reads). */
interface Loaded {
  k: Kernel;
  src: number;
  n: number;
}

function load(n: number, fill: (into: Uint8Array) => void): Loaded | null {
  try {
    const k = kernel();
    const src = k.alloc(n + 16);
    fill(new Uint8Array(k.memory.buffer, src, n));
    return { k, src, n };
  } catch {
    return null; // out of memory: the general reader streams the file
  }
}

/**
 * Reads a per_item.csv held in `buf`, or returns null when the general reader must (see the
 * file comment). `buf` may start with a UTF-8 BOM.
 */
export function parsePerItemFast(buf: Buffer): PerItemParse | null {
  const loaded = load(buf.length, (into) => into.set(buf));
  return loaded && parseLoaded(loaded);
}

/**
 * parsePerItemFast on a file, read straight into the kernel's memory (one copy of the bytes
 * instead of two), with the file's sha256. Null, or `parsed` null, when the general reader
 * must read the file. (Hashing on the thread pool while the kernel runs, via WebCrypto, was
 * no faster: it copies the bytes first.)
 */
export function readPerItemFast(path: string): { parsed: PerItemParse | null; sha256: string } | null {
  const fd = openSync(path, 'r');
  let loaded: Loaded | null;
  try {
    const n = fstatSync(fd).size;
    loaded = load(n, (into) => {
      for (let at = 0; at < n; ) {
        const got = readSync(fd, into, at, n - at, at);
        if (got === 0) throw new Error(`${path}: shorter than its size`); // changed while read: the general reader
        at += got;
      }
    });
  } finally {
    closeSync(fd);
  }
  if (!loaded) return null;
  // Hashed before the parse: the kernel grows its memory, which detaches this view.
  const sha256 = createHash('sha256').update(new Uint8Array(loaded.k.memory.buffer, loaded.src, loaded.n)).digest('hex');
  const parsed = parseLoaded(loaded);
  return { parsed, sha256 };
}

function parseLoaded({ k, src, n }: Loaded): PerItemParse | null {
  const buf = Buffer.from(k.memory.buffer, src, n);
  const from = n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;

  // Header: exactly the eleven columns, in any order (optional columns → general reader).
  const hEnd = buf.indexOf(LF, from);
  if (hEnd === -1) return null; // no rows: let the general reader decide what that means
  const headerText = buf.toString('utf8', from, hEnd > from && buf[hEnd - 1] === CR ? hEnd - 1 : hEnd);
  // A quote means RFC 4180 quoting: the general reader's job (the kernel checks the rows).
  if (headerText.includes('"')) return null;
  const header = headerText.split(',');
  if (header.length !== PER_ITEM_COLUMNS.length) return null;
  const at = new Map<string, number>();
  header.forEach((h, i) => at.set(h.trim(), i));
  const col = PER_ITEM_COLUMNS.map((c) => at.get(c) ?? -1);
  if (at.size !== PER_ITEM_COLUMNS.length || col.some((i) => i < 0)) return null;

  try {
    if (k.parse(src, hEnd + 1, n, ...col) !== 0) return null;
  } catch {
    return null; // out of memory: the general reader streams the file
  }
  const heap = k.memory.buffer; // the kernel grew its memory: views from here on
  const whole = Buffer.from(heap); // addresses from the kernel index it directly
  const i32 = (ptr: number, len: number): Int32Array => new Int32Array(heap, ptr, len);

  const [modelNames, splitNames, configNames, tagNames, noteNames] = [MODEL, SPLIT, CONFIG, TAG, NOTE].map((t) => namesOf(k, whole, t, 1, t !== TAG && t !== NOTE)?.[0]);
  if (!modelNames || !splitNames || !configNames || !tagNames || !noteNames) return null;
  const perSplit = namesOf(k, whole, SAMPLE, splitNames.length, true);
  if (!perSplit) return null;

  // Each config's frame_count / pixel_count on its first row (the kernel checked that every
  // later row repeats those bytes exactly: anything else — even `016` for `16` — is the
  // general reader's).
  const specs = i32(k.getConfigSpecs(), configNames.length * 4);
  const configs: PerItemParse['configs'] = [];
  for (let c = 0; c < configNames.length; c++) {
    const [fcS, fcE, pcS, pcE] = [0, 1, 2, 3].map((x) => specs[4 * c + x]!) as [number, number, number, number];
    const frames = countOf(whole, fcS, fcE);
    const pixelCount = pcE === pcS ? null : countOf(whole, pcS, pcE);
    const key = configNames[c]!;
    const parsed = parseKey(key);
    if (Number.isNaN(frames) || Number.isNaN(pixelCount) || !parsed || parsed.frames !== frames) return null;
    configs.push({ key, frames, pixelCount });
  }

  const answers = i32(k.getAnswered(), k.getAnsweredCount() * 3);
  const answered: PerItemParse['answered'] = [];
  for (let a = 0; a < answers.length; a += 3) {
    const s = answers[a]!;
    answered.push({ split: splitNames[s]!, sampleId: perSplit[s]![answers[a + 1]!]!, answer: LETTERS[answers[a + 2]!]! });
  }

  // The columns, cells in file order: typed indices into the tables (then, only if a consumer
  // reads them, the string arrays of ResponseColumnBatch built from those). Column c's cells
  // are [first[c], first[c + 1]) of the kernel's flat column-major arrays, viewed in place: the
  // batch keeps the kernel's memory until it is dropped (the instance is never called again,
  // so the memory cannot grow and detach the views). The four numeric fields a per_item.csv
  // does not have share one all-NaN array (read-only, as every field of a batch).
  const C = k.getColumnCount();
  const keys = i32(k.getColumnKeys(), C * 3);
  const first = i32(k.getColumnFirst(), C + 1);
  const N = first[C]!;
  const flatItem = i32(k.getFlatItem(), N);
  const flatPred = i32(k.getFlatPred(), N);
  const flatGt = i32(k.getFlatGt(), N);
  const flatTag = i32(k.getFlatTag(), N);
  const flatNote = i32(k.getFlatNote(), N);
  const flatCorrect = new Int8Array(heap, k.getFlatCorrect(), N);
  const flatLine = i32(k.getFlatLine(), N);
  const nan = new Float64Array(N).fill(NaN);
  const LETTER_TABLE = LETTERS.slice(65, 73) as string[];
  const columns: ResponseColumnBatch[] = [];
  for (let c = 0; c < C; c++) {
    const a = first[c]!;
    const b = first[c + 1]!;
    const s = keys[3 * c + 1]!;
    const tables: ColumnTables = {
      sampleIds: { table: perSplit[s]!, index: flatItem.subarray(a, b) },
      pred: { table: LETTER_TABLE, index: flatPred.subarray(a, b) },
      groundTruth: { table: LETTER_TABLE, index: flatGt.subarray(a, b) },
      sourceTag: { table: tagNames, index: flatTag.subarray(a, b) },
      protocolNote: { table: noteNames, index: flatNote.subarray(a, b) },
    };
    const model = modelNames[keys[3 * c]!]!;
    const config = configNames[keys[3 * c + 2]!]!;
    columns.push(tableColumn(model, splitNames[s]!, config, tables, flatCorrect.subarray(a, b), flatLine.subarray(a, b), nan.subarray(a, b)));
  }
  return { configs, answered, columns, inconsistent: k.getInconsistent(), duplicates: k.getDuplicates() };
}
