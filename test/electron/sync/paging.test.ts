/**
 * A backlog longer than one pull page (docs/team-sync.md: the hello brings the first
 * PULL_PAGE events, later pages follow by id) arrives whole, and the push cursor moves past
 * everything pushed, so a second round sends nothing again. Against a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { runSync } from '../../../electron/sync/sync';
import { pendingCount } from '../../../electron/sync/sync-cursors';
import { PULL_PAGE } from '../../../electron/sync/sync-server';
import { tempDir } from '../store/helpers';
import { addBacklog, copies, eventUuids, makeReleaseProject, firstTime } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

/** One page and a part: the pull must ask for the second page. */
const EVENTS = PULL_PAGE + 137;
let server: PgServer;
let files: Record<string, string>;

beforeAll(async () => {
  server = await startPgServer();
  files = copies(makeReleaseProject(tempDir('flipbook-sync-paging-'), 12), ['lead', 'kim', 'lou']);
  await server.createRole('kim', 'annotator');
  await server.createRole('lou', 'annotator');
  // Kim's backlog of EVENTS edits.
  addBacklog(files.kim!, 'kim', EVENTS);
}, 180_000);

afterAll(() => server?.stop());

/** The space, made by its owner's first sync (`firstTime`). */
const spaceReady = firstTime(async () => {
  const lead = openProject(files.lead!);
  try {
    await runSync(lead, { server: server.url(ADMIN), space: 'paging', password: server.password });
  } finally {
    lead.close();
  }
});

describe('sync of a backlog longer than one page', () => {
  it('pushes it once, and a colleague pulls every event across pages', async () => {
    await spaceReady();
    const kim = openProject(files.kim!);
    const opts = { server: server.url('kim'), space: 'paging', password: server.password };
    expect(pendingCount(kim, opts.server, 'paging')).toBe(EVENTS);
    const first = await runSync(kim, opts);
    expect(first.pushed).toBe(EVENTS);
    expect(pendingCount(kim, opts.server, 'paging')).toBe(0);
    const again = await runSync(kim, opts);
    expect(again.pushed).toBe(0);
    expect(again.pulled).toBe(0);
    kim.close();

    const lou = openProject(files.lou!);
    const report = await runSync(lou, { server: server.url('lou'), space: 'paging', password: server.password });
    expect(report.pulled).toBe(EVENTS);
    lou.close();
    expect(eventUuids(files.lou!)).toEqual(eventUuids(files.kim!));
  }, 180_000);
});
