-- Flipbook project schema, version 30: what views derive from the imported data, kept in the
-- project so a view's cost does not grow with the data (docs/architecture.md "The queue at
-- lab scale"). Nothing here is source data: every row can be rebuilt from the tables above.

-- `inputs` (row name 'inputs') counts changes to what the derived rows depend on: the store
-- bumps it in every import transaction and every settings write. A derived entry records the
-- value it was built from; a different value means it is stale.
CREATE TABLE derived (
  name   TEXT PRIMARY KEY,
  inputs INTEGER NOT NULL,
  json   TEXT                    -- small derived values (facets, the overview's figures)
) WITHOUT ROWID;
INSERT INTO derived (name, inputs) VALUES ('inputs', 1);

-- One row per (model, split, item) of the audit queue, built by electron/services/queue-table.ts.
CREATE TABLE queue_rows (
  id               INTEGER PRIMARY KEY,
  model            TEXT NOT NULL,
  split            TEXT NOT NULL,
  sample_id        TEXT NOT NULL,
  task_type        TEXT,
  trajectory_class TEXT,
  pattern          TEXT NOT NULL,
  flags            INTEGER NOT NULL,   -- 1 terminal regression, 2 visually confused, 4 text overwritten
  priority         INTEGER NOT NULL,   -- 0 terminal regression, 1 confused, 2 text overwritten, 3 other
  harmed           TEXT NOT NULL,      -- JSON array of 'a>b'
  rescued          TEXT NOT NULL,      -- JSON array of 'a>b'
  has_video        INTEGER NOT NULL,
  search_text      TEXT NOT NULL       -- lower-cased id, model, task type, question
);
-- One index per sort order of the queue (ties broken by model, split, sample id), so a page of
-- any order is an index walk and never a sort of every row.
CREATE UNIQUE INDEX queue_rows_by_model ON queue_rows (model, split, sample_id);
CREATE INDEX queue_rows_by_priority ON queue_rows (priority, model, split, sample_id);
CREATE INDEX queue_rows_by_sample ON queue_rows (sample_id, model, split);
CREATE INDEX queue_rows_by_split ON queue_rows (split, model, sample_id);
CREATE INDEX queue_rows_by_task ON queue_rows (coalesce(task_type, ''), model, split, sample_id);
CREATE INDEX queue_rows_by_class ON queue_rows (coalesce(trajectory_class, ''), model, split, sample_id);
