/**
 * Which video file an item names, checked against the project's media root and allowed
 * folders (docs/security.md "Media root"). Apart from the frame code (item-frames.ts), so that
 * the queue's derivation, run by every import, loads no frame selection or video metadata code.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Project } from '../store/project';

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
    return {
      file: null,
      error: `refused: ${JSON.stringify(videoFile)} leads outside the media root (${folders[0]}); add its folder to the project's allowed media folders to play it`,
    };
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
