/** The contract over Electron IPC: calls go through the preload's one-function-per-operation bridge. */
import type { FlipbookClient, PreloadBridge } from '../../shared/api/client';
import type { EventName, EventPayload, OpName, Req, Res, Result } from '../../shared/api/contract';

export function createIpcClient(bridge: PreloadBridge): FlipbookClient {
  return {
    transport: 'ipc',
    call<N extends OpName>(name: N, req: Req<N>): Promise<Result<Res<N>>> {
      return bridge[name](req) as Promise<Result<Res<N>>>;
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      return bridge.on(event, listener as (p: unknown) => void);
    },
  };
}
