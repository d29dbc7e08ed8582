-- Events a team-space sync set aside (docs/team-sync.md §3): rows pulled that break the event
-- rules or the clock bound, kinds a newer Flipbook wrote (kept, ignored by this one), rows whose
-- uuid names another event here, and this project's own edits the server will not take. Never
-- applied; kept so that nothing is lost and the CLI and the Sync panel can name them.
CREATE TABLE sync_held (
  id        INTEGER PRIMARY KEY,
  server    TEXT NOT NULL,
  space     TEXT NOT NULL,
  space_id  TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('pull', 'push')),
  ref       INTEGER NOT NULL,   -- pull: the server's event id; push: the event's local seq
  uuid      TEXT NOT NULL,      -- as it came, cut to 200 characters
  reason    TEXT NOT NULL,
  event     TEXT NOT NULL,      -- JSON: the row as pulled, or the event as stored here
  held_at   TEXT NOT NULL,
  UNIQUE (server, space, space_id, direction, ref)
);
