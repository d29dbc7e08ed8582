-- Flipbook project schema, version 60: an evidence span's id is unique within its key (model,
-- split, item, annotator), not across the project. Span ids come from the annotator's own
-- events; keyed by id alone, another annotator's span with the same id (a merged bundle, a
-- team space, docs/team-sync.md §3) replaced this one's row and took it out of her state.
CREATE TABLE evidence_spans_by_annotator (
  id         TEXT NOT NULL,                -- a uuid, stable across merge
  model      TEXT NOT NULL,
  split      TEXT NOT NULL,
  sample_id  TEXT NOT NULL,
  annotator  TEXT NOT NULL,
  start_s    REAL NOT NULL,
  end_s      REAL NOT NULL,
  label      TEXT NOT NULL DEFAULT '',
  covered_by TEXT NOT NULL DEFAULT '[]',   -- JSON array of config keys
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (model, split, sample_id, annotator, id)
) WITHOUT ROWID;
INSERT INTO evidence_spans_by_annotator (id, model, split, sample_id, annotator, start_s, end_s, label, covered_by, created_at, updated_at)
  SELECT id, model, split, sample_id, annotator, start_s, end_s, label, covered_by, created_at, updated_at FROM evidence_spans;
DROP TABLE evidence_spans;   -- and its index by key, which the new primary key replaces
ALTER TABLE evidence_spans_by_annotator RENAME TO evidence_spans;
