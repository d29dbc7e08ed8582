-- Flipbook project schema, version 80: the frame caches of a cached pipeline (the release's
-- cache_frames.py writes one metadata.json per video), so a cached config's strips show the
-- frames it saw: the cache's own frame count and each cache frame's timestamp
-- (docs/formats.md "The release's pipeline files", docs/metrics.md §8).
CREATE TABLE video_caches (
  video_id    TEXT NOT NULL,
  fps         REAL NOT NULL,      -- the cache rate r (ffmpeg fps=r)
  frame_count INTEGER NOT NULL,   -- T of the cache domain: the frames written
  duration_s  REAL,
  timestamps  TEXT NOT NULL,      -- JSON array: the time (s) of each cache frame
  source      TEXT,               -- the metadata file it came from
  PRIMARY KEY (video_id, fps)
) WITHOUT ROWID;
