/**
 * The audit queue's rows as a compact columnar value (docs/architecture.md "The queue at lab
 * scale"): derived once per import from the store's outcome scan and kept in the project as
 * ONE BLOB of the `derived` table, so neither deriving nor storing nor loading it costs
 * anything per row beyond a few typed-array slots.
 *
 * A row is three small integers — its grid (model, split), its item and its shape — and rows
 * are in (model, split, sample id) code-point order, the queue's key order. What a row shows
 * besides its item is a function of its outcome pattern within its grid (docs/metrics.md §3),
 * so rows with the same pattern, class, flags and harmed/rescued lists share one shape entry;
 * a grid has at most a few hundred of them. Items carry their sample id, code-point rank,
 * task type, video presence and lower-cased search text once, not once per model.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { planGrid } from '../../shared/engine/grid-plan';
import { itemTransitions, transitionPairs } from '../../shared/engine/mcqa';
import { patternOf, trajectoryColumns, TRAJECTORY_CLASSES } from '../../shared/engine/trajectories';
import { CONTINUOUS_CLASSES, continuousTrajectories } from '../../shared/engine/continuous';
import type { OutcomeGrid, ScannedItems } from '../store/outcome-scan';
import type { Project } from '../store/project';
import { projectVideoResolver } from '../media/item-video';

export const FLAG_TR = 1;
export const FLAG_VC = 2;
export const FLAG_TO = 4;

/**
 * A column of small integers: int32 when derived, as stored (the narrowest type its values fit)
 * when loaded. Readers only index it.
 */
export type Codes = Int32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;

export interface QueueData {
  /** Rows, in (model, split, sample id) code-point order; a row's grid is the one whose range holds it (gridOfRow). */
  n: number;
  rowItem: Codes;
  rowShape: Codes;
  /** Per grid, in (model, split) code-point order: rows of grid g are [gridStart[g], gridStart[g+1]). */
  gridModel: string[];
  gridSplit: string[];
  gridStart: Codes;
  /** Per item, in sample id code-point order: its sample id is ids.slice(idStart[i], idStart[i + 1]) (sampleIdOf). */
  ids: string;
  idStart: Codes;
  /** Dense rank of the sample id in code-point order (equal ids in two splits share a rank). */
  idRank: Codes;
  /** Index into taskTypes, −1 = none. */
  itemTask: Codes;
  hasVideo: Codes;
  /**
   * Per item `<id> <task type> <question>`, lower-cased, each followed by a newline: item i's is
   * texts.slice(textStart[i], textStart[i + 1] − 1) (itemTextOf). A row's search text adds its
   * model after the id. One string, so a search term is looked for by indexOf over all items.
   */
  texts: string;
  textStart: Codes;
  taskTypes: string[];
  /** Per shape. */
  shapePattern: Codes;
  /** Index into classes, −1 = none (an incomplete row or a grid without outcomes). */
  shapeClass: Codes;
  /** FLAG_TR | FLAG_VC | FLAG_TO. */
  shapeFlags: Codes;
  /** Indexes into lists. */
  shapeHarmed: Codes;
  shapeRescued: Codes;
  /**
   * How many rows have each shape, counted when derived and stored: the opening page's total
   * (the default preset's rows) and where its rows lie follow from these without a pass over
   * every row (queue-table.ts).
   */
  shapeRows: number[];
  patterns: string[];
  classes: string[];
  /** Distinct harmed/rescued lists; lists[0] is the empty one. */
  lists: string[][];
  /** What the filter controls offer, over every row. */
  facets: { taskTypes: string[]; transitions: string[] };
}

