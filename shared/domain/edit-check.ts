/**
 * Edits made on what the user saw (docs/architecture.md "Live views"). An edit carries `seen`,
 * the value of the field it changes as shown when it was made; against the saved state it is
 *
 * - `apply`: the saved value is the one the user saw (or the edit carries no `seen`);
 * - `already`: the saved value already is what the edit asks for (another window made the same
 *   change): nothing is recorded, the saved state is the answer;
 * - `stale`: the saved value changed since the user saw it, to something else: the edit is
 *   refused, so it never reverses a change the user had not seen.
 *
 * The store runs this inside the edit's transaction; the renderer uses `applyLocally` to know
 * what its own queued edits will leave, so a key pressed twice quickly toggles twice.
 */
import type { AnnotationEdit, AnnotationState, AnnotationStatus } from './annotations';

type Span = { id: string; startS: number; endS: number; label: string };
/** The fields an edit reads and changes. */
export type EditFields = Pick<AnnotationState, 'status' | 'primaryPathway' | 'pathways' | 'transition' | 'notes' | 'confidence'> & { spans: readonly Span[] };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An edit without its item (the item view adds it). */
export type EditBody = DistributiveOmit<AnnotationEdit, 'model' | 'split' | 'sampleId'>;

export const EMPTY_FIELDS: EditFields = { status: 'todo', primaryPathway: null, pathways: [], transition: null, notes: '', confidence: null, spans: [] };

export type EditCheck = { kind: 'apply' } | { kind: 'already' } | { kind: 'stale'; field: string; seen: string; now: string; wanted: string };

const show = (v: string | number | boolean | null | undefined): string =>
  v === null || v === undefined || v === '' ? 'none' : v === true ? 'on' : v === false ? 'off' : String(v);
const spanText = (s: { startS: number; endS: number; label: string } | null): string =>
  s === null ? 'deleted' : `${s.startS.toFixed(2)}–${s.endS.toFixed(2)} s${s.label ? ` “${s.label.length > 30 ? `${s.label.slice(0, 29)}…` : s.label}”` : ''}`;
const sameSpan = (a: { startS: number; endS: number; label: string } | null, b: { startS: number; endS: number; label: string } | null): boolean =>
  a === b || (a !== null && b !== null && a.startS === b.startS && a.endS === b.endS && a.label === b.label);
const clipText = (s: string): string => (s === '' ? 'none' : `“${s.length > 30 ? `${s.slice(0, 29)}…` : s}”`);

function scalar<T extends string | number | boolean | null>(field: string, now: T, seen: T | undefined, wanted: T, fmt: (v: T) => string = show): EditCheck {
  if (seen === undefined || now === seen) return { kind: 'apply' };
  if (now === wanted) return { kind: 'already' };
  return { kind: 'stale', field, seen: fmt(seen), now: fmt(now), wanted: fmt(wanted) };
}

/** How an edit stands against the saved state (null: nothing saved for the item yet). */
export function checkEdit(saved: EditFields | null, edit: EditBody): EditCheck {
  const cur = saved ?? EMPTY_FIELDS;
  switch (edit.op) {
    case 'setStatus':
      return scalar<AnnotationStatus>('status', cur.status, edit.seen, edit.status);
    case 'setPathway':
      return scalar(`pathway ${edit.pathway}`, cur.pathways.includes(edit.pathway), edit.seen, edit.on);
    case 'setPrimary':
      return scalar('primary pathway', cur.primaryPathway, edit.seen, edit.pathway);
    case 'setTransition':
      return scalar('transition', cur.transition, edit.seen, edit.transition);
    case 'setNotes':
      return scalar('notes', cur.notes, edit.seen, edit.notes, clipText);
    case 'setConfidence':
      return scalar('confidence', cur.confidence, edit.seen, edit.confidence);
    case 'updateSpan':
    case 'deleteSpan': {
      if (edit.seen === undefined) return { kind: 'apply' };
      const now = cur.spans.find((s) => s.id === edit.spanId) ?? null;
      if (sameSpan(now, edit.seen)) return { kind: 'apply' };
      const wanted = edit.op === 'deleteSpan' ? null : { ...edit.seen, ...pick(edit.patch) };
      if (sameSpan(now, wanted)) return { kind: 'already' };
      return { kind: 'stale', field: 'evidence span', seen: spanText(edit.seen), now: spanText(now), wanted: spanText(wanted) };
    }
    default:
      return { kind: 'apply' };
  }
}

