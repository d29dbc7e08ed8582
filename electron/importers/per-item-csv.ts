/**
 * The per_item.csv reader (docs/release-format.md "labels/per_item.csv"; docs/formats.md
 * "Damaged input", "Duplicated columns"). One reader for every per_item.csv: the file is read
 * a window at a time and tokenized byte by byte (RFC 4180 quoting included; csv-tokenize.ts
 * — from 32 MB up, read whole on a scan thread of its own, per-item-scan.ts), and each cell
 * goes straight into the typed arrays of its (model, split, config) column — the store's own
 * layout — with every string field interned per table: a value becomes a string only the
 * first time its bytes are seen (≈ 5k sample ids, ≈ 120 source tags and a few names in the
 * 145k-row bench file), so there is no string per field and no object per row.
 *
 * Field offsets rather than strings: a string per field and an array per record (what csv-parse
 * hands over) took ~60× as long as these offsets on the 145k-row bench file, longer than this
 * whole reader (csv-tokenize.ts). This format's fields are short and mostly unquoted; a record holding a
 * quote takes a slower byte loop here (its quoted fields decoded to strings and interned by
 * those), so a quoted and an unquoted spelling of one value are the same value.
 *
 * Cold start matters (a CLI import runs this once, in a fresh process): the per-byte work is in
 * small functions (tokenize, nextComma, same) that V8 optimises within the first few thousand
 * rows, and the per-row checks keep their rare paths (a new value, an error) in separate methods.
 */
import { isUtf8 } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { basename } from 'node:path';
import type { ColumnTables, ImportBatch, InternedStrings, ItemMeta, ResponseColumnBatch, ResponseRow } from '../../shared/domain/types';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import type { ImportOptions } from './batch-builder';
import { parseKey, specFor } from './config-keys';
import { ImportError } from './errors';
import { Header } from './header';
import { checkId, checkText, decodeText } from './text-input';
import { bomLength, CHUNK_ROWS, LF, recordStrings, recordsEnd, tokenize, type Cursor } from './csv-tokenize';
import type { Scan } from './per-item-scan';

/** docs/release-format.md: the eleven columns of labels/per_item.csv. */
export const PER_ITEM_REQUIRED = PER_ITEM_COLUMNS;

/** The documented optional columns Flipbook may append. Anything else is rejected. */
export const PER_ITEM_OPTIONAL = PER_ITEM_OPTIONAL_COLUMNS;

type Column = (typeof PER_ITEM_REQUIRED)[number] | (typeof PER_ITEM_OPTIONAL)[number];

const KNOWN = new Set<string>([...PER_ITEM_REQUIRED, ...PER_ITEM_OPTIONAL]);


/** Option letters A–H: a letter cell is stored as its index into this table. */
const LETTERS: readonly string[] = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'];

const grow32 = (a: Int32Array<ArrayBuffer>, need: number, fill = 0): Int32Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Int32Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  if (fill !== 0) b.fill(fill, a.length);
  return b;
};
const grow8 = (a: Int8Array<ArrayBuffer>, need: number): Int8Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Int8Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  return b;
};
const growF64 = (a: Float64Array<ArrayBuffer>, need: number): Float64Array<ArrayBuffer> => {
  if (need < a.length) return a;
  const b = new Float64Array(Math.max(need + 1, a.length * 2));
  b.set(a);
  return b;
};

/** Whether bytes [a, a + n) and [b, b + n) of `dv` are equal (four at a time). */
function same(dv: DataView, a: number, b: number, n: number): boolean {
  let i = 0;
  for (; i + 4 <= n; i += 4) if (dv.getUint32(a + i, true) !== dv.getUint32(b + i, true)) return false;
  for (; i < n; i++) if (dv.getUint8(a + i) !== dv.getUint8(b + i)) return false;
  return true;
}

/** Distinct values a Table compares byte by byte before its Map (names and configs are few). */
const FEW = 8;

/**
 * The distinct values of one string field, numbered in order of first appearance. Unquoted
 * values are looked up by their raw bytes — the latin1 string of the byte slice, so a value
 * seen before costs a short substring and a Map lookup, and is decoded as UTF-8 only the first
 * time; quoted ones by their decoded string. Every value also has its decoded string in
 * `ids`, so both spellings of a value share one number.
 */
class Table {
  readonly strings: string[] = [];
  private readonly ids = new Map<string, number>();
  private readonly raw = new Map<string, number>();
  /** Byte ranges of the first FEW distinct raw values, compared directly before any Map. */
  private readonly start = new Int32Array(FEW);
  private readonly len = new Int32Array(FEW);
  private readonly id = new Int32Array(FEW);
  private few = 0;
  /** The previous lookup's bytes and number: neighbouring rows often repeat a value. */
  lastStart = 0;
  lastLen = -1;
  lastId = -1;
  /** Whether the last lookup added a new value (its checks run once, at its first line). */
  added = false;
  /**
   * Per value (many-valued tables): the bytes it was first seen as (length −1: first seen
   * quoted), and the value that followed it last time. A release lists each (model, split)'s
   * items in the same order, so after the first model the successor is the right guess and
   * spares the Map lookup.
   */
  private vStart = new Int32Array(0);
  private vLen = new Int32Array(0);
  private next = new Int32Array(0);

  private dv: DataView;

  /** `fewValues`: the field has a handful of values (names, configs), compared before the Map. */
  constructor(
    private buf: Buffer,
    private readonly fewValues: boolean,
  ) {
    this.dv = dataView(buf);
  }

  /**
   * The reader moved on to the file's next window (readPerItemCsv): every byte range kept so
   * far is gone, so each is forgotten; the values and their numbers stay. A value's range is
   * kept again where it is next seen.
   */
  moved(buf: Buffer, dv: DataView): void {
    this.buf = buf;
    this.dv = dv;
    this.lastLen = -1;
    this.few = 0;
    this.vLen.fill(-1);
  }

