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
  {
    version: 30,
    name: 'validation-clock-ownership-lock',
    sql: String.raw`
-- Validation at the door (docs/team-sync.md, "Validation at the door"): the rules of electron/sync/event-rules.ts,
-- which every client also applies to what it pulls. Rows stored before this migration are not
-- checked again; clients set aside those that break the rules.
CREATE FUNCTION flipbook.event_problem(e flipbook.events) RETURNS text LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog AS $$
DECLARE
  p json := e.payload;
  statuses text[] := ARRAY['todo', 'in_progress', 'done', 'skipped', 'needs_review'];
  y int; mo int; d int; h int; mi int; s int;
  t text;
BEGIN
  IF e.uuid IS NULL OR e.uuid !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
    RETURN 'uuid: not a lower-case UUID (8-4-4-4-12 hex digits)';
  END IF;
  IF e.at IS NULL OR e.at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$' THEN
    RETURN 'at: not an ISO 8601 UTC time with milliseconds (YYYY-MM-DDTHH:MM:SS.sssZ)';
  END IF;
  y := substr(e.at, 1, 4)::int; mo := substr(e.at, 6, 2)::int; d := substr(e.at, 9, 2)::int;
  h := substr(e.at, 12, 2)::int; mi := substr(e.at, 15, 2)::int; s := substr(e.at, 18, 2)::int;
  IF y < 2000 THEN RETURN 'at: before 2000: the clock that stamped it was wrong'; END IF;
  -- Field by field, not by a cast: a cast that fails would need a subtransaction per row.
  IF mo NOT BETWEEN 1 AND 12 OR h > 23 OR mi > 59 OR s > 59 OR d < 1 THEN RETURN 'at: not a real date and time'; END IF;
  IF d > extract(day FROM make_date(y, mo, 1) + interval '1 month' - interval '1 day') THEN RETURN 'at: not a real date and time'; END IF;
  IF coalesce(length(e.annotator), 0) NOT BETWEEN 1 AND 1000 THEN RETURN 'annotator: not a name of 1 to 1000 characters'; END IF;
  IF coalesce(length(e.model), 0) NOT BETWEEN 1 AND 1000 THEN RETURN 'model: not a name of 1 to 1000 characters'; END IF;
  IF coalesce(length(e.split), 0) NOT BETWEEN 1 AND 1000 THEN RETURN 'split: not a name of 1 to 1000 characters'; END IF;
  IF coalesce(length(e.sample_id), 0) NOT BETWEEN 1 AND 1000 THEN RETURN 'sample_id: not a name of 1 to 1000 characters'; END IF;
  IF e.kind IS NULL OR e.kind !~ '^[a-z][A-Za-z0-9]{0,39}$' THEN RETURN 'kind: not an event kind (a name of letters and digits)'; END IF;
  IF json_typeof(p) IS DISTINCT FROM 'object' THEN RETURN 'payload: not a JSON object'; END IF;
  IF octet_length(p::text) > 65536 THEN RETURN 'payload: larger than 65536 bytes'; END IF;
  IF e.codebook_version < 0 THEN RETURN 'codebook_version: not a version number or null'; END IF;
  IF e.kind IN ('undo', 'redo') THEN
    IF e.target_uuid IS NULL OR e.target_uuid !~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN
      RETURN 'target_uuid: an undo or redo must name the uuid of the event it acts on';
    END IF;
  ELSIF e.target_uuid IS NOT NULL THEN
    RETURN 'target_uuid: only undo and redo name a target';
  END IF;
  t := CASE e.kind
    WHEN 'setStatus' THEN CASE WHEN json_typeof(p->'status') = 'string' AND (p->>'status') = ANY (statuses) THEN NULL
      ELSE 'status: not one of ' || array_to_string(statuses, ', ') END
    WHEN 'setPathway' THEN CASE WHEN json_typeof(p->'pathway') IS DISTINCT FROM 'string' OR (p->>'pathway') = '' THEN 'pathway: not a pathway id'
      WHEN json_typeof(p->'on') IS DISTINCT FROM 'boolean' THEN 'on: not true or false' END
    WHEN 'setPrimary' THEN CASE WHEN coalesce(json_typeof(p->'pathway'), '') NOT IN ('string', 'null') THEN 'pathway: not a pathway id or null' END
    WHEN 'setTransition' THEN CASE WHEN coalesce(json_typeof(p->'transition'), '') NOT IN ('string', 'null') THEN 'transition: not a transition or null' END
    WHEN 'setNotes' THEN CASE WHEN json_typeof(p->'notes') IS DISTINCT FROM 'string' THEN 'notes: not a text' END
    WHEN 'setConfidence' THEN CASE WHEN json_typeof(p->'confidence') = 'null'
      OR (json_typeof(p->'confidence') = 'number' AND (p->>'confidence')::numeric IN (1, 2, 3, 4, 5)) THEN NULL
      ELSE 'confidence: not an integer from 1 to 5 or null' END
    WHEN 'addSpan' THEN CASE WHEN json_typeof(p->'span') IS DISTINCT FROM 'object' THEN 'span: not an object'
      WHEN json_typeof(p->'span'->'id') IS DISTINCT FROM 'string' OR (p->'span'->>'id') = '' THEN 'span.id: not an id'
      WHEN json_typeof(p->'span'->'startS') IS DISTINCT FROM 'number' OR json_typeof(p->'span'->'endS') IS DISTINCT FROM 'number'
        OR (p->'span'->>'startS')::numeric NOT BETWEEN 0 AND 1e308 OR (p->'span'->>'endS')::numeric NOT BETWEEN 0 AND 1e308
        THEN 'span: startS and endS must be seconds (>= 0)' END
    WHEN 'updateSpan' THEN CASE WHEN json_typeof(p->'spanId') IS DISTINCT FROM 'string' OR (p->>'spanId') = '' THEN 'spanId: not an id'
      WHEN json_typeof(p->'patch') IS DISTINCT FROM 'object' THEN 'patch: not an object' END
    WHEN 'deleteSpan' THEN CASE WHEN json_typeof(p->'spanId') IS DISTINCT FROM 'string' OR (p->>'spanId') = '' THEN 'spanId: not an id' END
    WHEN 'adjudicate' THEN CASE WHEN coalesce(json_typeof(p->'primary'), '') NOT IN ('string', 'null') THEN 'primary: not a pathway id or null'
      WHEN json_typeof(p->'pathways') IS DISTINCT FROM 'array'
        OR EXISTS (SELECT 1 FROM json_array_elements(p->'pathways') x WHERE json_typeof(x) <> 'string') THEN 'pathways: not a list of pathway ids'
      WHEN json_typeof(p->'note') IS DISTINCT FROM 'string' THEN 'note: not a text' END
    WHEN 'snapshot' THEN CASE WHEN json_typeof(p->'status') IS DISTINCT FROM 'string' OR NOT ((p->>'status') = ANY (statuses))
        THEN 'status: not one of ' || array_to_string(statuses, ', ')
      WHEN json_typeof(p->'pathways') IS DISTINCT FROM 'array' THEN 'pathways: not a list'
      WHEN json_typeof(p->'spans') IS DISTINCT FROM 'array' THEN 'spans: not a list' END
    ELSE NULL
  END;
  IF t IS NOT NULL THEN RETURN 'payload: ' || e.kind || ': ' || t; END IF;
  RETURN NULL;
END $$;

-- The rules, the clock bound (an event may be stamped at most 5 minutes after the server's
-- time: CLOCK_SKEW_BOUND_MS) and ownership (an undo or redo acts only on its own author's
-- events). Refusals are check_violation errors naming the event's uuid in DETAIL and the rule
-- broken in CONSTRAINT, so a client can tell which of its events the server would not take.
CREATE FUNCTION flipbook.check_event() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
DECLARE
  problem text := flipbook.event_problem(NEW);
  rule text := 'flipbook_event_rules';
  author text;
BEGIN
  IF problem IS NULL THEN
    IF NEW.at::timestamptz > now() + interval '5 minutes' THEN
      rule := 'flipbook_event_clock';
      problem := 'at: ' || NEW.at || ' is more than 5 minutes after the server''s time (' ||
        to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '): the clock that stamped it is ahead';
    ELSIF NEW.kind IN ('undo', 'redo') THEN
      -- Rows an earlier part of the same statement inserted are visible here.
      SELECT annotator INTO author FROM flipbook.events WHERE space = NEW.space AND uuid = NEW.target_uuid;
      IF NOT FOUND THEN
        rule := 'flipbook_event_owner';
        problem := 'target_uuid: names no event of the space';
      ELSIF author <> NEW.annotator THEN
        rule := 'flipbook_event_owner';
        problem := format('target_uuid: an event of %L; only its author may undo or redo it', author);
      END IF;
    END IF;
  END IF;
  IF problem IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = rule, DETAIL = left(NEW.uuid, 200),
      MESSAGE = format('the server refuses event %s: %s', left(NEW.uuid, 100), problem);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER events_check BEFORE INSERT ON flipbook.events FOR EACH ROW EXECUTE FUNCTION flipbook.check_event();

-- A space's codebook version must be a codebook that names its own version.
CREATE FUNCTION flipbook.check_codebook() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
BEGIN
  IF json_typeof(NEW.definition) IS DISTINCT FROM 'object' OR json_typeof(NEW.definition->'id') IS DISTINCT FROM 'string'
     OR (NEW.definition->>'id') = '' OR (NEW.definition->>'id') <> NEW.codebook_id
     OR json_typeof(NEW.definition->'version') IS DISTINCT FROM 'number' OR (NEW.definition->>'version')::numeric <> NEW.version
     OR json_typeof(NEW.definition->'pathways') IS DISTINCT FROM 'array'
     OR EXISTS (SELECT 1 FROM json_array_elements(NEW.definition->'pathways') x
                WHERE json_typeof(x) <> 'object' OR json_typeof(x->'id') IS DISTINCT FROM 'string' OR json_typeof(x->'label') IS DISTINCT FROM 'string') THEN
    RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = 'flipbook_codebook_rules',
      MESSAGE = format('the server refuses codebook version %s: not a codebook naming itself version %s', NEW.version, NEW.version);
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER codebooks_check BEFORE INSERT ON flipbook.codebooks FOR EACH ROW EXECUTE FUNCTION flipbook.check_codebook();

-- The push lock is a lock on a table no role but the owner has any right to, taken by the
-- statement trigger as its owner (SECURITY DEFINER): a reviewer's or annotator's session can
-- not hold it outside a push (an advisory lock could be taken by anyone who can connect).
CREATE TABLE flipbook.push_lock ();
REVOKE ALL ON flipbook.push_lock FROM PUBLIC;
CREATE OR REPLACE FUNCTION flipbook.serialize_pushes() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog AS $$
BEGIN
  LOCK TABLE flipbook.push_lock IN EXCLUSIVE MODE;
  RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION flipbook.serialize_pushes() FROM PUBLIC;

-- Columns the server fills in are not the client's to choose: id (the pull order), who pushed
-- and when, who created a space. INSERT is granted on the other columns only.
REVOKE INSERT ON flipbook.events, flipbook.spaces, flipbook.codebooks FROM flipbook_annotator;
GRANT INSERT (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
  ON flipbook.events TO flipbook_annotator;
GRANT INSERT (name, release) ON flipbook.spaces TO flipbook_annotator;
GRANT INSERT (space, version, codebook_id, definition, created_at) ON flipbook.codebooks TO flipbook_annotator;
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
