/**
 * Iso-compute comparisons (docs/metrics.md §6). Iso-compute pairs are never an ordering (they are
 * not confusion); here they are compared item by item instead. Sampling and pipeline
 * interventions are protocols (protocols.ts).
 */
import type { ConfigSpec, ResponseMatrix } from '../domain/types';
import { isLowerBudget } from './config';
import { assertKind, loadRow, planGrid } from './grid-plan';
import { argmaxFirst } from './mcqa';
import { completeRowsOfColumns } from './matrix';

/** Relative tolerance of "the same compute": |x − y| ≤ 5% of the smaller. */
export const ISO_COMPUTE_TOLERANCE = 0.05;

export interface IsoPair {
  a: string;
  b: string;
  onlyA: number;
  onlyB: number;
  both: number;
  neither: number;
}

export interface IsoGroup {
  /** Members in the grid's config order. */
  configs: string[];
  /** frames × ppf of each member. */
  compute: number[];
  bestConfig: string;
  bestAccuracy: number;
  oracleAccuracy: number;
  oracleHeadroomPts: number;
  /** Every pair of members with different frame counts, a before b in config order. */
  pairs: IsoPair[];
}

export interface IsoComputeResult {
  n: number;
  nExcluded: number;
  groups: IsoGroup[];
}

function withinTolerance(x: number, y: number): boolean {
  return Math.abs(x - y) <= ISO_COMPUTE_TOLERANCE * Math.min(x, y);
}

/**
 * Groups of visual configs with known ppf whose frames × ppf are within ±5% of each other and that
 * differ in frames. Grouping is greedy along ascending compute: a group starts at the cheapest
 * ungrouped config and takes every later config within 5% of that anchor — so every member is
 * within tolerance of the anchor and chains cannot drift. Groups whose members all share one
 * frame count are dropped. Items: rows complete on the whole grid.
 */
export function isoComputeGroups(m: ResponseMatrix, grid?: readonly string[] | null): IsoComputeResult {
  assertKind(m, 'mcqa', 'iso-compute groups');
  const plan = planGrid(m, grid);
  const { rows, nExcluded } = completeRowsOfColumns(m, plan.cols);
  const candidates = plan.specs
    .map((c, pos) => ({ c, pos, compute: c.frames * (c.pixelCount ?? Number.NaN) }))
    // An unknown ppf (null) counts as 0 and fails `> 0`, exactly as an explicit null check would.
    .filter((x) => x.c.frames > 0 && (x.c.pixelCount ?? 0) > 0)
    // Array.prototype.sort is stable and the candidates are in grid order, so equal computes keep
    // that order without a tie-break.
    .sort((x, y) => x.compute - y.compute);
  const groupsPos: number[][] = [];
  let i = 0;
  while (i < candidates.length) {
    const anchor = candidates[i]!;
    const members = [anchor];
    let j = i + 1;
    while (j < candidates.length && withinTolerance(anchor.compute, candidates[j]!.compute)) members.push(candidates[j++]!);
    i = j;
    if (new Set(members.map((x) => x.c.frames)).size < 2) continue;
    groupsPos.push(members.map((x) => x.pos).sort((a, b) => a - b));
  }
  const G = plan.cols.length;
  const y = new Int8Array(G);
  const N = rows.length;
  const groups: IsoGroup[] = groupsPos.map((pos) => {
    const k = pos.length;
    const correct = new Int32Array(k);
    const pairIdx: [number, number][] = [];
    for (let a = 0; a < k; a++) {
      for (let b = a + 1; b < k; b++) if (plan.specs[pos[a]!]!.frames !== plan.specs[pos[b]!]!.frames) pairIdx.push([a, b]);
    }
    const tab = new Int32Array(pairIdx.length * 4);
    let oracle = 0;
    for (let r = 0; r < N; r++) {
      loadRow(m, plan, rows[r]!, y);
      let any = false;
      for (let a = 0; a < k; a++) {
        if (y[pos[a]!] === 1) {
          correct[a]!++;
          any = true;
        }
      }
      if (any) oracle++;
      for (let p = 0; p < pairIdx.length; p++) {
        const [a, b] = pairIdx[p]!;
        const ya = y[pos[a]!] === 1 ? 1 : 0;
        const yb = y[pos[b]!] === 1 ? 1 : 0;
        tab[p * 4 + (ya ? (yb ? 2 : 0) : yb ? 1 : 3)]!++;
      }
    }
    const best = argmaxFirst(correct);
    return {
      configs: pos.map((p) => plan.keys[p]!),
      compute: pos.map((p) => plan.specs[p]!.frames * (plan.specs[p]!.pixelCount ?? 0)),
      bestConfig: plan.keys[pos[best]!]!,
      bestAccuracy: correct[best]! / N,
      oracleAccuracy: oracle / N,
      oracleHeadroomPts: (100 * (oracle - correct[best]!)) / N,
      pairs: pairIdx.map(([a, b], p) => ({
        a: plan.keys[pos[a]!]!,
        b: plan.keys[pos[b]!]!,
        onlyA: tab[p * 4]!,
        onlyB: tab[p * 4 + 1]!,
        both: tab[p * 4 + 2]!,
        neither: tab[p * 4 + 3]!,
      })),
    };
  });
  return { n: N, nExcluded, groups };
}

/** Whether two configs form an iso-compute pair (same compute within 5%, different frames). */
export function isIsoComputePair(a: ConfigSpec, b: ConfigSpec): boolean {
  // Text only (frames 0) needs no test of its own: it is a lower budget than every visual config
  // (docs/metrics.md §1), so the isLowerBudget checks below reject it, and two text configs share a frame count.
  if (a.frames === b.frames) return false;
  if (a.pixelCount === null || b.pixelCount === null) return false;
  return withinTolerance(a.frames * a.pixelCount, b.frames * b.pixelCount) && !isLowerBudget(a, b) && !isLowerBudget(b, a);
}
