import { useCallback, useEffect, useRef, useState } from 'react';
import type { SyncStatus } from '../../shared/api/sync-contract';
import { CLOCK_SKEW_BOUND_MS } from '../../shared/domain/annotations';
import { useClient } from '../api/use-client';

const when = (iso: string | null): string => (iso === null ? 'never' : new Date(iso).toLocaleString());

/** The clock bound of a team space, in minutes (docs/team-sync.md §3). */
const CLOCK_BOUND_MIN = CLOCK_SKEW_BOUND_MS / 60_000;

const aheadWords = (ms: number): string => {
  const m = Math.round(ms / 60_000);
  return m < 120 ? `${m} min` : m < 2880 ? `${Math.round(m / 60)} h` : `${Math.round(m / 1440)} days`;
};

/**
 * Team view: sync with a team space on a PostgreSQL server (docs/team-sync.md). Server, space,
 * last sync, edits not yet synced, the last error in words; sync now and every N minutes. The
 * password (when PGPASSWORD / ~/.pgpass do not hold it) stays in the app's memory.
 */
export function SyncPanel({ annotator }: { annotator: string | null }) {
  const client = useClient();
  const [status, setStatus] = useState<SyncStatus | null>(null);
  const [server, setServer] = useState('');
  const [space, setSpace] = useState('');
  const [minutes, setMinutes] = useState('10');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A status that could not be read is said, not left as an empty form with a disabled button.
  const [statusError, setStatusError] = useState<string | null>(null);

  // The form is filled from the saved settings when they first arrive — unless the user has
  // typed meanwhile (the first status can come late on a busy machine): what they typed stays.
  const typed = useRef(false);
  const typing = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    typed.current = true;
    set(e.target.value);
  };
  const show = useCallback((s: SyncStatus, fill: boolean) => {
    setStatus(s);
    setStatusError(null);
    if (fill) {
      setServer(s.server ?? '');
      setSpace(s.space ?? '');
      setMinutes(String(s.intervalMinutes));
    }
  }, []);
  const refresh = useCallback(
    async (fill = false) => {
      const r = await client.call('sync:status', {});
      if (r.ok) show(r.value, fill && !typed.current);
      else setStatusError(r.error.message);
    },
    [client, show],
  );
  useEffect(() => {
    void refresh(true);
    return client.on('data:changed', () => void refresh());
  }, [client, refresh]);

  const save = async (): Promise<boolean> => {
    setError(null);
    const n = Number(minutes);
    const r = await client.call('sync:configure', {
      server: server.trim(),
      space: space.trim(),
      intervalMinutes: Number.isInteger(n) && n >= 0 ? n : 0,
      ...(password !== '' ? { password } : {}),
    });
    if (!r.ok) {
      setError(r.error.message);
      return false;
    }
    setPassword('');
    show(r.value, true);
    return true;
  };
  const syncNow = async () => {
    setBusy(true);
    try {
      if (!(await save())) return;
      const r = await client.call('sync:run', {});
      if (r.ok) show(r.value, false);
      else setError(r.error.message);
    } finally {
      setBusy(false);
    }
  };

  const role = status?.server ? /^postgresql:\/\/([^@]+)@/.exec(status.server)?.[1] : undefined;
  const roleName = role ? decodeURIComponent(role) : null;
  return (
    <section className="sync" aria-label="Sync">
      <h2>Sync with a team space</h2>
      <p className="caption">
        Your edits stay in this project and sync through the lab's PostgreSQL server when it can be reached; nothing waits for it. Only your own edits are sent: your annotator name
        must be your database user name.
      </p>
      <div className="sync-form">
        <label>
          Server <input aria-label="Sync server" size={44} placeholder="postgresql://you@db.lab/flipbook" value={server} onChange={typing(setServer)} />
        </label>{' '}
        <label>
          Space <input aria-label="Sync space" size={18} value={space} onChange={typing(setSpace)} />
        </label>{' '}
        <label>
          Every <input aria-label="Sync every minutes" type="number" min={0} max={1440} style={{ width: '4em' }} value={minutes} onChange={typing(setMinutes)} /> min
        </label>{' '}
        <label>
          Password{' '}
          <input
            aria-label="Sync password"
            type="password"
            autoComplete="off"
            placeholder={status?.hasPassword ? '(held for this session)' : 'PGPASSWORD / ~/.pgpass'}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>{' '}
        <button type="button" disabled={busy || status?.running || server.trim() === '' || space.trim() === ''} onClick={() => void syncNow()}>
          {busy || status?.running ? 'Syncing…' : 'Sync now'}
        </button>
      </div>
      {error && <p role="alert">{error}</p>}
      {statusError && <p role="alert">Could not read the sync status: {statusError}</p>}
      {status?.server && (
        <div role="status" aria-label="Sync status">
          <p>
            {status.space} on {status.server} · last sync: {when(status.lastSyncAt)}
            {status.intervalMinutes > 0 ? ` · every ${status.intervalMinutes} min` : ' · on demand'}
          </p>
          {status.pending !== null && status.pending > 0 && (
            <p aria-label="Edits not yet synced">
              {status.pending} edit{status.pending === 1 ? '' : 's'} not yet synced
            </p>
          )}
          {status.pending === 0 && <p>All your edits are on the server.</p>}
          {status.lastError && (
            <p role="alert" aria-label="Sync error">
              Last sync failed: {status.lastError}
            </p>
          )}
          {status.last && !status.lastError && (
            <p aria-label="Sync result">
              Pushed {status.last.pushed}, pulled {status.last.pulled}; conflicts {status.last.conflicts} ({status.last.openConflicts} open)
            </p>
          )}
          {status.last?.reissued.map((x) => (
            <p role="alert" key={x.uuid} aria-label="Sync uuid conflict">
              Conflict: the space holds uuid {x.uuid} for an event of “{x.heldBy}”; your edit was pushed under the new uuid {x.newUuid}.
            </p>
          ))}
          {status.last?.waiting && (
            <p role="alert" aria-label="Sync edits waiting">
              {status.last.waiting.count} edit{status.last.waiting.count === 1 ? '' : 's'} wait: stamped up to {aheadWords(status.last.waiting.aheadMs)} after the server’s time
              (more than {CLOCK_BOUND_MIN} minutes). This computer’s clock was ahead when they were made; they are pushed once the server’s time reaches them.
            </p>
          )}
          {status.last && Math.abs(status.last.clockOffsetMs) > CLOCK_BOUND_MIN * 60_000 && (
            <p role="alert" aria-label="Sync clock warning">
              This computer’s clock is {aheadWords(Math.abs(status.last.clockOffsetMs))} {status.last.clockOffsetMs > 0 ? 'ahead of' : 'behind'} the server’s: set it right.
            </p>
          )}
          {status.held.pulled + status.held.notPushed > 0 && (
            <details aria-label="Sync set aside">
              <summary>
                {status.held.pulled} event{status.held.pulled === 1 ? '' : 's'} of the space set aside, {status.held.notPushed} of yours held back (kept in this project, never
                applied)
              </summary>
              <ul>
                {status.held.latest.map((h) => (
                  <li key={`${h.direction}:${h.uuid}`}>
                    <code>{h.uuid}</code> ({h.direction === 'pull' ? 'from the space' : 'yours'}): {h.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {annotator !== null && roleName !== null && annotator !== roleName && (
            <p role="note">
              You annotate as “{annotator}” but connect as “{roleName}”: the server accepts only {roleName}'s edits.
            </p>
          )}
        </div>
      )}
    </section>
  );
}