/** The grid of row r: a binary search of gridStart (a few hundred grids at most). */
export function gridOfRow(d: QueueData, r: number): number {
  let lo = 0;
  let hi = d.gridModel.length - 1;
  // The last grid starting at or before r (empty grids share their start with the next).
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (d.gridStart[mid]! <= r) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export const sampleIdOf = (d: QueueData, i: number): string => d.ids.slice(d.idStart[i], d.idStart[i + 1]);
export const itemTextOf = (d: QueueData, i: number): string => d.texts.slice(d.textStart[i], d.textStart[i + 1]! - 1);

/** Start offsets of `parts` laid end to end, each followed by `gap` characters, and their total: n + 1 entries. */
function starts(parts: readonly string[], gap: number): Int32Array {
  const out = new Int32Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) out[i + 1] = out[i]! + parts[i]!.length + gap;
  return out;
}

/** The MCQA classes (docs/metrics.md §3), then the continuous ones §4 adds (`flat`). */
const QUEUE_CLASSES: string[] = [...new Set<string>([...TRAJECTORY_CLASSES, ...CONTINUOUS_CLASSES])];

/** Patterns of grids up to this many configs are keyed by a base-3 number (exact below 2^53). */
const MAX_NUMERIC_PATTERN = 33;

function markAll(marks: Uint8Array, at: Int32Array): void {
  for (let r = 0; r < at.length; r++) marks[at[r]!] = 1;
}

/** How many times each of 0 … n − 1 occurs in `xs`. */
function countEach(xs: Int32Array, n: number): number[] {
  const out = new Array<number>(n).fill(0);
  for (let r = 0; r < xs.length; r++) out[xs[r]!]!++;
  return out;
}

/** Interns values by a string key, numbering them in order of first appearance. */
function intern<T>(ids: Map<string, number>, key: string, into: T[], value: T): number {
  let id = ids.get(key);
  if (id === undefined) ids.set(key, (id = into.push(value) - 1));
  return id;
}

/** The distinct shapes of the queue's rows, with their patterns and harmed/rescued lists. */
class Shapes {
  readonly patterns: string[] = [];
  private readonly patternIds = new Map<string, number>();
  readonly lists: string[][] = [[]];
  private readonly listIds = new Map<string, number>([['', 0]]);
  /** Five numbers per shape: pattern, class, flags, harmed list, rescued list. */
  readonly shapes: number[] = [];
  private readonly shapeIds = new Map<string, number>();

  of(pattern: string, cls: number, flags: number, harmed: string[], rescued: string[]): number {
    const p = intern(this.patternIds, pattern, this.patterns, pattern);
    const h = intern(this.listIds, harmed.join('\u0000'), this.lists, harmed);
    const r = intern(this.listIds, rescued.join('\u0000'), this.lists, rescued);
    const key = `${p},${cls},${flags},${h},${r}`;
    let id = this.shapeIds.get(key);
    if (id === undefined) {
      id = this.shapes.length / 5;
      this.shapeIds.set(key, id);
      this.shapes.push(p, cls, flags, h, r);
    }
    return id;
  }
}

