/**
 * Which frames each config of an item saw, from the project: the item's video under the media
 * root, its probed metadata, recorded frame_indices, the project's sampler overrides and the
 * configs' provenance (docs/metrics.md §8). One place, so the item view's strips, `flipbook frames`
 * and the cascade's shared frame cost (docs/metrics.md §5) agree on the frames.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { SAMPLING_POLICIES, type ConfigSpec } from '../../shared/domain/types';
import { selectFramesForConfig, type ConfigFrames, type SamplingOverride } from '../frames/frame-selection';
import type { VideoMeta } from '../media/video-meta';
import type { Project } from '../store/project';

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

export function mediaRootOf(project: Project): string | null {
  const v = project.getSetting<unknown>('mediaRoot');
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * Project setting 'mediaAllowedRoots': further folders (absolute) whose videos may be played,
 * for imports that name absolute video paths outside the media root (docs/security.md).
 */
export function allowedMediaRootsOf(project: Project): string[] {
  const v = project.getSetting<unknown>('mediaAllowedRoots');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && path.isAbsolute(x)) : [];
}

/** Extensions of the containers the frame engine and the player read; anything else never reaches ffmpeg. */
export const VIDEO_EXTENSIONS = new Set(['.mp4', '.m4v', '.mov', '.webm', '.mkv', '.avi', '.ts', '.mts', '.m2ts', '.mpg', '.mpeg', '.ogv', '.flv', '.wmv', '.3gp']);

const inside = (folder: string, file: string): boolean => {
  const rel = path.relative(folder, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

const real = (p: string): string | null => {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
};

/**
 * Where an imported video name may lead (docs/security.md, "Media root"): the real path (all
 * symlinks resolved) must lie inside the media root or a folder of 'mediaAllowedRoots', and
 * be a video container by its extension. `../`, absolute paths and symlinks that leave those
 * folders, and non-video files (a `.nfo` ffmpeg would render as text), are refused by name.
 * The folders are resolved once (for loops over every item).
 */
export function videoResolver(root: string, allowed: readonly string[]): (videoFile: string) => { file: string | null; error: string | null } {
  const folders = [root, ...allowed].map(real).filter((p): p is string => p !== null);
  return (videoFile) => checkVideo(root, folders, videoFile);
}

function checkVideo(root: string, folders: readonly string[], videoFile: string): { file: string | null; error: string | null } {
  if (folders.length === 0) return { file: null, error: `the media root does not exist: ${root}` };
  const given = path.resolve(root, videoFile);
  const file = real(given);
  if (file === null) return { file: null, error: `video not found: ${given}` };
  if (!folders.some((f) => inside(f, file))) {
    return { file: null, error: `refused: ${JSON.stringify(videoFile)} leads outside the media root (${folders[0]}); add its folder to the project's allowed media folders to play it` };
  }
  if (!VIDEO_EXTENSIONS.has(path.extname(file).toLowerCase())) {
    return { file: null, error: `refused: ${path.basename(file)} is not a video file (${[...VIDEO_EXTENSIONS].join(' ')})` };
  }
  if (!fs.statSync(file).isFile()) return { file: null, error: `not a file: ${file}` };
  return { file, error: null };
}

/** The project's check of item video names (videoResolver), settings read once. */
export function projectVideoResolver(project: Project): (videoFile: string | null | undefined) => { file: string | null; error: string | null } {
  const root = mediaRootOf(project);
  const check = root === null ? null : videoResolver(root, allowedMediaRootsOf(project));
  return (videoFile) => {
    if (!videoFile) return { file: null, error: 'the item names no video file' };
    if (check === null) return { file: null, error: 'no media root is set for this project (Project → Media root)' };
    return check(videoFile);
  };
}

/** The item's video file, or why there is none (shown where the video would be). */
export function videoPathOf(project: Project, split: string, sampleId: string): { file: string | null; error: string | null } {
  return projectVideoResolver(project)(project.getItem(split, sampleId)?.videoFile);
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
  return {
    meta,
    configs: configs.map((c) =>
      selectFramesForConfig({ meta, config: c, model: item.model, recorded: recorded.get(c.key) ?? null, override: overrides[c.key] ?? null, videoId }),
    ),
  };
}
