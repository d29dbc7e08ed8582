/**
 * The audit queue's filter (the rules of shared/api/queue-filter.ts matchesFilter) as one scan
 * over the rows' small integer codes: grids, items and shapes are judged once each, the search
 * text once per item and once per model, never per row (docs/performance.md "The queue at lab
 * scale").
 */
import type { QueueFilter } from '../../shared/api/queue-filter';
import { FLAG_TO, FLAG_TR, FLAG_VC, sampleIdOf, type QueueData } from './queue-data';
import { annotatedBy, effectiveOf, firstAtOrAfter, STATUS_ORDER, type States, type View } from './queue-view';

const FLAG_BITS = { terminalRegression: FLAG_TR, visuallyConfused: FLAG_VC, textOverwritten: FLAG_TO } as const;

/** Items whose sample id is one of `ids` (as a mask). */
function itemsNamed(d: QueueData, ids: readonly string[]): Uint8Array {
  const I = d.idRank.length;
  const out = new Uint8Array(I);
  const idAt = (i: number) => sampleIdOf(d, i);
  for (const id of new Set(ids)) {
    // The same id in several splits: consecutive items.
    for (let i = firstAtOrAfter(0, I, id, idAt); i < I && sampleIdOf(d, i) === id; i++) out[i] = 1;
  }
  return out;
}

/**
 * Sets `bit` in `into[i]` for every item whose search text holds `term`: indexOf over all the
 * texts at once, skipping to the next item after a hit (a term holds no white space, so it
 * never spans the newline between two texts).
 */
function markItems(d: QueueData, term: string, bit: number, into: Int32Array): void {
  const { texts, textStart } = d;
  let i = 0;
  for (let at = texts.indexOf(term); at >= 0; at = texts.indexOf(term, textStart[i + 1])) {
    while (textStart[i + 1]! <= at) i++;
    into[i] = into[i]! | bit;
  }
}

/** Marks rows [from, to) whose item, shape and search terms (bits `need` of terms) pass; returns how many. */
function matchRows(d: QueueData, from: number, to: number, itemOk: Uint8Array, shapeOk: Uint8Array, terms: Int32Array | null, need: number, out: Uint8Array): number {
  const { rowItem, rowShape } = d;
  let n = 0;
  for (let r = from; r < to; r++) {
    const i = rowItem[r]!;
    if (itemOk[i] === 0 || shapeOk[rowShape[r]!] === 0) continue;
    if (terms !== null && (terms[i]! & need) !== need) continue;
    out[r] = 1;
    n++;
  }
  return n;
}

/** Per shape: does it pass the parts of the filter a shape decides (preset, class, flags, transition)? */
export function shapeOkOf(d: QueueData, f: QueueFilter): Uint8Array {
  const S = d.shapePattern.length;
  const shapeOk = new Uint8Array(S);
  const mask = f.flags.reduce((m, x) => m | FLAG_BITS[x], 0) | 0;
  const cls = f.trajectoryClass === null ? -2 : d.classes.indexOf(f.trajectoryClass);
  for (let s = 0; s < S; s++) {
    const flags = d.shapeFlags[s]!;
    let ok = f.preset !== 'default' || (flags & (FLAG_TR | FLAG_VC)) !== 0;
    ok &&= cls === -2 || (cls >= 0 && d.shapeClass[s] === cls);
    ok &&= (flags & mask) === mask;
    if (ok && f.transition !== null) {
      const harmed = d.lists[d.shapeHarmed[s]!]!.includes(f.transition);
      const rescued = d.lists[d.shapeRescued[s]!]!.includes(f.transition);
      ok = f.transitionKind === 'harmed' ? harmed : f.transitionKind === 'rescued' ? rescued : harmed || rescued;
    }
    shapeOk[s] = ok ? 1 : 0;
  }
  return shapeOk;
}

/** A filter only shapes decide: its rows' count is a sum of stored per-shape row counts. */
export const decidedByShapes = (f: QueueFilter): boolean =>
  f.model === null &&
  f.split === null &&
  f.taskType === null &&
  (f.itemSet ?? null) === null &&
  f.status === null &&
  f.annotator === null &&
  f.hasVideo === null &&
  f.search.trim() === '';

