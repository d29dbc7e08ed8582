/**
 * What an undo or redo changed on an item, in words the user can check against the screen:
 * `status done → todo`, `pathway count-inflation on → off`. Compares the item's state before
 * and after; fields that did not change are not named.
 */
import type { AnnotationState } from './annotations';

type Span = Pick<AnnotationState['spans'][number], 'id' | 'startS' | 'endS' | 'label'>;
type Fields = Pick<AnnotationState, 'status' | 'primaryPathway' | 'pathways' | 'transition' | 'notes' | 'confidence'> & { spans: readonly Span[] };

const EMPTY: Fields = { status: 'todo', primaryPathway: null, pathways: [], transition: null, notes: '', confidence: null, spans: [] };
const show = (v: string | number | null): string => (v === null || v === '' ? 'none' : String(v));
const clip = (s: string): string => (s.length > 40 ? `“${s.slice(0, 39)}…”` : `“${s}”`);

export interface FieldChange {
  field: string;
  from: string;
  to: string;
}

export function describeChange(before: Fields | null, after: Fields | null): FieldChange[] {
  const a = before ?? EMPTY;
  const b = after ?? EMPTY;
  const out: FieldChange[] = [];
  if (a.status !== b.status) out.push({ field: 'status', from: a.status, to: b.status });
  for (const p of new Set([...a.pathways, ...b.pathways])) {
    const was = a.pathways.includes(p);
    const is = b.pathways.includes(p);
    if (was !== is) out.push({ field: `pathway ${p}`, from: was ? 'on' : 'off', to: is ? 'on' : 'off' });
  }
  if (a.primaryPathway !== b.primaryPathway) out.push({ field: 'primary pathway', from: show(a.primaryPathway), to: show(b.primaryPathway) });
  if (a.transition !== b.transition) out.push({ field: 'transition', from: show(a.transition), to: show(b.transition) });
  if (a.confidence !== b.confidence) out.push({ field: 'confidence', from: show(a.confidence), to: show(b.confidence) });
  if (a.notes !== b.notes) out.push({ field: 'notes', from: a.notes === '' ? 'none' : clip(a.notes), to: b.notes === '' ? 'none' : clip(b.notes) });
  const spanText = (s: Span) => `${s.startS.toFixed(2)}–${s.endS.toFixed(2)} s${s.label ? ` ${clip(s.label)}` : ''}`;
  for (const s of a.spans) {
    const now = b.spans.find((x) => x.id === s.id);
    if (!now) out.push({ field: 'evidence span', from: spanText(s), to: 'removed' });
    else if (now.startS !== s.startS || now.endS !== s.endS || now.label !== s.label) out.push({ field: 'evidence span', from: spanText(s), to: spanText(now) });
  }
  for (const s of b.spans) if (!a.spans.some((x) => x.id === s.id)) out.push({ field: 'evidence span', from: 'none', to: spanText(s) });
  return out;
}

/** `Undid: status of 012-2 (SimQwen-7B) done → todo` — the message the item view shows. */
export function undoMessage(verb: 'Undid' | 'Redid', item: { model: string; sampleId: string }, changes: FieldChange[]): string {
  const where = `${item.sampleId} (${item.model})`;
  if (changes.length === 0) return `${verb}: an edit of ${where} that left its state as it was`;
  return `${verb}: ${changes.map((c) => `${c.field} of ${where} ${c.from} → ${c.to}`).join('; ')}`;
}
