/**
 * Item trajectories (docs/metrics.md §3; docs/release-format.md derived.csv): pattern, class, flags and
 * best configs of every item of one (model, split) over its configs in config order.
 *
 * Incomplete rows get a pattern with `.` and no class; their flags are evaluated on the cells
 * they do have (a missing cell never makes or breaks a flag) so the UI can show them, but only
 * `complete` rows count in the metrics and in derived.csv.
 */
import type { OutcomeMatrix, ResponseMatrix } from '../domain/types';
import { anyHarm, assertKind, type GridPlan, isTerminalRegression, isTextOverwritten, loadRow, planGrid } from './grid-plan';

export type TrajectoryClass = 'always_correct' | 'always_wrong' | 'monotonic_increasing' | 'monotonic_decreasing' | 'oscillating';

export interface Trajectory {
  sampleId: string;
  row: number;
  /** One char per grid config: 1 correct, 0 wrong, . missing. */
  pattern: string;
  complete: boolean;
  trajectoryClass: TrajectoryClass | null;
  isVisuallyConfused: boolean;
  isTextOverwritten: boolean;
  terminalRegression: boolean;
  bestConfig: string;
  /** null when no matched grid is set or the model lacks one of its configs. */
  matchedGridBestConfig: string | null;
}

export interface TrajectoryOptions {
  grid?: readonly string[] | null;
  matchedGrid?: readonly string[] | null;
}

/** The classes in a fixed order: {@link TrajectoryColumns.trajectoryClass} indexes this list. */
export const TRAJECTORY_CLASSES: readonly TrajectoryClass[] = ['always_correct', 'always_wrong', 'monotonic_increasing', 'monotonic_decreasing', 'oscillating'];

/** Index in {@link TRAJECTORY_CLASSES} of a complete 0/1 sequence's class (§3): switches counted along config order. */
function classIndex(y: ArrayLike<number>, length: number): number {
  let switches = 0;
  for (let j = 1; j < length; j++) if (y[j] !== y[j - 1]) switches++;
  if (switches === 0) return y[0] === 1 ? 0 : 1;
  if (switches === 1) return y[0] === 0 ? 2 : 3;
  return 4;
}

/** Class of a complete 0/1 sequence (§3): switches counted along config order. */
export function classifyTrajectory(y: ArrayLike<number>, length = y.length): TrajectoryClass {
  return TRAJECTORY_CLASSES[classIndex(y, length)]!;
}

/**
 * The trajectories of a matrix as typed arrays, one entry per row (no object or pattern string
 * per item): what bulk writers such as the release's derived.csv need, at a fraction of the
 * cost of {@link trajectories} on ~25k rows (the release bench's export).
 */
export interface TrajectoryColumns {
  /** Grid config keys in grid order: `best` indexes this list. */
  keys: string[];
  /** Matched-grid keys in their config order, null when not applicable: `matchedBest` indexes it. */
  matchedKeys: string[] | null;
  complete: Uint8Array;
  /** Index into TRAJECTORY_CLASSES; −1 for incomplete rows. */
  trajectoryClass: Int8Array;
  visuallyConfused: Uint8Array;
  textOverwritten: Uint8Array;
  terminalRegression: Uint8Array;
  /** Grid position of the best config: the first correct in config order, else 0. */
  best: Int32Array;
  /** Matched-grid position of the best matched config (likewise), −1 when matchedKeys is null. */
  matchedBest: Int32Array;
  /** The grid the columns were evaluated on. */
  plan: GridPlan;
  /** Complete rows correct per grid position (the numerators of the §2 accuracies). */
  correctCounts: Int32Array;
  /**
   * Counts over the complete rows, indexed by {@link TALLY}: what the §2 metrics sum, taken in
   * the same pass so a caller writing both derived.csv and the aggregated numbers (the
   * release export) walks the grid once (mcqa.ts metricsFromTrajectories).
   */
  tallies: Int32Array;
}