/** The rows passing `f` (the rules of shared/api/queue-filter.ts matchesFilter), as a mask. */
export function matchOf(v: View, st: States, f: QueueFilter, annotator: string | undefined): { mask: Uint8Array; total: number } {
  const key = JSON.stringify([f, annotator ?? null]);
  if (v.match?.key === key) return v.match;
  const d = v.d;
  const G = d.gridModel.length;
  const I = d.idRank.length;
  // Per grid, item and shape: does it pass the parts of the filter it decides?
  const gridOk = new Uint8Array(G);
  for (let g = 0; g < G; g++) gridOk[g] = (f.model === null || d.gridModel[g] === f.model) && (f.split === null || d.gridSplit[g] === f.split) ? 1 : 0;
  const shapeOk = shapeOkOf(d, f);
  const itemOk = new Uint8Array(I);
  // −2: any task type; a task type no item has matches nothing (−3, never an item's code).
  const task = f.taskType === null ? -2 : d.taskTypes.includes(f.taskType) ? d.taskTypes.indexOf(f.taskType) : -3;
  const video = f.hasVideo === null ? -1 : f.hasVideo ? 1 : 0;
  const inSet = f.itemSet ? itemsNamed(d, f.itemSet.ids) : null;
  for (let i = 0; i < I; i++) {
    itemOk[i] = (task === -2 || d.itemTask[i] === task) && (inSet === null || inSet[i] === 1) && (video < 0 || d.hasVideo[i] === video) ? 1 : 0;
  }
  // Search: every term in the row's text `<id> <model> <task type> <question>`. A term holds
  // no white space, so it lies within one part: in the item's text or in the model's name;
  // each is matched once, as bits per term (30 terms a round), not once per row.
  const terms = [
    ...new Set(
      f.search
        .toLowerCase()
        .split(/\s+/)
        .filter((t) => t.length > 0),
    ),
  ];
  const rounds: { all: number; items: Int32Array; grids: Int32Array }[] = [];
  for (let from = 0; from < terms.length; from += 30) {
    const chunk = terms.slice(from, from + 30);
    const grids = new Int32Array(G);
    for (let g = 0; g < G; g++) {
      const name = d.gridModel[g]!.toLowerCase();
      for (let k = 0; k < chunk.length; k++) if (name.includes(chunk[k]!)) grids[g] = grids[g]! | (1 << k);
    }
    const items = new Int32Array(I);
    for (let k = 0; k < chunk.length; k++) markItems(d, chunk[k]!, 1 << k, items);
    rounds.push({ all: (1 << chunk.length) - 1, items, grids });
  }
  const status = f.status === null ? -1 : STATUS_ORDER.indexOf(f.status);
  const eff = f.status !== null ? effectiveOf(v, st, annotator) : null;
  const by = f.annotator !== null ? annotatedBy(v, st, f.annotator) : null;
  const out = new Uint8Array(d.n);
  let total = 0;
  // Grid by grid (rows of a grid are contiguous): a grid the filter excludes costs nothing,
  // and the search terms its model name holds need not be in its items' text.
  for (let g = 0; g < G; g++) {
    if (gridOk[g] === 0) continue;
    const first = rounds[0];
    const terms0 = first?.items ?? null;
    const need0 = first ? first.all & ~first.grids[g]! : 0;
    total += matchRows(d, d.gridStart[g]!, d.gridStart[g + 1]!, itemOk, shapeOk, terms0, need0, out);
    if (eff === null && by === null && rounds.length <= 1) continue;
    // The rarer conditions, on the rows that passed: statuses, annotator, more than 30 terms.
    for (let r = d.gridStart[g]!; r < d.gridStart[g + 1]!; r++) {
      if (out[r] === 0) continue;
      let ok = (eff === null || eff[r] === status) && (by === null || by[r] === 1);
      for (let k = 1; ok && k < rounds.length; k++) {
        const x = rounds[k]!;
        ok = (x.items[d.rowItem[r]!]! | x.grids[g]!) === x.all;
      }
      if (!ok) ((out[r] = 0), total--);
    }
  }
  v.match = { key, mask: out, total };
  v.list = null;
  return v.match;
}
