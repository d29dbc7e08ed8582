/**
 * Opaque ids for files the renderer may load (videos, thumbnails). The renderer never sees a
 * path: the backend registers a file and hands out a random id; the media route and the
 * media:// protocol serve only ids issued here (architecture.md: Media).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface MediaEntry {
  path: string;
  mime: string;
}

export interface MediaRegistry {
  register(file: string, mime?: string): string;
  resolve(id: string): MediaEntry | undefined;
  clear(): void;
}

const MIME: Record<string, string> = {
  '.mp4': 'video/mp4',
  '.m4v': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.png': 'image/png',
};

export function mimeOf(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

export function createMediaRegistry(): MediaRegistry {
  const byId = new Map<string, MediaEntry>();
  const byPath = new Map<string, string>();
  return {
    register(file, mime) {
      const abs = path.resolve(file);
      const known = byPath.get(abs);
      if (known !== undefined) return known;
      const id = randomBytes(16).toString('base64url');
      byId.set(id, { path: abs, mime: mime ?? mimeOf(abs) });
      byPath.set(abs, id);
      return id;
    },
    resolve: (id) => byId.get(id),
    clear() {
      byId.clear();
      byPath.clear();
    },
  };
}
