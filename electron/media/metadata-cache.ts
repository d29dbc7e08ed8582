import { readFile, writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import type { FileIdentity } from './file-identity';
import { VideoMetaSchema, type VideoMeta } from './video-meta';

/**
 * Where probed metadata is kept. The project store implements this over its `media` table
 * (path, size, mtime_ms, head_tail_hash, json); the CLI and tests use the in-memory or
 * JSON-file versions below. A hit requires all four key parts to match, so an edited or
 * replaced video is probed again.
 */
export interface MetadataCache {
  get(key: FileIdentity): Promise<VideoMeta | null> | VideoMeta | null;
  set(key: FileIdentity, meta: VideoMeta): Promise<void> | void;
}

function keyString(k: FileIdentity): string {
  return `${k.path}\u0000${k.size}\u0000${k.mtimeMs}\u0000${k.headTailHash}`;
}

export function createMemoryMetadataCache(): MetadataCache {
  const map = new Map<string, VideoMeta>();
  return {
    get: (k) => map.get(keyString(k)) ?? null,
    set: (k, m) => {
      map.set(keyString(k), m);
    },
  };
}

const FileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), z.unknown()),
});

/** A JSON file of entries; an unreadable or invalid file is treated as empty (it is only a cache). */
export function createJsonFileMetadataCache(file: string): MetadataCache {
  let loaded: Map<string, unknown> | null = null;
  async function load(): Promise<Map<string, unknown>> {
    if (loaded) return loaded;
    try {
      const parsed = FileSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
      loaded = new Map(parsed.success ? Object.entries(parsed.data.entries) : []);
    } catch {
      loaded = new Map();
    }
    return loaded;
  }
  return {
    async get(k) {
      const raw = (await load()).get(keyString(k));
      if (raw === undefined) return null;
      const parsed = VideoMetaSchema.safeParse(raw);
      return parsed.success ? parsed.data : null;
    },
    async set(k, m) {
      const map = await load();
      map.set(keyString(k), m);
      await mkdir(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify({ version: 1, entries: Object.fromEntries(map) }));
      await rename(tmp, file);
    },
  };
}
