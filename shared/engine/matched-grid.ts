/**
 * The default matched-grid proposal (docs/release-format.md "matched grid"): the ladder configs that
 * maximise (models having all of them on every split) × (configs), ties to more models.
 *
 * "Every split" is read literally: every split among the given grids, so a model without results
 * on a split lacks every config there (pass only the splits you want matched) — except a split
 * where the model's results are all at another pixel budget than the common one (the most
 * common pixel count over all grids): that is a different protocol, not a shorter ladder (the
 * release's InternVL3 V2_medium grid, `128f_input224` only), and does not count against it.
 * Its status there is still `incomplete_matched_grid`. On the release's V1 grids, and on all
 * 18 of its grids, this yields its matched grid textonly,16f_151k,32f_151k,64f_151k. The search is exact: the best config set
 * for a set of models is the intersection of their ladder keys, so enumerating model subsets
 * (≤ 2^16) finds the optimum; beyond 16 models a greedy pass (drop the model whose removal helps
 * most) is used.
 */
import type { ConfigSpec, ResponseMatrix } from '../domain/types';
import { compareCodePoints, configOrder, ladder, mostCommonPpf } from './config';
import { assertKind } from './grid-plan';
import { completeRows, gridConfigs, subMatrix } from './matrix';
import { mcqaMetrics, type McqaMetrics } from './mcqa';

export interface GridDescription {
  model: string;
  split: string;
  configs: readonly ConfigSpec[];
}

export interface MatchedGridProposal {
  /** Config keys in config order. */
  configs: string[];
  /** Models kept, code-point order. */
  models: string[];
  leftOut: { model: string; reason: string }[];
}

const EXACT_LIMIT = 16;

export function proposeMatchedGrid(grids: readonly GridDescription[]): MatchedGridProposal {
  const models = [...new Set(grids.map((g) => g.model))].sort(compareCodePoints);
  const specByKey = new Map<string, ConfigSpec>();
  const candidates = new Set<string>();
  // Per model: keys present on every split it has, and per split the keys it has.
  const perModel = new Map<string, { all: Set<string>; bySplit: Map<string, ConfigSpec[]> }>();
  for (const g of grids) {
    for (const c of g.configs) if (!specByKey.has(c.key)) specByKey.set(c.key, c);
    for (const c of ladder(g.configs)) candidates.add(c.key);
    let e = perModel.get(g.model);
    if (!e) {
      e = { all: new Set(), bySplit: new Map() };
      perModel.set(g.model, e);
    }
    const prev = e.bySplit.get(g.split) ?? [];
    e.bySplit.set(g.split, [...prev, ...g.configs]);
  }
  const splits = [...new Set(grids.map((g) => g.split))];
  const common = mostCommonPpf(grids.flatMap((g) => g.configs));
  // An empty grid is no results there (it lacks every config), not results at another budget.
  const offBudget = (cs: readonly ConfigSpec[] | undefined): boolean =>
    cs !== undefined && cs.length > 0 && common !== undefined && cs.every((c) => c.frames > 0 && c.pixelCount !== common.ppf);
  for (const e of perModel.values()) {
    let inter: Set<string> | null = null;
    for (const s of splits) {
      const cs = e.bySplit.get(s);
      if (offBudget(cs)) continue;
      // No results on the split (cs undefined): an empty set, so the model lacks every config there.
      inter = intersect(inter, new Set(cs?.map((c) => c.key)));
    }
    // null: every split of the model is at another budget, so it has none of the common configs.
    e.all = inter === null ? new Set() : new Set([...inter].filter((k) => candidates.has(k)));
  }

  // Subsets are never empty (masks start at 1; the greedy pass stops at one model), so reduce
  // needs no initial value.
  const keysOf = (subset: readonly string[]): string[] => [...subset.map((m) => perModel.get(m)!.all).reduce((a, b) => intersect(a, b))];
  const modelsHaving = (keys: readonly string[]): string[] => models.filter((m) => keys.every((k) => perModel.get(m)!.all.has(k)));

  let best: { keys: string[]; models: string[] } = { keys: [], models: [] };
  const better = (keys: string[], ms: string[]): boolean => {
    const score = keys.length * ms.length;
    const bestScore = best.keys.length * best.models.length;
    if (score !== bestScore) return score > bestScore;
    if (ms.length !== best.models.length) return ms.length > best.models.length;
    // Deterministic last resort: the lexicographically first model list.
    return ms.join('\u0000') < best.models.join('\u0000');
  };
  const consider = (subset: readonly string[]): void => {
    const keys = keysOf(subset);
    if (keys.length === 0) return;
    const ms = modelsHaving(keys);
    if (better(keys, ms)) best = { keys, models: ms };
  };

  if (models.length <= EXACT_LIMIT) {
    for (let mask = 1; mask < 1 << models.length; mask++) {
      consider(models.filter((_, i) => mask & (1 << i)));
    }
  } else {
    let current = models; // never mutated: each step builds a new list
    consider(current);
    while (current.length > 1) {
      // Always replaced by the first drop below: every score is ≥ 0.
      let pick = current;
      let pickScore = -1;
      for (const drop of current) {
        const rest = current.filter((m) => m !== drop);
        const keys = keysOf(rest);
        const score = keys.length * modelsHaving(keys).length;
        if (score > pickScore) {
          pickScore = score;
          pick = rest;
        }
      }
      consider(pick);
      current = pick;
    }
  }

  const chosen = configOrder(best.keys.map((k) => specByKey.get(k)!)).map((c) => c.key);
  const leftOut = models.filter((m) => !best.models.includes(m)).map((model) => ({ model, reason: reasonFor(model, chosen, splits, perModel.get(model)!.bySplit, specByKey) }));
  return { configs: chosen, models: best.models, leftOut };
}

