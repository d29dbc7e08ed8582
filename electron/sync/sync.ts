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
import * as z from 'zod';
import type pg from 'pg';
import { storageFailure } from '../store/errors';
import type { Project } from '../store/project';
import { connect, type ConnectOptions, parseServerUrl } from './connect';
import { heldCounts, type HeldEvent, type SpaceRef } from './held-events';
import { describeReleaseDifference, releaseIdentity, type ReleaseIdentity, releaseIdentitySchema } from './release-identity';
import { migrateServer, SERVER_SCHEMA_VERSION, ServerSchemaError } from './server-schema';
import { parseSpaceCodebooks, planCodebooks } from './space-codebooks';
import { deviceOf, getCursor, putCursor, SYNC_TARGET_SETTING, type SyncCursor } from './sync-cursors';
import { importRows, type PageResult, toRows } from './sync-pull';
import { push } from './sync-push';
import { codebookRefusal, describeSyncError, SyncRefusedError, type SyncReport } from './sync-report';
import { AFTER_SQL, type Hello, hello, PULL_PAGE, pushCodebooks, pushLockHolder } from './sync-server';

export interface SyncOptions extends ConnectOptions {
  server: string;
  space: string;
  /** Called between steps (tests use it to stop a client at a known point). */
  onStep?: (step: 'hello' | 'pulled' | 'pushed') => void | Promise<void>;
}

const spaceNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a space name is letters, digits, . _ - (up to 100)');

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

export type { ReleaseIdentity };
