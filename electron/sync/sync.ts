/**
 * One sync round between a project and a team space on a PostgreSQL server
 * (docs/team-sync.md). Offline-first: the project file is where work happens; the server is
 * the meeting point. A round is
 *
 *   1. hello — ONE query: schema version, current_user, the space and every event after the
 *      project's pull cursor. Pulled events go through AnnotationStore.importEvents (the
 *      store's own merge path: by uuid, derived state recomputed) in one SQLite transaction
 *      with the new cursor. With nothing to push, that is the whole round.
 *   2. push — the project's own events after its push cursor, in ONE server transaction
 *      (`INSERT … ON CONFLICT (space, uuid) DO NOTHING`), which also reads what others pushed
 *      since the hello. Then one SQLite transaction imports that and moves both cursors.
 *
 * Every step is idempotent and each side commits atomically, so a client killed at any point
 * leaves both consistent: at worst the next round re-sends events the other side already
 * has, and they are skipped by uuid.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import * as z from 'zod';
import type { SequencedEvent, StoredCodebook } from '../store/annotations';
import type { Project } from '../store/project';
import { connect, parseServerUrl, type ConnectOptions, type ServerAddress } from './connect';
import { describeReleaseDifference, releaseIdentity, releaseIdentitySchema, type ReleaseIdentity } from './release-identity';
import { migrateServer, SERVER_SCHEMA_VERSION, ServerSchemaError } from './server-schema';
import { parseSpaceCodebooks, planCodebooks } from './space-codebooks';

/** Where a project stands with one (server, space): kept in the project's settings, never a password. */
const cursorSchema = z.object({
  server: z.string(),
  space: z.string(),
  spaceId: z.string().nullable(),
  pushedSeq: z.number().int().nonnegative(),
  pulledId: z.number().int().nonnegative(),
  lastSyncAt: z.string().nullable(),
  lastError: z.string().nullable(),
});
export type SyncCursor = z.infer<typeof cursorSchema>;

const CURSORS_SETTING = 'sync.cursors';
const DEVICE_SETTING = 'sync.device';
/** The last (server, space) synced, for the app's Sync panel. */
export const SYNC_TARGET_SETTING = 'sync.target';

export const syncTargetSchema = z.object({ server: z.string(), space: z.string() });

/** Events per pull query; a larger backlog is read in several pages within the round. */
const PULL_PAGE = 20_000;
/** Events per INSERT statement of a push (all in one transaction). */
const PUSH_BATCH = 10_000;

export interface SyncOptions extends ConnectOptions {
  server: string;
  space: string;
  /** Called between steps (tests use it to stop a client at a known point). */
  onStep?: (step: 'hello' | 'pulled' | 'pushed') => void;
}

export interface SyncReport {
  server: string;
  space: string;
  role: string;
  spaceCreated: boolean;
  schema: { from: number; to: number } | null;
  pushed: number;
  pulled: number;
  /** Events already present on the other side (an interrupted round being completed). */
  skipped: number;
  /** Items whose annotators disagree on the primary pathway (the Team view's conflicts), and how many are unresolved. */
  conflicts: number;
  openConflicts: number;
  /** Statements sent after connecting (round trips): 1 for a round with nothing to push. */
  queries: number;
  /** Codebook versions stored in the space / added to the project by this round. */
  codebooks: { pushed: number; pulled: number };
  /** Local edits under another annotator name than the role: the server would refuse them. */
  notPushed: Record<string, number>;
  pending: number;
  lastSyncAt: string;
}

/** Sync refused before anything changed (release differs, bad space name…). */
export class SyncRefusedError extends Error {}

const spaceNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a space name is letters, digits, . _ - (up to 100)');

function readCursors(project: Project): Record<string, SyncCursor> {
  const raw = project.getSetting<unknown>(CURSORS_SETTING);
  const parsed = z.record(z.string(), cursorSchema).safeParse(raw ?? {});
  return parsed.success ? parsed.data : {};
}

const cursorKey = (server: string, space: string): string => `${server}#${space}`;

