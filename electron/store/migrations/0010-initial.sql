-- Flipbook project schema, version 10.
-- Responses are the bulk of a project (hundreds of thousands of cells): they live in one
-- WITHOUT ROWID table keyed by small integer ids so that one (model, split) is a single
-- contiguous range of the primary key and loads in one ordered scan.

CREATE TABLE models (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

CREATE TABLE splits (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

-- Provenance of one imported file. Re-importing identical bytes reuses the row (sha256).
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  source_path  TEXT NOT NULL,
  sha256       TEXT NOT NULL,
  format       TEXT NOT NULL,
  toolkit      TEXT,
  model_args   TEXT,
  imported_at  TEXT NOT NULL,
  n_items      INTEGER NOT NULL DEFAULT 0,
  n_responses  INTEGER NOT NULL DEFAULT 0,
  n_configs    INTEGER NOT NULL DEFAULT 0,
  UNIQUE (sha256, format)
);

-- Items are keyed by (split, sample_id): sample ids collide across benchmarks.
CREATE TABLE items (
  id              INTEGER PRIMARY KEY,
  split_id        INTEGER NOT NULL REFERENCES splits(id),
  sample_id       TEXT NOT NULL,
  question        TEXT,
  options         TEXT,          -- JSON array of option texts, letter order
  answer          TEXT,
  references_json TEXT,          -- JSON array of reference texts (open-ended)
  task_type       TEXT,
  duration_s      REAL,
  duration_bucket TEXT,
  domain          TEXT,
  sub_category    TEXT,
  video_id        TEXT,
  video_file      TEXT,
  kind            TEXT CHECK (kind IN ('mcqa', 'open')),
  UNIQUE (split_id, sample_id)
);

-- One row per config key with the provenance known project-wide (provenance/configs.json).
CREATE TABLE configs (
  id              INTEGER PRIMARY KEY,
  key             TEXT NOT NULL UNIQUE,
  frames          INTEGER NOT NULL,
  pixel_count     INTEGER,
  width           INTEGER,
  height          INTEGER,
  sampling_policy TEXT,
  sampling_seed   INTEGER,
  sampling_fps    REAL,
  pipeline        TEXT,
  toolkit         TEXT,
  model_args      TEXT,
  notes           TEXT
);

-- The same config key can have been run differently per model (e.g. the toolkit's default
-- sampler differs between Qwen and LLaVA): per-grid provenance overrides, NULL = as in configs.
CREATE TABLE grid_configs (
  model_id        INTEGER NOT NULL REFERENCES models(id),
  split_id        INTEGER NOT NULL REFERENCES splits(id),
  config_id       INTEGER NOT NULL REFERENCES configs(id),
  width           INTEGER,
  height          INTEGER,
  sampling_policy TEXT,
  sampling_seed   INTEGER,
  sampling_fps    REAL,
  pipeline        TEXT,
  toolkit         TEXT,
  model_args      TEXT,
  notes           TEXT,
  run_id          INTEGER REFERENCES runs(id),
  PRIMARY KEY (model_id, split_id, config_id)
) WITHOUT ROWID;

CREATE TABLE responses (
  model_id      INTEGER NOT NULL REFERENCES models(id),
  split_id      INTEGER NOT NULL REFERENCES splits(id),
  item_id       INTEGER NOT NULL REFERENCES items(id),
  config_id     INTEGER NOT NULL REFERENCES configs(id),
  pred          TEXT,
  correct       INTEGER CHECK (correct IN (0, 1)),
  score         REAL,
  ground_truth  TEXT,
  confidence    REAL,
  margin        REAL,
  latency_ms    REAL,
  frame_indices BLOB,            -- little-endian int32 array
  source_tag    TEXT,
  protocol_note TEXT,
  run_id        INTEGER REFERENCES runs(id),
  line          INTEGER,
  PRIMARY KEY (model_id, split_id, item_id, config_id)
) WITHOUT ROWID;
CREATE INDEX responses_by_item ON responses (item_id);

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL            -- JSON
) WITHOUT ROWID;

-- Every codebook version ever used; the current one is the highest version.
CREATE TABLE codebooks (
  version     INTEGER PRIMARY KEY,
  codebook_id TEXT NOT NULL,
  json        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);

CREATE TABLE annotators (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);

-- Append-only. Never updated or deleted: undo/redo are events that name their target.
-- Items are referenced by name, not id, so that a merged bundle may mention items this
-- project does not (yet) hold.
CREATE TABLE annotation_events (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid             TEXT NOT NULL UNIQUE,
  at               TEXT NOT NULL,          -- ISO 8601 UTC with milliseconds
  annotator        TEXT NOT NULL,
  model            TEXT NOT NULL,
  split            TEXT NOT NULL,
  sample_id        TEXT NOT NULL,
  kind             TEXT NOT NULL,          -- an edit op, 'undo' or 'redo'
  payload          TEXT NOT NULL,          -- JSON
  codebook_version INTEGER,
  target_uuid      TEXT,                   -- undo/redo: the edit event they act on
  origin           TEXT NOT NULL DEFAULT 'local' CHECK (origin IN ('local', 'merged'))
);
CREATE INDEX annotation_events_by_key ON annotation_events (model, split, sample_id, annotator);
CREATE INDEX annotation_events_by_annotator ON annotation_events (annotator, seq);

-- Current state, recomputed from the events of its key in the same transaction as each event.
CREATE TABLE annotation_state (
  model            TEXT NOT NULL,
  split            TEXT NOT NULL,
  sample_id        TEXT NOT NULL,
  annotator        TEXT NOT NULL,
  status           TEXT NOT NULL,
  primary_pathway  TEXT,
  pathways         TEXT NOT NULL,          -- JSON array of pathway ids, sorted
  transition       TEXT,
  notes            TEXT NOT NULL DEFAULT '',
  confidence       INTEGER CHECK (confidence BETWEEN 1 AND 5),
  codebook_version INTEGER,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  PRIMARY KEY (model, split, sample_id, annotator)
) WITHOUT ROWID;
CREATE INDEX annotation_state_by_status ON annotation_state (status);

CREATE TABLE evidence_spans (
  id         TEXT PRIMARY KEY,             -- a uuid, stable across merge
  model      TEXT NOT NULL,
  split      TEXT NOT NULL,
  sample_id  TEXT NOT NULL,
  annotator  TEXT NOT NULL,
  start_s    REAL NOT NULL,
  end_s      REAL NOT NULL,
  label      TEXT NOT NULL DEFAULT '',
  covered_by TEXT NOT NULL DEFAULT '[]',   -- JSON array of config keys
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX evidence_spans_by_key ON evidence_spans (model, split, sample_id, annotator);

CREATE TABLE saved_views (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  json       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- Video metadata cache for the frames engine: valid while (size, mtime_ms, head_tail_hash) match.
CREATE TABLE media (
  path           TEXT PRIMARY KEY,
  size           INTEGER NOT NULL,
  mtime_ms       REAL NOT NULL,
  head_tail_hash TEXT NOT NULL,
  json           TEXT NOT NULL
) WITHOUT ROWID;