function intersect(a: Set<string> | null, b: ReadonlySet<string>): Set<string> {
  if (a === null) return new Set(b);
  return new Set([...a].filter((k) => b.has(k)));
}

function reasonFor(model: string, chosen: readonly string[], splits: readonly string[], bySplit: Map<string, ConfigSpec[]>, specByKey: Map<string, ConfigSpec>): string {
  if (chosen.length === 0) return `${model}: no matched grid could be formed`;
  const parts: string[] = [];
  for (const split of [...splits].sort(compareCodePoints)) {
    const cs = bySplit.get(split);
    if (!cs) {
      parts.push(`has no results on ${split}`);
      continue;
    }
    const have = new Set(cs.map((c) => c.key));
    const missing = chosen.filter((k) => !have.has(k));
    if (missing.length === 0) continue;
    const maxFrames = Math.max(0, ...cs.map((c) => c.frames));
    // Every chosen key came from specByKey (see proposeMatchedGrid).
    const ceiling = missing.every((k) => specByKey.get(k)!.frames > maxFrames);
    parts.push(`lacks ${missing.join(', ')} on ${split}${ceiling ? ` (context ceiling? at most ${maxFrames} frames there)` : ''}`);
  }
  return parts.join('; ') || 'not chosen';
}

export interface MatchedGridMetrics {
  split: string;
  /** The matched grid in config order. */
  configs: string[];
  /** Items complete on the grid for every included model (the matched items). */
  itemIds: string[];
  perModel: { model: string; metrics: McqaMetrics }[];
  /** Models lacking a config of the grid: left out, never scored as wrong (context ceilings). */
  leftOut: { model: string; missing: string[] }[];
}

/**
 * Metrics of several models on one split over a matched grid (docs/metrics.md §1): only models that
 * have every grid config take part, and only items complete for all of them count.
 */
export function matchedGridMetrics(ms: readonly ResponseMatrix[], grid: readonly string[]): MatchedGridMetrics {
  const split = ms[0]?.split ?? '';
  for (const m of ms) {
    if (m.split !== split) throw new Error(`a matched grid is per split: got ${split} and ${m.split}`);
    assertKind(m, 'mcqa', 'matched-grid metrics');
  }
  const leftOut: { model: string; missing: string[] }[] = [];
  const included: ResponseMatrix[] = [];
  for (const m of ms) {
    const have = new Set(m.configs.map((c) => c.key));
    const missing = grid.filter((k) => !have.has(k));
    if (missing.length > 0) leftOut.push({ model: m.model, missing });
    else included.push(m);
  }
  let common: Set<string> | null = null;
  for (const m of included) {
    const { rows } = completeRows(m, grid);
    common = intersect(common, new Set(Array.from(rows, (r) => m.itemIds[r]!)));
  }
  const itemIds = [...(common ?? [])].sort(compareCodePoints);
  const perModel = included.map((m) => {
    const index = new Map(m.itemIds.map((id, i) => [id, i]));
    const sub = subMatrix(
      m,
      grid,
      itemIds.map((id) => index.get(id)!),
    );
    return { model: m.model, metrics: mcqaMetrics(sub) };
  });
  const configs = included[0] ? gridConfigs(included[0], grid).map((c) => c.key) : [...grid];
  return { split, configs, itemIds, perModel, leftOut };
}