/** Every queue row of the project, derived from the store's outcome scan (no object or string per row). */
export function deriveQueueData(project: Project): QueueData {
  const { items, grids } = project.scanOutcomes();
  const I = items.sampleId.length;
  const n = grids.reduce((s, g) => s + g.rows.length, 0);
  const rowItem = new Int32Array(n);
  const rowShape = new Int32Array(n);
  const gridStart = new Int32Array(grids.length + 1);
  const shapes = new Shapes();
  const { patterns, lists } = shapes;
  const known: KnownShapes = new Map();

  let row = 0;
  for (let gi = 0; gi < grids.length; gi++) {
    const g = grids[gi]!;
    gridStart[gi] = row;
    rowItem.set(g.rows, row);
    gridShapes(g, shapes, known, rowShape.subarray(row, row + g.rows.length));
    row += g.rows.length;
  }
  gridStart[grids.length] = row;

  // Items: rank, task type, video and search text, for the items that have rows.
  const used = new Uint8Array(I);
  markAll(used, rowItem);
  const { idRank, itemTask, hasVideo, itemText, taskTypes } = itemFacts(items, used, projectVideoResolver(project));

  const S = shapes.shapes.length / 5;
  const shapeRows = countEach(rowShape, S);
  const shapeCol = (k: number) => Int32Array.from({ length: S }, (_, s) => shapes.shapes[s * 5 + k]!);
  const transitions = new Set<string>();
  for (const l of lists) for (const x of l) transitions.add(x);
  return {
    n,
    rowItem,
    rowShape,
    gridModel: grids.map((g) => g.model),
    gridSplit: grids.map((g) => g.split),
    gridStart,
    ids: items.sampleId.join(''),
    idStart: starts(items.sampleId, 0),
    idRank,
    itemTask,
    hasVideo,
    texts: itemText.length === 0 ? '' : `${itemText.join('\n')}\n`,
    textStart: starts(itemText, 1),
    taskTypes,
    shapePattern: shapeCol(0),
    shapeClass: shapeCol(1),
    shapeFlags: shapeCol(2),
    shapeHarmed: shapeCol(3),
    shapeRescued: shapeCol(4),
    shapeRows,
    patterns,
    classes: QUEUE_CLASSES,
    lists,
    facets: {
      // Task types of items with rows; '' offers nothing to pick.
      taskTypes: taskTypes.filter((x) => x !== '').sort(),
      transitions: [...transitions].sort(),
    },
  };
}

/** Per item with rows (`used`): its id's rank, task type, video presence and search text. */
function itemFacts(items: ScannedItems, used: Uint8Array, video: ReturnType<typeof projectVideoResolver>) {
  const I = items.sampleId.length;
  const idRank = new Int32Array(I);
  for (let i = 1; i < I; i++) idRank[i] = idRank[i - 1]! + (items.sampleId[i] === items.sampleId[i - 1] ? 0 : 1);
  const taskTypes: string[] = [];
  const taskIds = new Map<string, number>();
  const itemTask = new Int32Array(I).fill(-1);
  const hasVideo = new Uint8Array(I);
  const itemText = new Array<string>(I).fill('');
  for (let i = 0; i < I; i++) {
    if (used[i] === 0) continue;
    const task = items.taskType[i] ?? null;
    if (task !== null) itemTask[i] = intern(taskIds, task, taskTypes, task);
    hasVideo[i] = video(items.videoFile[i]).file !== null ? 1 : 0;
    // Lower-casing the space-separated parts one by one gives the same text as lower-casing
    // their join: a space is no cased or case-ignorable letter, so no context-dependent
    // mapping (the final sigma) looks across it.
    itemText[i] = `${items.sampleId[i]!.toLowerCase()} ${(task ?? '').toLowerCase()} ${(items.question[i] ?? '').toLowerCase()}`;
  }
  return { idRank, itemTask, hasVideo, itemText, taskTypes };
}

/**
 * Shape ids by outcome pattern code, per grid configs (their specs in config order): a lab's
 * grids mostly share their configs (every model on every split), and a pattern's shape
 * depends on the configs and the outcomes alone, so each is evaluated once per project.
 */
type KnownShapes = Map<string, Map<number | string, number>>;

/**
 * The shape of each of a grid's rows, into `out`. What a row shows follows from its outcome
 * pattern over the grid's columns (its class and flags are the engine's per-row rule applied
 * to those outcomes, docs/metrics.md §3), so the engine runs on one row per pattern not seen
 * before in a grid of the same configs (`known`) — a few hundred at most — and every row takes
 * its pattern's shape. The per-row loops are small functions of their own: this runs in a
 * fresh CLI process once per import, where V8 compiles small hot functions quickly, but a hot
 * loop inside a large function made it compile the whole function, with everything it calls
 * inlined, at several times the cost.
 */
