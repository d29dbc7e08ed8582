import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import type { ImportBatch, ItemMeta, ResponseRow } from '../../shared/domain/types';
import type { ImportOptions } from './batch-builder';
import { type CellValues, ColumnBuilder, columnRows } from './column-builder';
import { parseKey, specFor } from './config-keys';
import { readCsvRecords } from './csv-records';
import { PER_ITEM_COLUMNS, PER_ITEM_OPTIONAL_COLUMNS } from '../../shared/release/per-item-columns';
import { Header } from './header';
import { ImportError } from './errors';
import { checkId, checkText } from './text-input';
import { type PerItemParse, readPerItemFast } from './per-item-fast';

/** docs/release-format.md: the eleven columns of labels/per_item.csv. */
export const PER_ITEM_REQUIRED = PER_ITEM_COLUMNS;

/** The documented optional columns Flipbook may append. Anything else is rejected. */
export const PER_ITEM_OPTIONAL = PER_ITEM_OPTIONAL_COLUMNS;

type Column = (typeof PER_ITEM_REQUIRED)[number] | (typeof PER_ITEM_OPTIONAL)[number];

const KNOWN = new Set<string>([...PER_ITEM_REQUIRED, ...PER_ITEM_OPTIONAL]);

interface SeenItem {
  /** The sample_id string shared by all cells of the item. */
  id: string;
  /** Dense number of the item within its split. */
  n: number;
  gt: string | null;
  /** Line of the first ground truth (or of the first row while there is none). */
  line: number;
}

interface ConfigSeen {
  frames: number;
  pixelCount: number | null;
  line: number;
}

function isLetter(s: string): boolean {
  if (s.length !== 1) return false;
  const c = s.charCodeAt(0);
  return c >= 65 && c <= 72; // A–H
}

/** Non-negative integer without a regex: per-row work stays a few char compares. */
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

function parseUnit(file: string, line: number, field: string, s: string, min: number, max: number): number | null {
  if (s === '') return null;
  const v = Number(s);
  if (!Number.isFinite(v) || v < min || v > max) {
    throw new ImportError(file, line, field, `expected a number in [${min}, ${max}], got ${JSON.stringify(s)}`);
  }
  return v;
}

/** Above this size the file is streamed (general reader) rather than held in memory whole. */
const FAST_MAX_BYTES = 512 * 1024 * 1024;

/**
 * Reads a release `per_item.csv`. `display` names the file in errors (e.g.
 * `release.zip!labels/per_item.csv`).
 *
 * Two readers, one result: the byte-level fast path (per-item-fast.ts) takes files in the
 * release's own shape; anything else — quoting, optional columns, overrides, any row it would
 * not accept as is — goes through the general reader below, which streams the file through
 * csv-records.ts and reports every problem as file:line:field.
 *
 * The cells go into one column per (model, split, config) — the store's own layout — and the
 * batch carries them as `columns`: a 145k-row release is applied without a ResponseRow object
 * per cell. `responses` is built from the columns only if read.
 */
export async function readPerItemCsv(path: string, opts: ImportOptions = {}, display = path): Promise<ImportBatch> {
  refuseTruncated(path, display);
  // The fast path reads the file in one synchronous call (fs.promises.readFile takes it in
  // chunks through the thread pool, which left the thread idle for ~20 of the ~35 ms a 15 MB
  // file took), straight into its kernel's memory.
  if (opts.model == null && opts.split == null && statSync(path).size <= FAST_MAX_BYTES) {
    const fast = readPerItemFast(path);
    if (fast?.parsed) return perItemBatch(path, display, fast.parsed, fast.sha256);
  }
  return readPerItemGeneral(path, opts, display);
}

/**
 * Every row of a per_item.csv ends in a line break (docs/release-format.md "General rules").
 * A file that stops inside its last row is a truncated copy (an interrupted download or
 * transfer): importing it would keep a cut row whose last field may still parse (a tag or
 * a note cut short) or drop the row silently, so it is refused, naming the cut row and the
 * field it stops in. Only the last byte is read unless the file is cut.
 */
