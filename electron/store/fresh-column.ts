/**
 * The fast path of applyImports (import-apply.ts) for the common case of a per_item.csv
 * import: a column batch whose (model, split, config) column is new to the project and is
 * named by nothing else in the same call.
 *
 * Why: the general path refills a ResponseRow per cell, pushes it into a Column of JS arrays
 * (12 pushes and a Map insert) and re-encodes those arrays — ~1 µs per cell, ~140 ms for the
 * 145k-cell bench file. A new column has no stored cells to merge with, so its BLOBs can be
 * encoded straight from the batch's typed arrays.
 *
 * The plan is read-only: it decides whether the column is "closed" — applying it cannot
 * throw, cannot touch any other column, and no later answer can touch it — and otherwise
 * returns null BEFORE any side effect, so the caller applies the column the general way and
 * every error, summary count and insert order stays as it was.
 */
import type { ResponseColumnBatch } from '../../shared/domain/types';
import { encodeFloat64Array, encodeFrames, encodeInterned } from './response-columns';

export interface StoredItem {
  id: number;
  splitId: number;
  answer: string | null;
}

export interface FreshColumnPlan {
  /** Per cell: its stored item, or undefined where this cell creates the item. */
  items: (StoredItem | undefined)[];
  /** Per cell: its stored item's id; 0 where this cell creates the item (filled by the caller). */
  ids: Int32Array;
  /** Cells that create an item, in cell order; `newAnswers` holds each created item's answer. */
  creates: number[];
  newAnswers: (string | null)[];
  /** What each cell stores as correct: 1 / 0 / −1 = NULL. */
  correct: Int8Array;
  nCorrect: number;
  nScore: number;
  /** The stored items' ids ascend in cell order. */
  ascending: boolean;
}

/**
 * The stored items of a split's sample-id table (ColumnTables.sampleIds.table, shared by the
 * split's columns), by table index; undefined = not looked up yet, or no such item yet.
 * StoredItem objects are never replaced (only their answer is updated in place), so an entry
 * once found stays right for the whole call.
 */
export type TableItems = (StoredItem | undefined)[];

/**
 * Plans column `c` against the split's items `known`, or returns null when a cell needs the
 * general path:
 * - an item named twice in the column (a merge within the column);
 * - a ground truth for a stored item whose answer is unknown (the answer arrives and must
 *   reach other columns' cells) or that contradicts its answer (an ImportError);
 * - a `correct` that contradicts the answer (an ImportError);
 * - a cell without score whose item's answer stays unknown ("open": a later answer would
 *   fill or check it, which needs it as a Column).
 * It reads the batch's tables: one Map lookup per distinct sample id of the split (`cache`,
 * shared by the split's columns) instead of one per cell, and no string compared per cell.
 * Two cells naming one item share a table index (the table holds distinct strings), which a
 * marker array catches. import-fast-path.test.ts holds it to the general path.
 */
export function planFreshColumn(c: ResponseColumnBatch, known: ReadonlyMap<string, StoredItem>, cache: TableItems): FreshColumnPlan | null {
  const n = c.length;
  const t = c.tables;
  const items = new Array<StoredItem | undefined>(n);
  const ids = new Int32Array(n);
  const correct = new Int8Array(n);
  const creates: number[] = [];
  const newAnswers: (string | null)[] = [];
  const sid = t.sampleIds.index;
  const sidTable = t.sampleIds.table;
  const gti = t.groundTruth.index;
  const gtTable = t.groundTruth.table;
  const pri = t.pred.index;
  const prTable = t.pred.table;
  const scores = c.score;
  const cors = c.correct;
  const named = new Uint8Array(sidTable.length);
  let lastId = -1;
  let ascending = true;
  let nCorrect = 0;
  let nScore = 0;
  for (let k = 0; k < n; k++) {
    const ti = sid[k] as number;
    if (named[ti] === 1) return null; // the item twice in this column
    named[ti] = 1;
    let it = cache[ti];
    if (it === undefined) {
      it = known.get(sidTable[ti] as string);
      if (it !== undefined) cache[ti] = it;
    }
    const g = gti[k] as number;
    const gt = g < 0 ? null : (gtTable[g] as string);
    const score = scores[k] as number;
    const scoreNull = score !== score;
    let answer: string | null;
    if (it !== undefined) {
      answer = it.answer;
      if (gt !== null && scoreNull && answer !== gt) return null; // arrives, or contradicts
      const id = it.id;
      if (id <= lastId) ascending = false;
      lastId = id;
      ids[k] = id;
      items[k] = it;
    } else {
      answer = gt !== null && scoreNull ? gt : null;
      creates.push(k);
      newAnswers.push(answer);
    }
    const raw = cors[k] as number;
    let cor = raw < 0 ? -1 : raw === 1 ? 1 : 0;
    if (scoreNull) {
      if (answer === null) return null; // open
      const p = pri[k] as number;
      const implied = p >= 0 && prTable[p] === answer ? 1 : 0;
      if (cor < 0) cor = implied;
      else if (p >= 0 && cor !== implied) return null;
    } else nScore++;
    if (cor >= 0) nCorrect++;
    correct[k] = cor;
  }
  return { items, ids, creates, newAnswers, correct, nCorrect, nScore, ascending };
}

const asBuffer = (a: ArrayBufferView): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/**
 * The response_columns values of a planned column (COLUMN_COLUMNS order), byte for byte what
 * encodeColumn writes for the same cells merged the general way. In cell order (the usual
 * case) the item ids, corrects and lines are the plan's and the batch's arrays as they are.
 */
export function encodeFreshColumn(
  c: ResponseColumnBatch,
  plan: FreshColumnPlan,
  order: Uint32Array | null,
  runId: number,
  ids: { modelId: number; splitId: number; configId: number },
): unknown[] {
  const n = c.length;
  // The string fields from the batch's tables (no string array built).
  const t = c.tables;
  let items = plan.ids;
  let cor = plan.correct;
  let lines = c.line;
  if (order) {
    items = new Int32Array(n);
    cor = new Int8Array(n);
    lines = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const i = order[k] as number;
      items[k] = plan.ids[i] as number;
      cor[k] = plan.correct[i] as number;
      lines[k] = c.line[i] as number;
    }
  }
  return [
    ids.modelId,
    ids.splitId,
    ids.configId,
    n,
    plan.nCorrect,
    plan.nScore,
    asBuffer(items),
    asBuffer(cor),
    encodeInterned(t.pred, order),
    encodeInterned(t.groundTruth, order),
    encodeFloat64Array(c.score, order),
    encodeFloat64Array(c.confidence, order),
    encodeFloat64Array(c.margin, order),
    encodeFloat64Array(c.latencyMs, order),
    encodeFrames(c.frameIndices, order),
    encodeInterned(t.sourceTag, order),
    encodeInterned(t.protocolNote, order),
    asBuffer(new Int32Array(n).fill(runId)),
    asBuffer(lines),
  ];
}
