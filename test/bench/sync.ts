/**
 * Team-sync benchmark (docs/team-sync.md). `node --import tsx test/bench/sync.ts` prints the
 * JSON; test/bench/run.ts calls benchSync(). A real PostgreSQL started for the run (the sync
 * tests' harness: initdb + pg_ctl on a loopback port, scram-sha-256):
 *   - push: 10,000 events of one annotator from a project to an empty space;
 *   - pull: the same 10,000 events into an empty project (same release);
 *   - incremental: a sync with nothing new (median of runs), with the number of statements it
 *     sent after connecting — one round trip. Its time includes connecting (TCP + SCRAM) and
 *     hashing the project's per_item.csv (the release check).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { openProject } from '../../electron/store/index';
import { runSync } from '../../electron/sync/sync';
import type { SyncReport } from '../../electron/sync/sync-report';
import { copies, makeReleaseProject } from '../electron/sync/helpers';
import { ADMIN, startPgServer } from '../electron/sync/pg-server';

const EVENTS = 10_000;
const round = (x: number): number => Math.round(x * 10) / 10;

export async function benchSync(): Promise<Record<string, unknown>> {
  const server = await startPgServer();
  const dir = mkdtempSync(path.join(tmpdir(), 'flipbook-bench-sync-'));
  try {
    const files = copies(makeReleaseProject(dir, 12), ['lead', 'src', 'dst']);
    await server.createRole('bench', 'annotator');
    const sync = async (file: string, user: string): Promise<{ ms: number; r: SyncReport }> => {
      const p = openProject(file);
      try {
        const t = performance.now();
        const r = await runSync(p, { server: server.url(user), space: 'bench', password: server.password });
        return { ms: performance.now() - t, r };
      } finally {
        p.close();
      }
    };
    await sync(files.lead!, ADMIN);
    const src = openProject(files.src!);
    const t0 = Date.parse('2026-03-01T00:00:00.000Z');
    src.annotations.importEvents(
      Array.from({ length: EVENTS }, (_, i) => ({
        uuid: randomUUID(),
        at: new Date(t0 + i).toISOString(),
        annotator: 'bench',
        model: 'm1',
        split: 'S',
        sampleId: `q${1 + (i % 12)}`,
        kind: i % 3 === 0 ? 'setNotes' : i % 3 === 1 ? 'setStatus' : 'setConfidence',
        payload: i % 3 === 0 ? { notes: `note ${i}` } : i % 3 === 1 ? { status: 'in_progress' } : { confidence: 1 + (i % 5) },
        codebookVersion: 1,
        targetUuid: null,
      })),
    );
    src.close();
    const push = await sync(files.src!, 'bench');
    const pull = await sync(files.dst!, 'bench');
    if (push.r.pushed !== EVENTS || pull.r.pulled !== EVENTS) throw new Error(`pushed ${push.r.pushed}, pulled ${pull.r.pulled}, expected ${EVENTS}`);
    const runs: number[] = [];
    let queries = 0;
    for (let i = 0; i < 7; i++) {
      const s = await sync(files.dst!, 'bench');
      if (s.r.pushed || s.r.pulled) throw new Error('an incremental sync moved events');
      runs.push(round(s.ms));
      queries = s.r.queries;
    }
    const median = runs.slice().sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
    return {
      events: EVENTS,
      push_ms: round(push.ms),
      push_queries: push.r.queries,
      pull_into_empty_project_ms: round(pull.ms),
      pull_queries: pull.r.queries,
      incremental_nothing_new_ms: { median, runs },
      incremental_queries: queries,
      note: 'times include connecting (TCP + SCRAM auth) and hashing per_item.csv for the release check',
    };
  } finally {
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(JSON.stringify(await benchSync(), null, 2) + '\n');
}