function refuseTruncated(path: string, file: string): void {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return;
  } finally {
    closeSync(fd);
  }
  const lines = readFileSync(path, 'utf8').replace(/^\uFEFF/, '').split('\n');
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

/** The ImportBatch of a parsed per_item.csv (either reader). */
function perItemBatch(path: string, file: string, p: PerItemParse, sha256: string): ImportBatch {
  const warnings: string[] = [];
  if (p.inconsistent > 0) {
    warnings.push(`${file}: ${p.inconsistent} row(s) whose correct disagrees with predicted_option vs ground_truth_option (kept as written)`);
  }
  if (p.duplicates > 0) warnings.push(`${basename(file)}: ${p.duplicates} repeated identical row(s) ignored`);
  // Both readers list each (split, sample) with an answer once, so the items need no merging
  // (BatchBuilder.addItem's per-item key and copy were ~5 ms of a 5k-item import).
  const items: ItemMeta[] = p.answered.map((a) => ({ split: a.split, sampleId: a.sampleId, answer: a.answer, kind: 'mcqa' }));
  const built = p.columns;
  let rows: ResponseRow[] | null = null;
  return {
    run: { sourcePath: path, sha256, format: 'per-item-csv', toolkit: 'flipbook-release', modelArgs: null },
    items,
    configs: p.configs.map((c) => specFor(c.key, { frames: c.frames, pixelCount: c.pixelCount })),
    warnings,
    columns: built,
    get responses(): ResponseRow[] {
      return (rows ??= columnRows(built));
    },
  };
}

