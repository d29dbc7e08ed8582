/**
 * Events a sync set aside (docs/team-sync.md §3), in the project's `sync_held` table: a pulled
 * row that breaks the event rules or the clock bound, a kind a newer Flipbook wrote, a row whose
 * uuid names another event here, and this project's own edits the server will not take. Each is
 * kept as it came and never applied, so a bad row stops nobody and nothing is lost; the CLI and
 * the Sync panel count them and name their uuids.
 */
import type { Project } from '../store/project';

export interface HeldEvent {
  uuid: string;
  reason: string;
}

export interface SpaceRef {
  server: string;
  space: string;
  spaceId: string;
}

const clipUuid = (u: unknown): string => (typeof u === 'string' ? u : (JSON.stringify(u) ?? String(u))).slice(0, 200);

/** Records one held event (once: the same server row or local event is held once). */
export function hold(project: Project, at: SpaceRef, direction: 'pull' | 'push', ref: number, uuid: unknown, reason: string, event: unknown): HeldEvent {
  const h = { uuid: clipUuid(uuid), reason };
  project.db
    .prepare(
      `INSERT INTO sync_held (server, space, space_id, direction, ref, uuid, reason, event, held_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (server, space, space_id, direction, ref) DO NOTHING`,
    )
    .run(at.server, at.space, at.spaceId, direction, ref, h.uuid, reason, JSON.stringify(event) ?? 'null', new Date().toISOString());
  return h;
}

/** The local sequence numbers of this project's own events held back from a space. */
export function heldPushSeqs(project: Project, at: SpaceRef): Set<number> {
  const rows = project.db
    .prepare<[string, string, string], number>("SELECT ref FROM sync_held WHERE server = ? AND space = ? AND space_id = ? AND direction = 'push'")
    .pluck(true)
    .all(at.server, at.space, at.spaceId);
  return new Set(rows);
}

export interface HeldCounts {
  /** Rows pulled from the space and set aside. */
  pulled: number;
  /** This project's own edits the space will not take. */
  notPushed: number;
  /** The latest few of each, newest first. */
  latest: (HeldEvent & { direction: 'pull' | 'push' })[];
}

export function heldCounts(project: Project, server: string, space: string, latest = 5): HeldCounts {
  const n = project.db
    .prepare<[string, string], { direction: 'pull' | 'push'; n: number }>('SELECT direction, count(*) AS n FROM sync_held WHERE server = ? AND space = ? GROUP BY direction')
    .all(server, space);
  const rows = project.db
    .prepare<[string, string, number], HeldEvent & { direction: 'pull' | 'push' }>(
      'SELECT uuid, reason, direction FROM sync_held WHERE server = ? AND space = ? ORDER BY id DESC LIMIT ?',
    )
    .all(server, space, latest);
  return { pulled: n.find((r) => r.direction === 'pull')?.n ?? 0, notPushed: n.find((r) => r.direction === 'push')?.n ?? 0, latest: rows };
}