function gridShapes(g: OutcomeGrid, shapes: Shapes, known: KnownShapes, out: Int32Array): void {
  if (g.kind === 'open' && g.score !== null && g.configs.length > 0) return continuousShapes(g, g.score, shapes, out);
  if (g.kind !== 'mcqa' || g.configs.length === 0) {
    // No outcomes: no pattern, class, flags or transitions (as the item view shows it).
    out.fill(shapes.of('', -1, 0, [], []));
    return;
  }
  const plan = planGrid(g);
  const C = g.configs.length;
  const cols = plan.cols;
  const codes = cols.length <= MAX_NUMERIC_PATTERN ? numericPatterns(g.correct, C, cols, g.rows.length) : stringPatterns(g.correct, C, cols, g.rows.length);
  const configsKey = JSON.stringify(g.configs);
  let shapeOf = known.get(configsKey);
  if (!shapeOf) known.set(configsKey, (shapeOf = new Map()));
  const fresh = firstOfNew(codes, shapeOf);
  if (fresh.length > 0) {
    // The engine's trajectories of the first row of each new pattern (the plan depends on the
    // configs alone, so it is the same plan as the whole grid's).
    const t = trajectoryColumns({ ...g, itemIds: fresh.map((i) => g.itemIds[i]!), correct: rowsOf(g.correct, C, fresh) });
    const pairs = transitionPairs(plan);
    const y = new Int8Array(cols.length);
    fresh.forEach((i, k) => {
      for (let j = 0; j < cols.length; j++) y[j] = g.correct[i * C + cols[j]!]!;
      const { harmed, rescued } = itemTransitions(plan, pairs, y);
      const flags = (t.terminalRegression[k] ? FLAG_TR : 0) | (t.visuallyConfused[k] ? FLAG_VC : 0) | (t.textOverwritten[k] ? FLAG_TO : 0);
      shapeOf.set(codes[i]!, shapes.of(patternOf(y), t.trajectoryClass[k]!, flags, harmed, rescued));
    });
  }
  fillShapes(codes, shapeOf, out);
}

/**
 * An open-ended grid's rows (docs/metrics.md §4): the engine's continuous trajectories, with its
 * regression with budget as the confusion flag and its regressed / improved transitions as the
 * harmed / rescued lists, so the queue's filters and its default preset work the same way. Its
 * shapes depend on the scores, not on a few outcomes, so each row is evaluated (open-ended grids
 * are small: a benchmark's generation items).
 */
function continuousShapes(g: OutcomeGrid, score: Float64Array, shapes: Shapes, out: Int32Array): void {
  const t = continuousTrajectories({ model: g.model, split: g.split, kind: g.kind, itemIds: g.itemIds, configs: g.configs, score });
  for (let r = 0; r < t.rows.length; r++) {
    const x = t.rows[r]!;
    const flags = (x.terminalRegression ? FLAG_TR : 0) | (x.regressed ? FLAG_VC : 0);
    out[r] = shapes.of(x.pattern, x.trajectoryClass === null ? -1 : QUEUE_CLASSES.indexOf(x.trajectoryClass), flags, x.regressedOn, x.improvedOn);
  }
}

/** Per row, its code's shape (every code is in `shapeOf`). */
function fillShapes<K>(codes: readonly K[], shapeOf: Map<K, number>, out: Int32Array): void {
  for (let i = 0; i < codes.length; i++) out[i] = shapeOf.get(codes[i]!)!;
}

/** Rows `rows` of a row-major matrix with C columns, in that order. */
function rowsOf(correct: Int8Array, C: number, rows: readonly number[]): Int8Array {
  const out = new Int8Array(rows.length * C);
  rows.forEach((r, k) => out.set(correct.subarray(r * C, r * C + C), k * C));
  return out;
}

