/**
 * A team space no single member can break (docs/team-sync.md §3), tried as a hostile or
 * unlucky member would, with their own credentials, against a real PostgreSQL 15 started by
 * the test: malformed events, a far-future or day-ahead clock, an undo of the lead's
 * adjudication, a squatted uuid, a reviewer or annotator holding locks, a forged `created_by`.
 * Rows that reach the server around its rules are written by the database owner with triggers
 * off (`session_replication_role = replica`), as rows stored before the rules existed would be.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import { runSync } from '../../../electron/sync/sync';
import { pendingCount } from '../../../electron/sync/sync-cursors';
import type { SyncReport } from '../../../electron/sync/sync-report';
import { annotate } from '../../../electron/jobs/annotate';
import { tempDir } from '../store/helpers';
import { cliAs, copies, makeReleaseProject, firstTime } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

const SPACE = 'team';
/** The stated clock bound (docs/team-sync.md §3): 5 minutes. */
const BOUND_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

let server: PgServer;
let files: Record<string, string>;

const cli = (user: string, ...args: string[]) => cliAs(server, user, ...args);
const syncCli = (user: string) => cli(user, 'sync', '--project', files[user]!, '--server', server.url(user), '--space', SPACE);

function withProject<T>(user: string, f: (p: Project) => T): T {
  const p = openProject(files[user]!);
  try {
    return f(p);
  } finally {
    p.close();
  }
}

async function syncIn(user: string, extra: Partial<Parameters<typeof runSync>[1]> = {}): Promise<SyncReport> {
  const p = openProject(files[user]!);
  try {
    return await runSync(p, { server: server.url(user), space: SPACE, password: server.password, ...extra });
  } finally {
    p.close();
  }
}

const edit = (user: string, item: string, change: { status?: string; primary?: string; note?: string }): void =>
  void withProject(user, (p) => annotate(p, [{ row: { model: 'm1', split: 'S', item, annotator: user, ...change }, where: 'test' }]));

/** The latest `at` of `user`'s own events in their project. */
const latestAt = (user: string): string =>
  withProject(
    user,
    (p) =>
      p.annotations
        .exportEvents({ annotator: user })
        .map((e) => e.at)
        .sort()
        .pop() ?? '',
  );

/** A valid event row of `annotator` (overridable field by field), as a client would insert it. */
function row(annotator: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    space: SPACE,
    uuid: randomUUID(),
    at: new Date().toISOString(),
    annotator,
    device: 'psql',
    local_seq: 1,
    model: 'm1',
    split: 'S',
    sample_id: 'q9',
    kind: 'setStatus',
    payload: '{"status":"done"}',
    codebook_version: 1,
    target_uuid: null,
    ...over,
  };
}

