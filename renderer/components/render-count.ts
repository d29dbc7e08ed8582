/**
 * Counts the commits in which a component rendered and writes the count on its root element
 * as `data-renders`. The e2e suite reads it to check that the player's time (up to 60 updates
 * a second) re-renders only what shows it — the playheads and the time readout — and never
 * the item view around them (docs/architecture.md "The player's time in the renderer"). A production build's React has
 * no Profiler callbacks, so the count is made here, by an effect: it runs after every commit
 * of the component and only then.
 */
import { useEffect, useRef, type RefObject } from 'react';

export function useRenderCount(root: RefObject<HTMLElement | null>): void {
  const n = useRef(0);
  useEffect(() => {
    n.current += 1;
    root.current?.setAttribute('data-renders', String(n.current));
  });
}
