import { createContext, useContext } from 'react';
import type { FlipbookClient } from '../../shared/api/client';

export const ClientContext = createContext<FlipbookClient | null>(null);

export function useClient(): FlipbookClient {
  const c = useContext(ClientContext);
  if (c === null) throw new Error('ClientContext missing');
  return c;
}