/** The general reader: any valid per_item.csv, and the exact error for any invalid one (exported for the tests that hold the fast path to it). */
export async function readPerItemGeneral(path: string, opts: ImportOptions, display: string): Promise<ImportBatch> {
  const file = display;
  const columns: ColumnBuilder[] = [];
  const byKey = new Map<string, ColumnBuilder>();
  let col: ColumnBuilder | null = null;
  // One object refilled per row: the builders copy its scalars into their arrays.
  const cell: CellValues = {
    pred: null,
    correct: -1,
    score: NaN,
    groundTruth: null,
    confidence: NaN,
    margin: NaN,
    latencyMs: NaN,
    frameIndices: null,
    sourceTag: null,
    protocolNote: null,
  };
  const colOf: Record<string, string> = {
    pred: 'predicted_option',
    correct: 'correct',
    score: 'score',
    groundTruth: 'ground_truth_option',
    confidence: 'confidence',
    margin: 'margin',
    latencyMs: 'latency_s',
  };
  const fieldName = (f: keyof ResponseRow): string => colOf[f] ?? f;

  let idx: Record<Column, number> | null = null;
  let header: Header | null = null;
  let width = 0;
  const seen = new Map<string, ConfigSeen>();
  const checked = new Map<string, { fc: string; pc: string }>();
  let inconsistent = 0;
  /**
   * split → sampleId → the item: its ground truth (to catch one item with two different
   * answers) and a dense number per split, which the column builders use instead of a Map of
   * their own. The item's first sample_id string is kept for every later cell of it, so the
   * 145k cells hold ~5k strings and each row's copy dies young (less old-generation GC).
   */
  const itemsBySplit = new Map<string, Map<string, SeenItem>>();
  /** split → its sample ids by item number: the sample-id table its column batches share. */
  const idsBySplit = new Map<string, string[]>();
  /** Items with a ground truth, in the order their first ground truth appeared. */
  const answered: { split: string; item: SeenItem }[] = [];
  let curSplit: string | null = null;
  let curItems = new Map<string, SeenItem>();
  let curIds: string[] = [];
  const override = { model: opts.model ?? null, split: opts.split ?? null };

  const sha256 = await readCsvRecords(path, file, (r, line) => {
      if (idx === null) {
        header = new Header(r.map((h) => h.trim()), file);
        idx = readHeader(file, header);
        width = r.length;
        return;
      }
      if (r.length !== width) {
        throw new ImportError(file, line, '', `malformed row: ${r.length} fields, header has ${width}`);
      }
      header!.check(r, line);
      const sampleId = r[idx.sample_id] as string;
      const model = override.model ?? (r[idx.model] as string);
      const split = override.split ?? (r[idx.split] as string);
      const config = r[idx.config] as string;
      if (sampleId === '') throw new ImportError(file, line, 'sample_id', 'empty');
      if (model === '') throw new ImportError(file, line, 'model', 'empty');
      if (split === '') throw new ImportError(file, line, 'split', 'empty');
      if (config === '') throw new ImportError(file, line, 'config', 'empty');
      checkId(sampleId, file, line, 'sample_id');

      const fcRaw = r[idx.frame_count] as string;
      const pcRaw = r[idx.pixel_count] as string;
      const memo = checked.get(config);
      // Validate each distinct (config, frame_count, pixel_count) once, not per row.
      if (memo === undefined || memo.fc !== fcRaw || memo.pc !== pcRaw) {
        checkId(model, file, line, 'model');
        checkId(split, file, line, 'split');
        checkId(config, file, line, 'config');
        seen.set(config, checkConfig(file, line, config, fcRaw, pcRaw, seen.get(config)));
        checked.set(config, { fc: fcRaw, pc: pcRaw });
      }

      const pred = r[idx.predicted_option] as string;
      if (pred !== '' && !isLetter(pred)) {
        throw new ImportError(file, line, 'predicted_option', `expected a letter A–H or empty, got ${JSON.stringify(pred)}`);
      }
      const gt = r[idx.ground_truth_option] as string;
      if (gt !== '' && !isLetter(gt)) {
        throw new ImportError(file, line, 'ground_truth_option', `expected a letter A–H or empty, got ${JSON.stringify(gt)}`);
      }
      const c = r[idx.correct] as string;
      let correct: boolean | null;
      if (c === '1') correct = true;
      else if (c === '0') correct = false;
      else if (c === '') correct = null;
      else throw new ImportError(file, line, 'correct', `expected 0 or 1, got ${JSON.stringify(c)}`);

      const score = idx.score >= 0 ? parseUnit(file, line, 'score', r[idx.score] as string, 0, 1) : null;
      if (correct === null && score === null) {
        throw new ImportError(file, line, 'correct', 'empty, and no score: a row needs 0/1 (MCQA) or a score (open-ended)');
      }
      // Kept as the file says (the release's scripts read `correct`), but worth a warning.
      if (gt !== '' && correct !== null && pred !== '' && (pred === gt) !== correct) inconsistent += 1;
      if (split !== curSplit) {
        curSplit = split;
        let m = itemsBySplit.get(split);
        if (!m) {
          itemsBySplit.set(split, (m = new Map()));
          idsBySplit.set(split, []);
        }
        curItems = m;
        curIds = idsBySplit.get(split)!;
      }
      let item = curItems.get(sampleId);
      if (item === undefined) {
        curItems.set(sampleId, (item = { id: sampleId, n: curIds.length, gt: null, line }));
        curIds.push(sampleId);
      }
      if (gt !== '') {
        if (item.gt === null) {
          item.gt = gt;
          item.line = line;
          answered.push({ split, item });
        } else if (item.gt !== gt) {
          throw new ImportError(
            file,
            line,
            'ground_truth_option',
            `duplicate item (split ${split}, sample ${sampleId}) with a different value: ${gt} here, ${item.gt} at line ${item.line}`,
          );
        }
      }

      const srcTag = r[idx.source_tag] as string;
      const note = r[idx.protocol_note] as string;
      if (srcTag !== '') checkText(srcTag, file, line, 'source_tag');
      if (note !== '') checkText(note, file, line, 'protocol_note');
      cell.pred = pred === '' ? null : pred;
      cell.correct = correct === null ? -1 : correct ? 1 : 0;
      cell.score = score ?? NaN;
      cell.groundTruth = gt === '' ? null : gt;
      cell.confidence = idx.confidence >= 0 ? (parseUnit(file, line, 'confidence', r[idx.confidence] as string, 0, 1) ?? NaN) : NaN;
      cell.margin = idx.margin >= 0 ? (parseUnit(file, line, 'margin', r[idx.margin] as string, 0, 1) ?? NaN) : NaN;
      cell.latencyMs = NaN;
      if (idx.latency_s >= 0) {
        const s = parseUnit(file, line, 'latency_s', r[idx.latency_s] as string, 0, Number.MAX_VALUE);
        if (s !== null) cell.latencyMs = s * 1000;
      }
      cell.frameIndices = idx.frame_indices >= 0 ? parseFrameIndices(file, line, r[idx.frame_indices] as string) : null;
      if (cell.frameIndices !== null && cell.frameIndices.length > 0 && seen.get(config)?.frames === 0) {
        throw new ImportError(file, line, 'frame_indices', `config ${config} sees no frames (frame_count 0) but the row lists ${cell.frameIndices.length} frame indices`);
      }
      cell.sourceTag = srcTag === '' ? null : srcTag;
      cell.protocolNote = note === '' ? null : note;
      // Files are usually grouped by (model, split, config): reuse the previous column.
      if (col === null || col.model !== model || col.split !== split || col.config !== config) {
        const key = `${model}\u0000${split}\u0000${config}`;
        col = byKey.get(key) ?? null;
        if (col === null) {
          col = new ColumnBuilder(model, split, config, idsBySplit.get(split)!);
          byKey.set(key, col);
          columns.push(col);
        }
      }
      col.add(file, line, item.id, item.n, cell, fieldName);
  });
  if (idx === null) throw new ImportError(file, 1, '', 'empty file: no header row');

  let duplicates = 0;
  for (const c of columns) duplicates += c.duplicates;
  return perItemBatch(path, file, {
    configs: [...seen].map(([key, s]) => ({ key, frames: s.frames, pixelCount: s.pixelCount })),
    answered: answered.map(({ split, item }) => ({ split, sampleId: item.id, answer: item.gt as string })),
    columns: columns.map((c) => c.finish()),
    inconsistent,
    duplicates,
  }, sha256);
}

