import { createContext, useContext } from 'react';
import type { FlipbookClient } from '../../shared/api/client';
import type { OpName, Req, Res } from '../../shared/api/contract';

export const ClientContext = createContext<FlipbookClient | null>(null);

export function useClient(): FlipbookClient {
  const c = useContext(ClientContext);
  if (c === null) throw new Error('ClientContext missing');
  return c;
}

/** Call an operation and throw its error message (for code paths that show errors inline). */
export async function callOrThrow<N extends OpName>(client: FlipbookClient, name: N, req: Req<N>): Promise<Res<N>> {
  const r = await client.call(name, req);
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
}
