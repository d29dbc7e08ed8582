/**
 * The push half of a sync round (docs/team-sync.md §3): the project's own events after its push
 * cursor in ONE server transaction, which also reads what others pushed since the hello. Edits
 * the server will not take are held back and reported; one whose uuid the space holds for
 * another event gets a fresh uuid and goes again.
 */
import type pg from 'pg';
import type { SequencedEvent } from '../store/annotation-tables';
import type { Project } from '../store/project';
import { beyondClockBound, checkEvent } from './event-rules';
import { type HeldEvent, heldPushSeqs, hold, type SpaceRef } from './held-events';
import type { SyncCursor } from './sync-cursors';
import { sameEvent, toRows, type WireRow } from './sync-pull';
import { AFTER_SQL, serverEvents, serverRefusal } from './sync-server';
/** Events per INSERT statement of a push (all in one transaction). */
const PUSH_BATCH = 10_000;

export interface PushContext {
  project: Project;
  at: SpaceRef;
  role: string;
  device: string;
  space: string;
  cursor: SyncCursor;
  serverNowMs: () => number;
}

export interface PushResult {
  insertedIds: number[];
  skipped: number;
  /** What others pushed since the hello, read under the push lock. */
  after: { maxId: number; rows: WireRow[] };
  /** The push cursor after this push: past every event pushed or held back, before the first that waits. */
  pushedSeq: number;
  refused: HeldEvent[];
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
  waiting: { count: number; aheadMs: number } | null;
}

/**
 * Pushes the role's events after the push cursor in ONE server transaction. Before sending,
 * each is checked as the server would (event-rules.ts): one the server will never take is held
 * back (and an undo or redo of it), and the push stops before the first stamped beyond the clock
 * bound (it and what follows wait for a later round). Should the server still refuse one (the
 * ownership of an undo's target, a clock race), the transaction is rolled back, that event held
 * back and the rest sent again. An event whose uuid the space holds for a different event gets a
 * fresh uuid here and is sent again: never a silent skip. Null when there is nothing to push.
 */
