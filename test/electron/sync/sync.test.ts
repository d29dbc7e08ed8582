/**
 * `flipbook sync` and `flipbook annotate` through the real CLI against a real PostgreSQL 15
 * started by the test (docs/team-sync.md): schema creation, push/pull by uuid, idempotence,
 * conflicts, the release check, rights (reviewer read-only, own name only), offline.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { SERVER_SCHEMA_VERSION } from '../../../electron/sync/server-schema';
import { runSync } from '../../../electron/sync/sync';
import { pendingCount } from '../../../electron/sync/sync-cursors';
import type { SyncReport } from '../../../electron/sync/sync-report';
import { annotate as annotateRows, type AnnotateRow } from '../../../electron/jobs/annotate';
import { repoRoot } from '../cli/cli-helpers';
import { tempDir } from '../store/helpers';
import { copies, eventUuids, exportedAnnotations, makeReleaseProject, step } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
let dir: string;
let projects: Record<string, string>;

function cli(env: Record<string, string>, ...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

// The CLI is spawned where its own behaviour is under test (output, exit codes); the rest
// calls the same functions in-process (a spawned CLI costs seconds on a loaded machine).
const as = (user: string) => ({ PGPASSWORD: server.password, FLIPBOOK_ANNOTATOR: user });
const sync = (user: string, project: string, ...extra: string[]) => cli(as(user), 'sync', '--project', project, '--server', server.url(user), '--space', 'audit', ...extra);
async function syncIn(user: string, projectPath: string): Promise<SyncReport> {
  const p = openProject(projectPath);
  try {
    return await runSync(p, { server: server.url(user), space: 'audit', password: server.password });
  } finally {
    p.close();
  }
}
function annotateIn(user: string, projectPath: string, row: Omit<AnnotateRow, 'annotator' | 'model' | 'split'>): void {
  const p = openProject(projectPath);
  try {
    annotateRows(p, [{ row: { model: 'm1', split: 'S', annotator: user, ...row }, where: 'test' }]);
  } finally {
    p.close();
  }
}
const annotate = (user: string, project: string, ...args: string[]) => cli(as(user), 'annotate', '--project', project, '--annotator', user, ...args);

beforeAll(async () => {
  server = await startPgServer();
  dir = tempDir('flipbook-sync-');
  const release = makeReleaseProject(dir);
  projects = copies(release, ['lead', 'alice', 'bob', 'rita', 'other']);
  await server.createRole('alice', 'annotator');
  await server.createRole('bob', 'annotator');
  await server.createRole('rita', 'reviewer');
}, 120_000);

afterAll(() => server?.stop());

describe('flipbook sync (real PostgreSQL)', () => {
  // Each step builds on the ones before it, so they are steps of one test: run alone (as the
  // mutation run runs only the tests that reach a mutant) a later step would fail for want
  // of the earlier ones (docs/testing.md, "Mutation testing").
  it('an audit team syncs through one space, step by step', async () => {
    await step("an annotator cannot create the schema; the owner's first sync does, and records the release", async () => {
      const refused = sync('alice', projects.alice!);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/may not create it.*first sync as the database owner/s);
      const first = sync(ADMIN, projects.lead!);
      expect(first.stderr).toBe('');
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`Created Flipbook's schema .*version ${SERVER_SCHEMA_VERSION}`));
      expect(first.stdout).toMatch(/Created space audit/);
      expect(first.stdout).toMatch(/pushed 0, pulled 0, conflicts 0/);
    });

    await step('pushes what the server lacks and pulls what the project lacks, idempotently, and counts conflicts', async () => {
      annotateIn('alice', projects.alice!, { item: 'q1', primary: 'evidence-missed', status: 'done' });
      annotateIn('bob', projects.bob!, { item: 'q1', primary: 'resolution-loss', tags: ['unclear'] });
      annotateIn('bob', projects.bob!, { item: 'q2', confidence: '4', note: 'blurry, "zoomed", out' });
      const p = openProject(projects.alice!, { readOnly: true });
      expect(pendingCount(p, server.url('alice'), 'audit')).toBe(2);
      p.close();

      expect(await syncIn('alice', projects.alice!)).toMatchObject({ role: 'alice', pushed: 2, pulled: 0, conflicts: 0, pending: 0 });
      expect(await syncIn('bob', projects.bob!)).toMatchObject({ pushed: 4, pulled: 2, conflicts: 1, openConflicts: 1, pending: 0 });
      expect(await syncIn('alice', projects.alice!)).toMatchObject({ pushed: 0, pulled: 4, conflicts: 1 });
      // Nothing new: a second round moves nothing.
      expect(await syncIn('alice', projects.alice!)).toMatchObject({ pushed: 0, pulled: 0, queries: 1 });
      expect(await syncIn('bob', projects.bob!)).toMatchObject({ pushed: 0, pulled: 0 });
      const lead = sync(ADMIN, projects.lead!);
      expect(lead.stdout).toMatch(/pushed 0, pulled 6, conflicts 1 \(1 open\)/);

      expect(eventUuids(projects.alice!)).toEqual(eventUuids(projects.bob!));
      expect(eventUuids(projects.alice!)).toEqual(eventUuids(projects.lead!));
      const a = await exportedAnnotations(projects.alice!, path.join(dir, 'exp-alice'));
      const b = await exportedAnnotations(projects.bob!, path.join(dir, 'exp-bob'));
      expect([...a.keys()]).toEqual([...b.keys()]);
      for (const [f, bytes] of a) expect(bytes.equals(b.get(f)!), f).toBe(true);
      expect(a.get('pathways.csv')!.toString()).toMatch(/q2,m1,S,bob,todo,,,,"blurry, ""zoomed"", out",4/);
    });

    await step('a reviewer pulls but cannot push; the server refuses events under another name', async () => {
      expect((await syncIn('rita', projects.rita!)).pulled).toBe(6);
      annotateIn('rita', projects.rita!, { item: 'q3', status: 'done' });
      await expect(syncIn('rita', projects.rita!)).rejects.toThrow(/may not do that on the server: permission denied for table events \(a reviewer's role is read-only\)/);
      const c = await server.client();
      try {
        expect(Number((await c.query("SELECT count(*) AS n FROM flipbook.events WHERE annotator = 'rita'")).rows[0].n)).toBe(0);
      } finally {
        await c.end();
      }
      // Alice's edits under Bob's name stay local and are reported; a hand-made INSERT is refused by the server.
      annotateIn('bob', projects.alice!, { item: 'q4', status: 'skipped' });
      const r = await syncIn('alice', projects.alice!);
      expect(r).toMatchObject({ pushed: 0, notPushed: { bob: 1 } });
      const alice = await server.client('alice');
      try {
        await expect(
          alice.query(
            "INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload) VALUES ('audit', '0e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b', '2026-01-01T00:00:00.000Z', 'bob', 'x', 1, 'm1', 'S', 'q4', 'setStatus', '{\"status\":\"done\"}')",
          ),
        ).rejects.toThrow(/row-level security/);
        await expect(alice.query("DELETE FROM flipbook.events WHERE annotator = 'alice'")).rejects.toThrow(/permission denied/);
        await expect(alice.query("UPDATE flipbook.events SET annotator = 'alice'")).rejects.toThrow(/permission denied/);
      } finally {
        await alice.end();
      }
    });

    await step('refuses a project whose release differs, saying what differs, and changes nothing', async () => {
      const otherDir = tempDir('flipbook-sync-other-');
      const other = makeReleaseProject(otherDir, 14, 'other.flipbook');
      annotateIn('alice', other, { item: 'q13', status: 'done' });
      const r = syncIn('alice', other);
      await expect(r).rejects.toThrow(/differs from space 'audit''s release; nothing was synced/);
      await expect(r).rejects.toThrow(/labels\/per_item\.csv rows: the space's release has 36, this project 42/);
      expect(eventUuids(other)).toHaveLength(1);
    });

    await step('annotate refuses bad ids and values with file:line: field: reason and changes nothing', async () => {
      const before = eventUuids(projects.other!);
      const bad = (args: string[], re: RegExp) => {
        const r = annotate('alice', projects.other!, ...args);
        expect(r.code, r.stderr).toBe(1);
        expect(r.stderr).toMatch(re);
      };
      bad(['--model', 'm1', '--split', 'S', '--item', 'q99', '--status', 'done'], /annotate: item: 'q99' is not an item of split 'S'; nothing changed/);
      const refused = (row: Omit<AnnotateRow, 'annotator' | 'model' | 'split'> & { model?: string }, re: RegExp) =>
        expect(() => annotateIn('alice', projects.other!, row)).toThrow(re);
      refused({ model: 'mX', item: 'q1', status: 'done' }, /test: model: 'mX' is not in the project/);
      refused({ item: 'q1', tags: ['nope'] }, /tag: 'nope' is not a pathway of the codebook/);
      refused({ item: 'q1', confidence: '7' }, /confidence: '7' is not an integer from 1 to 5/);
      refused({ item: 'q1', transition: '16f_151k>99f' }, /transition: '99f' is not a config of m1 on S/);
      refused({ item: 'q1', status: 'finished' }, /status: 'finished' is not one of/);
      const csv = path.join(dir, 'rows.csv');
      fs.writeFileSync(csv, 'model,split,item,tags,primary,status\nm1,S,q1,unclear;label-noise,label-noise,done\nm1,S,q2,,,finished\n');
      bad(['--from-csv', csv], /rows\.csv:3: status: 'finished' is not one of/);
      expect(eventUuids(projects.other!)).toEqual(before);
      fs.writeFileSync(csv, 'model,split,item,tags,primary,status\nm1,S,q1,unclear;label-noise,label-noise,done\nm1,S,q2,,,in_progress\n');
      const ok = annotate('alice', projects.other!, '--from-csv', csv, '--json');
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual({ rows: 2, events: 5, annotators: ['alice'] });
    });

    await step('offline: the error says so in words, nothing is lost, and the next sync completes', async () => {
      annotateIn('bob', projects.bob!, { item: 'q5', status: 'done' });
      const down = cli(as('bob'), 'sync', '--project', projects.bob!, '--server', `postgresql://bob@127.0.0.1:1/lab`, '--space', 'audit');
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/cannot reach 127\.0\.0\.1:1 \(connection refused\): the server is down or you are offline/);
      const p0 = openProject(projects.bob!);
      try {
        await expect(runSync(p0, { server: server.url('bob'), space: 'audit', password: 'wrong' })).rejects.toThrow(/password authentication failed for bob/);
      } finally {
        p0.close();
      }
      const p = openProject(projects.bob!, { readOnly: true });
      expect(pendingCount(p, server.url('bob'), 'audit')).toBe(1);
      p.close();
      const again = sync('bob', projects.bob!, '--json');
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ pushed: 1, pending: 0 });
    });
  }, 600_000);
});
