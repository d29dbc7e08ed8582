/**
 * A grid resolved once for fast per-item loops: its columns, the dominance pairs (a ≺ b) between
 * its configs, the text column, the terminal config and the configs below it. Every MCQA flag of
 * docs/metrics.md §2/§3 is evaluated from these index lists, so the hot loops touch typed arrays only.
 */
import type { ConfigSpec, OutcomeMatrix } from '../domain/types';
import { isLowerBudget, terminalConfig } from './config';
import { gridColumns } from './matrix';

export interface GridPlan {
  /** Matrix columns of the grid, in the grid's config order. */
  cols: Int32Array;
  specs: ConfigSpec[];
  keys: string[];
  /** Flat pairs [a0, b0, a1, b1, …] of grid positions with a ≺ b (text counts as lower). */
  lowerPairs: Int32Array;
  /** The same with a and b both visual. */
  visualPairs: Int32Array;
  /** Grid position of text only, -1 when text ∉ G. */
  textPos: number;
  /** Grid positions of visual configs. */
  visualPos: Int32Array;
  /** Grid position of the terminal config, -1 for an empty grid. */
  terminalPos: number;
  /** Grid positions c with c ≺ terminal. */
  belowTerminal: Int32Array;
}

export function planGrid(m: OutcomeMatrix, grid?: readonly string[] | null): GridPlan {
  const cols = gridColumns(m, grid);
  const specs = Array.from(cols, (c) => m.configs[c]!);
  const G = specs.length;
  const lower: number[] = [];
  const visual: number[] = [];
  for (let a = 0; a < G; a++) {
    for (let b = 0; b < G; b++) {
      // No a === b test needed: ≺ is irreflexive (one of frames, ppf must be strictly lower).
      if (!isLowerBudget(specs[a]!, specs[b]!)) continue;
      lower.push(a, b);
      if (specs[a]!.frames > 0) visual.push(a, b);
    }
  }
  const textPos = specs.findIndex((c) => c.frames === 0);
  const term = terminalConfig(specs);
  const terminalPos = term ? specs.indexOf(term) : -1;
  const below: number[] = [];
  // term is undefined only for an empty grid, where this loop does not run.
  for (let c = 0; c < G; c++) if (isLowerBudget(specs[c]!, term!)) below.push(c);
  return {
    cols,
    specs,
    keys: specs.map((c) => c.key),
    lowerPairs: Int32Array.from(lower),
    visualPairs: Int32Array.from(visual),
    textPos,
    visualPos: Int32Array.from(specs.flatMap((c, i) => (c.frames > 0 ? [i] : []))),
    terminalPos,
    belowTerminal: Int32Array.from(below),
  };
}

/** Loads row `row`'s outcomes on the grid into `y` (1/0/-1). */
export function loadRow(m: OutcomeMatrix, plan: GridPlan, row: number, y: Int8Array): void {
  const base = row * m.configs.length;
  const cols = plan.cols;
  for (let j = 0; j < cols.length; j++) y[j] = m.correct[base + cols[j]!]!;
}

/** Some pair (a, b) in `pairs` with y[a] = 1 and y[b] = 0 (missing cells never count). */
export function anyHarm(y: Int8Array, pairs: Int32Array): boolean {
  for (let p = 0; p < pairs.length; p += 2) {
    if (y[pairs[p]!] === 1 && y[pairs[p + 1]!] === 0) return true;
  }
  return false;
}

/** y(text) = 1 and some visual config wrong. */
export function isTextOverwritten(y: Int8Array, plan: GridPlan): boolean {
  // textPos = -1 (no text) needs no test of its own: a typed array reads undefined at -1.
  if (y[plan.textPos] !== 1) return false;
  const v = plan.visualPos;
  for (let j = 0; j < v.length; j++) if (y[v[j]!] === 0) return true;
  return false;
}

/** y(terminal) = 0 and some c ≺ terminal correct. */
export function isTerminalRegression(y: Int8Array, plan: GridPlan): boolean {
  // terminalPos = -1 (empty grid) needs no test of its own: a typed array reads undefined at -1.
  if (y[plan.terminalPos] !== 0) return false;
  const b = plan.belowTerminal;
  for (let j = 0; j < b.length; j++) if (y[b[j]!] === 1) return true;
  return false;
}

export function assertKind(m: Pick<OutcomeMatrix, 'model' | 'split' | 'kind'>, kind: 'mcqa' | 'open', what: string): void {
  if (m.kind !== kind) {
    throw new Error(`${what} needs ${kind === 'mcqa' ? 'a multiple-choice' : 'an open-ended'} matrix; ${m.model} / ${m.split} is ${m.kind}`);
  }
}