/** Positions in {@link TrajectoryColumns.tallies}. */
export const TALLY = {
  complete: 0,
  oracle: 1,
  visuallyConfused: 2,
  visuallyConfusedVisualOnly: 3,
  textOverwritten: 4,
  terminalRegressions: 5,
} as const;

export function trajectoryColumns(m: OutcomeMatrix, opts: TrajectoryOptions = {}): TrajectoryColumns {
  assertKind(m, 'mcqa', 'trajectories');
  const plan = planGrid(m, opts.grid);
  const G = plan.cols.length;
  if (G === 0) throw new Error(`trajectories need at least one config (${m.model} / ${m.split} has none in the grid)`);
  const have = new Set(m.configs.map((c) => c.key));
  const matched = opts.matchedGrid && opts.matchedGrid.length > 0 && opts.matchedGrid.every((k) => have.has(k)) ? planGrid(m, opts.matchedGrid) : null;
  const n = m.itemIds.length;
  const out: TrajectoryColumns = {
    keys: plan.keys,
    matchedKeys: matched ? matched.keys : null,
    complete: new Uint8Array(n),
    trajectoryClass: new Int8Array(n),
    visuallyConfused: new Uint8Array(n),
    textOverwritten: new Uint8Array(n),
    terminalRegression: new Uint8Array(n),
    best: new Int32Array(n),
    matchedBest: new Int32Array(n).fill(-1),
    plan,
    correctCounts: new Int32Array(G),
    tallies: new Int32Array(6),
  };
  // The row's cells: the grid's columns, then matched-grid columns outside the grid (only
  // matchedBest reads those).
  const cols = Array.from(plan.cols);
  const matchedPos = matched
    ? Int32Array.from(matched.cols, (c) => {
        const at = cols.indexOf(c);
        return at >= 0 ? at : cols.push(c) - 1;
      })
    : null;
  const ext = Int32Array.from(cols);
  if (ext.length > MAX_FIELD) throw new Error(`trajectories: ${m.model} / ${m.split} has more than ${MAX_FIELD} configs`);
  const rule: RowRule = { plan, matchedPos };
  if (ext.length <= MAX_TABLE_CONFIGS) {
    // Every row's flags depend only on its cells' outcomes (−1/0/1 each): with few configs
    // each distinct outcome pattern is evaluated once, and a row costs its pattern's code and
    // a lookup. The release export runs this cold on ~30k rows, mostly before optimised code
    // exists, where the per-row dominance tests were the export's largest single cost.
    const table = new Int32Array(3 ** ext.length);
    const counts = new Int32Array(table.length);
    const seen = rowsByPattern(m, ext, rule, table, counts, out);
    const y = new Int8Array(ext.length);
    for (let s = 0; s < seen.length; s++) {
      let code = seen[s]!;
      for (let j = ext.length - 1; j >= 0; j--) {
        const d = code % 3;
        y[j] = d - 1;
        code = (code - d) / 3;
      }
      tally(table[seen[s]!]!, y, counts[seen[s]!]!, out);
    }
  } else rowsOneByOne(m, ext, rule, out);
  return out;
}

/** Grids with up to this many configs (matched ones included) get a pattern table (3^n entries). */
const MAX_TABLE_CONFIGS = 9;
/** Positions are packed in 10 bits (see evaluateRow). */
const MAX_FIELD = 1023;

interface RowRule {
  plan: GridPlan;
  /** Positions in the row's cells of the matched grid's configs, null when not applicable. */
  matchedPos: Int32Array | null;
}

/**
 * The §2–3 flags of one row from its cells `y` (grid positions first), packed in an int:
 * bit 0 complete, bits 1–3 class + 1 (0: incomplete), 4 visually confused, 5 text overwritten,
 * 6 terminal regression, 7 confused among visual configs, 8 some config correct, 9–18 best,
 * 19–28 matched best, 30 set (so 0 means "not evaluated"). The grid-plan flag tests (anyHarm,
 * isTextOverwritten, isTerminalRegression) and classifyTrajectory inline (docs/metrics.md §2–3);
 * flags of incomplete rows are evaluated on the cells they have.
 */
