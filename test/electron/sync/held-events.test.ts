import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectWith, openProject } from '../../../electron/store/index';
import type { Project } from '../../../electron/store/project';
import { heldCounts, heldPushSeqs, hold, type SpaceRef } from '../../../electron/sync/held-events';
import { tempDir } from '../store/helpers';

// docs/team-sync.md §3: what a sync sets aside is kept once, as it came, and counted.

describe('held events', () => {
  let p: Project;
  const team: SpaceRef = { server: 'postgresql://ann@h/lab', space: 'team', spaceId: 'id-1' };
  beforeEach(() => {
    const file = path.join(tempDir('flipbook-held-'), 'p.flipbook');
    createProjectWith(file, () => undefined);
    p = openProject(file);
  });
  afterEach(() => p.close());

  it('keeps each server row or local event once, with the event as it came', () => {
    const raw = { uuid: 'u-1', weird: [1, 2] };
    expect(hold(p, team, 'pull', 41, 'u-1', 'at: before 2000', raw)).toEqual({ uuid: 'u-1', reason: 'at: before 2000' });
    hold(p, team, 'pull', 41, 'u-1', 'again', raw);
    hold(p, team, 'push', 41, 'u-2', 'clock', undefined);
    const rows = p.db.prepare('SELECT direction, ref, uuid, reason, event FROM sync_held ORDER BY id').all();
    expect(rows).toEqual([
      { direction: 'pull', ref: 41, uuid: 'u-1', reason: 'at: before 2000', event: JSON.stringify(raw) },
      { direction: 'push', ref: 41, uuid: 'u-2', reason: 'clock', event: 'null' },
    ]);
  });

  it('names a row whose uuid is not text by its JSON, clipped to 200 characters', () => {
    expect(hold(p, team, 'pull', 1, 42, 'uuid', null).uuid).toBe('42');
    expect(hold(p, team, 'pull', 2, { a: 'x'.repeat(300) }, 'uuid', null).uuid).toBe(`{"a":"${'x'.repeat(194)}`);
    expect(hold(p, team, 'pull', 3, undefined, 'uuid', null).uuid).toBe('undefined');
    expect(hold(p, team, 'pull', 4, 'y'.repeat(250), 'uuid', null).uuid).toBe('y'.repeat(200));
  });

  it('lists the held-back local events of one space only', () => {
    hold(p, team, 'push', 5, 'a', 'r', null);
    hold(p, team, 'push', 9, 'b', 'r', null);
    hold(p, team, 'pull', 7, 'c', 'r', null);
    hold(p, { ...team, spaceId: 'id-2' }, 'push', 11, 'd', 'r', null);
    hold(p, { ...team, space: 'other' }, 'push', 12, 'e', 'r', null);
    hold(p, { ...team, server: 'postgresql://ann@g/lab' }, 'push', 13, 'f', 'r', null);
    expect([...heldPushSeqs(p, team)].sort((a, b) => a - b)).toEqual([5, 9]);
  });

  it('counts each direction of a space, and gives the latest few newest first', () => {
    for (let i = 1; i <= 4; i++) hold(p, team, 'pull', i, `in-${i}`, `why ${i}`, null);
    hold(p, team, 'push', 1, 'out-1', 'refused', null);
    hold(p, { ...team, space: 'other' }, 'pull', 1, 'elsewhere', 'r', null);
    const c = heldCounts(p, team.server, team.space, 3);
    expect([c.pulled, c.notPushed]).toEqual([4, 1]);
    expect(c.latest).toEqual([
      { uuid: 'out-1', reason: 'refused', direction: 'push' },
      { uuid: 'in-4', reason: 'why 4', direction: 'pull' },
      { uuid: 'in-3', reason: 'why 3', direction: 'pull' },
    ]);
    expect(heldCounts(p, team.server, team.space).latest).toHaveLength(5);
    expect(heldCounts(p, team.server, 'nobody')).toEqual({ pulled: 0, notPushed: 0, latest: [] });
  });
});