/** Each row's outcome pattern over `cols` as a base-3 number (exact for up to MAX_NUMERIC_PATTERN columns). */
function numericPatterns(correct: Int8Array, C: number, cols: ArrayLike<number>, count: number): number[] {
  const out = new Array<number>(count);
  const G = cols.length;
  for (let i = 0; i < count; i++) {
    const base = i * C;
    let c = 0;
    for (let j = 0; j < G; j++) c = c * 3 + correct[base + cols[j]!]! + 1;
    out[i] = c;
  }
  return out;
}

/** Each row's outcome pattern over `cols` as its pattern string (grids too wide for numericPatterns). */
function stringPatterns(correct: Int8Array, C: number, cols: ArrayLike<number>, count: number): string[] {
  const out = new Array<string>(count);
  const y = new Int8Array(cols.length);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < cols.length; j++) y[j] = correct[i * C + cols[j]!]!;
    out[i] = patternOf(y);
  }
  return out;
}

/** The first row of each code not in `known` yet, in row order. */
function firstOfNew<K>(codes: readonly K[], known: ReadonlyMap<K, number>): number[] {
  const first: number[] = [];
  const seen = new Set<K>();
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i]!;
    if (known.has(c) || seen.has(c)) continue;
    seen.add(c);
    first.push(i);
  }
  return first;
}

// ---------------------------------------------------------------------------------------------
// The stored form: the SHA-256 of everything after it (32 bytes), a little-endian u32 header
// length, the header as JSON, then the body: the typed arrays in BODY order, each at a 4-byte
// boundary in the narrowest integer type its values fit (header `widths`; lengths from the
// header's counts), so a lab's rows (item and shape codes below 65536) take 2 bytes each; then
// the items' ids and texts, two long strings as UTF-8 (header `idsBytes`, `textsBytes`): decoding
// them is a native copy, where parsing them as JSON strings costs several times more (and far
// more in a freshly started process). A row's grid is not stored: rows are grouped by grid (gridStart).
//
// Loading is on the path of the queue's first page, so it checks the bytes as a whole — the
// digest (native code, milliseconds for a lab's rows) and the header's schema — and the indexes
// of the small per-grid, per-item and per-shape arrays, not every row's: bytes that match their
// digest are the ones this format's encoder wrote.

/** Bumped whenever the layout changes: a stored value of another format is rebuilt, never misread. */
const FORMAT = 6;
const DIGEST_BYTES = 32;

/** Integer types a column is stored in, and the range each holds. */
const WIDTHS = {
  u8: { bytes: 1, min: 0, max: 0xff, view: Uint8Array },
  i8: { bytes: 1, min: -0x80, max: 0x7f, view: Int8Array },
  u16: { bytes: 2, min: 0, max: 0xffff, view: Uint16Array },
  i16: { bytes: 2, min: -0x8000, max: 0x7fff, view: Int16Array },
  i32: { bytes: 4, min: -0x80000000, max: 0x7fffffff, view: Int32Array },
} as const;
type Width = keyof typeof WIDTHS;

/** The narrowest type that holds every value of `xs`. */
function widthOf(xs: ArrayLike<number>): Width {
  const [min, max] = rangeOf(xs);
  const fit = (['u8', 'i8', 'u16', 'i16'] as const).find((w) => min >= WIDTHS[w].min && max <= WIDTHS[w].max);
  return fit ?? 'i32';
}

/** [min(0, xs), max(0, xs)]; the loop alone in its function (gridShapes says why). */
function rangeOf(xs: ArrayLike<number>): [number, number] {
  let min = 0;
  let max = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return [min, max];
}

/** Byte offset of each column in the body (4-byte aligned), and the body's length. */
function layout(lengths: Record<BodyKey, number>, widths: readonly Width[]): { at: number[]; bytes: number } {
  const at: number[] = [];
  let bytes = 0;
  BODY.forEach((k, c) => {
    at.push(bytes);
    bytes += (lengths[k] * WIDTHS[widths[c]!].bytes + 3) & ~3;
  });
  return { at, bytes };
}

