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
 *
 * No one member can stop the others (docs/team-sync.md §3): a pulled row that breaks the
 * event rules (event-rules.ts, which the server also enforces), is stamped beyond the clock
 * bound, has a kind this Flipbook does not know, or reuses the uuid of another event here is
 * set aside (held-events.ts) and reported; an edit of ours whose uuid the server holds for
 * another event gets a fresh uuid and is pushed; our own edits the server will not take are
 * held back and reported, the rest still go.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import * as z from 'zod';
import type { AnnotationEvent } from '../../shared/domain/annotations';
import { canonicalJson, type StoredCodebook } from '../store/annotation-codebooks';
import type { SequencedEvent } from '../store/annotation-tables';
import { storageFailure } from '../store/errors';
import type { Project } from '../store/project';
import { connect, parseServerUrl, SYNC_TIMEOUTS, type ConnectOptions, type ServerAddress } from './connect';
import { beyondClockBound, checkEvent, CLOCK_SKEW_BOUND_MS, describeAhead, type WireEvent } from './event-rules';
import { heldCounts, heldPushSeqs, hold, type HeldEvent, type SpaceRef } from './held-events';
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
  onStep?: (step: 'hello' | 'pulled' | 'pushed') => void | Promise<void>;
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
  /** Rows pulled this round and set aside (kept, not applied), with why. */
  setAside: HeldEvent[];
  /** This project's own edits the server will not take (held back this round), with why. */
  refused: HeldEvent[];
  /** Own edits of ours whose uuid the space held for another annotator's event: pushed under a new uuid. */
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
  /** Own edits stamped beyond the clock bound after the server's time: they wait here. */
  waiting: { count: number; aheadMs: number } | null;
  /** This computer's clock minus the server's, in ms (positive: ahead). */
  clockOffsetMs: number;
  /** Everything set aside from this space so far (this round's included). */
  held: { pulled: number; notPushed: number };
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

/** A pulled row: the server's id and the event's fields as they came, checked one by one (event-rules.ts). */
interface WireRow {
  id: number;
  fields: WireEvent;
  raw: unknown;
}

/**
 * The rows of a pull (json_build_array in HELLO_SQL / AFTER_SQL). Only the list's shape and
 * the ids are the server's own doing; the fields are whatever a client inserted, and are
 * judged per row by importRows.
 */
function toRows(wire: unknown): { maxId: number; rows: WireRow[] } {
  const list = z.array(z.array(z.unknown())).parse(wire);
  let maxId = 0;
  const rows = list.map((r): WireRow => {
    const id = z.union([z.number(), z.string()]).transform(Number).pipe(z.number().int().positive()).parse(r[0]);
    if (id > maxId) maxId = id;
    const [, uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid] = r;
    return { id, fields: { uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid }, raw: r };
  });
  return { maxId, rows };
}

/** Whether two events with one uuid say the same thing (a re-sent copy) or are two different events. */
function sameEvent(a: Omit<AnnotationEvent, 'kind'> & { kind: string }, b: Omit<AnnotationEvent, 'kind'> & { kind: string }): boolean {
  return (
    a.at === b.at &&
    a.annotator === b.annotator &&
    a.model === b.model &&
    a.split === b.split &&
    a.sampleId === b.sampleId &&
    a.kind === b.kind &&
    a.codebookVersion === b.codebookVersion &&
    (a.targetUuid ?? null) === (b.targetUuid ?? null) &&
    canonicalJson(a.payload) === canonicalJson(b.payload)
  );
}

interface PullContext {
  project: Project;
  at: SpaceRef;
  role: string;
  /** Our own events after this local seq are not on the server yet. */
  pushedSeq: number;
  /** The server's clock, in ms, at the hello (plus the time since). */
  serverNowMs: () => number;
}

interface PageResult {
  added: number;
  skipped: number;
  setAside: HeldEvent[];
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
}

/**
 * Imports one page of pulled rows (inside the caller's SQLite transaction). A row that breaks
 * the event rules, is stamped beyond the clock bound or has a kind this Flipbook does not know
 * is set aside. A row whose uuid names a different event here: when ours is an edit not yet
 * pushed, ours gets a fresh uuid (the space's row is the space's) and theirs comes in; else
 * theirs is set aside.
 */
