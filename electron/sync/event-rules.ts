/**
 * What a team space accepts as an annotation event (docs/team-sync.md §3, "Validation at the
 * door"). The server checks these rules in a trigger on `flipbook.events` (server-schema.ts,
 * `flipbook.event_problem`); a client checks the same rules on every row it pulls, so a row
 * that reached the server around them (written before the server had the trigger, or by the
 * database owner with triggers off) is set aside by every client alike instead of stopping
 * anyone's sync. Both sides are tested against one corpus (test/electron/sync/event-rules.test.ts).
 */
import { ANNOTATION_EVENT_KINDS, ANNOTATION_STATUSES, CLOCK_SKEW_BOUND_MS, type AnnotationEvent } from '../../shared/domain/annotations';

/**
 * Beyond CLOCK_SKEW_BOUND_MS after the server's time, the server refuses an event at push and
 * a client sets it aside at pull; the store never stamps a local edit later than its own clock
 * plus the bound, whatever it pulled.
 */
export { CLOCK_SKEW_BOUND_MS };

/** Events stamped before this are refused (a clock reset to 1970 made them). */
export const EARLIEST_AT = '2000-01-01T00:00:00.000Z';

/** Longest annotator, model, split, sample id or uuid text accepted. */
export const MAX_NAME_LENGTH = 1000;
/** Largest payload accepted (its JSON text, in UTF-8 bytes). */
export const MAX_PAYLOAD_BYTES = 65_536;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const AT_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A kind a newer Flipbook may add: letters and digits, starting with a lower-case letter. */
const KIND_RE = /^[a-z][A-Za-z0-9]{0,39}$/;

const KNOWN_KINDS: ReadonlySet<string> = new Set(ANNOTATION_EVENT_KINDS);
const STATUSES: ReadonlySet<string> = new Set(ANNOTATION_STATUSES);

export interface EventProblem {
  field: string;
  reason: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);

/** `at` is a real instant written exactly as Date.toISOString writes it (so text order is time order). */
export function atProblem(at: unknown): EventProblem | null {
  if (typeof at !== 'string' || !AT_RE.test(at)) return { field: 'at', reason: 'not an ISO 8601 UTC time with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ)' };
  if (at < EARLIEST_AT) return { field: 'at', reason: 'before 2000: the clock that stamped it was wrong' };
  const ms = Date.parse(at);
  if (!Number.isFinite(ms) || new Date(ms).toISOString() !== at) return { field: 'at', reason: 'not a real date and time' };
  return null;
}

/** The payload rules of the kinds this Flipbook knows (what AnnotationStore.apply and the bundles write). */
function payloadProblem(kind: string, p: Json): string | null {
  const str = (k: string): boolean => typeof p[k] === 'string';
  const strOrNull = (k: string): boolean => k in p && (p[k] === null || typeof p[k] === 'string');
  switch (kind) {
    case 'setStatus':
      return typeof p.status === 'string' && STATUSES.has(p.status) ? null : `status: not one of ${ANNOTATION_STATUSES.join(', ')}`;
    case 'setPathway':
      if (!str('pathway') || p.pathway === '') return 'pathway: not a pathway id';
      return typeof p.on === 'boolean' ? null : 'on: not true or false';
    case 'setPrimary':
      return strOrNull('pathway') ? null : 'pathway: not a pathway id or null';
    case 'setTransition':
      return strOrNull('transition') ? null : 'transition: not a transition or null';
    case 'setNotes':
      return str('notes') ? null : 'notes: not a text';
    case 'setConfidence':
      return 'confidence' in p && (p.confidence === null || (Number.isInteger(p.confidence) && (p.confidence as number) >= 1 && (p.confidence as number) <= 5))
        ? null
        : 'confidence: not an integer from 1 to 5 or null';
    case 'addSpan': {
      const s = p.span;
      if (!isObject(s)) return 'span: not an object';
      if (typeof s.id !== 'string' || s.id === '') return 'span.id: not an id';
      if (!isNum(s.startS) || (s.startS as number) < 0 || !isNum(s.endS) || (s.endS as number) < 0) return 'span: startS and endS must be seconds (>= 0)';
      return null;
    }
    case 'updateSpan':
      if (!str('spanId') || p.spanId === '') return 'spanId: not an id';
      return isObject(p.patch) ? null : 'patch: not an object';
    case 'deleteSpan':
      return str('spanId') && p.spanId !== '' ? null : 'spanId: not an id';
    case 'adjudicate':
      if (!strOrNull('primary')) return 'primary: not a pathway id or null';
      if (!Array.isArray(p.pathways) || !p.pathways.every((x) => typeof x === 'string')) return 'pathways: not a list of pathway ids';
      return str('note') ? null : 'note: not a text';
    case 'snapshot':
      if (typeof p.status !== 'string' || !STATUSES.has(p.status)) return `status: not one of ${ANNOTATION_STATUSES.join(', ')}`;
      if (!Array.isArray(p.pathways)) return 'pathways: not a list';
      return Array.isArray(p.spans) ? null : 'spans: not a list';
    default:
      return null; // undo / redo: their target is checked with the row
  }
}