const Header = z.object({
  format: z.literal(FORMAT),
  n: z.number().int().nonnegative(),
  items: z.number().int().nonnegative(),
  shapes: z.number().int().nonnegative(),
  gridModel: z.array(z.string()),
  gridSplit: z.array(z.string()),
  taskTypes: z.array(z.string()),
  patterns: z.array(z.string()),
  classes: z.array(z.string()),
  lists: z.array(z.array(z.string())),
  shapeRows: z.array(z.number().int().nonnegative()),
  facets: z.object({ taskTypes: z.array(z.string()), transitions: z.array(z.string()) }),
  idsBytes: z.number().int().nonnegative(),
  textsBytes: z.number().int().nonnegative(),
  widths: z.array(z.enum(['u8', 'i8', 'u16', 'i16', 'i32'])),
});

const BODY = [
  'rowItem',
  'rowShape',
  'gridStart',
  'idRank',
  'idStart',
  'textStart',
  'itemTask',
  'hasVideo',
  'shapePattern',
  'shapeClass',
  'shapeFlags',
  'shapeHarmed',
  'shapeRescued',
] as const;
type BodyKey = (typeof BODY)[number];

function bodyLengths(n: number, grids: number, items: number, shapes: number): Record<BodyKey, number> {
  return {
    rowItem: n,
    rowShape: n,
    gridStart: grids + 1,
    idRank: items,
    idStart: items + 1,
    textStart: items + 1,
    itemTask: items,
    hasVideo: items,
    shapePattern: shapes,
    shapeClass: shapes,
    shapeFlags: shapes,
    shapeHarmed: shapes,
    shapeRescued: shapes,
  };
}

const digestOf = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

export function encodeQueueData(d: QueueData): Buffer {
  const header: z.infer<typeof Header> = {
    format: FORMAT,
    n: d.n,
    items: d.idRank.length,
    shapes: d.shapePattern.length,
    gridModel: d.gridModel,
    gridSplit: d.gridSplit,
    taskTypes: d.taskTypes,
    patterns: d.patterns,
    classes: d.classes,
    lists: d.lists,
    shapeRows: d.shapeRows,
    facets: d.facets,
    idsBytes: Buffer.byteLength(d.ids, 'utf8'),
    textsBytes: Buffer.byteLength(d.texts, 'utf8'),
    widths: BODY.map((k) => widthOf(d[k])),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const lengths = bodyLengths(d.n, d.gridModel.length, d.idRank.length, d.shapePattern.length);
  const headBytes = (DIGEST_BYTES + 4 + json.length + 3) & ~3;
  const { at, bytes } = layout(lengths, header.widths);
  const out = Buffer.alloc(headBytes + bytes + header.idsBytes + header.textsBytes);
  out.writeUInt32LE(json.length, DIGEST_BYTES);
  json.copy(out, DIGEST_BYTES + 4);
  BODY.forEach((k, c) => new WIDTHS[header.widths[c]!].view(out.buffer, out.byteOffset + headBytes + at[c]!, lengths[k]).set(d[k]));
  out.write(d.ids, headBytes + bytes, 'utf8');
  out.write(d.texts, headBytes + bytes + header.idsBytes, 'utf8');
  digestOf(out.subarray(DIGEST_BYTES)).copy(out, 0);
  return out;
}

/** Every value of `xs` lies in [lo, hi). */
function inRange(xs: Codes, lo: number, hi: number): boolean {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (x < lo || x >= hi) return false;
  }
  return true;
}

/** Start offsets into a string of `length`: from 0, never decreasing, ending at `length` (each piece at least `gap` long). */
function validStarts(xs: Codes, length: number, gap: number): boolean {
  if (xs[0] !== 0 || xs[xs.length - 1] !== length) return false;
  for (let i = 1; i < xs.length; i++) if (xs[i]! - xs[i - 1]! < gap) return false;
  return true;
}

