/**
 * The player's current time as a tiny external store: the player writes it up to 60 times a
 * second; only the components that show it (playheads, the time readout) subscribe, so the
 * item view around them does not re-render while a video plays.
 */
import { useSyncExternalStore } from 'react';

export interface TimeStore {
  get(): number;
  set(t: number): void;
  subscribe(listener: () => void): () => void;
}

export function createTimeStore(): TimeStore {
  let t = 0;
  const listeners = new Set<() => void>();
  return {
    get: () => t,
    set(next) {
      if (next === t) return;
      t = next;
      for (const l of listeners) l();
    },
    subscribe(l) {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  };
}

export function usePlayerTime(store: TimeStore): number {
  return useSyncExternalStore(store.subscribe, store.get);
}
