/**
 * The fast path of the per_item.csv reader (per-item-csv.ts): the whole file as one Buffer,
 * fields found by a byte scan and interned by their bytes — no string per field, no string per
 * row. Only values seen for the first time become strings (≈ 5k sample ids, ≈ 120 source tags
 * and a few names in a 145k-row release), which is what brings reading such a file from
 * ≈ 250 ms to a few tens of ms (npm run bench; issue #2 §7b).
 *
 * It handles the release's own shape — the eleven columns in any order, no quoting, MCQA
 * letters — and nothing else: on anything it does not handle, or anything the general reader
 * would reject or treat specially, it returns null and the caller reads the file again with
 * the general reader, which then reports the exact error (file:line:field) or handles the
 * case. So it never throws an ImportError of its own and cannot disagree with the general
 * reader about what a file means; test/electron/importers/per-item-fast.test.ts compares both
 * on valid and invalid files.
 */
import type { ColumnTables, InternedStrings, ResponseColumnBatch } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS } from '../../shared/release/per-item-columns';
import { parseKey } from './config-keys';

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
const QUOTE = 34;

/** Growable Int32Array. */
function grown(a: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  if (need <= a.length) return a;
  const b = new Int32Array(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/** Byte ranges of `buf` mapped to dense ids (FNV-1a, open addressing); each distinct value is decoded once. */
class ByteInterner {
  readonly values: string[] = [];
  /**
   * Set when a value's bytes are not valid UTF-8: two different invalid byte runs can decode to
   * the same string (U+FFFD), which the general reader (working on decoded text) would treat
   * as one value and this interner as two — such a file goes to the general reader.
   */
  lossy = false;
  private table = new Int32Array(1024);
  private mask = 1023;
  private hashes = new Int32Array(256);
  private starts = new Int32Array(256);
  private lengths = new Int32Array(256);

  constructor(private readonly buf: Buffer) {}

  get size(): number {
    return this.values.length;
  }

  id(s: number, e: number): number {
    const buf = this.buf;
    let h = 0x811c9dc5 | 0;
    for (let i = s; i < e; i++) h = Math.imul(h ^ buf[i]!, 0x01000193);
    const len = e - s;
    let slot = h & this.mask;
    for (;;) {
      const v = this.table[slot]!;
      if (v === 0) break;
      const id = v - 1;
      if (this.hashes[id] === h && this.lengths[id] === len && sameBytes(buf, this.starts[id]!, s, len)) return id;
      slot = (slot + 1) & this.mask;
    }
    const id = this.values.length;
    const text = buf.toString('utf8', s, e);
    if (text.length !== len || /[^\x00-\x7f]/.test(text)) {
      if (!Buffer.from(text, 'utf8').equals(buf.subarray(s, e))) this.lossy = true;
    }
    this.values.push(text);
    this.hashes = grown(this.hashes, id + 1);
    this.starts = grown(this.starts, id + 1);
    this.lengths = grown(this.lengths, id + 1);
    this.hashes[id] = h;
    this.starts[id] = s;
    this.lengths[id] = len;
    this.table[slot] = id + 1;
    if (this.values.length * 2 > this.table.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const size = this.table.length * 2;
    this.table = new Int32Array(size);
    this.mask = size - 1;
    for (let id = 0; id < this.values.length; id++) {
      let slot = this.hashes[id]! & this.mask;
      while (this.table[slot] !== 0) slot = (slot + 1) & this.mask;
      this.table[slot] = id + 1;
    }
  }
}

/**
 * Whether `len` bytes at `a` and at `b` are equal. (A DataView compare of four bytes at a
 * time is faster once optimised but slower in the cold first pass that an import is.)
 */
function sameBytes(buf: Buffer, a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

/** Non-negative integer of at most 12 digits, else NaN (per-item-csv.ts parseCount on bytes). */
function countOf(buf: Buffer, s: number, e: number): number {
  if (e === s || e - s > 12) return NaN;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i]! - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/** A one-letter option A–H as its char code, 0 for an empty field, −1 for anything else. */
function letterOf(buf: Buffer, s: number, e: number): number {
  if (e === s) return 0;
  if (e - s !== 1) return -1;
  const c = buf[s]!;
  return c >= 65 && c <= 72 ? c : -1;
}

const LETTERS: (string | null)[] = Array.from({ length: 73 }, (_, c) => (c >= 65 ? String.fromCharCode(c) : null));

/**
 * Field offsets of every data row: 12 per row — the start of each of the 11 fields, then the
 * row's end + 1 — so field j of row r spans [fs[12r + j], fs[12r + j + 1] − 1).
 */
interface Rows {
  fs: Int32Array;
  /** 1-based line of each row. */
  lines: Int32Array;
  count: number;
}

/**
 * Phase 1: one pass over the bytes. Each phase below is its own small loop on purpose: V8
 * compiles a small, branch-stable loop in a few ms, while one loop doing everything took
 * ≈ 60 ms per (re)compilation and was recompiled several times per file, all of it on the
 * clock of a cold import.
 */
function scanRows(buf: Buffer, from: number): Rows | null {
  const n = buf.length;
  let cap = Math.max(64, Math.ceil(n / 64));
  let fs = new Int32Array(cap * 12);
  let lines = new Int32Array(cap);
  let r = 0;
  let line = 1;
  let pos = from;
  while (pos < n) {
    if (r === cap) {
      cap *= 2;
      fs = grown(fs, cap * 12);
      lines = grown(lines, cap);
    }
    line++;
    const start = pos;
    const base = r * 12;
    fs[base] = start;
    let nf = 0;
    let i = start;
    for (; i < n; i++) {
      const c = buf[i]!;
      if (c === 10) break; // '\n' (literals, not the module's consts: no context load per byte)
      if (c === 44) { // ','
        if (nf === 10) return null; // too many fields: the general reader reports it
        nf++;
        fs[base + nf] = i + 1;
      }
    }
    pos = i + 1;
    const end = i > start && buf[i - 1] === CR ? i - 1 : i;
    if (end === start) continue; // an empty line is skipped, as the general reader does
    if (nf !== 10) return null;
    fs[base + 11] = end + 1;
    lines[r] = line;
    r++;
  }
  return { fs, lines, count: r };
}

/**
 * Ids of field `j` of every row (−1 = empty). Neighbouring rows usually repeat a value, so
 * each row is first compared with the last value seen in its `group` (a column, or one group
 * for all rows) before hashing.
 */
function internField(buf: Buffer, rows: Rows, j: number, names: ByteInterner, group: Int32Array | null, groups: number): Int32Array {
  const fs = rows.fs;
  const ids = new Int32Array(rows.count);
  const lastS = new Int32Array(groups);
  const lastLen = new Int32Array(groups).fill(-1);
  const lastId = new Int32Array(groups);
  // Second chance before hashing every byte: a direct-mapped cache keyed by the length and
  // three sampled bytes. Config keys cycle row by row in a release-ordered file; this catches them.
  const cacheS = new Int32Array(64);
  const cacheLen = new Int32Array(64).fill(-1);
  const cacheId = new Int32Array(64);
  for (let r = 0; r < rows.count; r++) {
    const s = fs[r * 12 + j]!;
    const len = fs[r * 12 + j + 1]! - 1 - s;
    const g = group === null ? 0 : group[r]!;
    if (len === lastLen[g] && sameBytes(buf, s, lastS[g]!, len)) {
      ids[r] = lastId[g]!;
      continue;
    }
    let id = -1;
    if (len > 0) {
      const slot = (len * 7 + buf[s]! * 5 + buf[s + (len >> 1)]! * 3 + buf[s + len - 1]!) & 63;
      if (cacheLen[slot] === len && sameBytes(buf, s, cacheS[slot]!, len)) id = cacheId[slot]!;
      else {
        id = names.id(s, s + len);
        cacheS[slot] = s;
        cacheLen[slot] = len;
        cacheId[slot] = id;
      }
    }
    lastS[g] = s;
    lastLen[g] = len;
    lastId[g] = id;
    ids[r] = id;
  }
  return ids;
}

/**
 * internField for two adjacent fields j and j + 1 (model and split; source tag and note in the
 * release's column order): the bytes from the start of the first to the end of the second are
 * compared with the group's last such span in one go, and only a changed span is interned
 * field by field — one pass and one comparison per row instead of two.
 */
function internPair(buf: Buffer, rows: Rows, j: number, a: ByteInterner, b: ByteInterner, group: Int32Array | null, groups: number): [Int32Array, Int32Array] {
  const fs = rows.fs;
  const idsA = new Int32Array(rows.count);
  const idsB = new Int32Array(rows.count);
  const lastS = new Int32Array(groups);
  const lastLen = new Int32Array(groups).fill(-1);
  const lastA = new Int32Array(groups);
  const lastB = new Int32Array(groups);
  for (let r = 0; r < rows.count; r++) {
    const s = fs[r * 12 + j]!;
    const mid = fs[r * 12 + j + 1]!; // start of the second field
    const len = fs[r * 12 + j + 2]! - 1 - s;
    const g = group === null ? 0 : group[r]!;
    if (len !== lastLen[g] || !sameBytes(buf, s, lastS[g]!, len)) {
      lastS[g] = s;
      lastLen[g] = len;
      lastA[g] = mid - 1 === s ? -1 : a.id(s, mid - 1);
      lastB[g] = s + len === mid ? -1 : b.id(mid, s + len);
    }
    idsA[r] = lastA[g]!;
    idsB[r] = lastB[g]!;
  }
  return [idsA, idsB];
}

/** Item numbers: sample ids interned per split (dense per split, in order of first appearance). */
function internItems(buf: Buffer, rows: Rows, j: number, split: Int32Array, perSplit: ByteInterner[]): Int32Array | null {
  const fs = rows.fs;
  const ids = new Int32Array(rows.count);
  let lastS = 0;
  let lastLen = -1;
  let lastSplit = -1;
  let lastId = -1;
  for (let r = 0; r < rows.count; r++) {
    const s = fs[r * 12 + j]!;
    const len = fs[r * 12 + j + 1]! - 1 - s;
    const sp = split[r]!;
    if (sp === lastSplit && len === lastLen && sameBytes(buf, s, lastS, len)) {
      ids[r] = lastId;
      continue;
    }
    if (len === 0) return null;
    lastId = perSplit[sp]!.id(s, s + len);
    lastS = s;
    lastLen = len;
    lastSplit = sp;
    ids[r] = lastId;
  }
  return ids;
}

/**
 * predicted_option and ground_truth_option as letters (char code, 0 = empty) and `correct` as
 * 0/1, or null when a value is anything else (not A–H; an empty `correct` needs a score column).
 */
function outcomeFields(buf: Buffer, rows: Rows, jPred: number, jGt: number, jCorrect: number): { pred: Uint8Array; gt: Uint8Array; correct: Int8Array } | null {
  const fs = rows.fs;
  const pred = new Uint8Array(rows.count);
  const gt = new Uint8Array(rows.count);
  const correct = new Int8Array(rows.count);
  for (let r = 0; r < rows.count; r++) {
    const b = r * 12;
    const p = letterOf(buf, fs[b + jPred]!, fs[b + jPred + 1]! - 1);
    const g = letterOf(buf, fs[b + jGt]!, fs[b + jGt + 1]! - 1);
    const s = fs[b + jCorrect]!;
    if (p < 0 || g < 0 || fs[b + jCorrect + 1]! - 1 - s !== 1) return null;
    const c = buf[s]! - 48;
    if (c !== 0 && c !== 1) return null;
    pred[r] = p;
    gt[r] = g;
    correct[r] = c;
  }
  return { pred, gt, correct };
}

/**
 * Each config's frame_count / pixel_count, checked on its first row; every later row must
 * repeat those bytes exactly (anything else — even `016` for `16` — is the general reader's).
 */
function configSpecs(buf: Buffer, rows: Rows, config: Int32Array, names: ByteInterner, jFc: number, jPc: number): PerItemParse['configs'] | null {
  const fs = rows.fs;
  const first = new Int32Array(names.size).fill(-1);
  const out: PerItemParse['configs'] = [];
  for (let r = 0; r < rows.count; r++) {
    const c = config[r]!;
    const f = first[c]!;
    const fcS = fs[r * 12 + jFc]!;
    const fcLen = fs[r * 12 + jFc + 1]! - 1 - fcS;
    const pcS = fs[r * 12 + jPc]!;
    const pcLen = fs[r * 12 + jPc + 1]! - 1 - pcS;
    if (f >= 0) {
      const a = fs[f * 12 + jFc]!;
      const b = fs[f * 12 + jPc]!;
      if (fcLen !== fs[f * 12 + jFc + 1]! - 1 - a || !sameBytes(buf, fcS, a, fcLen)) return null;
      if (pcLen !== fs[f * 12 + jPc + 1]! - 1 - b || !sameBytes(buf, pcS, b, pcLen)) return null;
      continue;
    }
    first[c] = r;
    const key = names.values[c]!;
    const frames = countOf(buf, fcS, fcS + fcLen);
    const pixelCount = pcLen === 0 ? null : countOf(buf, pcS, pcS + pcLen);
    const parsed = parseKey(key);
    if (Number.isNaN(frames) || Number.isNaN(pixelCount) || !parsed || parsed.frames !== frames) return null;
    out.push({ key, frames, pixelCount });
  }
  return out;
}

/** (model, split, config) of every row → a column number, columns in order of first appearance. */
function columnField(
  model: Int32Array,
  split: Int32Array,
  config: Int32Array,
  sizes: { models: number; splits: number; configs: number },
): { col: Int32Array; keys: [number, number, number][] } | null {
  // A dense (model, split, config) table: no string key per row (the config changes on every
  // row of a release-ordered file, so a "same as the last row" cache alone would not do).
  const cells = sizes.models * sizes.splits * sizes.configs;
  if (cells > 1 << 22) return null; // absurd grids: the general reader
  const table = new Int32Array(cells).fill(-1);
  const col = new Int32Array(model.length);
  const keys: [number, number, number][] = [];
  for (let r = 0; r < model.length; r++) {
    const key = (model[r]! * sizes.splits + split[r]!) * sizes.configs + config[r]!;
    let k = table[key]!;
    if (k < 0) {
      k = keys.length;
      table[key] = k;
      keys.push([model[r]!, split[r]!, config[r]!]);
    }
    col[r] = k;
  }
  return { col, keys };
}

/**
 * The kept rows' fields in column-major order (column c's cells are [first[c], first[c + 1])),
 * letters turned into indices into A–H (−1 = null). One pass storing seven typed arrays.
 */
function columnMajor(
  first: Int32Array,
  column: Int32Array,
  keep: Uint8Array,
  item: Int32Array,
  pred: Uint8Array,
  gt: Uint8Array,
  tag: Int32Array,
  note: Int32Array,
  correct: Int8Array,
  lines: Int32Array,
) {
  const n = first[first.length - 1]!;
  const next = first.slice(0, first.length - 1);
  const flatItem = new Int32Array(n);
  const flatPred = new Int32Array(n);
  const flatGt = new Int32Array(n);
  const flatTag = new Int32Array(n);
  const flatNote = new Int32Array(n);
  const flatCorrect = new Int8Array(n);
  const flatLine = new Int32Array(n);
  const out = { flatItem, flatPred, flatGt, flatTag, flatNote, flatCorrect, flatLine };
  for (let r = 0; r < column.length; r++) {
    if (keep[r] === 0) continue;
    const d = next[column[r]!]!++;
    flatItem[d] = item[r]!;
    const p = pred[r]!;
    flatPred[d] = p === 0 ? -1 : p - 65;
    const g = gt[r]!;
    flatGt[d] = g === 0 ? -1 : g - 65;
    flatTag[d] = tag[r]!;
    flatNote[d] = note[r]!;
    flatCorrect[d] = correct[r]!;
    flatLine[d] = lines[r]!;
  }
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
function tableColumn(model: string, split: string, config: string, tables: ColumnTables, correct: Int8Array, line: Int32Array): ResponseColumnBatch {
  const len = correct.length;
  const nan = (): Float64Array => new Float64Array(len).fill(NaN);
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
    score: nan(),
    get groundTruth() {
      return lazy('groundTruth');
    },
    confidence: nan(),
    margin: nan(),
    latencyMs: nan(),
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

/**
 * Reads a per_item.csv held in `buf`, or returns null when the general reader must (see the
 * file comment). `buf` may start with a UTF-8 BOM.
 */
export function parsePerItemFast(buf: Buffer): PerItemParse | null {
  const n = buf.length;
  // A quote means RFC 4180 quoting somewhere: the general reader's job.
  if (buf.indexOf(QUOTE) !== -1) return null;
  const from = n >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;

  // Header: exactly the eleven columns, in any order (optional columns → general reader).
  const hEnd = buf.indexOf(LF, from);
  if (hEnd === -1) return null; // no rows: let the general reader decide what that means
  const header = buf.toString('utf8', from, hEnd > from && buf[hEnd - 1] === CR ? hEnd - 1 : hEnd).split(',');
  if (header.length !== PER_ITEM_COLUMNS.length) return null;
  const at = new Map<string, number>();
  header.forEach((h, i) => at.set(h.trim(), i));
  const col = PER_ITEM_COLUMNS.map((c) => at.get(c) ?? -1);
  if (at.size !== PER_ITEM_COLUMNS.length || col.some((i) => i < 0)) return null;
  const [jSid, jModel, jSplit, jConfig, jFc, jPc, jPred, jGt, jCorrect, jTag, jNote] = col as [
    number, number, number, number, number, number, number, number, number, number, number,
  ];

  const rows = scanRows(buf, hEnd + 1);
  if (rows === null) return null;
  const R = rows.count;
  const modelNames = new ByteInterner(buf);
  const splitNames = new ByteInterner(buf);
  const configNames = new ByteInterner(buf);
  const [model, split] =
    jSplit === jModel + 1
      ? internPair(buf, rows, jModel, modelNames, splitNames, null, 1)
      : [internField(buf, rows, jModel, modelNames, null, 1), internField(buf, rows, jSplit, splitNames, null, 1)];
  const config = internField(buf, rows, jConfig, configNames, null, 1);
  if (model.includes(-1) || split.includes(-1) || config.includes(-1)) return null; // an empty name is an error
  const configs = configSpecs(buf, rows, config, configNames, jFc, jPc);
  const outcomes = outcomeFields(buf, rows, jPred, jGt, jCorrect);
  if (configs === null || outcomes === null) return null;
  const { pred, gt, correct } = outcomes;
  const perSplit = splitNames.values.map(() => new ByteInterner(buf));
  const item = internItems(buf, rows, jSid, split, perSplit);
  if (item === null) return null;
  const columns = columnField(model, split, config, { models: modelNames.size, splits: splitNames.size, configs: configNames.size });
  if (columns === null) return null;
  const { col: column, keys } = columns;
  const C = keys.length;
  const tagNames = new ByteInterner(buf);
  const noteNames = new ByteInterner(buf);
  const [tag, note] =
    jNote === jTag + 1
      ? internPair(buf, rows, jTag, tagNames, noteNames, column, C)
      : [internField(buf, rows, jTag, tagNames, column, C), internField(buf, rows, jNote, noteNames, column, C)];
  if ([modelNames, splitNames, configNames, tagNames, noteNames, ...perSplit].some((i) => i.lossy)) return null;

  // Items' answers, exact repeats, inconsistent rows — in file order, as the general reader.
  const splitBase = new Int32Array(perSplit.length + 1);
  for (let s = 0; s < perSplit.length; s++) splitBase[s + 1] = splitBase[s]! + perSplit[s]!.size;
  const answerOf = new Uint8Array(splitBase[perSplit.length]!);
  const answered: PerItemParse['answered'] = [];
  const posOf = keys.map(([, s]) => new Int32Array(perSplit[s]!.size));
  const keep = new Uint8Array(R);
  const counts = new Int32Array(C);
  let inconsistent = 0;
  let duplicates = 0;
  for (let r = 0; r < R; r++) {
    const p = pred[r]!;
    const g = gt[r]!;
    const ok = correct[r]!;
    if (g !== 0 && p !== 0 && (p === g ? 1 : 0) !== ok) inconsistent++;
    const it = item[r]!;
    if (g !== 0) {
      const flat = splitBase[split[r]!]! + it;
      const had = answerOf[flat]!;
      if (had === 0) {
        answerOf[flat] = g;
        answered.push({ split: splitNames.values[split[r]!]!, sampleId: perSplit[split[r]!]!.values[it]!, answer: LETTERS[g]! });
      } else if (had !== g) return null; // one item, two answers: the general reader reports it
    }
    const c = column[r]!;
    const pos = posOf[c]!;
    const prev = pos[it]! - 1;
    if (prev >= 0) {
      // The same cell again: an exact repeat is ignored, anything else is the general reader's error.
      if (pred[prev] !== p || correct[prev] !== ok || gt[prev] !== g) return null;
      duplicates++;
      continue;
    }
    pos[it] = r + 1;
    keep[r] = 1;
    counts[c]!++;
  }

  // The columns, cells in file order: typed indices into the tables (then, only if a consumer
  // reads them, the string arrays of ResponseColumnBatch built from those). Column c's cells
  // are [first[c], first[c + 1]) of flat column-major arrays, and its arrays are views of those.
  const first = new Int32Array(C + 1);
  for (let c = 0; c < C; c++) first[c + 1] = first[c]! + counts[c]!;
  const { flatItem, flatPred, flatGt, flatTag, flatNote, flatCorrect, flatLine } = columnMajor(first, column, keep, item, pred, gt, tag, note, correct, rows.lines);
  const LETTER_TABLE = LETTERS.slice(65, 73) as string[];
  const tables: ColumnTables[] = keys.map(([, s], c) => {
    const a = first[c]!;
    const b = first[c + 1]!;
    return {
      sampleIds: { table: perSplit[s]!.values, index: flatItem.subarray(a, b) },
      pred: { table: LETTER_TABLE, index: flatPred.subarray(a, b) },
      groundTruth: { table: LETTER_TABLE, index: flatGt.subarray(a, b) },
      sourceTag: { table: tagNames.values, index: flatTag.subarray(a, b) },
      protocolNote: { table: noteNames.values, index: flatNote.subarray(a, b) },
    };
  });
  const corrects = keys.map((_, c) => flatCorrect.subarray(first[c]!, first[c + 1]!));
  const lineOf = keys.map((_, c) => flatLine.subarray(first[c]!, first[c + 1]!));
  const out = keys.map(([m, s, k], c) =>
    tableColumn(modelNames.values[m]!, splitNames.values[s]!, configNames.values[k]!, tables[c]!, corrects[c]!, lineOf[c]!),
  );
  return { configs, answered, columns: out, inconsistent, duplicates };
}
