-- Flipbook project schema, version 40: the audit queue's rows are kept as one compact value
-- (electron/services/queue-data.ts, docs/architecture.md "The queue at lab scale") instead of
-- one table row per (model, split, item) with an index per sort order, which cost most of a
-- lab-sized import. Nothing dropped here is source data: the queue is derived again when
-- next asked.
DROP TABLE queue_rows;   -- and its indexes
ALTER TABLE derived ADD COLUMN data BLOB;   -- a derived value stored as bytes (the queue's rows)
DELETE FROM derived WHERE name = 'queue';