async function insertAs(user: string, r: Record<string, unknown>, opts: { aroundRules?: boolean } = {}): Promise<void> {
  const c = await server.client(user);
  try {
    // The owner with triggers off: what a space holds from before the rules (or a careless owner).
    if (opts.aroundRules) await c.query('SET session_replication_role = replica');
    const cols = Object.keys(r);
    await c.query(`INSERT INTO flipbook.events (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(r));
  } finally {
    await c.end();
  }
}

async function serverRows(sql: string, args: unknown[] = []): Promise<Record<string, unknown>[]> {
  const c = await server.client();
  try {
    return (await c.query(sql, args)).rows as Record<string, unknown>[];
  } finally {
    await c.end();
  }
}

/** Rejects when `p` takes longer than `ms` (a hang is a failure, not a stuck test). */
function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms))),
  ]);
}

beforeAll(async () => {
  server = await startPgServer();
  files = copies(makeReleaseProject(tempDir('flipbook-hostile-'), 12), ['owner', 'lead', 'alice', 'bob', 'carol', 'mallory', 'rita']);
  for (const n of ['lead', 'alice', 'bob', 'carol', 'mallory']) await server.createRole(n, 'annotator');
  await server.createRole('rita', 'reviewer');
}, 120_000);

afterAll(() => server?.stop());

/** The space, made by its owner's first sync (`firstTime`). */
const spaceReady = firstTime(async () => {
  const p = openProject(files.owner!);
  try {
    await runSync(p, { server: server.url(ADMIN), space: SPACE, password: server.password });
  } finally {
    p.close();
  }
  for (const n of ['lead', 'alice', 'bob', 'carol', 'mallory', 'rita']) await syncIn(n);
});

describe('a team space no single member can break (real PostgreSQL)', () => {
  it('the server refuses malformed events, naming the event and the broken rule', async () => {
    await spaceReady();
    const refused = (over: Record<string, unknown>, re: RegExp) => expect(insertAs('mallory', row('mallory', over))).rejects.toThrow(re);
    await refused({ kind: 'bogus kind!' }, /the server refuses event [0-9a-f-]{36}: kind: not an event kind/);
    await refused({ at: 'yesterday' }, /at: not an ISO 8601 UTC time with milliseconds/);
    await refused({ at: '2026-02-30T10:00:00.000Z' }, /at: not a real date and time/);
    await refused({ payload: '[1,2]' }, /payload: not a JSON object/);
    await refused({ uuid: 'x' }, /the server refuses event x: uuid: not a lower-case UUID/);
    await refused({ payload: '{"status":"finished"}' }, /payload: setStatus: status: not one of todo, in_progress, done, skipped, needs_review/);
    await refused({ kind: 'undo', payload: '{}' }, /target_uuid: an undo or redo must name the uuid/);
    await refused({ payload: JSON.stringify({ status: 'done', pad: 'x'.repeat(70_000) }) }, /payload: larger than 65536 bytes/);
  });

  it('a poison row that reached the server stops no one: it is set aside, reported by uuid, and the team keeps syncing', async () => {
    await spaceReady();
    // A kind a newer Flipbook may write is taken by the server (and ignored by this one).
    await insertAs('mallory', row('mallory', { kind: 'setFocus', payload: '{"frame":3}' }));
    expect(await serverRows("SELECT kind FROM flipbook.events WHERE annotator = 'mallory'")).toEqual([{ kind: 'setFocus' }]);
    const poison = [row('mallory', { uuid: 'x' }), row('mallory', { at: 'yesterday' }), row('mallory', { payload: '[1,2]' }), row('mallory', { kind: 'Bogus kind' })];
    for (const r of poison) await insertAs(ADMIN, r, { aroundRules: true });
    edit('alice', 'q1', { status: 'done', note: 'alice was here' });
    const a = syncCli('alice');
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    expect(a.stdout).toMatch(/pushed 2, pulled 0/);
    expect(a.stdout).toMatch(/set aside 5 events of the space \(kept in this project, not applied\)/);
    expect(a.stdout).toMatch(/^ {4}x: uuid: not a lower-case UUID/m);
    expect(a.stdout).toMatch(new RegExp(`^ {4}${poison[1]!.uuid as string}: at: not an ISO 8601`, 'm'));
    expect(a.stdout).toMatch(new RegExp(`^ {4}${poison[2]!.uuid as string}: payload: not a JSON object`, 'm'));
    expect(a.stdout).toMatch(/kind: 'setFocus' is not known to this Flipbook \(a newer one wrote it\): kept, not applied/);
    // Bob pulls past the same rows and gets Alice's edits.
    const b = await syncIn('bob');
    expect(b).toMatchObject({ pulled: 2, held: { pulled: 5, notPushed: 0 } });
    expect(b.setAside.map((h) => h.uuid).sort()).toEqual([...poison.map((r) => r.uuid as string), b.setAside.find((h) => /setFocus/.test(h.reason))!.uuid].sort());
    expect(withProject('bob', (p) => p.annotations.listStates({ annotator: 'alice' }).map((s) => s.notes))).toEqual(['alice was here']);
    // Kept, not applied; the next round has nothing new to set aside.
    expect((await syncIn('bob')).setAside).toEqual([]);
    expect(withProject('bob', (p) => p.db.prepare('SELECT count(*) AS n FROM sync_held').get())).toEqual({ n: 5 });
  });

  it("a far-future or day-ahead clock changes no one else's stamps beyond the bound", async () => {
    await spaceReady();
    await expect(insertAs('mallory', row('mallory', { at: '9999-12-31T23:59:59.999Z' }))).rejects.toThrow(
      /at: 9999-12-31T23:59:59\.999Z is more than 5 minutes after the server's time/,
    );
    await expect(insertAs('mallory', row('mallory', { at: new Date(Date.now() + DAY_MS).toISOString() }))).rejects.toThrow(/more than 5 minutes/);
    // One that got around the rules is set aside, and Alice's next stamp stays on her clock.
    const far = row('mallory', { at: '9999-12-31T23:59:59.999Z' });
    await insertAs(ADMIN, far, { aroundRules: true });
    const r = await syncIn('alice');
    expect(r.setAside).toEqual([{ uuid: far.uuid, reason: expect.stringMatching(/^at: stamped more than a century after the server's time/) as unknown }]);
    edit('alice', 'q2', { status: 'in_progress' });
    expect(Date.parse(latestAt('alice'))).toBeLessThanOrEqual(Date.now() + BOUND_MS);

    // Even when such an event is in the project (merged from a bundle), a local edit follows it at most to the bound.
    withProject('alice', (p) =>
      p.annotations.importEvents([{ ...row('mallory'), sampleId: 'q9', at: '9999-12-31T23:59:59.999Z', payload: { status: 'done' }, codebookVersion: 1, targetUuid: null }]),
    );
    edit('alice', 'q3', { status: 'done' });
    expect(Date.parse(latestAt('alice'))).toBeLessThanOrEqual(Date.now() + BOUND_MS);

    // Carol's clock is one day ahead while she works and syncs: her edits wait, nobody is dragged.
    const realNow = Date.now.bind(Date);
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + DAY_MS);
    let carol: SyncReport;
    try {
      edit('carol', 'q4', { status: 'done' });
      carol = await syncIn('carol');
    } finally {
      spy.mockRestore();
    }
    expect(carol).toMatchObject({ pushed: 0, pending: 1, waiting: { count: 1 } });
    expect(carol.waiting!.aheadMs).toBeGreaterThan(DAY_MS - 60_000);
    expect(carol.clockOffsetMs).toBeGreaterThan(DAY_MS - 60_000);
    expect(await serverRows("SELECT count(*)::int AS n FROM flipbook.events WHERE annotator = 'carol'")).toEqual([{ n: 0 }]);
    await syncIn('bob');
    edit('bob', 'q5', { status: 'done' });
    expect(Date.parse(latestAt('bob'))).toBeLessThanOrEqual(Date.now() + BOUND_MS);
    // Bob's edit reaches the server (so that it holds an event besides the set-aside one even
    // when this test runs alone), stamped within the bound like every other.
    expect(await syncIn('bob')).toMatchObject({ pushed: 1 });
    const serverMax = await serverRows('SELECT max(at) AS at FROM flipbook.events WHERE space = $1 AND at < $2', [SPACE, '9999']);
    expect(Date.parse(serverMax[0]!.at as string)).toBeLessThanOrEqual(Date.now() + BOUND_MS);
  });

  it("an annotator's undo of the lead's adjudication has no effect anywhere", async () => {
    await spaceReady();
    edit('alice', 'q6', { primary: 'evidence-missed' });
    edit('bob', 'q6', { primary: 'resolution-loss' });
    await syncIn('alice');
    await syncIn('bob');
    await syncIn('lead');
    const adjudication = withProject('lead', (p) => {
      p.annotations.apply({ op: 'adjudicate', model: 'm1', split: 'S', sampleId: 'q6', primary: 'evidence-missed', pathways: [], note: 'lead decides' }, 'lead');
      return p.annotations.exportEvents({ annotator: 'lead' }).find((e) => e.kind === 'adjudicate')!.uuid;
    });
    await syncIn('lead');
    const withdraw = row('alice', { kind: 'undo', payload: '{}', sample_id: 'q6', target_uuid: adjudication });
    await expect(insertAs('alice', withdraw)).rejects.toThrow(/target_uuid: an event of 'lead'; only its author may undo or redo it/);
    await expect(insertAs('alice', row('alice', { kind: 'undo', payload: '{}', target_uuid: randomUUID() }))).rejects.toThrow(/target_uuid: names no event of the space/);
    // Around the rules, and in Alice's own project: no effect on anyone's view.
    await insertAs(ADMIN, withdraw, { aroundRules: true });
    for (const who of ['alice', 'bob', 'lead']) {
      await syncIn(who);
      const c = withProject(who, (p) => p.annotations.conflicts().find((x) => x.sampleId === 'q6'));
      expect(c?.resolution, who).toMatchObject({ adjudicator: 'lead', primary: 'evidence-missed' });
    }
  });

  it('a squatted uuid is reported to its author, whose edit still reaches everyone', async () => {
    await spaceReady();
    // Mallory learns the uuids of Bob's edits before he pushes them (a bundle he shared).
    edit('bob', 'q7', { status: 'done', note: "bob's note" });
    const [first, second] = withProject('bob', (p) => p.annotations.exportEvents({ annotator: 'bob', sampleId: 'q7' }).map((e) => e.uuid));
    await insertAs('mallory', row('mallory', { uuid: first, sample_id: 'q7', kind: 'setNotes', payload: '{"notes":"mallory was here"}' }));
    // The second is taken between Bob's pull and his push.
    const r = await syncIn('bob', {
      onStep: async (s) => {
        if (s === 'pulled') await insertAs('mallory', row('mallory', { uuid: second, sample_id: 'q7' }));
      },
    });
    expect(r.reissued.map((x) => [x.uuid, x.heldBy]).sort()).toEqual([first, second].map((u) => [u, 'mallory']).sort());
    expect(r.pushed).toBe(2);
    await syncIn('alice');
    expect(withProject('alice', (p) => p.annotations.listStates({ annotator: 'bob', sampleId: 'q7' })[0])).toMatchObject({ status: 'done', notes: "bob's note" });
    expect(withProject('alice', (p) => p.annotations.listStates({ annotator: 'mallory', sampleId: 'q7' })[0])).toMatchObject({ notes: 'mallory was here' });
    await syncIn('bob');
    const q7 = (who: string) =>
      withProject(who, (p) =>
        p.annotations
          .exportEvents({ sampleId: 'q7' })
          .map((e) => e.uuid)
          .sort(),
      );
    expect(q7('bob')).toHaveLength(4);
    expect(q7('bob')).toEqual(q7('alice'));
    expect(withProject('bob', (p) => pendingCount(p, server.url('bob'), SPACE))).toBe(0);
  });

  it("a reviewer's lock cannot stall a push; an annotator's open push stalls it no longer than the lock timeout, and nothing changes", async () => {
    await spaceReady();
    const rita = await server.client('rita');
    try {
      // The lock a push used to take: any role that can connect could hold it.
      await rita.query("SELECT pg_advisory_lock(hashtext('flipbook.events'))");
      edit('bob', 'q8', { status: 'done' });
      expect(await within(20_000, syncIn('bob'), "bob's push under rita's lock")).toMatchObject({ pushed: 1 });
      // The push lock now is not hers to take, nor a table lock that would block inserts.
      await expect(rita.query('BEGIN; LOCK TABLE flipbook.push_lock IN EXCLUSIVE MODE')).rejects.toThrow(/permission denied/);
      await rita.query('ROLLBACK');
      await expect(rita.query('BEGIN; LOCK TABLE flipbook.events IN EXCLUSIVE MODE')).rejects.toThrow(/permission denied/);
      await rita.query('ROLLBACK');
    } finally {
      await rita.end();
    }

    const mallory = await server.client('mallory');
    try {
      await mallory.query('BEGIN');
      await insertOpen(mallory);
      edit('bob', 'q8', { note: 'waits' });
      const serverBefore = await serverRows("SELECT count(*)::int AS n FROM flipbook.events WHERE annotator = 'bob'");
      const t0 = Date.now();
      await expect(within(20_000, syncIn('bob', { lockTimeoutMs: 1500 }), 'bob under an open push')).rejects.toThrow(
        /a lock on the server was not free within 2 s \(lock timeout\): another session holds it \(the push lock, by 'mallory'.*nothing was changed/,
      );
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(await serverRows("SELECT count(*)::int AS n FROM flipbook.events WHERE annotator = 'bob'")).toEqual(serverBefore);
      expect(withProject('bob', (p) => pendingCount(p, server.url('bob'), SPACE))).toBe(1);
    } finally {
      await mallory.query('ROLLBACK').catch(() => undefined);
      await mallory.end();
    }
    expect(await syncIn('bob')).toMatchObject({ pushed: 1, pending: 0 });
  });

  it("a space's created_by is the creating role, and no client picks a server id", async () => {
    await spaceReady();
    const c = await server.client('mallory');
    try {
      await expect(c.query("INSERT INTO flipbook.spaces (name, release, created_by) VALUES ('fake', '{}', 'lead')")).rejects.toThrow(/permission denied/);
      await expect(
        c.query(
          `INSERT INTO flipbook.events (id, space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload)
           VALUES (1000000000, $1, $2, $3, 'mallory', 'x', 1, 'm1', 'S', 'q1', 'setStatus', '{"status":"done"}')`,
          [SPACE, randomUUID(), new Date().toISOString()],
        ),
      ).rejects.toThrow(/permission denied/);
    } finally {
      await c.end();
    }
    const p = openProject(files.mallory!);
    try {
      expect(await runSync(p, { server: server.url('mallory'), space: 'mallorys', password: server.password })).toMatchObject({ spaceCreated: true });
    } finally {
      p.close();
    }
    expect(await serverRows("SELECT created_by FROM flipbook.spaces WHERE name = 'mallorys'")).toEqual([{ created_by: 'mallory' }]);
  });
});

/** Inserts one valid event in the open transaction of `c` (which then holds the push lock). */
async function insertOpen(c: Awaited<ReturnType<PgServer['client']>>): Promise<void> {
  const r = row('mallory');
  const cols = Object.keys(r);
  await c.query(`INSERT INTO flipbook.events (${cols.join(', ')}) VALUES (${cols.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(r));
}
