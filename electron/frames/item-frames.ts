/**
 * Which frames each config of an item saw, from the project: the item's video under the media
 * root, its probed metadata, recorded frame_indices, the project's sampler overrides and the
 * configs' provenance (docs/metrics.md §8). One place, so the item view's strips, `flipbook frames`
 * and the cascade's shared frame cost (docs/metrics.md §5) agree on the frames.
 */
import * as z from 'zod';
import { SAMPLING_POLICIES, type ConfigSpec, type VideoCache } from '../../shared/domain/types';
import { selectFramesForConfig, type ConfigFrames, type SamplingOverride } from './frame-selection';
import type { VideoMeta } from '../media/video-meta';
import type { Project } from '../store/project';
import { videoPathOf } from '../media/item-video';

/** Project setting 'samplerOverrides': per config key, the policy / seed / cache rate to use instead. */
export const SamplerOverridesSchema = z.record(
  z.string(),
  z.object({
    policy: z.enum(SAMPLING_POLICIES).optional(),
    seed: z.number().int().optional(),
    fps: z.number().positive().nullable().optional(),
  }),
);

export function samplerOverridesOf(project: Project): Record<string, SamplingOverride> {
  const raw = project.getSetting<unknown>('samplerOverrides');
  if (raw === undefined) return {};
  const parsed = SamplerOverridesSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${project.path}: setting 'samplerOverrides' is invalid: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/** The frame caches of an item's video (cached pipelines' metadata), [] when it names no video id. */
export function videoCachesOfItem(project: Project, split: string, sampleId: string): VideoCache[] {
  const videoId = project.getItem(split, sampleId)?.videoId ?? null;
  return videoId !== null ? project.videoCaches(videoId) : [];
}

export interface ItemFrames {
  meta: VideoMeta;
  configs: ConfigFrames[];
}

/** Frames per config for one item; null when the item has no readable video path. */
export async function selectItemFrames(
  project: Project,
  probe: (file: string) => Promise<VideoMeta>,
  item: { model: string; split: string; sampleId: string },
  configs: ConfigSpec[],
  overrides: Record<string, SamplingOverride> = samplerOverridesOf(project),
): Promise<ItemFrames | null> {
  const { file } = videoPathOf(project, item.split, item.sampleId);
  if (file === null) return null;
  const meta = await probe(file);
  const recorded = new Map(project.responsesForItem(item.model, item.split, item.sampleId).map((r) => [r.config, r.frameIndices]));
  const videoId = project.getItem(item.split, item.sampleId)?.videoId ?? null;
  const caches = videoCachesOfItem(project, item.split, item.sampleId);
  return {
    meta,
    configs: configs.map((c) =>
      selectFramesForConfig({ meta, config: c, model: item.model, recorded: recorded.get(c.key) ?? null, override: overrides[c.key] ?? null, videoId, caches }),
    ),
  };
}
