import type { ConfigSpec, VideoCache } from '../../shared/domain/types';
import type { ImageSpec } from './decode-run';
import type { FrameBatchResult, FrameService, TileEvent } from './frame-service';
import { selectFramesForConfig, unionOfFrames, type ConfigFrames, type SamplingOverride } from './frame-selection';
import type { VideoMeta } from '../media/video-meta';

export interface ItemStripConfigInput {
  config: ConfigSpec;
  /** The response's recorded frame_indices for this (model, item, config), in the config's sampling domain. */
  recorded?: readonly number[] | null;
}

export interface ItemStripInput {
  videoPath: string;
  model: string;
  configs: readonly ItemStripConfigInput[];
  videoId?: string | null;
  /** The video's frame caches (cached pipelines' metadata: frame-selection.ts). */
  caches?: readonly VideoCache[] | null;
  /** Project-level sampler overrides, keyed by config key. */
  overrides?: Readonly<Record<string, SamplingOverride>>;
}

export interface ItemStripOptions {
  priority?: number;
  signal?: AbortSignal;
  spec?: ImageSpec;
  approximate?: boolean;
  onTile?: (tile: TileEvent) => void;
}

export interface ItemStrips {
  meta: VideoMeta;
  /** Per config (text-only configs give empty lists): indices, native frames, timestamps, policy and its source. */
  configs: ConfigFrames[];
  /** Sorted native frames over all configs, each once. */
  union: number[];
  /** Resolves when every frame of the union is exact (or failed); tiles arrive through onTile first. */
  frames: Promise<FrameBatchResult>;
}

/**
 * The item view's entry point: probe (cached), work out every config's frames, then extract
 * their union. Returns as soon as the layout is known so the strips can be drawn at once;
 * tiles fill in through onTile (approximate first, then exact).
 */
export async function stripsForItem(service: FrameService, input: ItemStripInput, opts: ItemStripOptions = {}): Promise<ItemStrips> {
  // The keyframe pass needs only the file, so it overlaps the probe on a cold open.
  if (opts.approximate ?? true)
    void service.prefetchKeyframes(input.videoPath, opts.spec, { priority: opts.priority ?? 0, ...(opts.signal ? { signal: opts.signal } : {}) });
  const meta = await service.probe(input.videoPath, opts.signal);
  const configs = input.configs.map((c) =>
    selectFramesForConfig({
      meta,
      config: c.config,
      model: input.model,
      recorded: c.recorded ?? null,
      override: input.overrides?.[c.config.key] ?? null,
      videoId: input.videoId ?? null,
      caches: input.caches ?? null,
    }),
  );
  const union = unionOfFrames(configs);
  const frames = service.requestFrames({
    video: meta,
    indices: union,
    ...(opts.spec ? { spec: opts.spec } : {}),
    ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.approximate !== undefined ? { approximate: opts.approximate } : {}),
    ...(opts.onTile ? { onTile: opts.onTile } : {}),
  });
  // The caller may only await it later; keep an early rejection from being reported as unhandled.
  frames.catch(() => {});
  return { meta, configs, union, frames };
}
