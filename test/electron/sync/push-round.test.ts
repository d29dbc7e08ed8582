/**
 * The push half of a sync round, in-process on a real PostgreSQL (docs/team-sync.md §3): what
 * a project holds back and why (a broken rule, an undo of someone else's edit or of nothing,
 * an undo of an edit held back), what waits for the clock, what an interrupted round left on
 * the server, and an undo whose target had to be reissued. Each test has a space of its own,
 * so that each may run alone.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLOCK_SKEW_BOUND_MS } from '../../../shared/domain/annotations';
import { openProject } from '../../../electron/store/index';
import type { Project } from '../../../electron/store/project';
import { getCursor, putCursor } from '../../../electron/sync/sync-cursors';
import { runSync } from '../../../electron/sync/sync';
import { pushCodebooks } from '../../../electron/sync/sync-server';
import type { SyncReport } from '../../../electron/sync/sync-report';
import { tempDir } from '../store/helpers';
import { copies, makeReleaseProject } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

let server: PgServer;
let source: string;
beforeAll(async () => {
  server = await startPgServer();
  source = makeReleaseProject(tempDir('flipbook-push-round-'));
  await server.createRole('ann', 'annotator');
  await server.createRole('rev', 'reviewer');
}, 120_000);
afterAll(() => server?.stop());

let n = 0;
/** A space of its own, made by the owner, and a copy of the release for `ann`; the caller closes it. */
async function freshSpace(): Promise<{ space: string; ann: Project; sync: (extra?: object) => Promise<SyncReport> }> {
  const space = `push${++n}`;
  const files = copies(source, [`owner${n}`, `ann${n}`]);
  const owner = openProject(files[`owner${n}`]!);
  try {
    await runSync(owner, { server: server.url(ADMIN), space, password: server.password });
  } finally {
    owner.close();
  }
  const ann = openProject(files[`ann${n}`]!);
  return { space, ann, sync: (extra = {}) => runSync(ann, { server: server.url('ann'), space, password: server.password, ...extra }) };
}

const edit = (p: Project, sampleId: string, status = 'done'): string => {
  p.annotations.apply({ op: 'setStatus', model: 'm1', split: 'S', sampleId, status: status as 'done' }, 'ann');
  return p.annotations.eventsAfter(0, 'ann').at(-1)!.uuid;
};
const lastUuid = (p: Project): string => p.annotations.eventsAfter(0, 'ann').at(-1)!.uuid;

async function serverEvents(space: string): Promise<{ uuid: string; kind: string; target_uuid: string | null }[]> {
  const c = await server.client();
  try {
    return (await c.query('SELECT uuid, kind, target_uuid FROM flipbook.events WHERE space = $1 ORDER BY id', [space])).rows;
  } finally {
    await c.end();
  }
}