function evaluateRow(y: Int8Array, rule: RowRule): number {
  const plan = rule.plan;
  const G = plan.cols.length;
  let complete = 1;
  let best = -1;
  let switches = 0;
  for (let j = 0; j < G; j++) {
    const v = y[j]!;
    if (v === -1) complete = 0;
    else if (v === 1 && best < 0) best = j;
    if (j > 0 && v !== y[j - 1]) switches++;
  }
  // classifyTrajectory (switches along config order), for complete rows only.
  const cls = !complete ? -1 : switches === 0 ? (y[0] === 1 ? 0 : 1) : switches === 1 ? (y[0] === 0 ? 2 : 3) : 4;
  // Harm over the dominance pairs, then among visual configs only (a subset of the lower pairs).
  const harm = anyHarm(y, plan.lowerPairs);
  const visualHarm = harm && anyHarm(y, plan.visualPairs);
  const over = isTextOverwritten(y, plan) ? 1 : 0;
  const regression = isTerminalRegression(y, plan) ? 1 : 0;
  // The best matched config: the first correct in the matched grid's order, else 0.
  let mb = 0;
  if (rule.matchedPos !== null) {
    for (let j = 0; j < rule.matchedPos.length; j++) {
      if (y[rule.matchedPos[j]!] === 1) {
        mb = j;
        break;
      }
    }
  }
  return (
    (1 << 30) |
    complete |
    ((cls + 1) << 1) |
    ((harm ? 1 : 0) << 4) |
    (over << 5) |
    (regression << 6) |
    ((visualHarm ? 1 : 0) << 7) |
    ((best >= 0 ? 1 : 0) << 8) |
    (Math.max(best, 0) << 9) |
    (mb << 19)
  );
}

/** Writes row i's columns from its packed flags. */
function unpack(p: number, i: number, out: TrajectoryColumns): void {
  out.complete[i] = p & 1;
  out.trajectoryClass[i] = ((p >> 1) & 7) - 1;
  out.visuallyConfused[i] = (p >> 4) & 1;
  out.textOverwritten[i] = (p >> 5) & 1;
  out.terminalRegression[i] = (p >> 6) & 1;
  out.best[i] = (p >> 9) & MAX_FIELD;
  if (out.matchedKeys !== null) out.matchedBest[i] = (p >> 19) & MAX_FIELD;
}

/** Adds `count` rows with packed flags `p` and cells `y` to the complete-row counts (mcqa.ts gridFlags' definitions). */
function tally(p: number, y: Int8Array, count: number, out: TrajectoryColumns): void {
  if ((p & 1) === 0) return;
  const t = out.tallies;
  // y is all 0/1 on a complete row: y[j] is its correct count.
  for (let j = 0; j < out.correctCounts.length; j++) out.correctCounts[j] = out.correctCounts[j]! + y[j]! * count;
  t[TALLY.complete] = t[TALLY.complete]! + count;
  if ((p >> 8) & 1) t[TALLY.oracle] = t[TALLY.oracle]! + count;
  if ((p >> 4) & 1) t[TALLY.visuallyConfused] = t[TALLY.visuallyConfused]! + count;
  if ((p >> 7) & 1) t[TALLY.visuallyConfusedVisualOnly] = t[TALLY.visuallyConfusedVisualOnly]! + count;
  if ((p >> 5) & 1) t[TALLY.textOverwritten] = t[TALLY.textOverwritten]! + count;
  if ((p >> 6) & 1) t[TALLY.terminalRegressions] = t[TALLY.terminalRegressions]! + count;
}

/**
 * Per row: its pattern's code (base 3 over the cells of `ext`), its flags from `table`
 * (evaluated on first sight), counted in `counts`. Returns the codes seen. Its own function
 * returning right after the loop (no deopt there when cold); the unpacking is written inline
 * (a call per row is what this loop avoids).
 */
