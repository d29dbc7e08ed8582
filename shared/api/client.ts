/**
 * The one client interface the renderer codes against. It is implemented twice
 * (renderer/api/ipc-client.ts over the preload bridge, renderer/api/http-client.ts over the
 * web mode) and the renderer picks one at start.
 */
import type { EventName, EventPayload, OpName, Req, Res, Result } from './contract';

export interface FlipbookClient {
  readonly transport: 'ipc' | 'http';
  call<N extends OpName>(name: N, req: Req<N>): Promise<Result<Res<N>>>;
  /** Subscribe to a backend event; returns the unsubscribe function. */
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void;
}

/** The shape the preload exposes on `window.flipbook`: one function per operation + `on`. */
export type PreloadBridge = {
  [N in OpName]: (req: unknown) => Promise<Result<unknown>>;
} & {
  on(event: EventName, listener: (payload: unknown) => void): () => void;
};