export function getCursor(project: Project, server: string, space: string): SyncCursor {
  return (
    readCursors(project)[cursorKey(server, space)] ?? { server, space, spaceId: null, pushedSeq: 0, pulledId: 0, lastSyncAt: null, lastError: null }
  );
}

function putCursor(project: Project, c: SyncCursor): void {
  const all = readCursors(project);
  all[cursorKey(c.server, c.space)] = c;
  project.setSetting(CURSORS_SETTING, all);
}

/** This project file's device id (hostname + a random part), made on first use. */
function deviceOf(project: Project): string {
  const d = project.getSetting<unknown>(DEVICE_SETTING);
  if (typeof d === 'string' && d) return d;
  const made = `${os.hostname()}/${randomUUID().slice(0, 8)}`;
  project.setSetting(DEVICE_SETTING, made);
  return made;
}

/**
 * Local edits not yet on the server: the annotator's events after the push cursor. Counted
 * without a connection (the app shows "n edits not yet synced" offline).
 */
export function pendingCount(project: Project, server: string, space: string, annotator?: string): number {
  const addr = parseServerUrl(server);
  return project.annotations.countAfter(getCursor(project, addr.display, space).pushedSeq, annotator ?? addr.user);
}

/** A pulled event as the server sends it (json_build_array in HELLO_SQL / AFTER_SQL). */
const wireEventSchema = z.tuple([
  z.union([z.number(), z.string()]).transform(Number),
  z.string(),
  z.string(),
  z.string(),
  z.string(),
  z.string(),
  z.string(),
  z.string(),
  z.record(z.string(), z.unknown()),
  z.number().nullable(),
  z.string().nullable(),
]);

function toEvents(wire: unknown): { maxId: number; events: unknown[] } {
  const list = z.array(wireEventSchema).parse(wire);
  let maxId = 0;
  const events = list.map(([id, uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid]) => {
    if (id > maxId) maxId = id;
    return { uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid };
  });
  return { maxId, events };
}

const EVENTS_AFTER = `(SELECT coalesce(json_agg(json_build_array(e.id, e.uuid, e.at, e.annotator, e.model, e.split, e.sample_id, e.kind, e.payload, e.codebook_version, e.target_uuid) ORDER BY e.id), '[]'::json)
     FROM (SELECT * FROM flipbook.events WHERE space = $1 AND id > $2 ORDER BY id LIMIT $3) e)`;

// A space's codebook versions are few and small: every hello reads them all.
const CODEBOOKS = `(SELECT coalesce(json_agg(json_build_array(c.version, c.definition, c.created_at) ORDER BY c.version), '[]'::json)
     FROM flipbook.codebooks c WHERE c.space = $1)`;

const HELLO_SQL = `SELECT (SELECT coalesce(max(version), 0) FROM flipbook.schema_migrations) AS schema_version,
  current_user AS role, s.id AS space_id, s.release, ${CODEBOOKS} AS codebooks,
  has_table_privilege('flipbook.codebooks', 'INSERT') AS can_push_codebooks, ${EVENTS_AFTER} AS events
  FROM (SELECT 1) AS one LEFT JOIN flipbook.spaces s ON s.name = $1`;

const AFTER_SQL = `SELECT ${EVENTS_AFTER} AS events`;

interface Hello {
  schemaVersion: number;
  role: string;
  spaceId: string | null;
  release: unknown;
  codebooks: unknown;
  canPushCodebooks: boolean;
  events: unknown;
}

async function hello(client: pg.Client, space: string, after: number): Promise<Hello> {
  const r = await client.query<{
    schema_version: number;
    role: string;
    space_id: string | null;
    release: unknown;
    codebooks: unknown;
    can_push_codebooks: boolean;
    events: unknown;
  }>(HELLO_SQL, [space, after, PULL_PAGE]);
  const row = r.rows[0]!;
  return {
    schemaVersion: Number(row.schema_version),
    role: row.role,
    spaceId: row.space_id,
    release: row.release,
    codebooks: row.codebooks,
    canPushCodebooks: row.can_push_codebooks === true,
    events: row.events,
  };
}

