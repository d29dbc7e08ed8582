import { mkdir, rename, writeFile, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ImageSpec } from './decode-run';

/**
 * Content-addressed frame cache: <cacheDir>/<hash[0..2]>/<hash>/<index>-<size>.<ext>, where
 * hash is the video's head/tail content hash — a renamed or moved video keeps its frames, an
 * edited one gets new ones. A cache hit costs one file read.
 */
export function frameCacheDirForProject(projectFile: string): string {
  return join(dirname(projectFile), `${basename(projectFile)}.frames`);
}

function sizeTag(spec: ImageSpec): string {
  return spec.width === null ? 'full' : `w${spec.width}`;
}
function ext(spec: ImageSpec): string {
  return spec.format === 'jpeg' ? 'jpg' : 'webp';
}

export function videoCacheDir(cacheDir: string, hash: string): string {
  return join(cacheDir, hash.slice(0, 2), hash);
}

export function exactFramePath(cacheDir: string, hash: string, index: number, spec: ImageSpec): string {
  return join(videoCacheDir(cacheDir, hash), `${index}-${sizeTag(spec)}.${ext(spec)}`);
}

/** Keyframe thumbnails live under their own prefix so an approximate image is never mistaken for an exact one. */
export function keyframeThumbPath(cacheDir: string, hash: string, index: number, spec: ImageSpec): string {
  return join(videoCacheDir(cacheDir, hash), `key-${index}-${sizeTag(spec)}.${ext(spec)}`);
}

/** Written after all keyframe thumbnails of a video exist: the list of keyframe indices it covers. */
export function keyframeManifestPath(cacheDir: string, hash: string, spec: ImageSpec): string {
  return join(videoCacheDir(cacheDir, hash), `keyframes-${sizeTag(spec)}.${ext(spec)}.json`);
}

let tmpCounter = 0;
/** Write-then-rename, so a reader never sees half an image (and a killed process leaves no torn file). */
export async function writeFileAtomic(path: string, data: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${tmpCounter++}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

export async function readJsonIfExists(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch {
    return null;
  }
}
