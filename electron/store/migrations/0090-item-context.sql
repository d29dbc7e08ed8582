-- Flipbook project schema, version 90: the context of a generation item (a dialogue's earlier
-- turns, the benchmark's descriptions, a rendered prompt), as the canonical JSON of
-- shared/domain/item-context.ts; NULL for items without one.
ALTER TABLE items ADD COLUMN context_json TEXT;
