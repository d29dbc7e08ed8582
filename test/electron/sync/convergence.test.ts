/**
 * Convergence (docs/team-sync.md): 8 annotators, 8 project files from the same release, random
 * edits through `annotate`'s code path and syncs at random times, all running at once against
 * a real PostgreSQL that is stopped abruptly (`pg_ctl stop -m immediate`) and restarted twice
 * mid-run. After a final round every project holds exactly the same events, exports
 * byte-identical annotations/, and the number of events equals the number of edits made.
 * In-process (the same functions the CLI calls): 8 × N spawned CLIs would take minutes.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32Uint32 } from '../../../shared/engine/prng';
import { openProject, type Project } from '../../../electron/store/index';
import { runSync } from '../../../electron/sync/sync';
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
    const pick = <T,>(xs: readonly T[]): T => xs[rand() % xs.length]!;
    const names = Array.from({ length: N }, (_, i) => `ann${i + 1}`);
    const release = makeReleaseProject(dir, 12);
    const files = copies(release, ['lead', ...names]);
    for (const n of names) await server.createRole(n, 'annotator');
    // The owner's first sync makes the schema and the space.
    const lead = openProject(files.lead!);
    await runSync(lead, { server: server.url(ADMIN), space: 'conv', password: server.password });
    lead.close();

    const projects = new Map<string, Project>(names.map((n) => [n, openProject(files[n]!)]));
    let edits = 0;
    let syncsOk = 0;
    let syncsFailed = 0;
    const sync = async (n: string): Promise<boolean> => {
      try {
        await runSync(projects.get(n)!, { server: server.url(n), space: 'conv', password: server.password, connectTimeoutMs: 3000 });
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
        case 0: row.tags = [pick(PATHWAYS)]; break;
        case 1: row.primary = pick(PATHWAYS); break;
        case 2: row.status = pick(STATUSES); break;
        case 3: row.note = `note ${rand() % 1000}, "quoted"`; break;
        case 4: row.confidence = String(1 + (rand() % 5)); break;
        default: row.transition = pick(TRANSITIONS);
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
    await Promise.all([...workers, chaos]);
    expect(syncsFailed, 'some syncs ran into the stopped server').toBeGreaterThan(0);

    // Final round: everyone pushes, then everyone pulls what the others pushed.
    for (let round = 0; round < 2; round++) for (const n of names) expect(await sync(n), `final sync of ${n}`).toBe(true);
    for (const p of projects.values()) p.close();

    console.log(`convergence: ${edits} edits, ${syncsOk} syncs ok, ${syncsFailed} failed while the server was down`);
    const c = await server.client();
    try {
      const r = await c.query<{ n: string; d: string }>("SELECT count(*) AS n, count(DISTINCT uuid) AS d FROM flipbook.events WHERE space = 'conv'");
      expect(Number(r.rows[0]!.n)).toBe(edits);
      expect(Number(r.rows[0]!.d)).toBe(edits);
    } finally {
      await c.end();
    }
    const reference = eventUuids(files[names[0]!]!);
    expect(reference).toHaveLength(edits);
    const refExport = await exportedAnnotations(files[names[0]!]!, path.join(dir, `exp-${names[0]}`));
    for (const n of names.slice(1)) {
      expect(eventUuids(files[n]!), n).toEqual(reference);
      const ex = await exportedAnnotations(files[n]!, path.join(dir, `exp-${n}`));
      expect([...ex.keys()]).toEqual([...refExport.keys()]);
      for (const [f, bytes] of refExport) expect(bytes.equals(ex.get(f)!), `${n}: annotations/${f}`).toBe(true);
    }
  }, 180_000);
});
