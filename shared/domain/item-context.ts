/**
 * An item's context (types.ts ItemContext) as it crosses a boundary: the project's
 * `items.context_json`, the release's `labels/items.csv` `context` column. One canonical JSON
 * form (fixed key order, no optional keys), so a value read back and written again is the same
 * bytes (docs/release-format.md: export → import → export is byte-identical).
 */
import * as z from 'zod';
import type { ItemContext } from './types';

export const ItemContextSchema = z.strictObject({
  history: z.array(z.strictObject({ question: z.string(), answer: z.string() })),
  caption: z.string().nullable(),
  summary: z.string().nullable(),
  prompt: z.string().nullable(),
});

/** A context with nothing in it is no context. */
export function isEmptyContext(c: ItemContext): boolean {
  return c.history.length === 0 && c.caption === null && c.summary === null && c.prompt === null;
}

/** The canonical JSON of a context (keys in schema order), or null for none / an empty one. */
export function contextJson(c: ItemContext | null | undefined): string | null {
  if (!c || isEmptyContext(c)) return null;
  return JSON.stringify({
    history: c.history.map((t) => ({ question: t.question, answer: t.answer })),
    caption: c.caption,
    summary: c.summary,
    prompt: c.prompt,
  });
}

/** A stored or exported context: parsed and checked; throws a readable message on anything else. */
export function parseContext(text: string): ItemContext {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new Error(`not JSON (${(e as Error).message})`);
  }
  const r = ItemContextSchema.safeParse(v);
  if (!r.success) throw new Error(`not an item context: ${r.error.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ')}`);
  return r.data;
}
