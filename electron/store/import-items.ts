/**
 * An import's item metadata as the items table holds it: the fields and their columns, and the
 * inserter that writes new items ITEM_CHUNK rows per statement (import-apply.ts).
 */
import type Database from 'better-sqlite3';
import type { ItemMeta } from '../../shared/domain/types';
import { contextJson } from '../../shared/domain/item-context';

export const ITEM_FIELDS = [
  ['question', 'question'],
  ['options', 'options'],
  ['answer', 'answer'],
  ['references', 'references_json'],
  ['taskType', 'task_type'],
  ['durationS', 'duration_s'],
  ['durationBucket', 'duration_bucket'],
  ['domain', 'domain'],
  ['subCategory', 'sub_category'],
  ['videoId', 'video_id'],
  ['videoFile', 'video_file'],
  ['kind', 'kind'],
  ['context', 'context_json'],
] as const satisfies readonly (readonly [keyof ItemMeta, string])[];

export function itemValue(meta: ItemMeta, field: (typeof ITEM_FIELDS)[number][0]): string | number | null {
  if (field === 'context') return contextJson(meta.context);
  const v = meta[field];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return JSON.stringify(v);
  return v;
}

const fieldValue = (v: string | number | readonly string[] | null | undefined): string | number | null =>
  v === undefined || v === null ? null : Array.isArray(v) ? JSON.stringify(v) : (v as string | number);

/**
 * itemValue for every ITEM_FIELDS entry, in its order, into `out`. Spelled out field by field:
 * a keyed `meta[field]` per field is a megamorphic load, and 12 of them per item showed in the
 * bench (5k items). Keep in step with ITEM_FIELDS (test/electron/store/import-encodings.test.ts
 * round-trips every field).
 */
function itemValues(meta: ItemMeta, out: (string | number | null)[]): void {
  out[0] = fieldValue(meta.question);
  out[1] = fieldValue(meta.options);
  out[2] = fieldValue(meta.answer);
  out[3] = fieldValue(meta.references);
  out[4] = fieldValue(meta.taskType);
  out[5] = fieldValue(meta.durationS);
  out[6] = fieldValue(meta.durationBucket);
  out[7] = fieldValue(meta.domain);
  out[8] = fieldValue(meta.subCategory);
  out[9] = fieldValue(meta.videoId);
  out[10] = fieldValue(meta.videoFile);
  out[11] = fieldValue(meta.kind);
  out[12] = contextJson(meta.context);
}

/** Rows per multi-row INSERT of items (at most 15 parameters each, well under SQLite's limit). */
const ITEM_CHUNK = 64;

/**
 * New items of the metadata loop, inserted ITEM_CHUNK rows per statement and binding only
 * the fields an item has (a per_item.csv item has an answer and a kind, not 12 fields):
 * one 15-parameter statement per item cost ~2 µs (5k items in the bench file). Items are
 * grouped by which fields they have; their ids are given explicitly as the ones SQLite
 * would pick (one more than the largest, in add order), so the rows are those one INSERT
 * per item gives, and nothing else may insert items between add() and flush().
 */
export function createItemInserter(db: Database.Database) {
  const maxId = db.prepare<[], number | null>('SELECT max(id) FROM items').pluck(true);
  const sql = (fields: readonly number[], rows: number): string => {
    const cols = ['id', 'split_id', 'sample_id', ...fields.map((i) => ITEM_FIELDS[i]![1])];
    const row = `(${cols.map(() => '?').join(', ')})`;
    return `INSERT INTO items (${cols.join(', ')}) VALUES ${new Array<string>(rows).fill(row).join(', ')}`;
  };
  interface Shape {
    fields: number[];
    args: (string | number | null)[];
    rows: number;
    full: Database.Statement | null;
  }
  const shapes = new Map<number, Shape>();
  const values: (string | number | null)[] = new Array(ITEM_FIELDS.length).fill(null);
  let next: number | null = null;
  return {
    /** Queues an item; returns its id. */
    add(sid: number, meta: ItemMeta): number {
      if (next === null) next = (maxId.get() ?? 0) + 1;
      const id = next++;
      itemValues(meta, values);
      let mask = 0;
      for (let i = 0; i < values.length; i++) if (values[i] !== null) mask |= 1 << i;
      let shape = shapes.get(mask);
      if (!shape) {
        const fields = ITEM_FIELDS.map((_, i) => i).filter((i) => mask & (1 << i));
        shapes.set(mask, (shape = { fields, args: [], rows: 0, full: null }));
      }
      const args = shape.args;
      args.push(id, sid, meta.sampleId);
      for (let j = 0; j < shape.fields.length; j++) args.push(values[shape.fields[j]!]!);
      if (++shape.rows === ITEM_CHUNK) {
        (shape.full ??= db.prepare(sql(shape.fields, ITEM_CHUNK))).run(args);
        shape.args = [];
        shape.rows = 0;
      }
      return id;
    },
    flush(): void {
      for (const shape of shapes.values()) {
        if (shape.rows > 0) db.prepare(sql(shape.fields, shape.rows)).run(shape.args);
        shape.args = [];
        shape.rows = 0;
      }
      next = null;
    },
  };
}