/**
 * Stores the project's codebook versions the space lacks. A version another client stored
 * meanwhile with other content (two first syncs at once) is refused like any conflict.
 */
async function pushCodebooks(client: pg.Client, space: string, versions: StoredCodebook[]): Promise<number> {
  const r = await client.query<{ version: number }>(
    `INSERT INTO flipbook.codebooks (space, version, codebook_id, definition, created_at)
     SELECT $1, u.version, u.id, u.definition, u.created_at FROM unnest($2::int[], $3::text[], $4::json[], $5::text[]) AS u (version, id, definition, created_at)
     ON CONFLICT (space, version) DO NOTHING RETURNING version`,
    [space, versions.map((v) => v.version), versions.map((v) => v.codebook.id), versions.map((v) => JSON.stringify(v.codebook)), versions.map((v) => v.createdAt)],
  );
  if (r.rows.length < versions.length) {
    const now = await client.query<{ codebooks: unknown }>(`SELECT ${CODEBOOKS} AS codebooks`, [space]);
    const conflicts = planCodebooks(versions, parseSpaceCodebooks(now.rows[0]!.codebooks)).conflicts;
    if (conflicts.length) throw codebookRefusal(space, conflicts);
  }
  return r.rows.length;
}

const codebookRefusal = (space: string, conflicts: string[]): SyncRefusedError =>
  new SyncRefusedError(
    `this project's codebook conflicts with space '${space}''s (the same version number with other content); nothing was synced:\n  - ${conflicts.join('\n  - ')}\n` +
      'Save the codebook change as a new version in a project that holds the space\'s codebook, or start from a copy of the release project that has it.',
  );

