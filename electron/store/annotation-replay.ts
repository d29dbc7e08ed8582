/**
 * An annotation key's state from its events (docs/architecture.md "Data"): the events in
 * (at, uuid) order, each undone or redone by the undo and redo events that name it, stepped
 * one by one. The store replays a key after undo, redo and merges, and steps the stored state
 * once for a new edit (annotation-writes.ts).
 */
import { emptyAnnotationState, type AnnotationEvent, type AnnotationState, type AnnotationStatus, type EvidenceSpan } from '../../shared/domain/annotations';
import type { Key } from './annotation-tables';

/** Which edit events take effect after the undo/redo events among `events` (sorted). */
export function activeSet(events: readonly AnnotationEvent[]): Map<string, boolean> {
  const active = new Map<string, boolean>();
  for (const e of events) if (e.kind !== 'undo' && e.kind !== 'redo') active.set(e.uuid, true);
  for (const e of events) {
    if ((e.kind === 'undo' || e.kind === 'redo') && e.targetUuid && active.has(e.targetUuid)) active.set(e.targetUuid, e.kind === 'redo');
  }
  return active;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The state of one key, built event by event in (at, uuid) order. `replay` builds it from all
 * of a key's events; an edit appended after every event of its key steps the stored state once
 * (annotation-writes.ts applyEdit), so an edit costs the same after 10 or 10,000 earlier ones.
 */
export class KeyState {
  state: AnnotationState | null;
  readonly pathways: Set<string>;
  readonly spans: Map<string, EvidenceSpan>;
  lastAt: string | null;

  /** From nothing, or from a stored current state (the result of replaying every earlier event). */
  constructor(
    private readonly key: Key,
    from: AnnotationState | null = null,
  ) {
    this.state = from ? { ...from, pathways: [], spans: [] } : null;
    this.pathways = new Set(from?.pathways ?? []);
    this.spans = new Map((from?.spans ?? []).map((sp) => [sp.id, { ...sp, coveredBy: [...sp.coveredBy] }]));
    this.lastAt = from?.updatedAt ?? null;
  }

  /** Applies one event; `active` = not undone (undo/redo events themselves are never active). */
  step(e: AnnotationEvent, active: boolean): void {
    // An adjudication resolves the item for everyone; it is not the adjudicator's own label.
    if (e.kind === 'adjudicate') return;
    this.lastAt = e.at;
    if (!active) return;
    const fresh = this.state === null;
    const state = (this.state ??= emptyAnnotationState(this.key, e.at));
    const { pathways, spans } = this;
    state.updatedAt = e.at;
    state.codebookVersion = e.codebookVersion;
    const p = e.payload;
    // A span from an addSpan payload or a snapshot's list; one without an id is ignored.
    const addSpan = (raw: unknown): void => {
      const s = (raw ?? {}) as Record<string, unknown>;
      const id = str(s.id);
      if (id === null) return;
      spans.set(id, {
        id,
        startS: num(s.startS) ?? 0,
        endS: num(s.endS) ?? 0,
        label: str(s.label) ?? '',
        coveredBy: Array.isArray(s.coveredBy) ? s.coveredBy.filter((x): x is string => typeof x === 'string') : [],
        createdAt: e.at,
        updatedAt: e.at,
      });
    };
    switch (e.kind) {
      case 'setStatus':
        state.status = (str(p.status) ?? 'todo') as AnnotationStatus;
        break;
      case 'setPathway': {
        const id = str(p.pathway);
        if (id === null) break;
        if (p.on === true) pathways.add(id);
        else {
          pathways.delete(id);
          if (state.primaryPathway === id) state.primaryPathway = null;
        }
        break;
      }
      case 'setPrimary': {
        const id = str(p.pathway);
        state.primaryPathway = id;
        if (id !== null) pathways.add(id);
        break;
      }
      case 'setTransition':
        state.transition = str(p.transition);
        break;
      case 'setNotes':
        state.notes = str(p.notes) ?? '';
        break;
      case 'setConfidence':
        state.confidence = num(p.confidence);
        break;
      case 'addSpan':
        addSpan(p.span);
        break;
      case 'updateSpan': {
        const span = spans.get(str(p.spanId) ?? '');
        if (!span) break;
        const patch = (p.patch ?? {}) as Record<string, unknown>;
        if (num(patch.startS) !== null) span.startS = num(patch.startS)!;
        if (num(patch.endS) !== null) span.endS = num(patch.endS)!;
        if (str(patch.label) !== null) span.label = str(patch.label)!;
        if (Array.isArray(patch.coveredBy)) span.coveredBy = patch.coveredBy.filter((x): x is string => typeof x === 'string');
        span.updatedAt = e.at;
        break;
      }
      case 'deleteSpan':
        spans.delete(str(p.spanId) ?? '');
        break;
      case 'snapshot': {
        if (fresh && str(p.createdAt) !== null) state.createdAt = str(p.createdAt)!;
        state.status = (str(p.status) ?? 'todo') as AnnotationStatus;
        state.primaryPathway = str(p.primaryPathway);
        pathways.clear();
        if (Array.isArray(p.pathways)) for (const x of p.pathways) if (typeof x === 'string') pathways.add(x);
        if (state.primaryPathway !== null) pathways.add(state.primaryPathway);
        state.transition = str(p.transition);
        state.notes = str(p.notes) ?? '';
        state.confidence = num(p.confidence);
        spans.clear();
        for (const raw of Array.isArray(p.spans) ? p.spans : []) addSpan(raw);
        break;
      }
      default:
        break;
    }
  }

  finish(): AnnotationState | null {
    const state = this.state;
    if (!state) return null;
    if (this.lastAt !== null && this.lastAt > state.updatedAt) state.updatedAt = this.lastAt;
    state.pathways = [...this.pathways].sort();
    state.spans = [...this.spans.values()].sort((a, b) => a.startS - b.startS || a.endS - b.endS || (a.id < b.id ? -1 : 1));
    return state;
  }
}

/** The state of one key from its events (sorted by (at, uuid)); null when no edit takes effect. */
export function replay(key: Key, events: readonly AnnotationEvent[]): AnnotationState | null {
  const active = activeSet(events);
  const b = new KeyState(key);
  for (const e of events) b.step(e, active.get(e.uuid) === true);
  return b.finish();
}
