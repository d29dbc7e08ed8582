-- Flipbook project schema, version 20: responses stored column-wise.
-- One row per grid column (model, split, config) holding packed typed-array BLOBs; the
-- layouts are documented in electron/store/response-columns.ts. A rowid table (not WITHOUT
-- ROWID) because its rows are large. The cell rows of version 10 are converted by the JS
-- step of this migration (electron/store/migrate-columnar.ts), which then drops `responses`.

CREATE TABLE response_columns (
  id            INTEGER PRIMARY KEY,
  model_id      INTEGER NOT NULL REFERENCES models(id),
  split_id      INTEGER NOT NULL REFERENCES splits(id),
  config_id     INTEGER NOT NULL REFERENCES configs(id),
  n_cells       INTEGER NOT NULL,
  n_correct     INTEGER NOT NULL,   -- cells with a known correct
  n_score       INTEGER NOT NULL,   -- cells with a score
  item_ids      BLOB NOT NULL,      -- int32 × n, ascending: the cell order of every BLOB below
  correct       BLOB NOT NULL,      -- int8 × n: 1, 0, -1 = NULL
  pred          BLOB NOT NULL,      -- string table
  ground_truth  BLOB NOT NULL,      -- string table
  score         BLOB,               -- float64 × n, NaN = NULL; NULL when no cell has one
  confidence    BLOB,
  margin        BLOB,
  latency_ms    BLOB,
  frame_indices BLOB,               -- presence + offsets + values; NULL when no cell has frames
  source_tag    BLOB NOT NULL,      -- string table
  protocol_note BLOB NOT NULL,      -- string table
  run_ids       BLOB NOT NULL,      -- int32 × n, 0 = unknown
  lines         BLOB NOT NULL,      -- int32 × n, -1 = unknown
  UNIQUE (model_id, split_id, config_id)
);
CREATE INDEX response_columns_by_split ON response_columns (split_id);
