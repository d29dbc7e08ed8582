/**
 * The one place a request from a renderer becomes a service call: parse the unknown payload
 * with the operation's zod schema, run the handler, and turn every outcome into a Result.
 * Errors never cross a transport as thrown exceptions (docs/architecture.md).
 */
import { clipMessage } from '../../shared/api/clip';
import { isOpName, operations, type ApiError, type EventPayload, type OpName, type Res, type Result } from '../../shared/api/contract';
import type { OpEffects } from '../../shared/api/op';
import { ServiceError } from '../../shared/api/service-error';
import { toApiErrorWhole } from '../../shared/api/service-error';

export type Handler<N extends OpName> = (req: z_out<N>) => Promise<Res<N>> | Res<N>;
type z_out<N extends OpName> = import('zod').z.output<(typeof operations)[N]['request']>;
export type Handlers = { [N in OpName]: Handler<N> };

/** Every error crosses the transport with a bounded message (docs/security.md). */
function toApiError(e: unknown): ApiError {
  const r = toApiErrorWhole(e);
  return { ...r, message: clipMessage(r.message) };
}

export async function dispatch(handlers: Handlers, name: string, payload: unknown): Promise<Result<unknown>> {
  if (!isOpName(name)) return { ok: false, error: { code: 'not-found', message: clipMessage(`unknown operation '${name}'`) } };
  const parsed = operations[name].request.safeParse(payload ?? {});
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
    return { ok: false, error: { code: 'bad-request', message: clipMessage(`${name}: ${first?.message ?? 'invalid request'}${where}`) } };
  }
  try {
    const handler = handlers[name] as (req: unknown) => Promise<unknown> | unknown;
    const value = await handler(parsed.data);
    return { ok: true, value };
  } catch (e) {
    return { ok: false, error: toApiError(e) };
  }
}

/** What the backend tells withEffects: whether the project may be written, and how to announce a change. */
export interface EffectHooks {
  /** Why the open project may not be written (read-only), or null when it may (or none is open). */
  readOnlyReason(): string | null;
  /** Waits, without blocking the thread, while a job's worker holds the write transaction. */
  writesIdle(): Promise<void>;
  changed(payload: EventPayload<'data:changed'>): void;
}

/** The item an answer names (OpEffects.changes): its `item`, or itself when it has model, split and sampleId. */
function itemOf(value: unknown): EventPayload<'data:changed'>['item'] {
  if (typeof value !== 'object' || value === null) return null;
  const v = ('item' in value ? value.item : value) as Record<string, unknown> | null;
  if (v !== null && typeof v.model === 'string' && typeof v.split === 'string' && typeof v.sampleId === 'string') return { model: v.model, split: v.split, sampleId: v.sampleId };
  return null;
}

/**
 * The handlers with the effects the contract declares (shared/api/op.ts), so no handler
 * checks writability or announces its change itself: an operation that writes is refused on a
 * read-only project before it runs, one that writes inline first waits while a job writes, and
 * one that changes something emits `data:changed` once, after it succeeded (not for a null
 * answer: nothing changed).
 */
export function withEffects(handlers: Handlers, hooks: EffectHooks): Handlers {
  const out = { ...handlers } as Record<OpName, (req: unknown) => unknown>;
  for (const name of Object.keys(operations) as OpName[]) {
    const effects = operations[name].effects as OpEffects<unknown>;
    if (!effects.writes && !effects.changes) continue;
    const run = handlers[name] as (req: unknown) => unknown;
    out[name] = async (req: unknown) => {
      if (effects.writes) {
        const reason = hooks.readOnlyReason();
        if (reason !== null) throw new ServiceError('read-only', `the project is open read-only: ${reason}`);
        if (effects.writes === 'inline') await hooks.writesIdle();
      }
      const value = await run(req);
      const scope = typeof effects.changes === 'function' ? effects.changes(req) : effects.changes;
      if (scope && value !== null) hooks.changed({ scope, item: itemOf(value) });
      return value;
    };
  }
  return out as Handlers;
}
