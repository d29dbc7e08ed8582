/**
 * Opaque media ids come from the frames helper's range module (electron/media/range-server.ts):
 * the renderer never sees a path, and both transports serve only ids registered here.
 * `clear()` forgets every id when a project closes.
 */
import { createMediaRegistry as createRangeRegistry, mimeTypeOf, type MediaRegistry as RangeRegistry } from './range-server';

export interface MediaRegistry extends RangeRegistry {
  clear(): void;
}

export const mimeOf = mimeTypeOf;

export function createMediaRegistry(): MediaRegistry {
  let inner = createRangeRegistry();
  return {
    register: (p) => inner.register(p),
    unregister: (id) => inner.unregister(id),
    pathOf: (id) => inner.pathOf(id),
    clear: () => {
      inner = createRangeRegistry();
    },
  };
}