  /** The value of bytes [s, e) (unquoted). */
  bytes(s: number, e: number): number {
    const buf = this.buf;
    const n = e - s;
    this.added = false;
    if (n === this.lastLen && same(this.dv, s, this.lastStart, n)) return this.lastId;
    let id = -1;
    if (this.fewValues) {
      for (let k = 0; k < this.few; k++) {
        if (this.len[k] === n && same(this.dv, s, this.start[k]!, n)) {
          id = this.id[k]!;
          break;
        }
      }
    } else if (this.lastId >= 0) {
      // No `g >= 0` test: an unknown successor is 0, a guess checked like any other. A branch
      // first taken when a second model repeats the first one's items (after V8 had optimised
      // this) deoptimised it.
      const g = this.next[this.lastId]!;
      if (this.vLen[g] === n && same(this.dv, s, this.vStart[g]!, n)) id = g;
    }
    if (id < 0) {
      const key = buf.toString('latin1', s, e);
      const found = this.raw.get(key);
      if (found !== undefined) id = found;
      else {
        const value = buf.toString('utf8', s, e);
        const known = this.ids.get(value);
        id = known ?? this.push(value);
        this.added = known === undefined;
        this.raw.set(key, id);
      }
      // The value's bytes, for the comparisons above: a new value's, or (after `moved`) a
      // known one's in the current window.
      if (this.fewValues) {
        if (this.few < FEW) {
          this.start[this.few] = s;
          this.len[this.few] = n;
          this.id[this.few++] = id;
        }
      } else if (this.vLen[id] === -1) {
        this.vStart[id] = s;
        this.vLen[id] = n;
      }
    }
    if (!this.fewValues && this.lastId >= 0) this.next[this.lastId] = id;
    this.lastStart = s;
    this.lastLen = n;
    this.lastId = id;
    return id;
  }

  /** The value of a quoted field. */
  string(value: string): number {
    const known = this.ids.get(value);
    this.added = known === undefined;
    this.lastLen = -1;
    this.lastId = -1;
    return known ?? this.push(value);
  }

  private push(value: string): number {
    const id = this.strings.length;
    if (id >= this.next.length) {
      this.vStart = grow32(this.vStart, id);
      this.vLen = grow32(this.vLen, id, -1);
      this.next = grow32(this.next, id);
    }
    this.strings.push(value);
    this.ids.set(value, id);
    return id;
  }
}

/** The items of one split: the sample-id table plus, per item, its ground truth. */
interface Split {
  ids: Table;
  /** Per item number: ground-truth letter index, −1 none yet. */
  gt: Int32Array<ArrayBuffer>;
  /** Per item number: line of its first ground truth, or of its first row while it has none. */
  line: Int32Array<ArrayBuffer>;
}

/**
 * A column's first capacity in cells. Small on purpose: its arrays then grow (Col.reserve)
 * within a file's first few hundred rows, while V8 is still collecting type feedback for `row`;
 * a first growth after V8 had optimised `row` deoptimised it (~40 ms of recompiling).
 */
const FIRST_CELLS = 16;

/** The cells of one (model, split, config), on growable typed arrays. */
class Col {
  length = 0;
  /** The bytes and number of the column's last source tag (a cell usually repeats it). */
  tagStart = 0;
  tagLen = -1;
  tagId = -1;
  /** Item number → cell position + 1; 0 = no cell yet. */
  pos = new Int32Array(256);
  item = new Int32Array(FIRST_CELLS);
  pred = new Int32Array(FIRST_CELLS);
  gt = new Int32Array(FIRST_CELLS);
  tag = new Int32Array(FIRST_CELLS);
  note = new Int32Array(FIRST_CELLS);
  correct = new Int8Array(FIRST_CELLS);
  line = new Int32Array(FIRST_CELLS);
  score: Float64Array<ArrayBuffer> | null;
  confidence: Float64Array<ArrayBuffer> | null;
  margin: Float64Array<ArrayBuffer> | null;
  latencyMs: Float64Array<ArrayBuffer> | null;
  frames: (number[] | null)[] | null;

  constructor(
    readonly model: string,
    readonly split: string,
    readonly config: string,
    readonly m: number,
    readonly s: number,
    readonly c: number,
    idx: Record<Column, number>,
  ) {
    this.score = idx.score >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.confidence = idx.confidence >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.margin = idx.margin >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.latencyMs = idx.latency_s >= 0 ? new Float64Array(FIRST_CELLS) : null;
    this.frames = idx.frame_indices >= 0 ? [] : null;
  }

  /**
   * Room for cell `k`. A column holds at most one cell per item of its split, so it grows
   * straight to `items`, the split's items so far, when that is more than doubling gives: the
   * columns of a split whose items an earlier model already named grow once, not a dozen times
   * (at 10×, ~8k typed-array allocations and copies, ~80 ms).
   */
  reserve(k: number, items: number): void {
    if (k < this.item.length) return;
    const last = Math.max(k, items - 1);
    this.item = grow32(this.item, last);
    this.pred = grow32(this.pred, last);
    this.gt = grow32(this.gt, last);
    this.tag = grow32(this.tag, last);
    this.note = grow32(this.note, last);
    this.correct = grow8(this.correct, last);
    this.line = grow32(this.line, last);
    if (this.score) this.score = growF64(this.score, last);
    if (this.confidence) this.confidence = growF64(this.confidence, last);
    if (this.margin) this.margin = growF64(this.margin, last);
    if (this.latencyMs) this.latencyMs = growF64(this.latencyMs, last);
  }
}