export interface WireEvent {
  uuid: unknown;
  at: unknown;
  annotator: unknown;
  model: unknown;
  split: unknown;
  sampleId: unknown;
  kind: unknown;
  payload: unknown;
  codebookVersion: unknown;
  targetUuid: unknown;
}

export type Checked =
  | { ok: true; event: AnnotationEvent; known: true }
  /** A well-formed event of a kind a newer Flipbook writes: kept, and ignored by this one. */
  | { ok: true; event: Omit<AnnotationEvent, 'kind'> & { kind: string }; known: false }
  | { ok: false; problem: EventProblem };

/**
 * The server's rules for one event, without the clock bound (which needs the server's time:
 * `beyondClockBound`). What the trigger checks, in the same order, with the same words.
 */
export function checkEvent(e: WireEvent): Checked {
  const bad = (field: string, reason: string): Checked => ({ ok: false, problem: { field, reason } });
  if (typeof e.uuid !== 'string' || !UUID_RE.test(e.uuid)) return bad('uuid', 'not a lower-case UUID (8-4-4-4-12 hex digits)');
  const at = atProblem(e.at);
  if (at) return { ok: false, problem: at };
  for (const [field, v] of [
    ['annotator', e.annotator],
    ['model', e.model],
    ['split', e.split],
    ['sample_id', e.sampleId],
  ] as const) {
    // Characters as PostgreSQL's length() counts them: code points.
    if (typeof v !== 'string' || v === '' || (v.length > MAX_NAME_LENGTH && [...v].length > MAX_NAME_LENGTH)) {
      return bad(field, `not a name of 1 to ${MAX_NAME_LENGTH} characters`);
    }
  }
  if (typeof e.kind !== 'string' || !KIND_RE.test(e.kind)) return bad('kind', 'not an event kind (a name of letters and digits)');
  if (!isObject(e.payload)) return bad('payload', 'not a JSON object');
  if (Buffer.byteLength(JSON.stringify(e.payload)) > MAX_PAYLOAD_BYTES) return bad('payload', `larger than ${MAX_PAYLOAD_BYTES} bytes`);
  const cbv = e.codebookVersion;
  if (cbv !== null && !(Number.isInteger(cbv) && (cbv as number) >= 0 && (cbv as number) <= 2_147_483_647)) return bad('codebook_version', 'not a version number or null');
  const targets = e.kind === 'undo' || e.kind === 'redo';
  if (targets) {
    if (typeof e.targetUuid !== 'string' || !UUID_RE.test(e.targetUuid)) return bad('target_uuid', 'an undo or redo must name the uuid of the event it acts on');
  } else if (e.targetUuid !== null) {
    return bad('target_uuid', 'only undo and redo name a target');
  }
  const known = KNOWN_KINDS.has(e.kind);
  if (known) {
    const p = payloadProblem(e.kind, e.payload);
    if (p !== null) return bad('payload', `${e.kind}: ${p}`);
  }
  const event = {
    uuid: e.uuid,
    at: e.at as string,
    annotator: e.annotator as string,
    model: e.model as string,
    split: e.split as string,
    sampleId: e.sampleId as string,
    payload: e.payload,
    codebookVersion: cbv as number | null,
    targetUuid: (e.targetUuid as string | null) ?? null,
  };
  return known ? { ok: true, known: true, event: { ...event, kind: e.kind as AnnotationEvent['kind'] } } : { ok: true, known: false, event: { ...event, kind: e.kind } };
}

/** Whether `at` lies more than the skew bound after `nowMs` (the server's time). */
export function beyondClockBound(at: string, nowMs: number): boolean {
  return Date.parse(at) > nowMs + CLOCK_SKEW_BOUND_MS;
}

/** "1 day", "3 h", "12 min", "40 s": how far a stamp is ahead, for messages. */
export function describeAhead(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${Math.round(s / 3600)} h`;
  const days = Math.round(s / 86_400);
  return days > 36_500 ? 'more than a century' : `${days} days`;
}