function importRows(ctx: PullContext, rows: readonly WireRow[]): PageResult {
  const { project, at } = ctx;
  const setAside: HeldEvent[] = [];
  const reissued: PageResult['reissued'] = [];
  const ok: { row: WireRow; event: AnnotationEvent }[] = [];
  for (const row of rows) {
    const c = checkEvent(row.fields);
    if (!c.ok) {
      setAside.push(hold(project, at, 'pull', row.id, row.fields.uuid, `${c.problem.field}: ${c.problem.reason}`, row.raw));
    } else if (beyondClockBound(c.event.at, ctx.serverNowMs())) {
      const ahead = describeAhead(Date.parse(c.event.at) - ctx.serverNowMs());
      setAside.push(hold(project, at, 'pull', row.id, c.event.uuid, `at: stamped ${ahead} after the server's time (more than the ${CLOCK_SKEW_BOUND_MS / 60_000} min clock bound)`, row.raw));
    } else if (!c.known) {
      setAside.push(hold(project, at, 'pull', row.id, c.event.uuid, `kind: '${c.event.kind}' is not known to this Flipbook (a newer one wrote it): kept, not applied`, row.raw));
    } else {
      ok.push({ row, event: c.event });
    }
  }
  const local = project.annotations.eventsByUuid(ok.map((x) => x.event.uuid));
  const events: AnnotationEvent[] = [];
  const seen = new Set<string>();
  for (const { row, event } of ok) {
    const mine = local.get(event.uuid);
    if (seen.has(event.uuid)) {
      // The server keeps uuids unique per space, so a page never repeats one; were it to, the
      // second is set aside rather than merged over the first.
      setAside.push(hold(project, at, 'pull', row.id, event.uuid, 'uuid: already used by another row of this pull', row.raw));
      continue;
    }
    seen.add(event.uuid);
    if (mine && !sameEvent(mine, event)) {
      if (mine.annotator === ctx.role && mine.origin === 'local' && mine.seq > ctx.pushedSeq) {
        reissued.push({ uuid: event.uuid, newUuid: project.annotations.reissue(event.uuid), heldBy: event.annotator });
      } else {
        setAside.push(hold(project, at, 'pull', row.id, event.uuid, `uuid: names another event in this project (of '${mine.annotator}')`, row.raw));
        continue;
      }
    }
    events.push(event);
  }
  const r = project.annotations.importEvents(events);
  return { added: r.added, skipped: r.skipped, setAside, reissued };
}

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

const AFTER_SQL = `SELECT ${EVENTS_AFTER} AS events`;