/** Non-negative integer of at most 12 digits, else NaN. */
function parseCount(s: string): number {
  if (s.length === 0 || s.length > 12) return NaN;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/** parseCount on the characters [s, e) of `text`. */
function countBytes(buf: Buffer, s: number, e: number): number {
  if (e === s || e - s > 12) return NaN;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i]! - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

function parseUnit(file: string, line: number, field: string, s: string, min: number, max: number): number {
  if (s === '') return NaN;
  const v = Number(s);
  if (!Number.isFinite(v) || v < min || v > max) {
    throw new ImportError(file, line, field, `expected a number in [${min}, ${max}], got ${JSON.stringify(s)}`);
  }
  return v;
}

function parseFrameIndices(file: string, line: number, s: string): number[] | null {
  if (s === '') return null;
  const out: number[] = [];
  for (const part of s.split(' ')) {
    if (part === '') continue;
    const n = parseCount(part);
    if (Number.isNaN(n)) throw new ImportError(file, line, 'frame_indices', `expected space-separated integers, got ${JSON.stringify(part)}`);
    out.push(n);
  }
  return out;
}

/**
 * Below this size a file is tokenized on the reader's thread: starting a thread costs more than
 * it saves (measured at 14.6 MB: ~60 ms slower with the thread). The thread's code is loaded
 * only for a larger file.
 */
export const SCAN_THREAD_MIN_BYTES = 32 << 20;

/**
 * Bytes per window of a file read on the reader's thread (a window holds more when one record
 * is longer). Not the whole file: memory a process touches for the first time costs a page
 * fault per 4 KiB, and reading a 14.6 MB file into a fresh buffer of its own took ~70 ms of a
 * CLI import where a reused window takes ~25 ms (docs/architecture.md "Import at lab scale").
 */
export const WINDOW_BYTES = 1 << 20;

/**
 * Reads a release `per_item.csv`. `display` names the file in errors (e.g.
 * `release.zip!labels/per_item.csv`). A file below `scanThreadMinBytes` is read a window at a
 * time on this thread; a larger one is read whole, into shared memory, by the scan thread
 * (147 MB for 1.45M rows, the lab-scale bench: its cells end up in memory anyway, as the
 * batch's columns). Either way a truncated or non-UTF-8 file is refused as such, before any
 * error of a row.
 */
export async function readPerItemCsv(
  path: string,
  opts: ImportOptions = {},
  display = path,
  scanThreadMinBytes = SCAN_THREAD_MIN_BYTES,
  windowBytes = WINDOW_BYTES,
): Promise<ImportBatch> {
  const fd = openSync(path, 'r');
  let size: number;
  try {
    size = fstatSync(fd).size;
    if (size < scanThreadMinBytes) {
      const hash = createHash('sha256');
      const source = windowRows(fd, display, hash, Math.max(64, Math.min(windowBytes, size + 1)));
      let parsed: Parsed;
      try {
        parsed = await parse(source, display, opts);
      } catch (e) {
        // A window's bad UTF-8 (or a row's error) may come before the damage that makes the
        // whole file refused: that refusal is the one given.
        refuseDamaged(readFileSync(path), display);
        throw e;
      }
      // Every window was checked for UTF-8 as it was read; a file that does not end in a line
      // break may be a truncated copy (refuseTruncated also lets a last line of blanks pass).
      const last = source.lastByte();
      if (last >= 0 && last !== LF) refuseTruncated(readFileSync(path), display);
      return batchOf(path, display, parsed, hash.digest('hex'));
    }
  } finally {
    closeSync(fd);
  }
  // A large file: read, hashed and tokenized on a thread of its own while this one takes its
  // rows (per-item-scan.ts). The whole file is checked at the end, and a truncated or
  // non-UTF-8 file is refused as such, as above, before any error of a row.
  const { startScan } = await import('./per-item-scan');
  const scan = startScan(path, display, size);
  let parsed: Parsed;
  try {
    parsed = await parse(scannedRows(scan), display, opts);
  } catch (e) {
    refuseDamaged(await scan.end(), display);
    throw e;
  }
  refuseDamaged(await scan.end(), display);
  return batchOf(path, display, parsed, scan.sha256());
}

/**
 * Refuses a truncated file, then one that is not UTF-8, naming the line and field of its
 * first invalid byte (text-input.ts).
 */
function refuseDamaged(buf: Buffer, display: string): void {
  refuseTruncated(buf, display);
  // (A copy: the text decoder that finds the byte does not take shared memory.)
  if (!isUtf8(buf)) decodeText(new Uint8Array(buf), display, { delimiter: ',' });
}

/**
 * Every row of a per_item.csv ends in a line break (docs/release-format.md "General rules").
 * A file that stops inside its last row is a truncated copy (an interrupted download or
 * transfer): importing it would keep a cut row whose last field may still parse (a tag or
 * a note cut short) or drop the row silently, so it is refused, naming the cut row and the
 * field it stops in.
 */
function refuseTruncated(buf: Buffer, file: string): void {
  if (buf.length === 0 || buf[buf.length - 1] === LF) return;
  const lines = buf.toString('utf8').replace(/^\uFEFF/, '').split('\n');
  const cut = lines[lines.length - 1] ?? '';
  if (cut.trim() === '') return;
  let fields = 1;
  let quoted = false;
  for (let i = 0; i < cut.length; i++) {
    const c = cut.charCodeAt(i);
    if (c === 34) quoted = !quoted;
    else if (c === 44 && !quoted) fields++;
  }
  const header = lines.length > 1 ? (lines[0] ?? '').replace(/\r$/, '').split(',') : [];
  const field = header.length > 0 ? (header[Math.min(fields, header.length) - 1] ?? '').trim() : '';
  throw new ImportError(
    file,
    lines.length,
    field,
    'the file ends inside this row (no line break after it): a truncated copy? Nothing was imported; copy or export the file again',
  );
}

interface Parsed {
  configs: { key: string; frames: number; pixelCount: number | null }[];
  answered: { split: string; sampleId: string; answer: string }[];
  columns: ResponseColumnBatch[];
  inconsistent: number;
  duplicates: number;
}

/** Column positions by name; a column named twice is read from its first copy (Header checks the copies agree). */
function readHeader(file: string, header: Header): Record<Column, number> {
  const idx = {} as Record<Column, number>;
  for (const c of PER_ITEM_OPTIONAL) idx[c] = -1;
  for (const name of header.names) {
    const i = header.index(name);
    if (!KNOWN.has(name)) {
      throw new ImportError(
        file,
        1,
        name,
        `unknown header "${name}" (column ${i + 1}); per_item.csv takes ${PER_ITEM_REQUIRED.join(', ')} ` +
          `and optionally ${PER_ITEM_OPTIONAL.join(', ')}`,
      );
    }
    idx[name as Column] = i;
  }
  for (const c of PER_ITEM_REQUIRED) {
    if (idx[c] === undefined) throw new ImportError(file, 1, c, `missing required header "${c}"`);
  }
  return idx;
}

interface ConfigSeen {
  key: string;
  frames: number;
  /** −1 = none. */
  pixelCount: number;
  line: number;
}

function configError(file: string, line: number, seen: ConfigSeen | undefined, config: string, fcRaw: string, pcRaw: string): ConfigSeen {
  const frames = parseCount(fcRaw);
  if (Number.isNaN(frames)) {
    throw new ImportError(file, line, 'frame_count', `expected a non-negative integer, got ${JSON.stringify(fcRaw)}`);
  }
  const pixelCount = pcRaw === '' ? null : parseCount(pcRaw);
  if (pixelCount !== null && Number.isNaN(pixelCount)) {
    throw new ImportError(file, line, 'pixel_count', `expected a non-negative integer or empty, got ${JSON.stringify(pcRaw)}`);
  }
  const parsed = parseKey(config);
  if (!parsed) {
    throw new ImportError(file, line, 'config', `config "${config}" is not textonly, <frames>f or <frames>f_<pixels>`);
  }
  if (parsed.frames !== frames) {
    throw new ImportError(file, line, 'frame_count', `config ${config} means ${parsed.frames} frames but frame_count is ${frames}`);
  }
  const pc = pixelCount ?? -1;
  if (seen && seen.frames !== frames) {
    throw new ImportError(file, line, 'frame_count', `config ${config} had frame_count ${seen.frames} at line ${seen.line}, here ${frames}`);
  }
  if (seen && seen.pixelCount !== pc) {
    const was = seen.pixelCount < 0 ? null : seen.pixelCount;
    throw new ImportError(file, line, 'pixel_count', `config ${config} had pixel_count ${was} at line ${seen.line}, here ${pixelCount}`);
  }
  return seen ?? { key: config, frames, pixelCount: pc, line };
}


/** Column positions of one file, after its header. */
interface Layout {
  width: number;
  idx: Record<Column, number>;
  header: Header;
  /** A column is named twice (Header checks the copies agree on every row). */
  copies: boolean;
}

/**
 * The row checks and the cells' columns. One `row(base)` call per tokenized row; the rare
 * paths (a new value, an error) are separate methods, so the per-row code stays small.
 */
class Rows {
  offs: Int32Array = new Int32Array(0);
  private dv: DataView;
  quoted: string[] = [];
  readonly models: Table;
  readonly splitNames: Table;
  readonly configNames: Table;
  readonly tags: Table;
  readonly notes: Table;
  readonly splits: Split[] = [];
  readonly configs: ConfigSeen[] = [];
  readonly columns: Col[] = [];
  readonly answered: { split: number; item: number }[] = [];
  inconsistent = 0;
  duplicates = 0;
  private prevM = -1;
  private prevS = -1;
  private prevC = -1;
  /**
   * The columns of the current (model, split): per config number, its index in `columns` + 1
   * (0 = none yet). Typed, not an array of Cols per (model, split): those arrays took
   * different element kinds (holey when a config first came out of order), and the read in
   * `row` deoptimised on each new kind.
   */
  private cols: Int32Array<ArrayBuffer> = new Int32Array(0);
  private colsM = -1;
  private colsS = -1;
  private readonly grid = new Map<number, Int32Array<ArrayBuffer>>();
  private readonly iSample: number;
  private readonly iModel: number;
  private readonly iSplit: number;
  private readonly iConfig: number;
  private readonly iFc: number;
  private readonly iPc: number;
  private readonly iPred: number;
  private readonly iGt: number;
  private readonly iCorrect: number;
  private readonly iTag: number;
  private readonly iNote: number;
  private readonly optional: boolean;
  /** model and split are neighbours (and not overridden): the previous row's bytes of both. */
  private readonly msAdjacent: boolean;
  private msStart = 0;
  private msLen = -1;
  /** config, frame_count and pixel_count are neighbours: each distinct span of them, checked once. */
  private readonly cfgAdjacent: boolean;
  private readonly configSpans: Table;
  private readonly spanConfig: number[] = [];

  constructor(
    private buf: Buffer,
    private readonly file: string,
    private readonly layout: Layout,
    private readonly overrideModel: string | null,
    private readonly overrideSplit: string | null,
  ) {
    this.dv = dataView(buf);
    this.models = new Table(buf, true);
    this.splitNames = new Table(buf, true);
    this.configNames = new Table(buf, true);
    this.tags = new Table(buf, false);
    this.notes = new Table(buf, false);
    // The empty note is value 0 (a cell's note is its value − 1): every row then interns its
    // note, empty or not, instead of a branch first taken at a file's first note — often
    // thousands of rows in, after V8 had optimised `row`, which that branch deoptimised.
    this.notes.bytes(0, 0);
    // Field f's start is at base + 2 + 2f: each column's offset within a row record.
    const at = (i: number): number => 2 + 2 * i;
    const x = layout.idx;
    this.iSample = at(x.sample_id);
    this.iModel = at(x.model);
    this.iSplit = at(x.split);
    this.iConfig = at(x.config);
    this.iFc = at(x.frame_count);
    this.iPc = at(x.pixel_count);
    this.iPred = at(x.predicted_option);
    this.iGt = at(x.ground_truth_option);
    this.iCorrect = at(x.correct);
    this.iTag = at(x.source_tag);
    this.iNote = at(x.protocol_note);
    this.msAdjacent = x.split === x.model + 1 && overrideModel === null && overrideSplit === null;
    this.cfgAdjacent = x.frame_count === x.config + 1 && x.pixel_count === x.frame_count + 1;
    this.configSpans = new Table(buf, true);
    this.optional = x.score >= 0 || x.confidence >= 0 || x.margin >= 0 || x.latency_s >= 0 || x.frame_indices >= 0;
  }

  /** The reader moved on to the file's next window, held in `buf`: see Table.moved. */
  moved(buf: Buffer): void {
    const dv = dataView(buf);
    this.buf = buf;
    this.dv = dv;
    for (const t of [this.models, this.splitNames, this.configNames, this.tags, this.notes, this.configSpans]) t.moved(buf, dv);
    for (const s of this.splits) s.ids.moved(buf, dv);
    for (const c of this.columns) c.tagLen = -1;
    this.msLen = -1;
  }

  /** The field at offs[o] as a string (slow paths and messages). */
  str(o: number): string {
    const s = this.offs[o]!;
    return s < 0 ? this.quoted[this.offs[o + 1]!]! : this.buf.toString('utf8', s, this.offs[o + 1]);
  }

  empty(o: number): boolean {
    const s = this.offs[o]!;
    return s < 0 ? this.quoted[this.offs[o + 1]!] === '' : this.offs[o + 1] === s;
  }

  intern(t: Table, o: number): number {
    const s = this.offs[o]!;
    return s < 0 ? t.string(this.quoted[this.offs[o + 1]!]!) : t.bytes(s, this.offs[o + 1]!);
  }

  /** A letter A–H as 0–7, −1 for empty, −2 for anything else. */
  letter(o: number): number {
    const s = this.offs[o]!;
    if (s < 0) {
      const v = this.quoted[this.offs[o + 1]!]!;
      if (v === '') return -1;
      const c = v.length === 1 ? v.charCodeAt(0) - 65 : -1;
      return c >= 0 && c <= 7 ? c : -2;
    }
    const len = this.offs[o + 1]! - s;
    if (len === 0) return -1;
    const c = len === 1 ? this.buf[s]! - 65 : -1;
    return c >= 0 && c <= 7 ? c : -2;
  }

  count(o: number): number {
    const s = this.offs[o]!;
    return s < 0 ? parseCount(this.quoted[this.offs[o + 1]!]!) : countBytes(this.buf, s, this.offs[o + 1]!);
  }

  /** The row whose record starts at offs[base]. */
  row(base: number): void {
    const offs = this.offs;
    const file = this.file;
    const line = offs[base]!;
    if (offs[base + 1] !== this.layout.width) throw new ImportError(file, line, '', `malformed row: ${offs[base + 1]} fields, header has ${this.layout.width}`);
    if (this.layout.copies) this.checkCopies(base, line);
    if (this.empty(base + this.iSample)) throw new ImportError(file, line, 'sample_id', 'empty');
    this.names(base, line);
    const m = this.prevM;
    const s = this.prevS;
    const c = this.prevC;
    const split = this.splits[s]!;
    const item = this.intern(split.ids, base + this.iSample);
    if (split.ids.added) this.newItem(split, item, line);

    const pred = this.letter(base + this.iPred);
    if (pred === -2) this.badLetter(base + this.iPred, line, 'predicted_option');
    const gt = this.letter(base + this.iGt);
    if (gt === -2) this.badLetter(base + this.iGt, line, 'ground_truth_option');
    let correct: number;
    const co = base + this.iCorrect;
    const cs = offs[co]!;
    const cc = cs >= 0 && offs[co + 1] === cs + 1 ? this.buf[cs]! - 48 : -1;
    if (cc === 0 || cc === 1) correct = cc;
    else correct = this.correctSlow(co, line);
    let score = NaN;
    let confidence = NaN;
    let margin = NaN;
    let latencyMs = NaN;
    let frames: number[] | null = null;
    if (this.optional) {
      const x = this.layout.idx;
      const num = (i: number, field: string, max: number): number => (i < 0 || this.empty(base + 2 + 2 * i) ? NaN : parseUnit(file, line, field, this.str(base + 2 + 2 * i), 0, max));
      score = num(x.score, 'score', 1);
      confidence = num(x.confidence, 'confidence', 1);
      margin = num(x.margin, 'margin', 1);
      latencyMs = num(x.latency_s, 'latency_s', Number.MAX_VALUE) * 1000;
      frames = x.frame_indices >= 0 ? parseFrameIndices(file, line, this.str(base + 2 + 2 * x.frame_indices)) : null;
    }
    if (correct < 0 && score !== score) {
      throw new ImportError(file, line, 'correct', 'empty, and no score: a row needs 0/1 (MCQA) or a score (open-ended)');
    }
    // Kept as the file says (the release's scripts read `correct`), but worth a warning.
    if (gt >= 0 && correct >= 0 && pred >= 0 && (pred === gt ? 1 : 0) !== correct) this.inconsistent++;
    if (gt >= 0) {
      const had = split.gt[item]!;
      if (had < 0) {
        split.gt[item] = gt;
        split.line[item] = line;
        this.answered.push({ split: s, item });
      } else if (had !== gt) this.twoAnswers(s, item, gt, line);
    }
    if (frames !== null && frames.length > 0 && this.configs[c]!.frames === 0) {
      throw new ImportError(file, line, 'frame_indices', `config ${this.configNames.strings[c]} sees no frames (frame_count 0) but the row lists ${frames.length} frame indices`);
    }

    // The (model, split, config) column: rows usually keep (model, split) and cycle configs;
    // `cols` follows (model, split) in modelSplit, the path names() takes when they change.
    const cols = this.cols;
    // Bounds checked first: a read past the end of `cols` (a new config) deoptimised this method.
    const ci = c < cols.length ? cols[c]! - 1 : -1;
    const col = ci >= 0 ? this.columns[ci]! : this.newColumn(m, s, c);
    // A column's source tag (and note) usually repeats from its previous cell.
    const to = base + this.iTag;
    let tag: number;
    const ts = offs[to]!;
    if (ts >= 0 && offs[to + 1]! - ts === col.tagLen && same(this.dv, ts, col.tagStart, col.tagLen)) tag = col.tagId;
    else if (this.empty(to)) tag = -1;
    else {
      tag = this.intern(this.tags, to);
      this.checkAdded(this.tags, tag, line, 'source_tag');
      if (ts >= 0) {
        col.tagStart = ts;
        col.tagLen = offs[to + 1]! - ts;
        col.tagId = tag;
      }
    }
    const noteId = this.intern(this.notes, base + this.iNote);
    this.checkAdded(this.notes, noteId, line, 'protocol_note');
    const note = noteId - 1;
    // Unconditional: grow32 returns `pos` itself while it has room. A branch taken only when a
    // column first outgrows it ran first after V8 had optimised this method, deoptimising it.
    col.pos = grow32(col.pos, item);
    const prev = col.pos[item]! - 1;
    if (prev >= 0) {
      // The same (model, split, sample, config) again: an exact repeat is ignored (a warning);
      // anything else is refused, naming the first field that differs.
      sameCell(file, line, col, prev, split.ids.strings[item]!, pred, correct, score, gt, confidence, margin, latencyMs);
      this.duplicates++;
      return;
    }
    const k = col.length++;
    col.pos[item] = k + 1;
    if (k >= col.item.length) col.reserve(k, split.ids.strings.length);
    col.item[k] = item;
    col.pred[k] = pred;
    col.gt[k] = gt;
    col.tag[k] = tag;
    col.note[k] = note;
    col.correct[k] = correct;
    col.line[k] = line;
    if (this.optional) {
      if (col.score) col.score[k] = score;
      if (col.confidence) col.confidence[k] = confidence;
      if (col.margin) col.margin[k] = margin;
      if (col.latencyMs) col.latencyMs[k] = latencyMs;
      if (col.frames) col.frames[k] = frames;
    }
  }

  /**
   * Checks the text of a value `t` has just added. One method for tags and notes on purpose:
   * V8 keeps type feedback per function, so the check a file's first new tag runs also
   * prepares the (inlined) one for its first note, which may come long after `row` is optimised.
   */
  private checkAdded(t: Table, id: number, line: number, field: string): void {
    if (t.added) checkText(t.strings[id]!, this.file, line, field);
  }

  private checkCopies(base: number, line: number): void {
    const values: string[] = [];
    for (let f = 0; f < this.layout.width; f++) values.push(this.str(base + 2 + 2 * f));
    this.layout.header.check(values, line);
  }

  /** Looks up model, split and config (and checks frame_count / pixel_count) into prevM/S/C. */
  /**
   * Looks up model, split and config (and checks frame_count / pixel_count) into
   * prevM/S/C. In the release's column order model and split are neighbours, and so are
   * config, frame_count and pixel_count: the first pair usually repeats the previous row's
   * bytes, the second is one of a few byte spans already checked (one per config).
   */
  private names(base: number, line: number): void {
    const offs = this.offs;
    let msSame = false;
    if (this.msAdjacent) {
      const from = offs[base + this.iModel]!;
      if (from >= 0 && offs[base + this.iSplit]! >= 0) {
        const len = offs[base + this.iSplit + 1]! - from;
        msSame = len === this.msLen && same(this.dv, from, this.msStart, len);
        this.msStart = from;
        this.msLen = len;
      } else this.msLen = -1;
    }
    if (!msSame) this.modelSplit(base, line);
    if (this.cfgAdjacent && offs[base + this.iConfig]! >= 0 && offs[base + this.iFc]! >= 0 && offs[base + this.iPc]! >= 0) {
      const k = this.configSpans.bytes(offs[base + this.iConfig]!, offs[base + this.iPc + 1]!);
      const c = this.spanConfig[k];
      if (c === undefined) this.spanConfig[k] = this.config(base, line);
      else this.prevC = c;
    } else this.config(base, line);
  }

  private modelSplit(base: number, line: number): void {
    const file = this.file;
    let m: number;
    if (this.overrideModel !== null) m = this.models.string(this.overrideModel);
    else {
      if (this.empty(base + this.iModel)) throw new ImportError(file, line, 'model', 'empty');
      m = this.intern(this.models, base + this.iModel);
    }
    if (this.models.added) checkId(this.models.strings[m]!, file, line, 'model');
    let s: number;
    if (this.overrideSplit !== null) s = this.splitNames.string(this.overrideSplit);
    else {
      if (this.empty(base + this.iSplit)) throw new ImportError(file, line, 'split', 'empty');
      s = this.intern(this.splitNames, base + this.iSplit);
    }
    if (this.splitNames.added) {
      checkId(this.splitNames.strings[s]!, file, line, 'split');
      this.splits.push({ ids: new Table(this.buf, false), gt: new Int32Array(256).fill(-1), line: new Int32Array(256) });
    }
    this.prevM = m;
    this.prevS = s;
    if (m !== this.colsM || s !== this.colsS) this.colsOf(m, s);
  }

  private config(base: number, line: number): number {
    const file = this.file;
    if (this.empty(base + this.iConfig)) throw new ImportError(file, line, 'config', 'empty');
    const c = this.intern(this.configNames, base + this.iConfig);
    if (this.configNames.added) checkId(this.configNames.strings[c]!, file, line, 'config');
    // frame_count / pixel_count: the config's first row sets them, every row must agree.
    const fc = this.count(base + this.iFc);
    const pc = this.empty(base + this.iPc) ? -1 : this.count(base + this.iPc);
    const seen = this.configs[c];
    if (seen === undefined || seen.frames !== fc || seen.pixelCount !== pc || fc !== fc || pc !== pc) {
      this.configs[c] = configError(file, line, seen, this.configNames.strings[c]!, this.str(base + this.iFc), this.str(base + this.iPc));
    }
    this.prevC = c;
    return c;
  }

  private newItem(split: Split, item: number, line: number): void {
    checkId(split.ids.strings[item]!, this.file, line, 'sample_id');
    split.gt = grow32(split.gt, item, -1);
    split.line = grow32(split.line, item);
    split.line[item] = line;
  }

  private badLetter(o: number, line: number, field: string): never {
    throw new ImportError(this.file, line, field, `expected a letter A–H or empty, got ${JSON.stringify(this.str(o))}`);
  }

  private correctSlow(o: number, line: number): number {
    if (this.empty(o)) return -1;
    const v = this.str(o);
    if (v === '1' || v === '0') return v === '1' ? 1 : 0;
    throw new ImportError(this.file, line, 'correct', `expected 0 or 1, got ${JSON.stringify(v)}`);
  }

  private twoAnswers(s: number, item: number, gt: number, line: number): never {
    const split = this.splits[s]!;
    throw new ImportError(
      this.file,
      line,
      'ground_truth_option',
      `duplicate item (split ${this.splitNames.strings[s]}, sample ${split.ids.strings[item]}) with a different value: ` +
        `${LETTERS[gt]} here, ${LETTERS[split.gt[item]!]} at line ${split.line[item]}`,
    );
  }

  private colsOf(m: number, s: number): void {
    this.cols = this.grid.get(m * 65536 + s) ?? new Int32Array(0);
    this.colsM = m;
    this.colsS = s;
  }

  /** A new column of the current (model, split) (`cols` is theirs: modelSplit keeps it so). */
  private newColumn(m: number, s: number, c: number): Col {
    const col = new Col(this.models.strings[m]!, this.splitNames.strings[s]!, this.configNames.strings[c]!, m, s, c, this.layout.idx);
    const cols = grow32(this.cols, c);
    cols[c] = this.columns.push(col);
    this.cols = cols;
    this.grid.set(m * 65536 + s, cols);
    return col;
  }
}

/** A DataView of all of `buf`. */
const dataView = (buf: Buffer): DataView => new DataView(buf.buffer, buf.byteOffset, buf.length);

/** Where the rows' field offsets come from (csv-tokenize.ts): this thread, or the scan thread. */
interface RowSource {
  /** The bytes the rows' offsets index: the window (after `header`), or the file. */
  readonly buf: Buffer;
  /** The header's fields as read ([] = none). */
  header(): Promise<string[]>;
  /** Sets `rows.offs` and `rows.quoted` to the next chunk's rows and returns their count; 0 at the end. */
  next(rows: Rows): Promise<number>;
}

/**
 * A file read and tokenized on this thread, one window of `windowBytes` at a time, each chunk
 * into one array. A window is cut after its last whole record (recordsEnd); the rest is carried
 * to the front of the next. On each move the rows' kept byte ranges are forgotten (Rows.moved).
 * Every byte read is hashed into `hash`, and each window's records are checked for UTF-8 before
 * they are tokenized.
 */
function windowRows(fd: number, file: string, hash: Hash, windowBytes: number): RowSource & { lastByte(): number } {
  let buf = Buffer.allocUnsafeSlow(windowBytes);
  /** Bytes [0, held) are the file's, from `at.p` on not yet tokenized; [0, end) are whole records. */
  let held = 0;
  let end = 0;
  let view = buf.subarray(0, 0);
  let pos = 0;
  let eof = false;
  let last = -1;
  const at: Cursor = { p: 0, line: 1, quote: -1 };
  let width = 0;

  /** The next window: false when the file has no more bytes. */
  function advance(): boolean {
    if (eof && at.p >= held) return false;
    if (at.p > 0) {
      buf.copy(buf, 0, at.p, held);
      held -= at.p;
      at.p = 0;
    }
    at.quote = -1;
    for (;;) {
      if (held === buf.length) {
        // One record longer than the window: a larger one.
        const grown = Buffer.allocUnsafeSlow(buf.length * 2);
        buf.copy(grown, 0, 0, held);
        buf = grown;
      }
      const n = readSync(fd, buf, held, buf.length - held, pos);
      if (n === 0) eof = true;
      else {
        hash.update(buf.subarray(held, held + n));
        if (pos === 0) at.p = bomLength(buf.subarray(0, n));
        held += n;
        pos += n;
        last = buf[held - 1]!;
      }
      end = eof ? held : recordsEnd(buf, 0, held);
      if (eof || end > at.p) break;
    }
    view = buf.subarray(0, end);
    if (!isUtf8(view)) throw new ImportError(file, at.line, '', 'not UTF-8'); // named precisely by refuseDamaged
    return at.p < end;
  }

  return {
    get buf() {
      return buf;
    },
    header() {
      let names: string[] = [];
      while (names.length === 0 && (at.p < end || advance())) names = recordStrings(view, at, file);
      width = names.length;
      return Promise.resolve(names);
    },
    next(rows) {
      for (;;) {
        if (at.p < end) {
          if (rows.offs.length === 0) rows.offs = new Int32Array(CHUNK_ROWS * (2 + 2 * width));
          const got = tokenize(view, at, file, width, rows.offs, rows.quoted);
          if (got > 0) return Promise.resolve(got);
        }
        if (!advance()) return Promise.resolve(0);
        rows.moved(buf);
      }
    },
    lastByte: () => last,
  };
}

/** A file the scan thread reads and tokenizes: each chunk's slot is given back when the next is asked for. */
function scannedRows(scan: Scan): RowSource {
  let held = false;
  return {
    buf: scan.buf,
    header: () => scan.header(),
    async next(rows) {
      if (held) scan.release();
      held = false;
      const c = await scan.next();
      if (c === null) return 0;
      held = true;
      rows.offs = c.offs;
      rows.quoted = c.quoted;
      return c.rows;
    },
  };
}

/** The parse proper: the header, then the rows chunk by chunk. */
async function parse(source: RowSource, file: string, opts: ImportOptions): Promise<Parsed> {
  let names = await source.header();
  if (names.length === 0) throw new ImportError(file, 1, '', 'empty file: no header row');
  names = names.map((h) => h.trim());
  const header = new Header(names, file);
  const idx = readHeader(file, header);
  const layout: Layout = {
    width: names.length,
    idx,
    header,
    copies: header.width > header.names.length,
  };
  const rows = new Rows(source.buf, file, layout, opts.model ?? null, opts.split ?? null);
  const stride = 2 + 2 * layout.width;
  for (let got = await source.next(rows); got > 0; got = await source.next(rows)) {
    for (let r = 0; r < got; r++) rows.row(r * stride);
  }

  // The fields a column has no values of are shared, read-only (ResponseColumnBatch): one
  // all-NaN array as long as the longest column, and one all-null frames array per column
  // length (a split's columns mostly have one). Sized per cell of the file, they were ~1.2 MB
  // and ~1.1 MB of memory a 145k-row import filled for nothing.
  let longest = 0;
  for (const c of rows.columns) longest = Math.max(longest, c.length);
  const nan = new Float64Array(longest).fill(NaN);
  const nulls = new Map<number, null[]>();
  const noFrames = (len: number): null[] => {
    let a = nulls.get(len);
    if (!a) nulls.set(len, (a = new Array<null>(len).fill(null)));
    return a;
  };
  const notes = rows.notes.strings.slice(1); // without the empty note (see Rows)
  const built = rows.columns.map((c) => batchColumn(c, rows.splits[c.s]!.ids.strings, rows.tags.strings, notes, nan.subarray(0, c.length), noFrames));
  return {
    configs: rows.configs.map((c) => ({ key: c.key, frames: c.frames, pixelCount: c.pixelCount < 0 ? null : c.pixelCount })),
    answered: rows.answered.map(({ split, item }) => ({
      split: rows.splitNames.strings[split]!,
      sampleId: rows.splits[split]!.ids.strings[item]!,
      answer: LETTERS[rows.splits[split]!.gt[item]!]!,
    })),
    columns: built,
    inconsistent: rows.inconsistent,
    duplicates: rows.duplicates,
  };
}

const nullable = (v: number): number | null => (v !== v ? null : v);

/** Throws the refusal of a repeated cell that differs from the first (compared as ResponseRow fields). */
function sameCell(
  file: string,
  line: number,
  col: Col,
  k: number,
  sampleId: string,
  pred: number,
  correct: number,
  score: number,
  gt: number,
  confidence: number,
  margin: number,
  latencyMs: number,
): void {
  const letterOf = (i: number): string | null => (i < 0 ? null : LETTERS[i]!);
  const bool = (c: number): boolean | null => (c < 0 ? null : c === 1);
  const at = (a: Float64Array | null): number | null => (a ? nullable(a[k]!) : null);
  const pairs: [string, unknown, unknown][] = [
    ['predicted_option', letterOf(pred), letterOf(col.pred[k]!)],
    ['correct', bool(correct), bool(col.correct[k]!)],
    ['score', nullable(score), at(col.score)],
    ['ground_truth_option', letterOf(gt), letterOf(col.gt[k]!)],
    ['confidence', nullable(confidence), at(col.confidence)],
    ['margin', nullable(margin), at(col.margin)],
    ['latency_s', nullable(latencyMs), at(col.latencyMs)],
  ];
  for (const [field, here, first] of pairs) {
    if (here !== first) {
      throw new ImportError(
        file,
        line,
        field,
        `duplicate key (model ${col.model}, split ${col.split}, sample ${sampleId}, config ${col.config}) ` +
          `with a different value: ${JSON.stringify(here)} here, ${JSON.stringify(first)} at line ${col.line[k]}`,
      );
    }
  }
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
 * A column as the batch carries it: typed arrays and interned tables; its string arrays are
 * built only if a consumer reads them (the store reads the tables). The typed arrays are views
 * of the column's own arrays (which no longer grow), not copies: at 1.45M rows a copy of each
 * was ~40 MB more memory to allocate and fill.
 */
function batchColumn(c: Col, sampleIds: readonly string[], tags: readonly string[], notes: readonly string[], nan: Float64Array, noFrames: (len: number) => null[]): ResponseColumnBatch {
  const len = c.length;
  const tables: ColumnTables = {
    sampleIds: { table: sampleIds, index: c.item.subarray(0, len) },
    pred: { table: LETTERS, index: c.pred.subarray(0, len) },
    groundTruth: { table: LETTERS, index: c.gt.subarray(0, len) },
    sourceTag: { table: tags, index: c.tag.subarray(0, len) },
    protocolNote: { table: notes, index: c.note.subarray(0, len) },
  };
  const cache: Partial<Record<keyof ColumnTables, (string | null)[]>> = {};
  const lazy = (k: keyof ColumnTables): (string | null)[] => (cache[k] ??= materialize(tables[k]));
  const frames = c.frames ? c.frames.slice(0, len) : null;
  return {
    model: c.model,
    split: c.split,
    config: c.config,
    length: len,
    get sampleIds() {
      return lazy('sampleIds') as string[];
    },
    get pred() {
      return lazy('pred');
    },
    correct: c.correct.subarray(0, len),
    score: c.score ? c.score.subarray(0, len) : nan,
    get groundTruth() {
      return lazy('groundTruth');
    },
    confidence: c.confidence ? c.confidence.subarray(0, len) : nan,
    margin: c.margin ? c.margin.subarray(0, len) : nan,
    latencyMs: c.latencyMs ? c.latencyMs.subarray(0, len) : nan,
    get frameIndices() {
      return frames ?? noFrames(len);
    },
    get sourceTag() {
      return lazy('sourceTag');
    },
    get protocolNote() {
      return lazy('protocolNote');
    },
    line: c.line.subarray(0, len),
    tables,
  };
}

/** Cell `k` of a column as a ResponseRow. */
function columnRow(c: ResponseColumnBatch, k: number): ResponseRow {
  const cor = c.correct[k]!;
  return {
    model: c.model,
    split: c.split,
    sampleId: c.sampleIds[k]!,
    config: c.config,
    pred: c.pred[k] ?? null,
    correct: cor < 0 ? null : cor === 1,
    score: nullable(c.score[k]!),
    groundTruth: c.groundTruth[k] ?? null,
    confidence: nullable(c.confidence[k]!),
    margin: nullable(c.margin[k]!),
    latencyMs: nullable(c.latencyMs[k]!),
    frameIndices: c.frameIndices[k] ?? null,
    sourceTag: c.sourceTag[k] ?? null,
    protocolNote: c.protocolNote[k] ?? null,
    line: c.line[k]!,
  };
}

/** The ImportBatch of a parsed per_item.csv: the cells as `columns`; `responses` built only if read. */
function batchOf(path: string, file: string, p: Parsed, sha256: string): ImportBatch {
  const warnings: string[] = [];
  if (p.inconsistent > 0) {
    warnings.push(`${file}: ${p.inconsistent} row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)`);
  }
  if (p.duplicates > 0) warnings.push(`${basename(file)}: ${p.duplicates} repeated identical row(s) ignored`);
  // Each (split, sample) with an answer is listed once, so the items need no merging.
  const items: ItemMeta[] = p.answered.map((a) => ({ split: a.split, sampleId: a.sampleId, answer: a.answer, kind: 'mcqa' }));
  const columns = p.columns;
  let rows: ResponseRow[] | null = null;
  return {
    run: { sourcePath: path, sha256, format: 'per-item-csv', toolkit: 'flipbook-release', modelArgs: null },
    items,
    configs: p.configs.map((c) => specFor(c.key, { frames: c.frames, pixelCount: c.pixelCount })),
    warnings,
    columns,
    get responses(): ResponseRow[] {
      if (rows === null) {
        rows = [];
        for (const c of columns) for (let k = 0; k < c.length; k++) rows.push(columnRow(c, k));
        rows.sort((a, b) => a.line - b.line);
      }
      return rows;
    },
  };
}
