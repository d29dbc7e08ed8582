/**
 * A team space carries the codebook versions (docs/team-sync.md §1), against a real
 * PostgreSQL 15 started by the test: a space made before the codebooks migration gets the
 * project's versions on its next sync, a new version reaches a project that lacks it (and its
 * pathways can then be used), and a project with other content under a version number the space
 * has is refused, saying what differs, with nothing moved on either side.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Codebook } from '../../../shared/domain/annotations';
import { openProject } from '../../../electron/store/index';
import type { StoredCodebook } from '../../../electron/store/annotation-codebooks';
import { releaseIdentity } from '../../../electron/sync/release-identity';
import { migrateServer, SERVER_MIGRATIONS, SERVER_SCHEMA_VERSION } from '../../../electron/sync/server-schema';
import { runSync } from '../../../electron/sync/sync';
import type { SyncReport } from '../../../electron/sync/sync-report';
import { annotate } from '../../../electron/jobs/annotate';
import { tempDir } from '../store/helpers';
import { cliAs, copies, eventUuids, makeReleaseProject, step } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
let files: Record<string, string>;

const SPACE = 'cb';

const cli = (user: string, ...args: string[]) => cliAs(server, user, ...args);

async function syncIn(user: string, file: string): Promise<SyncReport> {
  const p = openProject(file);
  try {
    return await runSync(p, { server: server.url(user), space: SPACE, password: server.password });
  } finally {
    p.close();
  }
}

function withProject<T>(file: string, f: (p: ReturnType<typeof openProject>) => T): T {
  const p = openProject(file);
  try {
    return f(p);
  } finally {
    p.close();
  }
}

/** Saves the project's codebook with one more pathway (a new version) and returns it. */
const addPathway = (file: string, id: string): Codebook =>
  withProject(file, (p) => {
    const cb = p.annotations.getCodebook();
    return p.annotations.setCodebook({ ...cb, pathways: [...cb.pathways, { id, label: id, description: `added by the test: ${id}` }] });
  });

const history = (file: string): StoredCodebook[] => withProject(file, (p) => p.annotations.codebookHistory());

async function serverCodebooks(): Promise<{ version: number; definition: unknown }[]> {
  const c = await server.client();
  try {
    const r = await c.query<{ version: number; definition: unknown }>('SELECT version, definition FROM flipbook.codebooks WHERE space = $1 ORDER BY version', [SPACE]);
    return r.rows;
  } finally {
    await c.end();
  }
}

async function serverEventCount(): Promise<number> {
  const c = await server.client();
  try {
    return Number((await c.query<{ n: string }>('SELECT count(*) AS n FROM flipbook.events WHERE space = $1', [SPACE])).rows[0]!.n);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  server = await startPgServer();
  files = copies(makeReleaseProject(tempDir('flipbook-sync-cb-'), 12), ['lead', 'alice', 'carol', 'rita']);
  await server.createRole('alice', 'annotator');
  await server.createRole('carol', 'annotator');
  await server.createRole('rita', 'reviewer');
}, 120_000);

afterAll(() => server?.stop());