/** The stored value, or null when it is not one this code wrote (another format, altered, cut short): then it is rebuilt. */
export function decodeQueueData(blob: Uint8Array): QueueData | null {
  if (blob.byteLength < DIGEST_BYTES + 4) return null;
  if (!digestOf(blob.subarray(DIGEST_BYTES)).equals(blob.subarray(0, DIGEST_BYTES))) return null;
  const len = new DataView(blob.buffer, blob.byteOffset, blob.byteLength).getUint32(DIGEST_BYTES, true);
  if (DIGEST_BYTES + 4 + len > blob.byteLength) return null;
  let header: z.infer<typeof Header>;
  try {
    const parsed = Header.safeParse(JSON.parse(Buffer.from(blob.buffer, blob.byteOffset + DIGEST_BYTES + 4, len).toString('utf8')));
    if (!parsed.success) return null;
    header = parsed.data;
  } catch {
    return null;
  }
  const { n, items: I, shapes: S, widths } = header;
  const G = header.gridModel.length;
  if (header.gridSplit.length !== G || widths.length !== BODY.length) return null;
  if (header.shapeRows.length !== S || header.shapeRows.reduce((a, b) => a + b, 0) !== n) return null;
  const lengths = bodyLengths(n, G, I, S);
  const headBytes = (DIGEST_BYTES + 4 + len + 3) & ~3;
  const { at, bytes } = layout(lengths, widths);
  const stringsAt = headBytes + bytes;
  if (blob.byteLength !== stringsAt + header.idsBytes + header.textsBytes) return null;
  const strings = Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
  const ids = strings.toString('utf8', stringsAt, stringsAt + header.idsBytes);
  const texts = strings.toString('utf8', stringsAt + header.idsBytes, blob.byteLength);
  // The body in place when aligned (a BLOB usually has its own buffer), else one aligned copy;
  // each column is a view of its stored type.
  const aligned = (blob.byteOffset + headBytes) % 4 === 0;
  const body = (aligned ? blob.buffer : blob.slice(headBytes).buffer) as ArrayBuffer; // a BLOB's bytes are never shared memory
  const base = aligned ? blob.byteOffset + headBytes : 0;
  const cols = {} as Record<BodyKey, Codes>;
  BODY.forEach((k, c) => (cols[k] = new WIDTHS[widths[c]!].view(body, base + at[c]!, lengths[k])));
  const ok =
    inRange(cols.idRank, 0, Math.max(I, 1)) &&
    inRange(cols.itemTask, -1, header.taskTypes.length) &&
    inRange(cols.hasVideo, 0, 2) &&
    inRange(cols.shapePattern, 0, header.patterns.length) &&
    inRange(cols.shapeClass, -1, header.classes.length) &&
    inRange(cols.shapeFlags, 0, 8) &&
    inRange(cols.shapeHarmed, 0, header.lists.length) &&
    inRange(cols.shapeRescued, 0, header.lists.length) &&
    validStarts(cols.idStart, ids.length, 0) &&
    validStarts(cols.textStart, texts.length, 1) &&
    validStarts(cols.gridStart, n, 0);
  if (!ok) return null;
  return {
    n,
    rowItem: cols.rowItem,
    rowShape: cols.rowShape,
    gridModel: header.gridModel,
    gridSplit: header.gridSplit,
    gridStart: cols.gridStart,
    ids,
    idStart: cols.idStart,
    idRank: cols.idRank,
    itemTask: cols.itemTask,
    hasVideo: cols.hasVideo,
    texts,
    textStart: cols.textStart,
    taskTypes: header.taskTypes,
    shapePattern: cols.shapePattern,
    shapeClass: cols.shapeClass,
    shapeFlags: cols.shapeFlags,
    shapeHarmed: cols.shapeHarmed,
    shapeRescued: cols.shapeRescued,
    shapeRows: header.shapeRows,
    patterns: header.patterns,
    classes: header.classes,
    lists: header.lists,
    facets: header.facets,
  };
}
