-- Flipbook project schema, version 70: the file says it is Flipbook's (SQLite's application_id,
-- "FLPB"), so that another application's SQLite file is told from a project before anything is
-- written to it (electron/store/identify.ts, docs/security.md "The project file").
PRAGMA application_id = 1179406402;
