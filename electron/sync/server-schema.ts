/**
 * The schema of team spaces on a PostgreSQL server (docs/team-sync.md). Numbered migrations,
 * like the project store's, recorded in `flipbook.schema_migrations`; the first sync against a
 * database creates it. All pending steps run in ONE transaction under an advisory lock, so two
 * clients syncing for the first time at once cannot both migrate.
 *
 * Rights are PostgreSQL's own: two group roles, `flipbook_reviewer` (read) and
 * `flipbook_annotator` (read + append events under its own name, checked by a row-level
 * security policy on current_user). No UPDATE or DELETE is granted to anyone but the owner:
 * the event log is append-only on the server too.
 */
import type { ClientBase } from 'pg';

export interface ServerMigration {
  version: number;
  name: string;
  sql: string;
}

export const SERVER_MIGRATIONS: readonly ServerMigration[] = [
  {
    version: 10,
    name: 'spaces-and-events',
    sql: `
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flipbook_reviewer') THEN CREATE ROLE flipbook_reviewer NOLOGIN; END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'flipbook_annotator') THEN CREATE ROLE flipbook_annotator NOLOGIN; END IF;
END $$;

CREATE TABLE flipbook.spaces (
  name       text PRIMARY KEY CHECK (name <> ''),
  -- A fresh id per space: a client whose cursor names another id (the space was dropped and
  -- made again) starts over instead of trusting a cursor into a different log.
  id         uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  -- What the space's release is (sha256 of labels/per_item.csv as exported, and what it holds).
  release    jsonb NOT NULL,
  created_by text NOT NULL DEFAULT current_user,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Append-only. id is the server's order and every client's pull cursor: it is assigned under
-- a lock taken before any row of a push is formed (trigger below), so ids become visible in
-- increasing order and "everything after my cursor" never skips a late commit.
CREATE TABLE flipbook.events (
  id               bigserial PRIMARY KEY,
  space            text NOT NULL REFERENCES flipbook.spaces (name),
  uuid             text NOT NULL,
  at               text NOT NULL,
  annotator        text NOT NULL,
  device           text NOT NULL,
  local_seq        bigint NOT NULL,
  model            text NOT NULL,
  split            text NOT NULL,
  sample_id        text NOT NULL,
  kind             text NOT NULL,
  -- json (not jsonb) keeps the payload's text as written, so every project exports the same bytes.
  payload          json NOT NULL,
  codebook_version integer,
  target_uuid      text,
  pushed_by        text NOT NULL DEFAULT current_user,
  received_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (space, uuid)
);

CREATE FUNCTION flipbook.serialize_pushes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('flipbook.events'));
  RETURN NULL;
END $$;
CREATE TRIGGER events_serialize BEFORE INSERT ON flipbook.events FOR EACH STATEMENT EXECUTE FUNCTION flipbook.serialize_pushes();

ALTER TABLE flipbook.events ENABLE ROW LEVEL SECURITY;
CREATE POLICY events_read ON flipbook.events FOR SELECT USING (true);
CREATE POLICY events_push_own ON flipbook.events FOR INSERT TO flipbook_annotator
  WITH CHECK (annotator = current_user AND pushed_by = current_user);

GRANT USAGE ON SCHEMA flipbook TO flipbook_reviewer, flipbook_annotator;
GRANT SELECT ON flipbook.spaces, flipbook.events, flipbook.schema_migrations TO flipbook_reviewer, flipbook_annotator;
GRANT INSERT ON flipbook.spaces, flipbook.events TO flipbook_annotator;
GRANT USAGE ON SEQUENCE flipbook.events_id_seq TO flipbook_annotator;
`,
  },
  {
    version: 20,
    name: 'space-codebooks',
    sql: `
-- A space's codebook versions (docs/team-sync.md §1): one definition per version number,
-- append-only like the events. The first sync of a space stores the project's versions; a
-- space made before this migration gets them from the next sync of any project.
CREATE TABLE flipbook.codebooks (
  space       text NOT NULL REFERENCES flipbook.spaces (name),
  version     integer NOT NULL CHECK (version >= 0),
  codebook_id text NOT NULL,
  -- json (not jsonb) keeps the definition's text as the project stored it.
  definition  json NOT NULL,
  created_at  text NOT NULL,
  pushed_by   text NOT NULL DEFAULT current_user,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (space, version)
);

ALTER TABLE flipbook.codebooks ENABLE ROW LEVEL SECURITY;
CREATE POLICY codebooks_read ON flipbook.codebooks FOR SELECT USING (true);
CREATE POLICY codebooks_push_own ON flipbook.codebooks FOR INSERT TO flipbook_annotator WITH CHECK (pushed_by = current_user);

GRANT SELECT ON flipbook.codebooks TO flipbook_reviewer, flipbook_annotator;
GRANT INSERT ON flipbook.codebooks TO flipbook_annotator;
`,
  },
];

export const SERVER_SCHEMA_VERSION = SERVER_MIGRATIONS[SERVER_MIGRATIONS.length - 1]!.version;

export class ServerSchemaError extends Error {}

/** The schema version on the server (0 when Flipbook has never been there). */
export async function serverSchemaVersion(client: ClientBase): Promise<number> {
  // Two queries: a subquery on a missing table fails when parsed, even in a branch never taken.
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('flipbook.schema_migrations') AS t");
  if (exists.rows[0]?.t == null) return 0;
  const r = await client.query<{ v: number | null }>('SELECT coalesce(max(version), 0) AS v FROM flipbook.schema_migrations');
  return Number(r.rows[0]?.v ?? 0);
}

/**
 * Brings the server's schema to SERVER_SCHEMA_VERSION. Refuses a newer schema (a newer
 * Flipbook made it) and says who may migrate when the connected role lacks the rights.
 */
export async function migrateServer(client: ClientBase, migrations: readonly ServerMigration[] = SERVER_MIGRATIONS): Promise<{ from: number; to: number }> {
  const latest = migrations[migrations.length - 1]!.version;
  await client.query('BEGIN');
  try {
    // Serialize first syncs; the lock ends with the transaction.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('flipbook.schema'))");
    const from = await serverSchemaVersion(client);
    if (from > latest) {
      throw new ServerSchemaError(`the server's Flipbook schema is version ${from}; this Flipbook knows up to ${latest} — update Flipbook`);
    }
    const pending = migrations.filter((m) => m.version > from);
    if (from === 0) {
      await client.query('CREATE SCHEMA IF NOT EXISTS flipbook');
      await client.query(
        'CREATE TABLE IF NOT EXISTS flipbook.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_by text NOT NULL DEFAULT current_user, applied_at timestamptz NOT NULL DEFAULT now())',
      );
    }
    for (const m of pending) {
      await client.query(m.sql);
      await client.query('INSERT INTO flipbook.schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
    return { from, to: pending.length ? latest : from };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (err instanceof ServerSchemaError) throw err;
    const code = (err as { code?: string }).code;
    // 42501 insufficient_privilege: an annotator's role cannot create schemas or roles.
    if (code === '42501') {
      throw new ServerSchemaError(
        `the server has no Flipbook schema (or an older one) and this role may not create it: ${(err as Error).message}. ` +
          'Run the first sync as the database owner (a role with CREATE on the database and CREATEROLE), see docs/team-sync.md',
      );
    }
    throw err;
  }
}
