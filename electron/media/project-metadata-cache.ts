import type { FileIdentity } from './file-identity';
import { createMemoryMetadataCache, type MetadataCache } from './metadata-cache';
import { VideoMetaSchema } from './video-meta';

/** The part of the project store the cache needs (electron/store Project satisfies it). */
export interface MediaTable {
  getMedia(path: string): { path: string; size: number; mtimeMs: number; headTailHash: string; json: unknown } | undefined;
  putMedia(entry: { path: string; size: number; mtimeMs: number; headTailHash: string; json: unknown }): void;
  readonly readOnly?: boolean;
}

/**
 * Metadata cache over the project's `media` table, so ffprobe runs once per video per
 * project. A row counts only while size, mtime and the head/tail hash all match, and its
 * JSON must still validate (an older app version may have written another shape).
 * Writes to a read-only project are skipped (kept in memory only): the cache is an
 * optimisation, never a reason to fail. A memory layer answers repeat lookups within a
 * session without re-parsing the row (reopening an item must stay well under 100 ms).
 */
export function createProjectMetadataCache(table: MediaTable): MetadataCache {
  const memory = createMemoryMetadataCache();
  return {
    get(key: FileIdentity) {
      const hit = memory.get(key);
      if (hit) return hit;
      const row = table.getMedia(key.path);
      if (!row || row.size !== key.size || row.mtimeMs !== key.mtimeMs || row.headTailHash !== key.headTailHash) return null;
      const parsed = VideoMetaSchema.safeParse(row.json);
      if (!parsed.success) return null;
      memory.set(key, parsed.data);
      return parsed.data;
    },
    set(key, meta) {
      memory.set(key, meta);
      if (table.readOnly) return;
      try {
        table.putMedia({ path: key.path, size: key.size, mtimeMs: key.mtimeMs, headTailHash: key.headTailHash, json: meta });
      } catch {
        // read-only database or locked: keep working without the cache
      }
    },
  };
}
