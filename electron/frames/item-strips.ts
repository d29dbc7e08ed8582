import type { ImageSpec } from './decode-run';
import type { FrameBatchResult, FrameService, TileEvent } from './frame-service';
import { unionOfFrames } from './frame-selection';
import type { ItemFrames } from './item-frames';

export interface ItemStripOptions {
  priority?: number;
  signal?: AbortSignal;
  spec?: ImageSpec;
  approximate?: boolean;
  onTile?: (tile: TileEvent) => void;
}

export interface ItemStrips {
  /** Sorted native frames over all configs, each once. */
  union: number[];
  /** Resolves when every frame of the union is exact (or failed); tiles arrive through onTile first. */
  frames: Promise<FrameBatchResult>;
}

/**
 * The keyframe pass needs only the file, so a caller starts it before the probe and the frame
 * selection (item-frames.ts) on a cold open, and the two overlap.
 */
export function prefetchItemKeyframes(service: FrameService, videoPath: string, opts: ItemStripOptions = {}): void {
  if (opts.approximate ?? true) void service.prefetchKeyframes(videoPath, opts.spec, { priority: opts.priority ?? 0, ...(opts.signal ? { signal: opts.signal } : {}) });
}

/**
 * Extracts the union of the frames an item's configs saw, as `selection` chose them — the one
 * selection of the request (selectItemFrames, with the project's sampler overrides), never a
 * second one: each tile that arrives is a frame some strip shows. Returns at once; tiles fill
 * in through onTile (approximate first, then exact).
 */
export function extractItemFrames(service: FrameService, selection: ItemFrames, opts: ItemStripOptions = {}): ItemStrips {
  const union = unionOfFrames(selection.configs);
  const frames = service.requestFrames({
    video: selection.meta,
    indices: union,
    ...(opts.spec ? { spec: opts.spec } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.approximate !== undefined ? { approximate: opts.approximate } : {}),
    ...(opts.onTile ? { onTile: opts.onTile } : {}),
  });
  // The caller may only await it later; keep an early rejection from being reported as unhandled.
  frames.catch(() => {});
  return { union, frames };
}