/** Column positions by name; a column named twice is read from its first copy (Header checks the copies agree). */
function readHeader(file: string, header: Header): Record<Column, number> {
  const idx = {} as Record<Column, number>;
  for (const c of PER_ITEM_OPTIONAL) idx[c] = -1;
  header.names.forEach((name) => {
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
  });
  for (const c of PER_ITEM_REQUIRED) {
    if (idx[c] === undefined) throw new ImportError(file, 1, c, `missing required header "${c}"`);
  }
  return idx;
}

function checkConfig(
  file: string,
  line: number,
  config: string,
  fcRaw: string,
  pcRaw: string,
  prev: ConfigSeen | undefined,
): ConfigSeen {
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
    throw new ImportError(
      file,
      line,
      'frame_count',
      `config ${config} means ${parsed.frames} frames but frame_count is ${frames}`,
    );
  }
  if (prev && prev.frames !== frames) {
    throw new ImportError(file, line, 'frame_count', `config ${config} had frame_count ${prev.frames} at line ${prev.line}, here ${frames}`);
  }
  if (prev && prev.pixelCount !== pixelCount) {
    throw new ImportError(file, line, 'pixel_count', `config ${config} had pixel_count ${prev.pixelCount} at line ${prev.line}, here ${pixelCount}`);
  }
  return prev ?? { frames, pixelCount, line };
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
