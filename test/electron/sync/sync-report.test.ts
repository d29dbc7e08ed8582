import { describe, expect, it } from 'vitest';
import { parseServerUrl, SYNC_TIMEOUTS } from '../../../electron/sync/connect';
import { CLOCK_SKEW_BOUND_MS, describeAhead } from '../../../electron/sync/event-rules';
import { codebookRefusal, describeSyncError, SyncRefusedError, syncNotes, type SyncReport } from '../../../electron/sync/sync-report';

// docs/team-sync.md §9 (Troubleshooting): what a failed or partial sync says, in words.

const addr = parseServerUrl('postgresql://ann@db.lab:6543/audits');
const pgError = (code: string, message = 'm'): Error & { code: string } => Object.assign(new Error(message), { code });

describe('describeSyncError', () => {
  it('names the server, the user or the database that the error is about', () => {
    expect(describeSyncError(pgError('ECONNREFUSED'), addr)).toBe('cannot reach db.lab:6543 (connection refused): the server is down or you are offline');
    expect(describeSyncError(pgError('ECONNREFUSED'))).toBe('cannot reach the server (connection refused): the server is down or you are offline');
    for (const code of ['ENOTFOUND', 'EAI_AGAIN']) expect(describeSyncError(pgError(code), addr)).toBe('cannot find the host db.lab (offline, or a wrong name)');
    expect(describeSyncError(pgError('ENOTFOUND'))).toBe('cannot find the host  (offline, or a wrong name)');
    for (const code of ['ETIMEDOUT', 'ECONNRESET', 'EPIPE'])
      expect(describeSyncError(pgError(code), addr)).toBe(`the connection to db.lab:6543 failed (${code}): offline or the server is unreachable`);
    expect(describeSyncError(pgError('28P01'), addr)).toBe('password authentication failed for ann');
    expect(describeSyncError(pgError('28P01'))).toBe('password authentication failed for this user');
    expect(describeSyncError(pgError('28000', 'no pg_hba.conf entry'), addr)).toBe('the server does not accept this connection: no pg_hba.conf entry');
    expect(describeSyncError(pgError('3D000'), addr)).toBe('the database audits does not exist on db.lab:6543');
    for (const code of ['57P01', '57P02', '57P03'])
      expect(describeSyncError(pgError(code, 'shutting down'), addr)).toBe('the server shut down or is starting up (shutting down); nothing was lost — sync again');
  });

  it('gives the time limit that ran out in seconds, and who held the lock when known', () => {
    expect(describeSyncError(pgError('55P03'), addr)).toBe(
      `a lock on the server was not free within ${SYNC_TIMEOUTS.lockMs / 1000} s (lock timeout): another session holds it; nothing was changed — sync again later`,
    );
    expect(describeSyncError(pgError('55P03'), { ...addr, lockTimeoutMs: 2_400, lockHolder: 'push by una' })).toBe(
      'a lock on the server was not free within 2 s (lock timeout): another session holds it (push by una); nothing was changed — sync again later',
    );
    expect(describeSyncError(pgError('57014'), addr)).toContain(`within ${SYNC_TIMEOUTS.statementMs / 1000} s (statement timeout)`);
    expect(describeSyncError(pgError('57014'), { ...addr, statementTimeoutMs: 3_600 })).toBe(
      'the server did not finish a statement within 4 s (statement timeout); nothing was changed — sync again later',
    );
    // The client's own limit is 15 s past the statement limit (connect.ts).
    expect(describeSyncError(new Error('Query read timeout'), { ...addr, statementTimeoutMs: 5_000 })).toBe(
      'the server did not answer within 20 s: offline or the server is unreachable; nothing was changed — sync again',
    );
    expect(describeSyncError(new Error('query read TIMEOUT'))).toContain(`within ${(SYNC_TIMEOUTS.statementMs + 15_000) / 1000} s`);
    expect(describeSyncError(new Error('Connection terminated due to connection timeout'), addr)).toBe(
      'the connection to db.lab:6543 timed out: offline or the server is unreachable',
    );
  });

  it('falls back to the server and the default limits when it knows no address', () => {
    expect(describeSyncError(pgError('3D000'))).toBe('the database  does not exist on the server');
    expect(describeSyncError(pgError('55P03'))).toContain(`within ${SYNC_TIMEOUTS.lockMs / 1000} s (lock timeout): another session holds it;`);
    expect(describeSyncError(pgError('57014'))).toContain(`within ${SYNC_TIMEOUTS.statementMs / 1000} s (statement timeout)`);
  });

  it('refuses a codebook conflict before anything moves, naming each version and what to do', () => {
    const e = codebookRefusal('team', ['version 2: pathways defined differently: a', 'version 3: x']);
    expect(e).toBeInstanceOf(SyncRefusedError);
    expect(e.message).toBe(
      "this project's codebook conflicts with space 'team''s (the same version number with other content); nothing was synced:\n" +
        '  - version 2: pathways defined differently: a\n  - version 3: x\n' +
        "Save the codebook change as a new version in a project that holds the space's codebook, or start from a copy of the release project that has it.",
    );
  });

  it('tells a refusal of another name from a read-only role', () => {
    expect(describeSyncError(pgError('42501', 'new row violates row-level security policy for table "events"'), addr)).toBe(
      'the server accepts only events under your own name (ann): new row violates row-level security policy for table "events"',
    );
    expect(describeSyncError(pgError('42501', 'row-level security'))).toContain('(your role)');
    expect(describeSyncError(pgError('42501', 'permission denied for table events'), addr)).toBe(
      "this role may not do that on the server: permission denied for table events (a reviewer's role is read-only)",
    );
  });

  it('says a lost connection lost nothing, and passes any other message through', () => {
    for (const m of ['Connection terminated unexpectedly', 'terminating connection due to administrator command', 'server closed the connection unexpectedly'])
      expect(describeSyncError(new Error(m), addr)).toBe(`the connection to db.lab:6543 was lost mid-sync (${m}); nothing was lost — sync again`);
    expect(describeSyncError(new Error('something else'), addr)).toBe('something else');
    expect(describeSyncError(pgError('XX000', 'internal error'), addr)).toBe('internal error');
    expect(describeSyncError('a plain string')).toBe('a plain string');
  });
});

