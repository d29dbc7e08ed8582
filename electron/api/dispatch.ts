/**
 * The one place a request from a renderer becomes a service call: parse the unknown payload
 * with the operation's zod schema, run the handler, and turn every outcome into a Result.
 * Errors never cross a transport as thrown exceptions (docs/architecture.md).
 */
import { clipMessage } from '../../shared/api/clip';
import { isOpName, operations, type ApiError, type OpName, type Req, type Res, type Result } from '../../shared/api/contract';
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

export type TypedReq<N extends OpName> = Req<N>;