function rowsByPattern(m: OutcomeMatrix, ext: Int32Array, rule: RowRule, table: Int32Array, counts: Int32Array, out: TrajectoryColumns): number[] {
  const seen: number[] = [];
  const correct = m.correct;
  const C = m.configs.length;
  const E = ext.length;
  const n = m.itemIds.length;
  const y = new Int8Array(E);
  const { complete, trajectoryClass, visuallyConfused, textOverwritten, terminalRegression, best, matchedBest } = out;
  const withMatched = out.matchedKeys !== null;
  for (let i = 0; i < n; i++) {
    const base = i * C;
    let code = 0;
    for (let j = 0; j < E; j++) code = code * 3 + correct[base + ext[j]!]! + 1;
    let p = table[code]!;
    if (p === 0) {
      for (let j = 0; j < E; j++) y[j] = correct[base + ext[j]!]!;
      p = table[code] = evaluateRow(y, rule);
      seen.push(code);
    }
    counts[code] = counts[code]! + 1;
    complete[i] = p & 1;
    trajectoryClass[i] = ((p >> 1) & 7) - 1;
    visuallyConfused[i] = (p >> 4) & 1;
    textOverwritten[i] = (p >> 5) & 1;
    terminalRegression[i] = (p >> 6) & 1;
    best[i] = (p >> 9) & MAX_FIELD;
    if (withMatched) matchedBest[i] = (p >> 19) & MAX_FIELD;
  }
  return seen;
}

/** Wide grids (too many patterns for a table): each row evaluated on its own. */
function rowsOneByOne(m: OutcomeMatrix, ext: Int32Array, rule: RowRule, out: TrajectoryColumns): void {
  const C = m.configs.length;
  const y = new Int8Array(ext.length);
  for (let i = 0; i < m.itemIds.length; i++) {
    for (let j = 0; j < ext.length; j++) y[j] = m.correct[i * C + ext[j]!]!;
    const p = evaluateRow(y, rule);
    unpack(p, i, out);
    tally(p, y, 1, out);
  }
}

const PATTERN_CHAR = ['.', '0', '1'] as const;

/** A row's outcomes (1 right, 0 wrong, −1 missing; in the plan's config order) as the pattern the UI shows: `1`, `0`, `.`. */
export function patternOf(y: ArrayLike<number>, length = y.length): string {
  let pattern = '';
  for (let j = 0; j < length; j++) pattern += PATTERN_CHAR[y[j]! + 1];
  return pattern;
}

export function trajectories(m: ResponseMatrix, opts: TrajectoryOptions = {}): Trajectory[] {
  const t = trajectoryColumns(m, opts);
  // The pattern is the one per-row field the columns do not carry (only the UI shows it).
  const plan = planGrid(m, opts.grid);
  const G = plan.cols.length;
  const y = new Int8Array(G);
  const out: Trajectory[] = [];
  for (let i = 0; i < m.itemIds.length; i++) {
    loadRow(m, plan, i, y);
    const pattern = patternOf(y, G);
    const cls = t.trajectoryClass[i]!;
    const mb = t.matchedBest[i]!;
    out.push({
      sampleId: m.itemIds[i]!,
      row: i,
      pattern,
      complete: t.complete[i] === 1,
      trajectoryClass: cls < 0 ? null : TRAJECTORY_CLASSES[cls]!,
      isVisuallyConfused: t.visuallyConfused[i] === 1,
      isTextOverwritten: t.textOverwritten[i] === 1,
      terminalRegression: t.terminalRegression[i] === 1,
      bestConfig: t.keys[t.best[i]!]!,
      // matchedBest is −1 exactly when matchedKeys is null.
      matchedGridBestConfig: t.matchedKeys === null ? null : t.matchedKeys[mb]!,
    });
  }
  return out;
}