function pick(patch: { startS?: number | undefined; endS?: number | undefined; label?: string | undefined }): Partial<{ startS: number; endS: number; label: string }> {
  const out: Partial<{ startS: number; endS: number; label: string }> = {};
  if (patch.startS !== undefined) out.startS = patch.startS;
  if (patch.endS !== undefined) out.endS = patch.endS;
  if (patch.label !== undefined) out.label = patch.label;
  return out;
}

/** The message a refused edit answers with: what is saved now, what the user saw, what was not saved. */
export function staleMessage(c: Extract<EditCheck, { kind: 'stale' }>, item: { model: string; sampleId: string }): string {
  return `not saved: ${c.field} of ${item.sampleId} (${item.model}) is ${c.now} now, not ${c.seen} as shown when you changed it to ${c.wanted} (it was changed in another window or process); the view shows the saved state`;
}

/** The edit with `seen` filled in from the state the user sees. */
export function withSeen(shown: EditFields, edit: EditBody): EditBody {
  switch (edit.op) {
    case 'setStatus':
      return { ...edit, seen: shown.status };
    case 'setPathway':
      return { ...edit, seen: shown.pathways.includes(edit.pathway) };
    case 'setPrimary':
      return { ...edit, seen: shown.primaryPathway };
    case 'setTransition':
      return { ...edit, seen: shown.transition };
    case 'setNotes':
      return { ...edit, seen: shown.notes };
    case 'setConfidence':
      return { ...edit, seen: shown.confidence };
    case 'updateSpan':
    case 'deleteSpan': {
      const s = shown.spans.find((x) => x.id === edit.spanId);
      return s ? { ...edit, seen: { startS: s.startS, endS: s.endS, label: s.label } } : edit;
    }
    default:
      return edit;
  }
}

/**
 * What an edit will leave, computed where it is made (the renderer's view of its own queued
 * edits; the store's replay stays the authority on what is saved).
 */
export function applyLocally<T extends EditFields>(state: T, edit: EditBody): T {
  switch (edit.op) {
    case 'setStatus':
      return { ...state, status: edit.status };
    case 'setPathway': {
      const rest = state.pathways.filter((p) => p !== edit.pathway);
      const pathways = edit.on ? [...rest, edit.pathway].sort() : rest;
      return { ...state, pathways, primaryPathway: !edit.on && state.primaryPathway === edit.pathway ? null : state.primaryPathway };
    }
    case 'setPrimary':
      return {
        ...state,
        primaryPathway: edit.pathway,
        pathways: edit.pathway === null || state.pathways.includes(edit.pathway) ? state.pathways : [...state.pathways, edit.pathway].sort(),
      };
    case 'setTransition':
      return { ...state, transition: edit.transition };
    case 'setNotes':
      return { ...state, notes: edit.notes };
    case 'setConfidence':
      return { ...state, confidence: edit.confidence };
    case 'addSpan': {
      const s = edit.span;
      if (s.id === undefined) return state;
      return { ...state, spans: [...state.spans, { ...s, id: s.id, label: s.label ?? '', coveredBy: s.coveredBy ?? [] }] };
    }
    case 'updateSpan':
      return { ...state, spans: state.spans.map((s) => (s.id === edit.spanId ? { ...s, ...pick(edit.patch) } : s)) };
    case 'deleteSpan':
      return { ...state, spans: state.spans.filter((s) => s.id !== edit.spanId) };
    default:
      return state;
  }
}