describe('codebook versions in a team space (real PostgreSQL)', () => {
  // Each step builds on the ones before it, so they are steps of one test: run alone (as the
  // mutation run runs only the tests that reach a mutant) a later step would fail for want
  // of the earlier ones (docs/testing.md, "Mutation testing").
  it('codebook versions move through one space, step by step', async () => {
    await step("a space made before the codebooks migration gets the project's versions on its next sync", async () => {
      // What an older Flipbook left: schema version 10 and a space with its release, no codebooks.
      const c = await server.client();
      try {
        await migrateServer(
          c,
          SERVER_MIGRATIONS.filter((m) => m.version === 10),
        );
        const release = withProject(files.lead!, (p) => releaseIdentity(p));
        await c.query('INSERT INTO flipbook.spaces (name, release) VALUES ($1, $2)', [SPACE, JSON.stringify(release)]);
      } finally {
        await c.end();
      }
      const r = cli(ADMIN, 'sync', '--project', files.lead!, '--server', server.url(ADMIN), '--space', SPACE);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Updated Flipbook's schema on \\S+ from version 10 to ${SERVER_SCHEMA_VERSION}`));
      expect(r.stdout).toMatch(/Codebook versions: 1 stored in the space, 0 added to this project/);
      const mine = history(files.lead!);
      expect(mine.map((v) => v.version)).toEqual([1]);
      expect(await serverCodebooks()).toEqual(mine.map((v) => ({ version: v.version, definition: v.codebook })));
      // Again: nothing more to store.
      expect((await syncIn(ADMIN, files.lead!)).codebooks).toEqual({ pushed: 0, pulled: 0 });
    });

    await step('a new version reaches a project that lacks it, whose annotator can then use its pathways', async () => {
      expect(addPathway(files.lead!, 'audio-needed').version).toBe(2);
      expect((await syncIn(ADMIN, files.lead!)).codebooks).toEqual({ pushed: 1, pulled: 0 });
      expect((await serverCodebooks()).map((v) => v.version)).toEqual([1, 2]);

      const use = () =>
        withProject(files.alice!, (p) => annotate(p, [{ row: { model: 'm1', split: 'S', item: 'q1', annotator: 'alice', primary: 'audio-needed' }, where: 'test' }]));
      expect(use).toThrow(/primary: 'audio-needed' is not a pathway of the codebook/);
      const r = await syncIn('alice', files.alice!);
      expect(r.codebooks).toEqual({ pushed: 0, pulled: 1 });
      expect(history(files.alice!).map((v) => [v.version, v.codebook])).toEqual(history(files.lead!).map((v) => [v.version, v.codebook]));
      expect(withProject(files.alice!, (p) => p.annotations.getCodebook().version)).toBe(2);
      use();
      expect(await syncIn('alice', files.alice!)).toMatchObject({ pushed: 1, codebooks: { pushed: 0, pulled: 0 } });
      const c = await server.client();
      try {
        // The pushed edit names the version it was made under, which the space holds.
        const r2 = await c.query<{ v: number }>("SELECT codebook_version AS v FROM flipbook.events WHERE space = $1 AND annotator = 'alice'", [SPACE]);
        expect(r2.rows).toEqual([{ v: 2 }]);
      } finally {
        await c.end();
      }

      // A reviewer's role pulls versions too (and stores none).
      expect((await syncIn('rita', files.rita!)).codebooks).toEqual({ pushed: 0, pulled: 1 });
      expect(withProject(files.rita!, (p) => p.annotations.getCodebook().pathways.some((x) => x.id === 'audio-needed'))).toBe(true);
    });

    await step('refuses a project with other content under a version the space has, saying what differs; nothing moves', async () => {
      addPathway(files.carol!, 'carols-own');
      withProject(files.carol!, (p) => annotate(p, [{ row: { model: 'm1', split: 'S', item: 'q2', annotator: 'carol', status: 'done' }, where: 'test' }]));
      const eventsBefore = await serverEventCount();
      const carolBefore = eventUuids(files.carol!);

      const r = cli('carol', 'sync', '--project', files.carol!, '--server', server.url('carol'), '--space', SPACE);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/this project's codebook conflicts with space 'cb''s \(the same version number with other content\); nothing was synced/);
      expect(r.stderr).toMatch(/version 2: pathways the space has and this project lacks: audio-needed; pathways this project has and the space lacks: carols-own/);

      expect(await serverEventCount()).toBe(eventsBefore);
      expect((await serverCodebooks()).map((v) => v.version)).toEqual([1, 2]);
      expect(eventUuids(files.carol!)).toEqual(carolBefore);
      expect(withProject(files.carol!, (p) => p.annotations.getCodebook().pathways.map((x) => x.id))).toContain('carols-own');
    });
  }, 600_000);
});
