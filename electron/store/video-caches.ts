/**
 * The frame caches of cached pipelines (migration 0080; the release's cache_frames.py
 * metadata): imported with the import's transaction, read by the frame selection so a cached
 * config's strips show the cache's own frames (docs/metrics.md §8).
 */
import type Database from 'better-sqlite3';
import type { ImportBatch, VideoCache } from '../../shared/domain/types';
import { ImportError } from '../importers/errors';

interface Row {
  video_id: string;
  fps: number;
  frame_count: number;
  duration_s: number | null;
  timestamps: string;
  source: string | null;
}

const fromRow = (r: Row): VideoCache => ({
  videoId: r.video_id,
  fps: r.fps,
  frameCount: r.frame_count,
  durationS: r.duration_s,
  timestampsS: JSON.parse(r.timestamps) as number[],
  source: r.source,
});

/**
 * Stores the batches' caches. The same cache again is nothing; a cache of the same video and
 * rate with other frames is refused (`file:line: field: reason`), as every other recorded value is.
 */
export function applyVideoCaches(db: Database.Database, batches: readonly ImportBatch[]): number {
  const get = db.prepare<[string, number], Row>('SELECT * FROM video_caches WHERE video_id = ? AND fps = ?');
  const put = db.prepare('INSERT INTO video_caches (video_id, fps, frame_count, duration_s, timestamps, source) VALUES (?, ?, ?, ?, ?, ?)');
  let added = 0;
  for (const b of batches) {
    for (const c of b.videoCaches ?? []) {
      const timestamps = JSON.stringify(c.timestampsS);
      const old = get.get(c.videoId, c.fps);
      if (old) {
        if (old.frame_count !== c.frameCount || old.timestamps !== timestamps) {
          throw new ImportError(
            c.source ?? b.run.sourcePath,
            c.line ?? 0,
            'frame_count',
            `video ${c.videoId} already has a ${c.fps} fps cache of ${old.frame_count} frames (from ${old.source ?? 'an earlier import'}); this one has ${c.frameCount} with other timestamps`,
          );
        }
        continue;
      }
      put.run(c.videoId, c.fps, c.frameCount, c.durationS, timestamps, c.source);
      added++;
    }
  }
  return added;
}

/** Every cache of one video (any rate). */
export function videoCachesOf(db: Database.Database, videoId: string): VideoCache[] {
  return db.prepare<[string], Row>('SELECT * FROM video_caches WHERE video_id = ? ORDER BY fps').all(videoId).map(fromRow);
}