export async function push(client: pg.Client, ctx: PushContext): Promise<PushResult | null> {
  const { project, at, role } = ctx;
  const all = project.annotations.eventsAfter(ctx.cursor.pushedSeq, role);
  if (all.length === 0) return null;
  const refused: HeldEvent[] = [];
  const reissued: PushResult['reissued'] = [];
  const heldBefore = heldPushSeqs(project, at);
  const heldUuids = new Set<string>();
  const holdBack = (e: SequencedEvent, reason: string): void => {
    heldUuids.add(e.uuid);
    if (!heldBefore.has(e.seq)) refused.push(hold(project, at, 'push', e.seq, e.uuid, reason, e));
  };
  let list: SequencedEvent[] = [];
  let waitFrom: SequencedEvent | null = null;
  const targets = project.annotations.eventsByUuid(all.filter((e) => e.targetUuid !== null).map((e) => e.targetUuid!));
  for (const e of all) {
    if (heldBefore.has(e.seq)) {
      heldUuids.add(e.uuid);
      continue;
    }
    const c = checkEvent(e);
    if (!c.ok) {
      holdBack(e, `${c.problem.field}: ${c.problem.reason}`);
      continue;
    }
    if (beyondClockBound(e.at, ctx.serverNowMs())) {
      waitFrom = e;
      break;
    }
    if (e.targetUuid !== null) {
      const t = targets.get(e.targetUuid);
      if (!t || t.annotator !== role) {
        holdBack(e, `target_uuid: ${t ? `an event of '${t.annotator}'; only its author may undo or redo it` : 'names no event of this project'}`);
        continue;
      }
      if (heldUuids.has(e.targetUuid)) {
        holdBack(e, 'target_uuid: acts on an edit the space does not take');
        continue;
      }
    }
    list.push(e);
  }
  const pushedSeqOf = (from: SequencedEvent | null): number => (from !== null ? from.seq - 1 : all[all.length - 1]!.seq);
  const waitingOf = (from: SequencedEvent | null): PushResult['waiting'] => {
    if (from === null) return null;
    const rest = all.filter((e) => e.seq >= from.seq);
    const latest = Math.max(...rest.map((e) => Date.parse(e.at)));
    return { count: rest.length, aheadMs: Math.max(0, latest - ctx.serverNowMs()) };
  };

  // Each attempt either commits or rolls back whole; each retry has one event fewer or one
  // uuid changed, so the loop ends.
  for (let attempt = 0; ; attempt++) {
    if (list.length === 0) {
      return { insertedIds: [], skipped: 0, after: { maxId: 0, rows: [] }, pushedSeq: pushedSeqOf(waitFrom), refused, reissued, waiting: waitingOf(waitFrom) };
    }
    await client.query('BEGIN');
    const inserted = new Map<string, number>();
    let retry = false;
    let after: PushResult['after'] = { maxId: 0, rows: [] };
    try {
      for (let i = 0; i < list.length; i += PUSH_BATCH) {
        const part = list.slice(i, i + PUSH_BATCH);
        const col = <K extends keyof SequencedEvent>(k: K): SequencedEvent[K][] => part.map((e) => e[k]);
        const r = await client.query<{ id: string; uuid: string }>(
          `INSERT INTO flipbook.events (space, uuid, at, annotator, device, local_seq, model, split, sample_id, kind, payload, codebook_version, target_uuid)
           SELECT $1, u.uuid, u.at, u.annotator, $2, u.seq, u.model, u.split, u.sample_id, u.kind, u.payload, u.cbv, u.target
           FROM unnest($3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::json[], $12::int[], $13::text[])
             AS u (uuid, at, annotator, seq, model, split, sample_id, kind, payload, cbv, target)
           ON CONFLICT (space, uuid) DO NOTHING RETURNING id, uuid`,
          [
            ctx.space,
            ctx.device,
            col('uuid'),
            col('at'),
            col('annotator'),
            col('seq'),
            col('model'),
            col('split'),
            col('sampleId'),
            col('kind'),
            part.map((e) => JSON.stringify(e.payload)),
            col('codebookVersion'),
            col('targetUuid'),
          ],
        );
        for (const row of r.rows) inserted.set(row.uuid, Number(row.id));
      }
      const taken = list.filter((e) => !inserted.has(e.uuid));
      if (taken.length) {
        // Already on the server: our own copy (an interrupted round), or another event that took the uuid.
        const theirs = await serverEvents(
          client,
          ctx.space,
          taken.map((e) => e.uuid),
        );
        const squatted = taken.filter((e) => {
          const t = theirs.get(e.uuid);
          return t !== undefined && !sameEvent(t, e);
        });
        if (squatted.length) {
          await client.query('ROLLBACK');
          retry = true;
          for (const e of squatted) {
            const newUuid = project.annotations.reissue(e.uuid);
            reissued.push({ uuid: e.uuid, newUuid, heldBy: theirs.get(e.uuid)!.annotator });
          }
          list = list.map((e) => {
            const r = reissued.find((x) => x.uuid === e.uuid);
            const t = e.targetUuid !== null ? reissued.find((x) => x.uuid === e.targetUuid) : undefined;
            return r || t ? { ...e, uuid: r?.newUuid ?? e.uuid, targetUuid: t?.newUuid ?? e.targetUuid } : e;
          });
        }
      }
      if (!retry) {
        // The INSERT took the push lock (trigger): every id below ours is committed and visible.
        const more = await client.query<{ events: unknown }>(AFTER_SQL.replace('id > $2', 'id > $2 AND NOT (id = ANY($4::bigint[]))'), [
          ctx.space,
          ctx.cursor.pulledId,
          1_000_000_000,
          [...inserted.values()],
        ]);
        after = toRows(more.rows[0]!.events);
        await client.query('COMMIT');
      }
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      const refusal = serverRefusal(err);
      const which = refusal ? list.findIndex((e) => e.uuid === refusal.uuid) : -1;
      if (!refusal || which < 0 || attempt > all.length) throw err;
      const e = list[which]!;
      if (refusal.rule === 'clock') {
        // The server's clock disagrees with the hello's estimate: this one and what follows wait.
        list = list.slice(0, which);
        waitFrom = e;
        continue;
      }
      holdBack(e, refusal.message);
      list = list.filter((x) => {
        if (x === e) return false;
        if (x.targetUuid === null || !heldUuids.has(x.targetUuid)) return true;
        holdBack(x, 'target_uuid: acts on an edit the space does not take');
        return false;
      });
      continue;
    }
    if (retry) continue;
    return {
      insertedIds: [...inserted.values()],
      skipped: list.length - inserted.size,
      after,
      pushedSeq: pushedSeqOf(waitFrom),
      refused,
      reissued,
      waiting: waitingOf(waitFrom),
    };
  }
}
