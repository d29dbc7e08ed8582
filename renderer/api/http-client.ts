/**
 * The contract over the web mode's loopback HTTP: POST /api/op/<name> with the token header,
 * events over Server-Sent Events. Mirrors ipc-client.ts so views cannot tell them apart.
 */
import type { FlipbookClient } from '../../shared/api/client';
import { ERROR_CODES, type ErrorCode, type EventName, type EventPayload, type OpName, type Req, type Res, type Result } from '../../shared/api/contract';

export function createHttpClient(token: string, base = ''): FlipbookClient {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  let source: EventSource | null = null;

  const ensureSource = (): void => {
    if (source !== null) return;
    source = new EventSource(`${base}/api/events?token=${encodeURIComponent(token)}`);
    for (const [name] of listeners) attach(name);
  };
  const attached = new Set<string>();
  const attach = (name: string): void => {
    if (source === null || attached.has(name)) return;
    attached.add(name);
    source.addEventListener(name, (ev) => {
      let payload: unknown;
      try {
        payload = JSON.parse((ev as MessageEvent<string>).data);
      } catch {
        return;
      }
      for (const l of listeners.get(name) ?? []) l(payload);
    });
  };

  return {
    transport: 'http',
    async call<N extends OpName>(name: N, req: Req<N>): Promise<Result<Res<N>>> {
      try {
        const res = await fetch(`${base}/api/op/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-flipbook-token': token },
          body: JSON.stringify(req ?? {}),
        });
        const text = await res.text();
        if (!res.ok && res.status !== 404) {
          const code: ErrorCode = res.status === 401 || res.status === 403 ? 'forbidden' : 'internal';
          return { ok: false, error: { code, message: `${res.status}: ${text}` } };
        }
        const body = JSON.parse(text) as Result<Res<N>>;
        if (typeof body !== 'object' || body === null || typeof body.ok !== 'boolean') {
          return { ok: false, error: { code: 'internal', message: 'malformed response' } };
        }
        if (!body.ok && !(ERROR_CODES as readonly string[]).includes(body.error.code)) {
          return { ok: false, error: { code: 'internal', message: body.error.message } };
        }
        return body;
      } catch (e) {
        // The server is gone (killed, restarting): report it as a Result, like any other failure.
        return { ok: false, error: { code: 'internal', message: `backend unreachable: ${e instanceof Error ? e.message : String(e)}` } };
      }
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (p: unknown) => void;
      set.add(l);
      ensureSource();
      attach(event);
      return () => {
        set.delete(l);
      };
    },
  };
}
