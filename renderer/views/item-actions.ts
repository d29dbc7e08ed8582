/**
 * The item view's edits as plain functions of what the annotator sees (docs/architecture.md,
 * "Live views": every edit is absolute and computed from the state as shown): the view's keys
 * and buttons call these and send what they return; null sends nothing.
 */
import type { EditBody, EditFields } from '../../shared/domain/edit-check';

/** A pathway key sets the pathway to the opposite of what the annotator sees ("set c on", never "toggle"). */
export function togglePathway(seen: EditFields, pathway: string): EditBody {
  return { op: 'setPathway', pathway, on: !seen.pathways.includes(pathway) };
}

/** A primary-pathway key sets it, or clears it when it is the one shown. */
export function togglePrimary(seen: EditFields, pathway: string): EditBody {
  return { op: 'setPrimary', pathway: seen.primaryPathway === pathway ? null : pathway };
}

/**
 * Moves one end of a span by one video frame (`dir` −1 earlier, +1 later), never before 0 and
 * never past its other end. Null when the span is gone (removed meanwhile).
 */
export function nudgeSpan(seen: EditFields, spanId: string, which: 'startS' | 'endS', dir: 1 | -1, fps: number): EditBody | null {
  const s = seen.spans.find((x) => x.id === spanId);
  if (!s) return null;
  const v = Math.max(0, s[which] + dir / fps);
  const patch = which === 'startS' ? { startS: Math.min(v, s.endS) } : { endS: Math.max(v, s.startS) };
  return { op: 'updateSpan', spanId: s.id, patch };
}

/** The span between a mark-in and a mark-out, in either order. */
export function spanBetween(markIn: number, markOut: number): { startS: number; endS: number } {
  return markIn <= markOut ? { startS: markIn, endS: markOut } : { startS: markOut, endS: markIn };
}

/**
 * The transition after the one shown (the saved one, else the preselected one), cycling
 * through the harmed then the rescued transitions; null when the item has none.
 */
export function nextTransition(seen: EditFields, transitions: readonly string[], preselected: string | null): EditBody | null {
  if (transitions.length === 0) return null;
  const shown = seen.transition ?? preselected ?? '';
  return { op: 'setTransition', transition: transitions[(transitions.indexOf(shown) + 1) % transitions.length] ?? null };
}
