/**
 * Probed video metadata kept in the project's `media` table (electron/store), so reopening an
 * item — or the whole project after a restart — does not run ffprobe over the file again
 * (a 10-minute 720p video takes about a second to probe). A memory layer answers repeat
 * lookups within a session; a read-only project keeps new entries in memory only.
 */
import type { FileIdentity } from '../media/file-identity';
import { createMemoryMetadataCache, type MetadataCache } from '../media/metadata-cache';
import { VideoMetaSchema } from '../media/video-meta';
import type { Project } from '../store/project';

export function createProjectMetadataCache(project: Project): MetadataCache {
  const memory = createMemoryMetadataCache();
  const same = (a: FileIdentity, b: { size: number; mtimeMs: number; headTailHash: string }) =>
    a.size === b.size && a.mtimeMs === b.mtimeMs && a.headTailHash === b.headTailHash;
  return {
    get(k) {
      const hit = memory.get(k);
      if (hit) return hit;
      const row = project.getMedia(k.path);
      if (!row || !same(k, row)) return null;
      const parsed = VideoMetaSchema.safeParse(row.json);
      if (!parsed.success) return null;
      memory.set(k, parsed.data);
      return parsed.data;
    },
    set(k, meta) {
      memory.set(k, meta);
      if (project.readOnly) return;
      try {
        project.putMedia({ path: k.path, size: k.size, mtimeMs: k.mtimeMs, headTailHash: k.headTailHash, json: meta });
      } catch {
        // Only a cache: a busy or failing write must not fail the probe that produced it.
      }
    },
  };
}
