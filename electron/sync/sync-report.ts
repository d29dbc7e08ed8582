/**
 * What a sync round tells its user (docs/team-sync.md, Troubleshooting): the report, the
 * refusal of a round that changed nothing, PostgreSQL and network errors in words, and the
 * report's warnings one line each.
 */
import { type ServerAddress, SYNC_TIMEOUTS } from './connect';
import { CLOCK_SKEW_BOUND_MS, describeAhead } from './event-rules';
import type { HeldEvent } from './held-events';
export interface SyncReport {
  server: string;
  space: string;
  role: string;
  spaceCreated: boolean;
  schema: { from: number; to: number } | null;
  pushed: number;
  pulled: number;
  /** Events already present on the other side (an interrupted round being completed). */
  skipped: number;
  /** Items whose annotators disagree on the primary pathway (the Team view's conflicts), and how many are unresolved. */
  conflicts: number;
  openConflicts: number;
  /** Statements sent after connecting (round trips): 1 for a round with nothing to push. */
  queries: number;
  /** Codebook versions stored in the space / added to the project by this round. */
  codebooks: { pushed: number; pulled: number };
  /** Local edits under another annotator name than the role: the server would refuse them. */
  notPushed: Record<string, number>;
  pending: number;
  lastSyncAt: string;
  /** Rows pulled this round and set aside (kept, not applied), with why. */
  setAside: HeldEvent[];
  /** This project's own edits the server will not take (held back this round), with why. */
  refused: HeldEvent[];
  /** Own edits of ours whose uuid the space held for another annotator's event: pushed under a new uuid. */
  reissued: { uuid: string; newUuid: string; heldBy: string }[];
  /** Own edits stamped beyond the clock bound after the server's time: they wait here. */
  waiting: { count: number; aheadMs: number } | null;
  /** This computer's clock minus the server's, in ms (positive: ahead). */
  clockOffsetMs: number;
  /** Everything set aside from this space so far (this round's included). */
  held: { pulled: number; notPushed: number };
}

/** Sync refused before anything changed (release differs, bad space name…). */
export class SyncRefusedError extends Error {}

export const codebookRefusal = (space: string, conflicts: string[]): SyncRefusedError =>
  new SyncRefusedError(
    `this project's codebook conflicts with space '${space}''s (the same version number with other content); nothing was synced:\n  - ${conflicts.join('\n  - ')}\n` +
      "Save the codebook change as a new version in a project that holds the space's codebook, or start from a copy of the release project that has it.",
  );

/** PostgreSQL and network errors in words (docs/team-sync.md, Troubleshooting). */
export function describeSyncError(err: unknown, addr?: ServerAddress & { lockTimeoutMs?: number; statementTimeoutMs?: number; lockHolder?: string | null }): string {
  const e = err as { code?: string; message?: string };
  const where = addr ? `${addr.host}:${addr.port}` : 'the server';
  switch (e.code) {
    case 'ECONNREFUSED':
      return `cannot reach ${where} (connection refused): the server is down or you are offline`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot find the host ${addr?.host ?? ''} (offline, or a wrong name)`;
    case 'ETIMEDOUT':
    case 'ECONNRESET':
    case 'EPIPE':
      return `the connection to ${where} failed (${e.code}): offline or the server is unreachable`;
    case '28P01':
      return `password authentication failed for ${addr?.user ?? 'this user'}`;
    case '28000':
      return `the server does not accept this connection: ${e.message}`;
    case '3D000':
      return `the database ${addr?.database ?? ''} does not exist on ${where}`;
    case '57P01':
    case '57P02':
    case '57P03':
      return `the server shut down or is starting up (${e.message}); nothing was lost — sync again`;
    case '55P03':
      return `a lock on the server was not free within ${Math.round((addr?.lockTimeoutMs ?? SYNC_TIMEOUTS.lockMs) / 1000)} s (lock timeout): another session holds it${addr?.lockHolder ? ` (${addr.lockHolder})` : ''}; nothing was changed — sync again later`;
    case '57014':
      return `the server did not finish a statement within ${Math.round((addr?.statementTimeoutMs ?? SYNC_TIMEOUTS.statementMs) / 1000)} s (statement timeout); nothing was changed — sync again later`;
    case '42501':
      return /row-level security/.test(e.message ?? '')
        ? `the server accepts only events under your own name (${addr?.user ?? 'your role'}): ${e.message}`
        : `this role may not do that on the server: ${e.message} (a reviewer's role is read-only)`;
    default:
      break;
  }
  const msg = e.message ?? String(err);
  if (/Query read timeout/i.test(msg))
    return `the server did not answer within ${Math.round(((addr?.statementTimeoutMs ?? SYNC_TIMEOUTS.statementMs) + 15_000) / 1000)} s: offline or the server is unreachable; nothing was changed — sync again`;
  if (/timeout/i.test(msg)) return `the connection to ${where} timed out: offline or the server is unreachable`;
  if (/Connection terminated|terminating connection|server closed the connection/i.test(msg))
    return `the connection to ${where} was lost mid-sync (${msg}); nothing was lost — sync again`;
  return msg;
}

/** The report's warnings in words, one line each (the CLI prints them; the Sync panel shows the same facts). */
export function syncNotes(r: SyncReport, list = 10): string[] {
  const out: string[] = [];
  const some = <T>(xs: T[]): T[] => xs.slice(0, list);
  const more = (n: number): string[] => (n > list ? [`    … and ${n - list} more`] : []);
  if (r.setAside.length) {
    out.push(`  set aside ${r.setAside.length} event${r.setAside.length === 1 ? '' : 's'} of the space (kept in this project, not applied):`);
    for (const h of some(r.setAside)) out.push(`    ${h.uuid}: ${h.reason}`);
    out.push(...more(r.setAside.length));
  }
  if (r.refused.length) {
    out.push(`  ${r.refused.length} edit${r.refused.length === 1 ? '' : 's'} of yours the server will not take (held back here):`);
    for (const h of some(r.refused)) out.push(`    ${h.uuid}: ${h.reason}`);
    out.push(...more(r.refused.length));
  }
  for (const x of some(r.reissued)) {
    out.push(`  conflict: the space holds uuid ${x.uuid} for an event of '${x.heldBy}', not for your edit; your edit was given the new uuid ${x.newUuid} and pushed`);
  }
  out.push(...more(r.reissued.length));
  if (r.waiting) {
    out.push(
      `  ${r.waiting.count} edit${r.waiting.count === 1 ? '' : 's'} wait${r.waiting.count === 1 ? 's' : ''}: stamped up to ${describeAhead(r.waiting.aheadMs)} after the server's time, more than the ${CLOCK_SKEW_BOUND_MS / 60_000} min clock bound. ` +
        "This computer's clock was ahead when they were made; they are pushed once the server's time reaches them.",
    );
  }
  if (Math.abs(r.clockOffsetMs) > CLOCK_SKEW_BOUND_MS) {
    out.push(`  warning: this computer's clock is ${describeAhead(Math.abs(r.clockOffsetMs))} ${r.clockOffsetMs > 0 ? 'ahead of' : 'behind'} the server's: set it right`);
  }
  if (r.held.pulled + r.held.notPushed > r.setAside.length + r.refused.length) {
    out.push(`  in all, ${r.held.pulled} event${r.held.pulled === 1 ? '' : 's'} of the space set aside and ${r.held.notPushed} of yours held back (docs/team-sync.md §3)`);
  }
  return out;
}
