/**
 * Data a view shows, fetched through the contract and fetched again whenever the backend says
 * it changed (`data:changed`, from this window, another window, a CLI import or a merge).
 * Every view that shows backend data reads it through this hook, so none can go stale.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { EventPayload, OpName, Req, Res } from '../../shared/api/contract';
import { useClient } from './use-client';

export type ChangeScope = EventPayload<'data:changed'>['scope'];

export interface Query<T> {
  data: T | null;
  error: string | null;
  /** Fetch again now (e.g. after this view changed something itself). */
  reload: () => void;
}

/**
 * `scopes`: which changes affect this data (default: all). The request is compared by value,
 * so an inline object literal does not refetch on every render.
 */
export function useQuery<N extends OpName>(name: N, req: Req<N>, scopes: readonly ChangeScope[] = ['project', 'annotations', 'settings']): Query<Res<N>> {
  const client = useClient();
  const [data, setData] = useState<Res<N> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const key = JSON.stringify(req ?? null);
  const scopeKey = scopes.join(',');
  // The latest request wins: a slow older answer must not overwrite a newer one.
  const seq = useRef(0);
  const load = useCallback(() => {
    const mine = ++seq.current;
    void client.call(name, JSON.parse(key) as Req<N>).then((r) => {
      if (mine !== seq.current) return;
      if (r.ok) {
        setData(r.value);
        setError(null);
      } else setError(r.error.message);
    });
  }, [client, name, key]);
  useEffect(() => {
    load();
    const wanted = new Set(scopeKey.split(','));
    const off = client.on('data:changed', (p) => {
      if (wanted.has(p.scope)) load();
    });
    const counter = seq;
    return () => {
      off();
      // Answers still in flight belong to a request this view no longer shows.
      counter.current++;
    };
  }, [client, load, scopeKey]);
  return { data, error, reload: load };
}
