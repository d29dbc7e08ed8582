/**
 * The pull half of a sync round (docs/team-sync.md §3): the rows a server sent, checked one by
 * one (event-rules.ts); those that break a rule, are stamped beyond the clock bound or reuse
 * another event's uuid are set aside (held-events.ts), the rest go through the store's own
 * merge path.
 */
import * as z from 'zod';
import type { AnnotationEvent } from '../../shared/domain/annotations';
import { canonicalJson } from '../store/annotation-codebooks';
import type { Project } from '../store/project';
import { beyondClockBound, checkEvent, CLOCK_SKEW_BOUND_MS, describeAhead, type WireEvent } from './event-rules';
import { type HeldEvent, hold, type SpaceRef } from './held-events';
/** A pulled row: the server's id and the event's fields as they came, checked one by one (event-rules.ts). */
export interface WireRow {
  id: number;
  fields: WireEvent;
  raw: unknown;
}

/**
 * The rows of a pull (json_build_array in HELLO_SQL / AFTER_SQL). Only the list's shape and
 * the ids are the server's own doing; the fields are whatever a client inserted, and are
 * judged per row by importRows.
 */
export function toRows(wire: unknown): { maxId: number; rows: WireRow[] } {
  const list = z.array(z.array(z.unknown())).parse(wire);
  let maxId = 0;
  const rows = list.map((r): WireRow => {
    const id = z.union([z.number(), z.string()]).transform(Number).pipe(z.number().int().positive()).parse(r[0]);
    if (id > maxId) maxId = id;
    const [, uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid] = r;
    return { id, fields: { uuid, at, annotator, model, split, sampleId, kind, payload, codebookVersion, targetUuid }, raw: r };
  });
  return { maxId, rows };
}

/** Whether two events with one uuid say the same thing (a re-sent copy) or are two different events. */
export function sameEvent(a: Omit<AnnotationEvent, 'kind'> & { kind: string }, b: Omit<AnnotationEvent, 'kind'> & { kind: string }): boolean {
  return (
    a.at === b.at &&
    a.annotator === b.annotator &&
    a.model === b.model &&
    a.split === b.split &&
    a.sampleId === b.sampleId &&
    a.kind === b.kind &&
    a.codebookVersion === b.codebookVersion &&
    (a.targetUuid ?? null) === (b.targetUuid ?? null) &&
    canonicalJson(a.payload) === canonicalJson(b.payload)
  );
}

export interface PullContext {
  project: Project;
  at: SpaceRef;
  role: string;
  /** Our own events after this local seq are not on the server yet. */
  pushedSeq: number;
  /** The server's clock, in ms, at the hello (plus the time since). */
  serverNowMs: () => number;
}

export interface PageResult {
  added: number;
  skipped: number;
  setAside: HeldEvent[];
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
}

/**
 * Imports one page of pulled rows (inside the caller's SQLite transaction). A row that breaks
 * the event rules, is stamped beyond the clock bound or has a kind this Flipbook does not know
 * is set aside. A row whose uuid names a different event here: when ours is an edit not yet
 * pushed, ours gets a fresh uuid (the space's row is the space's) and theirs comes in; else
 * theirs is set aside.
 */
export function importRows(ctx: PullContext, rows: readonly WireRow[]): PageResult {
  const { project, at } = ctx;
  const setAside: HeldEvent[] = [];
  const reissued: PageResult['reissued'] = [];
  const ok: { row: WireRow; event: AnnotationEvent }[] = [];
  for (const row of rows) {
    const c = checkEvent(row.fields);
    if (!c.ok) {
      setAside.push(hold(project, at, 'pull', row.id, row.fields.uuid, `${c.problem.field}: ${c.problem.reason}`, row.raw));
    } else if (beyondClockBound(c.event.at, ctx.serverNowMs())) {
      const ahead = describeAhead(Date.parse(c.event.at) - ctx.serverNowMs());
      setAside.push(
        hold(project, at, 'pull', row.id, c.event.uuid, `at: stamped ${ahead} after the server's time (more than the ${CLOCK_SKEW_BOUND_MS / 60_000} min clock bound)`, row.raw),
      );
    } else if (!c.known) {
      setAside.push(hold(project, at, 'pull', row.id, c.event.uuid, `kind: '${c.event.kind}' is not known to this Flipbook (a newer one wrote it): kept, not applied`, row.raw));
    } else {
      ok.push({ row, event: c.event });
    }
  }
  const local = project.annotations.eventsByUuid(ok.map((x) => x.event.uuid));
  const events: AnnotationEvent[] = [];
  const seen = new Set<string>();
  for (const { row, event } of ok) {
    const mine = local.get(event.uuid);
    if (seen.has(event.uuid)) {
      // The server keeps uuids unique per space, so a page never repeats one; were it to, the
      // second is set aside rather than merged over the first.
      setAside.push(hold(project, at, 'pull', row.id, event.uuid, 'uuid: already used by another row of this pull', row.raw));
      continue;
    }
    seen.add(event.uuid);
    if (mine && !sameEvent(mine, event)) {
      if (mine.annotator === ctx.role && mine.origin === 'local' && mine.seq > ctx.pushedSeq) {
        reissued.push({ uuid: event.uuid, newUuid: project.annotations.reissue(event.uuid), heldBy: event.annotator });
      } else {
        setAside.push(hold(project, at, 'pull', row.id, event.uuid, `uuid: names another event in this project (of '${mine.annotator}')`, row.raw));
        continue;
      }
    }
    events.push(event);
  }
  const r = project.annotations.importEvents(events);
  return { added: r.added, skipped: r.skipped, setAside, reissued };
}