describe('a push', () => {
  it('holds back an edit the server will never take and an undo of it, reports each once, and sends the rest', async () => {
    const { space, ann, sync } = await freshSpace();
    try {
      const ok1 = edit(ann, 'q1');
      ann.annotations.apply({ op: 'setNotes', model: 'm1', split: 'S', sampleId: 'q2', notes: 'x'.repeat(70_000) }, 'ann');
      const big = lastUuid(ann);
      ann.annotations.undo('ann', { model: 'm1', split: 'S', sampleId: 'q2' });
      const ok2 = edit(ann, 'q3');
      const r = await sync();
      expect(r.refused.map((h) => [h.uuid, h.reason])).toEqual([
        [big, 'payload: larger than 65536 bytes'],
        [expect.any(String), 'target_uuid: acts on an edit the space does not take'],
      ]);
      expect(r.pushed).toBe(2);
      expect((await serverEvents(space)).map((e) => e.uuid)).toEqual([ok1, ok2]);
      expect(r.pending).toBe(0);
      // The next round reports nothing again, and sends nothing.
      const again = await sync();
      expect(again).toMatchObject({ refused: [], pushed: 0, held: { notPushed: 2 } });
    } finally {
      ann.close();
    }
  });

  it("holds back an undo of someone else's edit and one naming no event", async () => {
    const { space, ann, sync } = await freshSpace();
    try {
      // Ben's edit, merged into Ann's project (a shared bundle), then undone by Ann.
      const bens = {
        uuid: '00000000-0000-4000-8000-0000000000b1',
        at: '2026-01-01T00:00:00.000Z',
        annotator: 'ben',
        model: 'm1',
        split: 'S',
        sampleId: 'q4',
        kind: 'setStatus' as const,
        payload: { status: 'done' },
        codebookVersion: null,
        targetUuid: null,
      };
      ann.annotations.importEvents([bens]);
      const nowhere = '00000000-0000-4000-8000-0000000000ff';
      ann.annotations.importEvents([
        { ...bens, uuid: '00000000-0000-4000-8000-0000000000a1', annotator: 'ann', kind: 'undo', payload: {}, targetUuid: bens.uuid },
        { ...bens, uuid: '00000000-0000-4000-8000-0000000000a2', annotator: 'ann', kind: 'undo', payload: {}, targetUuid: nowhere },
      ]);
      const mine = edit(ann, 'q5');
      const r = await sync();
      expect(r.refused.map((h) => [h.uuid, h.reason])).toEqual([
        ['00000000-0000-4000-8000-0000000000a1', "target_uuid: an event of 'ben'; only its author may undo or redo it"],
        ['00000000-0000-4000-8000-0000000000a2', 'target_uuid: names no event of this project'],
      ]);
      expect((await serverEvents(space)).map((e) => e.uuid)).toEqual([mine]);
    } finally {
      ann.close();
    }
  });

  it('leaves edits stamped beyond the clock bound waiting, and the cursor before them', async () => {
    const { space, ann, sync } = await freshSpace();
    try {
      const sent = edit(ann, 'q1');
      const realNow = Date.now.bind(Date);
      const spy = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 2 * CLOCK_SKEW_BOUND_MS);
      try {
        edit(ann, 'q2');
      } finally {
        spy.mockRestore();
      }
      const spy2 = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 4 * CLOCK_SKEW_BOUND_MS);
      try {
        edit(ann, 'q3');
      } finally {
        spy2.mockRestore();
      }
      const r = await sync();
      expect(r.pushed).toBe(1);
      expect(r.waiting!.count).toBe(2);
      // How far ahead the latest waiting edit is, by the server's clock.
      expect(r.waiting!.aheadMs).toBeGreaterThan(3 * CLOCK_SKEW_BOUND_MS);
      expect(r.waiting!.aheadMs).toBeLessThanOrEqual(4 * CLOCK_SKEW_BOUND_MS);
      expect(r.pending).toBe(2);
      expect((await serverEvents(space)).map((e) => e.uuid)).toEqual([sent]);
    } finally {
      ann.close();
    }
  });

  it('skips what an interrupted round already put on the server, and reissues nothing', async () => {
    const { space, ann, sync } = await freshSpace();
    try {
      edit(ann, 'q1');
      edit(ann, 'q2');
      expect(await sync()).toMatchObject({ pushed: 2 });
      // As if the round had died after the server's commit and before the project saved its cursor.
      const addr = getCursor(ann, r0(ann, space), space);
      putCursor(ann, { ...addr, pushedSeq: 0 });
      edit(ann, 'q3');
      const r = await sync();
      expect(r).toMatchObject({ pushed: 1, skipped: 2, reissued: [], refused: [] });
      expect(await serverEvents(space)).toHaveLength(3);
    } finally {
      ann.close();
    }
  });

  it('sends an undo of a reissued edit with the new uuid as its target', async () => {
    const { space, ann, sync } = await freshSpace();
    try {
      const first = edit(ann, 'q6');
      ann.annotations.undo('ann', { model: 'm1', split: 'S', sampleId: 'q6' });
      // Someone else's event took the first edit's uuid on the server before Ann pushed.
      const c = await server.client();
      try {
        await c.query(
          `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
           VALUES ($1, $2, '2026-01-01T00:00:00.000Z', 'mal', 'd', 1, 'm1', 'S', 'q6', 'setNotes', '{"notes":"mine"}', NULL, NULL)`,
          [space, first],
        );
      } finally {
        await c.end();
      }
      const r = await sync();
      expect(r.reissued).toHaveLength(1);
      expect(r.reissued[0]).toMatchObject({ uuid: first, heldBy: 'mal' });
      const fresh = r.reissued[0]!.newUuid;
      const rows = await serverEvents(space);
      expect(rows.map((e) => [e.uuid, e.kind, e.target_uuid])).toEqual([
        [first, 'setNotes', null],
        [fresh, 'setStatus', null],
        [expect.any(String), 'undo', fresh],
      ]);
    } finally {
      ann.close();
    }
  });
});

describe('codebook versions at push', () => {
  const spaceVersions = async (space: string): Promise<number[]> => {
    const c = await server.client();
    try {
      return (await c.query<{ version: number }>('SELECT version FROM flipbook.codebooks WHERE space = $1 ORDER BY version', [space])).rows.map((r) => r.version);
    } finally {
      await c.end();
    }
  };

  it("a reviewer's new version stays in the project: a reviewer may not store codebooks", async () => {
    const { space, ann } = await freshSpace();
    ann.close();
    const before = await spaceVersions(space);
    const rev = openProject(copies(source, [`rev${n}`])[`rev${n}`]!);
    try {
      const cb = rev.annotations.getCodebook();
      rev.annotations.setCodebook({ ...cb, pathways: [...cb.pathways, { id: 'reviewers-own', label: 'Reviewer', description: '' }] });
      const r = await runSync(rev, { server: server.url('rev'), space, password: server.password });
      expect(r.codebooks.pushed).toBe(0);
      expect(await spaceVersions(space)).toEqual(before);
    } finally {
      rev.close();
    }
  });

  it('a version another client stored meanwhile with other content is refused, naming it; the same content is no conflict', async () => {
    const { space, ann } = await freshSpace();
    try {
      const [v] = await spaceVersions(space);
      const stored = ann.annotations.codebookHistory().find((x) => x.version === v)!;
      const c = await server.client();
      try {
        expect(await pushCodebooks(c, space, [stored])).toBe(0);
        const other = { ...stored, codebook: { ...stored.codebook, pathways: [...stored.codebook.pathways, { id: 'late', label: 'Late', description: '' }] } };
        await expect(pushCodebooks(c, space, [other])).rejects.toThrow(
          new RegExp(
            `space '${space}''s \\(the same version number with other content\\); nothing was synced:\\n  - version ${v}: pathways this project has and the space lacks: late`,
          ),
        );
        const next = { ...stored, version: v! + 1, codebook: { ...stored.codebook, version: v! + 1 } };
        expect(await pushCodebooks(c, space, [stored, next])).toBe(1);
      } finally {
        await c.end();
      }
    } finally {
      ann.close();
    }
  });
});

/** The cursor key `runSync` stores for Ann's server address. */
function r0(p: Project, space: string): string {
  const keys = Object.keys(p.getSetting<Record<string, unknown>>('sync.cursors') ?? {});
  const k = keys.find((x) => x.endsWith(`#${space}`));
  return k ? k.slice(0, -(space.length + 1)) : '';
}
