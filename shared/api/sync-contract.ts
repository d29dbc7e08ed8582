/**
 * Contract operations of team sync (docs/team-sync.md): the Sync panel's status, its settings
 * (server URL without password, space, minutes between automatic syncs) and "sync now".
 * A failed sync is not an error of the operation: the status carries it in words, and the
 * edits wait (pending).
 */
import * as z from 'zod';
import { Empty, op } from './op';

/** An event a sync set aside or held back (docs/team-sync.md §3), by uuid, with why. */
export const SyncHeldEvent = z.object({ uuid: z.string(), reason: z.string() });

export const SyncLast = z.object({
  pushed: z.number().int(),
  pulled: z.number().int(),
  conflicts: z.number().int(),
  openConflicts: z.number().int(),
  role: z.string(),
  notPushed: z.record(z.string(), z.number().int()),
  /** Rows of the space set aside by this sync, and own edits the server would not take. */
  setAside: z.array(SyncHeldEvent),
  refused: z.array(SyncHeldEvent),
  /** Own edits whose uuid the space held for another annotator's event: pushed under a new uuid. */
  reissued: z.array(z.object({ uuid: z.string(), newUuid: z.string(), heldBy: z.string() })),
  /** Own edits stamped beyond the clock bound after the server's time: they wait. */
  waiting: z.object({ count: z.number().int(), aheadMs: z.number() }).nullable(),
  /** This computer's clock minus the server's (ms). */
  clockOffsetMs: z.number(),
});

export const SyncStatus = z.object({
  server: z.string().nullable(),
  space: z.string().nullable(),
  /** 0 = only on demand. */
  intervalMinutes: z.number().int(),
  lastSyncAt: z.string().nullable(),
  lastError: z.string().nullable(),
  /** Local edits not yet on the server (null until a server is set). */
  pending: z.number().int().nullable(),
  running: z.boolean(),
  /** A password is held in memory for this session (never stored). */
  hasPassword: z.boolean(),
  last: SyncLast.nullable(),
  /** Everything set aside from this space so far (kept in the project, never applied), the latest first. */
  held: z.object({
    pulled: z.number().int(),
    notPushed: z.number().int(),
    latest: z.array(SyncHeldEvent.extend({ direction: z.enum(['pull', 'push']) })),
  }),
});
export type SyncStatus = z.infer<typeof SyncStatus>;

export const syncOperations = {
  'sync:status': op(Empty, SyncStatus, "The project's team-sync status: server, space, last sync, pending edits, the last error in words."),
  'sync:configure': op(
    z.object({
      server: z.string().trim().min(1),
      space: z.string().trim().min(1),
      intervalMinutes: z.number().int().min(0).max(1440),
      /** Kept in memory for the session only; null forgets it, absent keeps it. */
      password: z.string().nullable().optional(),
    }),
    SyncStatus,
    'Set the server (postgresql://user@host/db, no password), the space and the minutes between automatic syncs (0 = on demand).',
    { writes: 'inline' },
  ),
  'sync:run': op(Empty, SyncStatus, 'Sync now (one round); a failure is reported in the status, never lost edits.', { writes: 'inline' }),
} as const;

export const SYNC_OP_NAMES = ['sync:status', 'sync:configure', 'sync:run'] as const;
