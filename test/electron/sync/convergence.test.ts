/**
 * Convergence (docs/team-sync.md): 8 annotators, 8 project files from the same release, random
 * edits through `annotate`'s code path and syncs at random times, all running at once against
 * a real PostgreSQL that is stopped abruptly (`pg_ctl stop -m immediate`) and restarted twice
 * mid-run — and a ninth member, hostile, who works the server with her own credentials at the
 * same time: malformed and far-future events, undos of others' edits, uuids of others' edits
 * not yet pushed (as from a shared bundle), a kind no Flipbook knows, the old push lock held,
 * her own pushes held open. After a final round every honest project holds exactly the same
 * events, exports byte-identical annotations/, and the server holds each honest edit exactly
 * once. In-process (the same functions the CLI calls): 8 × N spawned CLIs would take minutes.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32Uint32 } from '../../../shared/engine/prng';
import { openProject, type Project } from '../../../electron/store/index';
import { parseServerUrl } from '../../../electron/sync/connect';
import { runSync } from '../../../electron/sync/sync';
import { getCursor } from '../../../electron/sync/sync-cursors';
import { annotate, type AnnotateRow } from '../../../electron/jobs/annotate';
import { tempDir } from '../store/helpers';
import { copies, eventUuids, exportedAnnotations, makeReleaseProject } from './helpers';
import { ADMIN, startPgServer, type PgServer } from './pg-server';

const N = 8;
const EDITS_PER_ANNOTATOR = 30;
const PATHWAYS = ['evidence-missed', 'resolution-loss', 'distractor-frames', 'unclear', 'label-noise'];
const STATUSES = ['todo', 'in_progress', 'done', 'skipped', 'needs_review'];
const TRANSITIONS = ['textonly>16f_151k', '16f_151k>32f_151k', 'textonly>32f_151k'];

let server: PgServer;
let dir: string;

beforeAll(async () => {
  server = await startPgServer();
  dir = tempDir('flipbook-converge-');
}, 120_000);
afterAll(() => server?.stop());

describe('convergence of 8 annotators through a crashing server', () => {
  it('ends with identical event sets and byte-identical annotations/, nothing lost or doubled', async () => {
    const seed = Number(process.env.FLIPBOOK_SYNC_SEED ?? Date.now() % 1_000_000);
    console.log(`convergence seed ${seed} (FLIPBOOK_SYNC_SEED=${seed} repeats this run)`);
    const rand = mulberry32Uint32(seed);
    const pick = <T>(xs: readonly T[]): T => xs[rand() % xs.length]!;
    const names = Array.from({ length: N }, (_, i) => `ann${i + 1}`);
    const release = makeReleaseProject(dir, 12);
    const files = copies(release, ['lead', ...names]);
    for (const n of names) await server.createRole(n, 'annotator');
    await server.createRole('mal', 'annotator');
    // The owner's first sync makes the schema and the space.
    const lead = openProject(files.lead!);
    await runSync(lead, { server: server.url(ADMIN), space: 'conv', password: server.password });
    lead.close();

    const projects = new Map<string, Project>(names.map((n) => [n, openProject(files[n]!)]));
    let edits = 0;
    let syncsOk = 0;
    let syncsFailed = 0;
    let reissued = 0;
    const sync = async (n: string): Promise<boolean> => {
      try {
        const r = await runSync(projects.get(n)!, { server: server.url(n), space: 'conv', password: server.password, connectTimeoutMs: 3000 });
        reissued += r.reissued.length;
        syncsOk++;
        return true;
      } catch {
        syncsFailed++;
        return false;
      }
    };
    const edit = (n: string): void => {
      const row: AnnotateRow = { model: 'm1', split: 'S', item: `q${1 + (rand() % 12)}`, annotator: n };
      switch (rand() % 6) {
        case 0:
          row.tags = [pick(PATHWAYS)];
          break;
        case 1:
          row.primary = pick(PATHWAYS);
          break;
        case 2:
          row.status = pick(STATUSES);
          break;
        case 3:
          row.note = `note ${rand() % 1000}, "quoted"`;
          break;
        case 4:
          row.confidence = String(1 + (rand() % 5));
          break;
        default:
          row.transition = pick(TRANSITIONS);
      }
      edits += annotate(projects.get(n)!, [{ row, where: n }]).events;
    };
    const tick = (): Promise<void> => new Promise((r) => setTimeout(r, rand() % 15));

    // Each annotator: edits and syncs at random moments, all at once.
    let done = 0;
    const workers = names.map(async (n) => {
      for (let k = 0; k < EDITS_PER_ANNOTATOR; k++) {
        edit(n);
        if (rand() % 4 === 0) await sync(n);
        await tick();
      }
      done++;
    });
    // The hostile member, with her own credentials, straight to PostgreSQL.
    const attacks: Record<string, number> = {};
    let malAccepted = 0;
    const hostile = (async () => {
      const malRow = (over: Record<string, unknown>): unknown[] => {
        const r = {
          uuid: randomUUID(),
          at: new Date().toISOString(),
          sample_id: `q${1 + (rand() % 12)}`,
          kind: 'setStatus',
          payload: '{"status":"done"}',
          target_uuid: null,
          ...over,
        };
        return [r.uuid, r.at, r.sample_id, r.kind, r.payload, r.target_uuid];
      };
      const INSERT = `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
        VALUES ('conv', $1, $2, 'mal', 'psql', 1, 'm1', 'S', $3, $4, $5, 1, $6)`;
      /** An honest edit: one already on the server, or one its author has not pushed yet (as from a shared bundle). */
      const honestUuid = (pending: boolean): string | undefined => {
        const n = pick(names);
        const p = projects.get(n)!;
        const own = pending
          ? p.annotations.eventsAfter(getCursor(p, parseServerUrl(server.url(n)).display, 'conv').pushedSeq, n)
          : p.annotations.exportEvents().filter((e) => e.annotator !== 'mal');
        return own.length ? own[rand() % own.length]!.uuid : undefined;
      };
      let c: Awaited<ReturnType<PgServer['client']>> | null = null;
      while (done < N) {
        const kind = rand() % 8;
        const name = ['malformed', 'far-future', 'undo-other', 'squat', 'unknown-kind', 'old-lock', 'open-push', 'valid'][kind]!;
        attacks[name] = (attacks[name] ?? 0) + 1;
        try {
          c ??= await server.client('mal');
          if (name === 'malformed') await c.query(INSERT, malRow(pick([{ kind: 'Bogus!' }, { at: 'yesterday' }, { payload: '[1,2]' }, { uuid: 'x' }])));
          else if (name === 'far-future') await c.query(INSERT, malRow({ at: '9999-12-31T23:59:59.999Z' }));
          else if (name === 'undo-other') await c.query(INSERT, malRow({ kind: 'undo', payload: '{}', target_uuid: honestUuid(false) ?? randomUUID() }));
          else if (name === 'squat') await c.query(INSERT, malRow({ uuid: honestUuid(true) ?? randomUUID(), kind: 'setNotes', payload: '{"notes":"squatted"}' }));
          else if (name === 'unknown-kind') await c.query(INSERT, malRow({ kind: 'setFocus', payload: '{"frame":7}' }));
          else if (name === 'old-lock') {
            await c.query("SELECT pg_advisory_lock(hashtext('flipbook.events'))");
            await tick();
            await c.query("SELECT pg_advisory_unlock(hashtext('flipbook.events'))");
          } else if (name === 'open-push') {
            await c.query('BEGIN');
            await c.query(INSERT, malRow({}));
            await new Promise((r) => setTimeout(r, rand() % 300));
            await c.query('COMMIT');
          } else await c.query(INSERT, malRow({}));
          if (name === 'squat' || name === 'unknown-kind' || name === 'open-push' || name === 'valid') malAccepted++;
        } catch {
          // Refused by the server (as it should be), a uuid already taken, or the server down:
          // a fresh connection next time (a refused statement leaves an open push aborted).
          await c?.end().catch(() => undefined);
          c = null;
        }
        await tick();
      }
      await c?.end().catch(() => undefined);
    })();

    // The server goes down hard twice while they work, and comes back.
    const chaos = (async () => {
      for (let crash = 0; crash < 2; crash++) {
        const deadline = Date.now() + 60_000;
        const target = ((crash + 1) * N * EDITS_PER_ANNOTATOR) / 3;
        while (edits < target && done < N && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        await server.crash();
        await new Promise((r) => setTimeout(r, 50 + (rand() % 200)));
        await server.restart();
      }
    })();
    await Promise.all([...workers, chaos, hostile]);
    expect(syncsFailed, 'some syncs ran into the stopped server').toBeGreaterThan(0);

    // One squat that surely lands: an edit not yet pushed, whose uuid she takes first.
    edit(names[0]!);
    const target = projects.get(names[0]!)!.annotations.exportEvents({ annotator: names[0]! }).pop()!;
    const m = await server.client('mal');
    try {
      await m.query(
        `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version)
         VALUES ('conv', $1, $2, 'mal', 'psql', 1, 'm1', 'S', 'q1', 'setNotes', '{"notes":"squatted"}', 1)`,
        [target.uuid, new Date().toISOString()],
      );
    } finally {
      await m.end();
    }

    // Final round: everyone pushes, then everyone pulls what the others pushed.
    for (let round = 0; round < 2; round++) for (const n of names) expect(await sync(n), `final sync of ${n}`).toBe(true);
    for (const p of projects.values()) p.close();

    console.log(
      `convergence: ${edits} edits, ${syncsOk} syncs ok, ${syncsFailed} failed while the server was down; ` +
        `hostile member: ${JSON.stringify(attacks)}, ${malAccepted} of her inserts possibly accepted`,
    );
    const c = await server.client();
    let malOnServer = 0;
    let malKnown = 0;
    try {
      const r = await c.query<{ n: string; d: string }>("SELECT count(*) AS n, count(DISTINCT uuid) AS d FROM flipbook.events WHERE space = 'conv' AND annotator <> 'mal'");
      expect(Number(r.rows[0]!.n)).toBe(edits);
      expect(Number(r.rows[0]!.d)).toBe(edits);
      const m = await c.query<{ n: string; known: string }>(
        "SELECT count(*) AS n, count(*) FILTER (WHERE kind <> 'setFocus') AS known FROM flipbook.events WHERE space = 'conv' AND annotator = 'mal'",
      );
      malOnServer = Number(m.rows[0]!.n);
      malKnown = Number(m.rows[0]!.known);
      // Nothing she sent broke a rule: the server refused all of that.
      const bad = await c.query<{ n: string }>(
        "SELECT count(*) AS n FROM flipbook.events WHERE space = 'conv' AND (flipbook.event_problem(events) IS NOT NULL OR at > '9999' OR kind IN ('undo', 'redo'))",
      );
      expect(Number(bad.rows[0]!.n)).toBe(0);
    } finally {
      await c.end();
    }
    console.log(`convergence: the server holds ${malOnServer} events of the hostile member (${malKnown} of known kinds); ${reissued} squatted edits reissued`);
    expect(reissued).toBeGreaterThanOrEqual(1);
    const reference = eventUuids(files[names[0]!]!);
    // Every honest edit (a squatted one under its new uuid) and the hostile member's valid events of known kinds.
    expect(reference).toHaveLength(edits + malKnown);
    const refExport = await exportedAnnotations(files[names[0]!]!, path.join(dir, `exp-${names[0]}`));
    for (const n of names.slice(1)) {
      expect(eventUuids(files[n]!), n).toEqual(reference);
      const ex = await exportedAnnotations(files[n]!, path.join(dir, `exp-${n}`));
      expect([...ex.keys()]).toEqual([...refExport.keys()]);
      for (const [f, bytes] of refExport) expect(bytes.equals(ex.get(f)!), `${n}: annotations/${f}`).toBe(true);
    }
  }, 180_000);
});
