/**
 * Handlers of team sync (shared/api/sync-contract.ts, docs/team-sync.md) behind the app's Sync
 * panel: the same runSync as `flipbook sync`, on demand and every N minutes while a project is
 * open. Offline or a server down is not an error of the app: the status says so in words and
 * counts the edits not yet synced; nothing blocks. Pulled events reach the Team view and the
 * item view's annotator panel through `data:changed`.
 */
import type { EventName, EventPayload } from '../../shared/api/contract';
import type { SYNC_OP_NAMES, SyncStatus } from '../../shared/api/sync-contract';
import { runSync } from '../sync/sync';
import { getCursor, pendingCount, SYNC_TARGET_SETTING, syncTargetSchema } from '../sync/sync-cursors';
import type { SyncReport } from '../sync/sync-report';
import { parseServerUrl, ServerUrlError } from '../sync/connect';
import { heldCounts } from '../sync/held-events';
import type { Project } from '../store/project';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';

const INTERVAL_SETTING = 'sync.intervalMinutes';

export interface SyncDeps {
  project(): Project;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

export interface SyncService {
  handlers: Pick<Handlers, (typeof SYNC_OP_NAMES)[number]>;
  /** A project was opened: start its automatic syncs, if it has them. */
  resume(): void;
  /** The project closes: stop the timer, forget the password. */
  stop(): void;
}

export function createSyncService(deps: SyncDeps): SyncService {
  let password: string | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let running: Promise<void> | null = null;
  let last: SyncReport | null = null;

  const target = (p: Project): { server: string; space: string } | null => {
    const t = syncTargetSchema.safeParse(p.getSetting<unknown>(SYNC_TARGET_SETTING));
    return t.success ? t.data : null;
  };
  const interval = (p: Project): number => {
    const v = p.getSetting<unknown>(INTERVAL_SETTING);
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
  };

  const status = (): SyncStatus => {
    const p = deps.project();
    const t = target(p);
    const cursor = t ? getCursor(p, t.server, t.space) : null;
    let pending: number | null = null;
    try {
      pending = t ? pendingCount(p, t.server, t.space) : null;
    } catch {
      pending = null;
    }
    return {
      server: t?.server ?? null,
      space: t?.space ?? null,
      intervalMinutes: interval(p),
      lastSyncAt: cursor?.lastSyncAt ?? null,
      lastError: cursor?.lastError ?? null,
      pending,
      running: running !== null,
      hasPassword: password !== null,
      last: last && {
        pushed: last.pushed,
        pulled: last.pulled,
        conflicts: last.conflicts,
        openConflicts: last.openConflicts,
        role: last.role,
        notPushed: last.notPushed,
        setAside: last.setAside,
        refused: last.refused,
        reissued: last.reissued,
        waiting: last.waiting,
        clockOffsetMs: last.clockOffsetMs,
      },
      held: t ? heldCounts(p, t.server, t.space) : { pulled: 0, notPushed: 0, latest: [] },
    };
  };

  const run = async (): Promise<void> => {
    if (running) return running;
    const p = deps.project();
    const t = target(p);
    if (!t) throw new ServiceError('bad-request', 'set a server and a space first');
    // Also the timer's path, which no dispatch guards (sync:run's read-only refusal is the contract's).
    if (p.readOnly) throw new ServiceError('read-only', 'this project is open read-only; sync needs to write it');
    running = (async () => {
      try {
        last = await runSync(p, { server: t.server, space: t.space, password, prompt: null });
        if (last.pulled > 0) deps.emit('data:changed', { scope: 'annotations', item: null });
        // A codebook version pulled from the space changes the tagging panel and the codebook view.
        if (last.codebooks.pulled > 0) deps.emit('data:changed', { scope: 'project', item: null });
      } catch {
        // The cursor holds the error in words (runSync records it); the panel shows it.
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const schedule = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
    let p: Project;
    try {
      p = deps.project();
    } catch {
      return;
    }
    const minutes = interval(p);
    if (minutes <= 0 || !target(p) || p.readOnly) return;
    timer = setInterval(() => void run().catch(() => undefined), minutes * 60_000);
    timer.unref?.();
  };

  return {
    handlers: {
      'sync:status': () => status(),
      'sync:configure': (req) => {
        const p = deps.project();
        let server: string;
        try {
          server = parseServerUrl(req.server).display;
        } catch (e) {
          if (e instanceof ServerUrlError) throw new ServiceError('bad-request', e.message);
          throw e;
        }
        if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(req.space)) throw new ServiceError('bad-request', 'a space name is letters, digits, . _ - (up to 100)');
        p.setSetting(SYNC_TARGET_SETTING, { server, space: req.space });
        p.setSetting(INTERVAL_SETTING, req.intervalMinutes);
        if (req.password !== undefined) password = req.password === '' ? null : req.password;
        schedule();
        return status();
      },
      'sync:run': async () => {
        await run();
        return status();
      },
    },
    resume: schedule,
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
      password = null;
      last = null;
    },
  };
}