interface Hello {
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

async function hello(client: pg.Client, space: string, after: number): Promise<Hello> {
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
async function pushCodebooks(client: pg.Client, space: string, versions: StoredCodebook[]): Promise<number> {
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

const codebookRefusal = (space: string, conflicts: string[]): SyncRefusedError =>
  new SyncRefusedError(
    `this project's codebook conflicts with space '${space}''s (the same version number with other content); nothing was synced:\n  - ${conflicts.join('\n  - ')}\n` +
      'Save the codebook change as a new version in a project that holds the space\'s codebook, or start from a copy of the release project that has it.',
  );

interface PushContext {
  project: Project;
  at: SpaceRef;
  role: string;
  device: string;
  space: string;
  cursor: SyncCursor;
  serverNowMs: () => number;
}

interface PushResult {
  insertedIds: number[];
  skipped: number;
  /** What others pushed since the hello, read under the push lock. */
  after: { maxId: number; rows: WireRow[] };
  /** The push cursor after this push: past every event pushed or held back, before the first that waits. */
  pushedSeq: number;
  refused: HeldEvent[];
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
  waiting: { count: number; aheadMs: number } | null;
}

/** A refusal by the server's event trigger (server-schema.ts): which event and which rule. */
function serverRefusal(err: unknown): { uuid: string; rule: 'rules' | 'clock' | 'owner'; message: string } | null {
  const e = err as { code?: string; constraint?: string; detail?: string; message?: string };
  if (e.code !== '23514' || typeof e.detail !== 'string') return null;
  const m = /^flipbook_event_(rules|clock|owner)$/.exec(e.constraint ?? '');
  return m ? { uuid: e.detail, rule: m[1] as 'rules' | 'clock' | 'owner', message: (e.message ?? '').replace(/^the server refuses event \S+: /, '') } : null;
}

/** The server's rows of these uuids, for telling a re-sent copy from another event that took the uuid. */
async function serverEvents(client: pg.Client, space: string, uuids: string[]): Promise<Map<string, Omit<AnnotationEvent, 'kind'> & { kind: string }>> {
  const r = await client.query<{ e: unknown[] }>(
    `SELECT json_build_array(uuid, at, annotator, model, split, sample_id, kind, payload, codebook_version, target_uuid) AS e
     FROM flipbook.events WHERE space = $1 AND uuid = ANY($2::text[])`,
    [space, uuids],
  );
  const out = new Map<string, Omit<AnnotationEvent, 'kind'> & { kind: string }>();
  for (const { e } of r.rows) {
    const [uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid] = e as [string, string, string, string, string, string, string, Record<string, unknown>, number | null, string | null];
    out.set(uuid, { uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid });
  }
  return out;
}

/**
 * Pushes the role's events after the push cursor in ONE server transaction. Before sending,
 * each is checked as the server would (event-rules.ts): one the server will never take is held
 * back (and an undo or redo of it), and the push stops before the first stamped beyond the clock
 * bound (it and what follows wait for a later round). Should the server still refuse one (the
 * ownership of an undo's target, a clock race), the transaction is rolled back, that event held
 * back and the rest sent again. An event whose uuid the space holds for a different event gets a
 * fresh uuid here and is sent again: never a silent skip. Null when there is nothing to push.
 */
async function push(client: pg.Client, ctx: PushContext): Promise<PushResult | null> {
  const { project, at, role } = ctx;
  const all = project.annotations.eventsAfter(ctx.cursor.pushedSeq, role);
  if (all.length === 0) return null;
  const refused: HeldEvent[] = [];
  const reissued: PushResult['reissued'] = [];
  const heldBefore = heldPushSeqs(project, at);
  const heldUuids = new Set<string>();
  const holdBack = (e: SequencedEvent, reason: string): void => {
    heldUuids.add(e.uuid);
    if (!heldBefore.has(e.seq)) refused.push(hold(project, at, 'push', e.seq, e.uuid, reason, e));
  };
  let list: SequencedEvent[] = [];
  let waitFrom: SequencedEvent | null = null;
  const targets = project.annotations.eventsByUuid(all.filter((e) => e.targetUuid !== null).map((e) => e.targetUuid!));
  for (const e of all) {
    if (heldBefore.has(e.seq)) {
      heldUuids.add(e.uuid);
      continue;
    }
    const c = checkEvent(e);
    if (!c.ok) {
      holdBack(e, `${c.problem.field}: ${c.problem.reason}`);
      continue;
    }
    if (beyondClockBound(e.at, ctx.serverNowMs())) {
      waitFrom = e;
      break;
    }
    if (e.targetUuid !== null) {
      const t = targets.get(e.targetUuid);
      if (!t || t.annotator !== role) {
        holdBack(e, `target_uuid: ${t ? `an event of '${t.annotator}'; only its author may undo or redo it` : 'names no event of this project'}`);
        continue;
      }
      if (heldUuids.has(e.targetUuid)) {
        holdBack(e, 'target_uuid: acts on an edit the space does not take');
        continue;
      }
    }
    list.push(e);
  }
  const pushedSeqOf = (from: SequencedEvent | null): number => (from !== null ? from.seq - 1 : all[all.length - 1]!.seq);
  const waitingOf = (from: SequencedEvent | null): PushResult['waiting'] => {
    if (from === null) return null;
    const rest = all.filter((e) => e.seq >= from.seq);
    const latest = Math.max(...rest.map((e) => Date.parse(e.at)));
    return { count: rest.length, aheadMs: Math.max(0, latest - ctx.serverNowMs()) };
  };

  // Each attempt either commits or rolls back whole; each retry has one event fewer or one
  // uuid changed, so the loop ends.
  for (let attempt = 0; ; attempt++) {
    if (list.length === 0) {
      return { insertedIds: [], skipped: 0, after: { maxId: 0, rows: [] }, pushedSeq: pushedSeqOf(waitFrom), refused, reissued, waiting: waitingOf(waitFrom) };
    }
    await client.query('BEGIN');
    const inserted = new Map<string, number>();
    let retry = false;
    let after: PushResult['after'] = { maxId: 0, rows: [] };
    try {
      for (let i = 0; i < list.length; i += PUSH_BATCH) {
        const part = list.slice(i, i + PUSH_BATCH);
        const col = <K extends keyof SequencedEvent>(k: K): SequencedEvent[K][] => part.map((e) => e[k]);
        const r = await client.query<{ id: string; uuid: string }>(
          `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
           SELECT $1, u.uuid, u.at, u.annotator, $2, u.seq, u.model, u.split, u.sample_id, u.kind, u.payload, u.cbv, u.target
           FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::json[], $12::int[], $13::text[])
             AS u (uuid, at, annotator, seq, model, split, sample_id, kind, payload, cbv, target)
           ON CONFLICT (space, uuid) DO NOTHING RETURNING id, uuid`,
          [
            ctx.space,
            ctx.device,
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
        for (const row of r.rows) inserted.set(row.uuid, Number(row.id));
      }
      const taken = list.filter((e) => !inserted.has(e.uuid));
      if (taken.length) {
        // Already on the server: our own copy (an interrupted round), or another event that took the uuid.
        const theirs = await serverEvents(client, ctx.space, taken.map((e) => e.uuid));
        const squatted = taken.filter((e) => {
          const t = theirs.get(e.uuid);
          return t !== undefined && !sameEvent(t, e);
        });
        if (squatted.length) {
          await client.query('ROLLBACK');
          retry = true;
          for (const e of squatted) {
            const newUuid = project.annotations.reissue(e.uuid);
            reissued.push({ uuid: e.uuid, newUuid, heldBy: theirs.get(e.uuid)!.annotator });
          }
          list = list.map((e) => {
            const r = reissued.find((x) => x.uuid === e.uuid);
            const t = e.targetUuid !== null ? reissued.find((x) => x.uuid === e.targetUuid) : undefined;
            return r || t ? { ...e, uuid: r?.newUuid ?? e.uuid, targetUuid: t?.newUuid ?? e.targetUuid } : e;
          });
        }
      }
      if (!retry) {
        // The INSERT took the push lock (trigger): every id below ours is committed and visible.
        const more = await client.query<{ events: unknown }>(
          AFTER_SQL.replace('id > $2', 'id > $2 AND NOT (id = ANY($4::bigint[]))'),
          [ctx.space, ctx.cursor.pulledId, 1_000_000_000, [...inserted.values()]],
        );
        after = toRows(more.rows[0]!.events);
        await client.query('COMMIT');
      }
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      const refusal = serverRefusal(err);
      const which = refusal ? list.findIndex((e) => e.uuid === refusal.uuid) : -1;
      if (!refusal || which < 0 || attempt > all.length) throw err;
      const e = list[which]!;
      if (refusal.rule === 'clock') {
        // The server's clock disagrees with the hello's estimate: this one and what follows wait.
        list = list.slice(0, which);
        waitFrom = e;
        continue;
      }
      holdBack(e, refusal.message);
      list = list.filter((x) => {
        if (x === e) return false;
        if (x.targetUuid === null || !heldUuids.has(x.targetUuid)) return true;
        holdBack(x, 'target_uuid: acts on an edit the space does not take');
        return false;
      });
      continue;
    }
    if (retry) continue;
    return {
      insertedIds: [...inserted.values()],
      skipped: list.length - inserted.size,
      after,
      pushedSeq: pushedSeqOf(waitFrom),
      refused,
      reissued,
      waiting: waitingOf(waitFrom),
    };
  }
}

/** PostgreSQL and network errors in words (docs/team-sync.md, Troubleshooting). */
export function describeSyncError(
  err: unknown,
  addr?: ServerAddress & { lockTimeoutMs?: number; statementTimeoutMs?: number; lockHolder?: string | null },
): string {
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
    case '55P03':
      return `a lock on the server was not free within ${Math.round((addr?.lockTimeoutMs ?? SYNC_TIMEOUTS.lockMs) / 1000)} s (lock timeout): another session holds it${addr?.lockHolder ? ` (${addr.lockHolder})` : ''}; nothing was changed — sync again later`;
    case '57014':
      return `the server did not finish a statement within ${Math.round((addr?.statementTimeoutMs ?? SYNC_TIMEOUTS.statementMs) / 1000)} s (statement timeout); nothing was changed — sync again later`;
    case '42501':
      return /row-level security/.test(e.message ?? '')
        ? `the server accepts only events under your own name (${addr?.user ?? 'your role'}): ${e.message}`
        : `this role may not do that on the server: ${e.message} (a reviewer's role is read-only)`;
    default:
      break;
  }
  const msg = e.message ?? String(err);
  if (/Query read timeout/i.test(msg)) return `the server did not answer within ${Math.round(((addr?.statementTimeoutMs ?? SYNC_TIMEOUTS.statementMs) + 15_000) / 1000)} s: offline or the server is unreachable; nothing was changed — sync again`;
  if (/timeout/i.test(msg)) return `the connection to ${where} timed out: offline or the server is unreachable`;
  if (/Connection terminated|terminating connection|server closed the connection/i.test(msg)) return `the connection to ${where} was lost mid-sync (${msg}); nothing was lost — sync again`;
  return msg;
}

/** Who holds the push lock, in words, or null (asked after a lock timeout, for the message). */
async function pushLockHolder(client: pg.Client): Promise<string | null> {
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

export async function runSync(project: Project, opts: SyncOptions): Promise<SyncReport> {
  const addr = parseServerUrl(opts.server);
  const spaceName = spaceNameSchema.safeParse(opts.space);
  if (!spaceName.success) throw new SyncRefusedError(`--space '${opts.space}': ${spaceName.error.issues[0]?.message ?? 'invalid'}`);
  const space = spaceName.data;
  let cursor = getCursor(project, addr.display, space);
  let lockHolder: string | null = null;
  const fail = (err: unknown): never => {
    const disk = storageFailure(err);
    const message =
      err instanceof SyncRefusedError || err instanceof ServerSchemaError
        ? err.message
        : disk !== null
          ? `${project.path}: the sync could not write the project: ${disk.failure} (${disk.code}); what it was writing was rolled back — sync again once there is room`
          : describeSyncError(err, { ...addr, lockTimeoutMs: opts.lockTimeoutMs, statementTimeoutMs: opts.statementTimeoutMs, lockHolder });
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
    const spaceCodebooks = parseSpaceCodebooks(h.codebooks);
    const codebookPlan = planCodebooks(project.annotations.codebookHistory(), spaceCodebooks.versions);
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
    const at: SpaceRef = { server: addr.display, space, spaceId: h.spaceId ?? '' };
    const sinceHello = h;
    const serverNowMs = (): number => sinceHello.serverNowMs + (Date.now() - sinceHello.receivedAtMs);
    let pulled = 0;
    let skipped = 0;
    const setAside: HeldEvent[] = spaceCodebooks.invalid.map((reason) => ({ uuid: 'codebook', reason }));
    const reissued: SyncReport['reissued'] = [];
    const take = (r: PageResult): void => {
      pulled += r.added;
      skipped += r.skipped;
      setAside.push(...r.setAside);
      reissued.push(...r.reissued);
    };

    // 1. Import what the hello brought (and further pages of a long backlog).
    let page = toRows(h.events);
    for (;;) {
      const next = project.db.transaction(() => {
        if (codebooksToPull.length) {
          codebooks.pulled = project.annotations.importCodebooks(codebooksToPull).added;
          codebooksToPull = [];
        }
        const mineBefore = project.annotations.countAfter(cursor.pushedSeq, role);
        const r = importRows({ project, at, role, pushedSeq: cursor.pushedSeq, serverNowMs }, page.rows);
        const c: SyncCursor = { ...cursor, pulledId: Math.max(cursor.pulledId, page.maxId) };
        // Nothing of ours was pending: what was just pulled (our own events made on another
        // device included) is already on the server, so the push cursor moves past it.
        if (mineBefore === 0 && r.added > 0) c.pushedSeq = Math.max(c.pushedSeq, project.annotations.maxSeq());
        putCursor(project, c);
        return { r, c };
      })();
      take(next.r);
      cursor = next.c;
      if (page.rows.length < PULL_PAGE) break;
      const more = await client.query<{ events: unknown }>(AFTER_SQL, [space, cursor.pulledId, PULL_PAGE]);
      page = toRows(more.rows[0]!.events);
    }
    await opts.onStep?.('pulled');

    // 2. Push our own events after the push cursor.
    const out = await push(client, { project, at, role, device, space, cursor, serverNowMs });
    let pushed = 0;
    if (out) {
      pushed = out.insertedIds.length;
      skipped += out.skipped;
      reissued.push(...out.reissued);
      await opts.onStep?.('pushed');
      const next = project.db.transaction(() => {
        const r = importRows({ project, at, role, pushedSeq: out.pushedSeq, serverNowMs }, out.after.rows);
        const c: SyncCursor = {
          ...cursor,
          pushedSeq: Math.max(cursor.pushedSeq, out.pushedSeq),
          pulledId: Math.max(cursor.pulledId, out.after.maxId, ...out.insertedIds),
        };
        putCursor(project, c);
        return { r, c };
      })();
      take(next.r);
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
      setAside,
      refused: out?.refused ?? [],
      reissued,
      waiting: out?.waiting ?? null,
      clockOffsetMs: Math.round(h.receivedAtMs - h.serverNowMs),
      held: (({ pulled: p, notPushed: n }) => ({ pulled: p, notPushed: n }))(heldCounts(project, addr.display, space, 0)),
    };
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') lockHolder = await pushLockHolder(client);
    return fail(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The report's warnings in words, one line each (the CLI prints them; the Sync panel shows the same facts). */
export function syncNotes(r: SyncReport, list = 10): string[] {
  const out: string[] = [];
  const some = <T,>(xs: T[]): T[] => xs.slice(0, list);
  const more = (n: number): string[] => (n > list ? [`    … and ${n - list} more`] : []);
  if (r.setAside.length) {
    out.push(`  set aside ${r.setAside.length} event${r.setAside.length === 1 ? '' : 's'} of the space (kept in this project, not applied):`);
    for (const h of some(r.setAside)) out.push(`    ${h.uuid}: ${h.reason}`);
    out.push(...more(r.setAside.length));
  }
  if (r.refused.length) {
    out.push(`  ${r.refused.length} edit${r.refused.length === 1 ? '' : 's'} of yours the server will not take (held back here):`);
    for (const h of some(r.refused)) out.push(`    ${h.uuid}: ${h.reason}`);
    out.push(...more(r.refused.length));
  }
  for (const x of some(r.reissued)) {
    out.push(`  conflict: the space holds uuid ${x.uuid} for an event of '${x.heldBy}', not for your edit; your edit was given the new uuid ${x.newUuid} and pushed`);
  }
  out.push(...more(r.reissued.length));
  if (r.waiting) {
    out.push(
      `  ${r.waiting.count} edit${r.waiting.count === 1 ? '' : 's'} wait${r.waiting.count === 1 ? 's' : ''}: stamped up to ${describeAhead(r.waiting.aheadMs)} after the server's time, more than the ${CLOCK_SKEW_BOUND_MS / 60_000} min clock bound. ` +
        "This computer's clock was ahead when they were made; they are pushed once the server's time reaches them.",
    );
  }
  if (Math.abs(r.clockOffsetMs) > CLOCK_SKEW_BOUND_MS) {
    out.push(`  warning: this computer's clock is ${describeAhead(Math.abs(r.clockOffsetMs))} ${r.clockOffsetMs > 0 ? 'ahead of' : 'behind'} the server's: set it right`);
  }
  if (r.held.pulled + r.held.notPushed > r.setAside.length + r.refused.length) {
    out.push(`  in all, ${r.held.pulled} event${r.held.pulled === 1 ? '' : 's'} of the space set aside and ${r.held.notPushed} of yours held back (docs/team-sync.md §3)`);
  }
  return out;
}

export type { ReleaseIdentity };
