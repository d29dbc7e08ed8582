/**
 * What a sync round asks the server (docs/team-sync.md): the hello (one query: schema version,
 * role, the space and the events after the pull cursor), the later pages, codebook versions,
 * the rows of given uuids, who holds the push lock, and a refusal by the server's event
 * trigger read back as data.
 */
import type pg from 'pg';
import type { AnnotationEvent } from '../../shared/domain/annotations';
import type { StoredCodebook } from '../store/annotation-codebooks';
import { parseSpaceCodebooks, planCodebooks } from './space-codebooks';
import { codebookRefusal } from './sync-report';

/** Events per pull query; a larger backlog is read in several pages within the round. */
export const PULL_PAGE = 20_000;

const EVENTS_AFTER = `(SELECT coalesce(json_agg(json_build_array(e.id, e.uuid, e.at, e.annotator, e.model, e.split, e.sample_id, e.kind, e.payload, e.codebook_version, e.target_uuid) ORDER BY e.id), '[]'::json)
     FROM (SELECT * FROM flipbook.events WHERE space = $1 AND id > $2 ORDER BY id LIMIT $3) e)`;

// A space's codebook versions are few and small: every hello reads them all.
const CODEBOOKS = `(SELECT coalesce(json_agg(json_build_array(c.version, c.definition, c.created_at) ORDER BY c.version), '[]'::json)
     FROM flipbook.codebooks c WHERE c.space = $1)`;

// Column privileges, not table ones: an annotator may insert a codebook's own columns only.
const HELLO_SQL = `SELECT (SELECT coalesce(max(version), 0) FROM flipbook.schema_migrations) AS schema_version,
  current_user AS role, s.id AS space_id, s.release, ${CODEBOOKS} AS codebooks,
  has_any_column_privilege('flipbook.codebooks', 'INSERT') AS can_push_codebooks,
  (extract(epoch FROM now()) * 1000)::float8 AS now_ms, ${EVENTS_AFTER} AS events
  FROM (SELECT 1) AS one LEFT JOIN flipbook.spaces s ON s.name = $1`;

export const AFTER_SQL = `SELECT ${EVENTS_AFTER} AS events`;

export interface Hello {
  schemaVersion: number;
  role: string;
  spaceId: string | null;
  release: unknown;
  codebooks: unknown;
  canPushCodebooks: boolean;
  /** The server's clock (ms since the epoch) when it answered, and ours when the answer came. */
  serverNowMs: number;
  receivedAtMs: number;
  events: unknown;
}

export async function hello(client: pg.Client, space: string, after: number): Promise<Hello> {
  const r = await client.query<{
    schema_version: number;
    role: string;
    space_id: string | null;
    release: unknown;
    codebooks: unknown;
    can_push_codebooks: boolean;
    now_ms: number;
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
    serverNowMs: Number(row.now_ms),
    receivedAtMs: Date.now(),
    events: row.events,
  };
}

/**
 * Stores the project's codebook versions the space lacks. A version another client stored
 * meanwhile with other content (two first syncs at once) is refused like any conflict.
 */
export async function pushCodebooks(client: pg.Client, space: string, versions: StoredCodebook[]): Promise<number> {
  const r = await client.query<{ version: number }>(
    `INSERT INTO flipbook.codebooks (space, version, codebook_id, definition, created_at)
     SELECT $1, u.version, u.id, u.definition, u.created_at FROM unnest($2::int[], $3::text[], $4::json[], $5::text[]) AS u (version, id, definition, created_at)
     ON CONFLICT (space, version) DO NOTHING RETURNING version`,
    [space, versions.map((v) => v.version), versions.map((v) => v.codebook.id), versions.map((v) => JSON.stringify(v.codebook)), versions.map((v) => v.createdAt)],
  );
  if (r.rows.length < versions.length) {
    const now = await client.query<{ codebooks: unknown }>(`SELECT ${CODEBOOKS} AS codebooks`, [space]);
    const conflicts = planCodebooks(versions, parseSpaceCodebooks(now.rows[0]!.codebooks).versions).conflicts;
    if (conflicts.length) throw codebookRefusal(space, conflicts);
  }
  return r.rows.length;
}

/** A refusal by the server's event trigger (server-schema.ts): which event and which rule. */
export function serverRefusal(err: unknown): { uuid: string; rule: 'rules' | 'clock' | 'owner'; message: string } | null {
  const e = err as { code?: string; constraint?: string; detail?: string; message?: string };
  if (e.code !== '23514' || typeof e.detail !== 'string') return null;
  const m = /^flipbook_event_(rules|clock|owner)$/.exec(e.constraint ?? '');
  return m ? { uuid: e.detail, rule: m[1] as 'rules' | 'clock' | 'owner', message: (e.message ?? '').replace(/^the server refuses event \S+: /, '') } : null;
}

/** The server's rows of these uuids, for telling a re-sent copy from another event that took the uuid. */
export async function serverEvents(client: pg.Client, space: string, uuids: string[]): Promise<Map<string, Omit<AnnotationEvent, 'kind'> & { kind: string }>> {
  const r = await client.query<{ e: unknown[] }>(
    `SELECT json_build_array(uuid, at, annotator, model, split, sample_id, kind, payload, codebook_version, target_uuid) AS e
     FROM flipbook.events WHERE space = $1 AND uuid = ANY($2::text[])`,
    [space, uuids],
  );
  const out = new Map<string, Omit<AnnotationEvent, 'kind'> & { kind: string }>();
  for (const { e } of r.rows) {
    const [uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid] = e as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      Record<string, unknown>,
      number | null,
      string | null,
    ];
    out.set(uuid, { uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid });
  }
  return out;
}

/** Who holds the push lock, in words, or null (asked after a lock timeout, for the message). */
export async function pushLockHolder(client: pg.Client): Promise<string | null> {
  try {
    const r = await client.query<{ who: string; pid: number; since: string | null }>(
      `SELECT a.usename AS who, a.pid, to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'relation' AND l.relation = to_regclass('flipbook.push_lock') AND l.granted LIMIT 1`,
    );
    const h = r.rows[0];
    return h ? `the push lock, by '${h.who}' (server process ${h.pid}${h.since ? `, in a transaction since ${h.since}` : ''})` : null;
  } catch {
    return null;
  }
}