/** PostgreSQL and network errors in words (docs/team-sync.md, Troubleshooting). */
export function describeSyncError(err: unknown, addr?: ServerAddress): string {
  const e = err as { code?: string; message?: string };
  const where = addr ? `${addr.host}:${addr.port}` : 'the server';
  switch (e.code) {
    case 'ECONNREFUSED':
      return `cannot reach ${where} (connection refused): the server is down or you are offline`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot find the host ${addr?.host ?? ''} (offline, or a wrong name)`;
    case 'ETIMEDOUT':
    case 'ECONNRESET':
    case 'EPIPE':
      return `the connection to ${where} failed (${e.code}): offline or the server is unreachable`;
    case '28P01':
      return `password authentication failed for ${addr?.user ?? 'this user'}`;
    case '28000':
      return `the server does not accept this connection: ${e.message}`;
    case '3D000':
      return `the database ${addr?.database ?? ''} does not exist on ${where}`;
    case '57P01':
    case '57P02':
    case '57P03':
      return `the server shut down or is starting up (${e.message}); nothing was lost — sync again`;
    case '42501':
      return /row-level security/.test(e.message ?? '')
        ? `the server accepts only events under your own name (${addr?.user ?? 'your role'}): ${e.message}`
        : `this role may not do that on the server: ${e.message} (a reviewer's role is read-only)`;
    default:
      break;
  }
  const msg = e.message ?? String(err);
  if (/timeout/i.test(msg)) return `the connection to ${where} timed out: offline or the server is unreachable`;
  if (/Connection terminated|terminating connection|server closed the connection/i.test(msg)) return `the connection to ${where} was lost mid-sync (${msg}); nothing was lost — sync again`;
  return msg;
}

export async function runSync(project: Project, opts: SyncOptions): Promise<SyncReport> {
  const addr = parseServerUrl(opts.server);
  const spaceName = spaceNameSchema.safeParse(opts.space);
  if (!spaceName.success) throw new SyncRefusedError(`--space '${opts.space}': ${spaceName.error.issues[0]?.message ?? 'invalid'}`);
  const space = spaceName.data;
  let cursor = getCursor(project, addr.display, space);
  const fail = (err: unknown): never => {
    const message = err instanceof SyncRefusedError || err instanceof ServerSchemaError ? err.message : describeSyncError(err, addr);
    try {
      putCursor(project, { ...cursor, lastError: message });
    } catch {
      // a read-only project keeps no state; the error is still reported
    }
    throw err instanceof SyncRefusedError || err instanceof ServerSchemaError ? err : new Error(message, { cause: err });
  };

  const device = deviceOf(project);
  let client: pg.Client;
  try {
    client = await connect(addr, opts);
  } catch (err) {
    return fail(err);
  }
  // Count the statements of the round (each is one round trip): the report says how chatty it was.
  let queries = 0;
  const send = client.query.bind(client);
  client.query = ((...args: Parameters<typeof send>) => {
    queries++;
    return send(...args);
  }) as typeof client.query;
  try {
    let schema: { from: number; to: number } | null = null;
    let h: Hello;
    try {
      h = await hello(client, space, cursor.pulledId);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== '42P01' && code !== '3F000') throw err; // undefined table / schema: a fresh database
      schema = await migrateServer(client);
      h = await hello(client, space, cursor.pulledId);
    }
    if (h.schemaVersion > SERVER_SCHEMA_VERSION) {
      throw new ServerSchemaError(`the server's Flipbook schema is version ${h.schemaVersion}; this Flipbook knows up to ${SERVER_SCHEMA_VERSION} — update Flipbook`);
    }
    if (h.schemaVersion < SERVER_SCHEMA_VERSION) {
      schema = await migrateServer(client);
      h = await hello(client, space, cursor.pulledId);
    }
    // After the connection and the server's schema: an automatic sync that cannot reach the
    // server does not serialise and hash the whole labels/per_item.csv for nothing.
    const mine = releaseIdentity(project);
    let spaceCreated = false;
    if (h.spaceId === null) {
      const made = await client.query('INSERT INTO flipbook.spaces (name, release) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [space, JSON.stringify(mine)]);
      spaceCreated = made.rowCount === 1;
      h = await hello(client, space, 0);
    }
    const theirs = releaseIdentitySchema.safeParse(h.release);
    if (!theirs.success) throw new SyncRefusedError(`space '${space}' on ${addr.display} records no valid release identity`);
    const diff = describeReleaseDifference(theirs.data, mine);
    if (diff.length) {
      throw new SyncRefusedError(`this project's data differs from space '${space}''s release; nothing was synced:\n  - ${diff.join('\n  - ')}`);
    }
    // The space's codebook versions: checked before anything moves, then the project's new
    // versions go to the space (before its events, which name them) and the space's come here.
    const codebookPlan = planCodebooks(project.annotations.codebookHistory(), parseSpaceCodebooks(h.codebooks));
    if (codebookPlan.conflicts.length) throw codebookRefusal(space, codebookPlan.conflicts);
    const codebooks = { pushed: 0, pulled: 0 };
    let codebooksToPull = codebookPlan.toPull;
    // A reviewer's role may not store versions; a project's own are then only its own.
    if (codebookPlan.toPush.length && h.canPushCodebooks) codebooks.pushed = await pushCodebooks(client, space, codebookPlan.toPush);
    if (cursor.spaceId !== h.spaceId) {
      // A new space (or one dropped and made again): start both cursors over; uuids make it safe.
      const fresh = cursor.pulledId !== 0;
      cursor = { ...cursor, spaceId: h.spaceId, pushedSeq: 0, pulledId: 0 };
      if (fresh) h = await hello(client, space, 0);
    }
    const role = h.role;
    let pulled = 0;
    let skipped = 0;

    // 1. Import what the hello brought (and further pages of a long backlog).
    let page = toEvents(h.events);
    for (;;) {
      const next = project.db.transaction(() => {
        if (codebooksToPull.length) {
          codebooks.pulled = project.annotations.importCodebooks(codebooksToPull).added;
          codebooksToPull = [];
        }
        const mineBefore = project.annotations.countAfter(cursor.pushedSeq, role);
        const r = project.annotations.importEvents(page.events);
        const c: SyncCursor = { ...cursor, pulledId: Math.max(cursor.pulledId, page.maxId) };
        // Nothing of ours was pending: what was just pulled (our own events made on another
        // device included) is already on the server, so the push cursor moves past it.
        if (mineBefore === 0 && r.added > 0) c.pushedSeq = Math.max(c.pushedSeq, project.annotations.maxSeq());
        putCursor(project, c);
        return { r, c };
      })();
      pulled += next.r.added;
      skipped += next.r.skipped;
      cursor = next.c;
      if (page.events.length < PULL_PAGE) break;
      const more = await client.query<{ events: unknown }>(AFTER_SQL, [space, cursor.pulledId, PULL_PAGE]);
      page = toEvents(more.rows[0]!.events);
    }
    opts.onStep?.('pulled');

    // 2. Push our own events after the push cursor.
    const toPush = project.annotations.eventsAfter(cursor.pushedSeq, role);
    let pushed = 0;
    if (toPush.length) {
      await client.query('BEGIN');
      let after: { maxId: number; events: unknown[] };
      const insertedIds: number[] = [];
      try {
        for (let i = 0; i < toPush.length; i += PUSH_BATCH) {
          const part = toPush.slice(i, i + PUSH_BATCH);
          const col = <K extends keyof SequencedEvent>(k: K): SequencedEvent[K][] => part.map((e) => e[k]);
          const r = await client.query<{ id: string }>(
            `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
             SELECT $1, u.uuid, u.at, u.annotator, $2, u.seq, u.model, u.split, u.sample_id, u.kind, u.payload, u.cbv, u.target
             FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::json[], $12::int[], $13::text[])
               AS u (uuid, at, annotator, seq, model, split, sample_id, kind, payload, cbv, target)
             ON CONFLICT (space, uuid) DO NOTHING RETURNING id`,
            [
              space,
              device,
              col('uuid'),
              col('at'),
              col('annotator'),
              col('seq'),
              col('model'),
              col('split'),
              col('sampleId'),
              col('kind'),
              part.map((e) => JSON.stringify(e.payload)),
              col('codebookVersion'),
              col('targetUuid'),
            ],
          );
          for (const row of r.rows) insertedIds.push(Number(row.id));
        }
        // The INSERT took the push lock (trigger): every id below ours is committed and visible.
        const more = await client.query<{ events: unknown }>(
          AFTER_SQL.replace('id > $2', 'id > $2 AND NOT (id = ANY($4::bigint[]))'),
          [space, cursor.pulledId, 1_000_000_000, insertedIds],
        );
        after = toEvents(more.rows[0]!.events);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
      pushed = insertedIds.length;
      skipped += toPush.length - insertedIds.length;
      opts.onStep?.('pushed');
      const maxPushedSeq = toPush[toPush.length - 1]!.seq;
      const next = project.db.transaction(() => {
        const r = project.annotations.importEvents(after.events);
        const c: SyncCursor = {
          ...cursor,
          pushedSeq: Math.max(cursor.pushedSeq, maxPushedSeq),
          pulledId: Math.max(cursor.pulledId, after.maxId, ...insertedIds),
        };
        putCursor(project, c);
        return { r, c };
      })();
      pulled += next.r.added;
      skipped += next.r.skipped;
      cursor = next.c;
    }

    const lastSyncAt = new Date().toISOString();
    cursor = { ...cursor, lastSyncAt, lastError: null };
    putCursor(project, cursor);
    project.setSetting(SYNC_TARGET_SETTING, { server: addr.display, space });
    const conflicts = project.annotations.conflicts();
    return {
      server: addr.display,
      space,
      role,
      spaceCreated,
      schema,
      pushed,
      pulled,
      skipped,
      conflicts: conflicts.length,
      openConflicts: conflicts.filter((c) => c.resolution === null).length,
      queries,
      codebooks,
      notPushed: project.annotations.localCountsExcept(role),
      pending: project.annotations.countAfter(cursor.pushedSeq, role),
      lastSyncAt,
    };
  } catch (err) {
    return fail(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export type { ReleaseIdentity };