const report = (over: Partial<SyncReport> = {}): SyncReport => ({
  server: 'postgresql://ann@db.lab:6543/audits',
  space: 'team',
  role: 'ann',
  spaceCreated: false,
  schema: null,
  pushed: 0,
  pulled: 0,
  skipped: 0,
  conflicts: 0,
  openConflicts: 0,
  queries: 1,
  codebooks: { pushed: 0, pulled: 0 },
  notPushed: {},
  pending: 0,
  lastSyncAt: '2026-01-01T00:00:00.000Z',
  setAside: [],
  refused: [],
  reissued: [],
  waiting: null,
  clockOffsetMs: 0,
  held: { pulled: 0, notPushed: 0 },
  ...over,
});
const held = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ uuid: `${prefix}-${i}`, reason: `why ${i}` }));

describe('syncNotes', () => {
  it('says nothing about a clean round', () => {
    expect(syncNotes(report())).toEqual([]);
    // A clock off by exactly the bound is still within it.
    expect(syncNotes(report({ clockOffsetMs: CLOCK_SKEW_BOUND_MS }))).toEqual([]);
    expect(syncNotes(report({ clockOffsetMs: -CLOCK_SKEW_BOUND_MS }))).toEqual([]);
  });

  it('lists what was set aside and refused, one per line, at most `list` of each, with singular and plural', () => {
    expect(syncNotes(report({ setAside: held(1, 'a'), held: { pulled: 1, notPushed: 0 } }))).toEqual([
      '  set aside 1 event of the space (kept in this project, not applied):',
      '    a-0: why 0',
    ]);
    expect(syncNotes(report({ setAside: held(3, 'a'), held: { pulled: 3, notPushed: 0 } }), 2)).toEqual([
      '  set aside 3 events of the space (kept in this project, not applied):',
      '    a-0: why 0',
      '    a-1: why 1',
      '    … and 1 more',
    ]);
    expect(syncNotes(report({ refused: held(1, 'r'), held: { pulled: 0, notPushed: 1 } }))).toEqual([
      '  1 edit of yours the server will not take (held back here):',
      '    r-0: why 0',
    ]);
    expect(syncNotes(report({ refused: held(12, 'r'), held: { pulled: 0, notPushed: 12 } }))).toEqual([
      '  12 edits of yours the server will not take (held back here):',
      ...held(10, 'r').map((h) => `    ${h.uuid}: ${h.reason}`),
      '    … and 2 more',
    ]);
    // Exactly `list` of them: no "and 0 more".
    expect(syncNotes(report({ refused: held(2, 'r'), held: { pulled: 0, notPushed: 2 } }), 2)).toHaveLength(3);
  });

  it('names each reissued uuid, and how many more there were', () => {
    const reissued = [1, 2, 3].map((i) => ({ uuid: `u${i}`, newUuid: `n${i}`, heldBy: 'bob' }));
    expect(syncNotes(report({ reissued }), 2)).toEqual([
      "  conflict: the space holds uuid u1 for an event of 'bob', not for your edit; your edit was given the new uuid n1 and pushed",
      "  conflict: the space holds uuid u2 for an event of 'bob', not for your edit; your edit was given the new uuid n2 and pushed",
      '    … and 1 more',
    ]);
  });

  it('explains edits that wait for the server’s clock, and a clock set wrong either way', () => {
    expect(syncNotes(report({ waiting: { count: 1, aheadMs: 3 * 3_600_000 } }))).toEqual([
      `  1 edit waits: stamped up to 3 h after the server's time, more than the ${CLOCK_SKEW_BOUND_MS / 60_000} min clock bound. This computer's clock was ahead when they were made; they are pushed once the server's time reaches them.`,
    ]);
    expect(syncNotes(report({ waiting: { count: 4, aheadMs: 600_000 } }))[0]).toMatch(/^ {2}4 edits wait: stamped up to 10 min after/);
    expect(syncNotes(report({ clockOffsetMs: CLOCK_SKEW_BOUND_MS + 60_000 }))).toEqual(["  warning: this computer's clock is 6 min ahead of the server's: set it right"]);
    expect(syncNotes(report({ clockOffsetMs: -2 * 86_400_000 }))).toEqual(["  warning: this computer's clock is 2 days behind the server's: set it right"]);
  });

  it('adds the running total when earlier rounds set events aside too', () => {
    expect(syncNotes(report({ held: { pulled: 1, notPushed: 0 } }))).toEqual(['  in all, 1 event of the space set aside and 0 of yours held back (docs/team-sync.md §3)']);
    expect(syncNotes(report({ setAside: held(1, 'a'), held: { pulled: 2, notPushed: 3 } })).at(-1)).toBe(
      '  in all, 2 events of the space set aside and 3 of yours held back (docs/team-sync.md §3)',
    );
    // This round's alone: the lines above already said it all.
    expect(syncNotes(report({ setAside: held(1, 'a'), refused: held(1, 'r'), held: { pulled: 1, notPushed: 1 } })).join('\n')).not.toContain('in all');
  });
});

describe('describeAhead', () => {
  it('rounds to seconds under 2 min, minutes under 2 h, hours under 2 days, then days', () => {
    const cases: [number, string][] = [
      [0, '0 s'],
      [1_499, '1 s'],
      [119_499, '119 s'],
      [119_500, '2 min'],
      [7_199_000, '120 min'],
      [7_200_000, '2 h'],
      [172_799_000, '48 h'],
      [172_800_000, '2 days'],
      [36_500 * 86_400_000, '36500 days'],
      [36_501 * 86_400_000, 'more than a century'],
    ];
    for (const [ms, text] of cases) expect([ms, describeAhead(ms)]).toEqual([ms, text]);
  });
});
