import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectWith, openProject } from '../../../electron/store/index';
import type { Project } from '../../../electron/store/project';
import { describeReleaseDifference, releaseIdentity, type ReleaseIdentity } from '../../../electron/sync/release-identity';
import { deviceOf, getCursor, pendingCount, putCursor } from '../../../electron/sync/sync-cursors';
import { buildReleaseFiles } from '../../../electron/release/export';
import { readReleaseData } from '../../../electron/release/project-source';
import { makeConfigSpec } from '../../../shared/engine/config';
import { batch, response, tempDir } from '../store/helpers';
import { addBacklog } from './helpers';

// docs/team-sync.md: what a project keeps of each (server, space), and how a space tells
// another release from its own.

describe('sync cursors, device id and pending edits', () => {
  let file: string;
  let p: Project;
  beforeEach(() => {
    file = path.join(tempDir('flipbook-cursors-'), 'p.flipbook');
    createProjectWith(file, () => undefined);
    p = openProject(file);
  });
  afterEach(() => p.close());

  it('starts a (server, space) at zero, and keeps each pair’s cursor apart', () => {
    const server = 'postgresql://ann@h/lab';
    expect(getCursor(p, server, 'a')).toEqual({ server, space: 'a', spaceId: null, pushedSeq: 0, pulledId: 0, lastSyncAt: null, lastError: null });
    putCursor(p, { server, space: 'a', spaceId: 'id-a', pushedSeq: 7, pulledId: 3, lastSyncAt: '2026-01-01T00:00:00.000Z', lastError: null });
    putCursor(p, { server, space: 'b', spaceId: 'id-b', pushedSeq: 1, pulledId: 9, lastSyncAt: null, lastError: 'offline' });
    putCursor(p, { server: 'postgresql://ann@other/lab', space: 'a', spaceId: 'x', pushedSeq: 2, pulledId: 2, lastSyncAt: null, lastError: null });
    expect([getCursor(p, server, 'a').pushedSeq, getCursor(p, server, 'b').pulledId, getCursor(p, 'postgresql://ann@other/lab', 'a').spaceId]).toEqual([7, 9, 'x']);
    putCursor(p, { ...getCursor(p, server, 'a'), pushedSeq: 8 });
    expect(getCursor(p, server, 'a').pushedSeq).toBe(8);
    expect(getCursor(p, server, 'b').lastError).toBe('offline');
  });

  it('reads damaged cursor settings as none, rather than failing the sync', () => {
    p.setSetting('sync.cursors', { 'x#y': { server: 'x', space: 'y', pushedSeq: -1 } });
    expect(getCursor(p, 'x', 'y').pushedSeq).toBe(0);
    p.setSetting('sync.cursors', 'garbage');
    expect(getCursor(p, 'x', 'y').pulledId).toBe(0);
  });

  it('makes the device id once (host name and a random part) and keeps it', () => {
    const d = deviceOf(p);
    expect(d).toMatch(new RegExp(`^${os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/[0-9a-f]{8}$`));
    expect(deviceOf(p)).toBe(d);
    p.close();
    p = openProject(file);
    expect(deviceOf(p)).toBe(d);
    // A damaged setting (empty, or not a text) is replaced by a new id.
    p.setSetting('sync.device', '');
    expect(deviceOf(p)).toMatch(/\/[0-9a-f]{8}$/);
    p.setSetting('sync.device', 42);
    expect(deviceOf(p)).toMatch(/\/[0-9a-f]{8}$/);
  });

  it('counts the role’s own edits after the push cursor, offline', () => {
    p.close();
    addBacklog(file, 'ann', 5);
    addBacklog(file, 'bob', 3);
    p = openProject(file);
    const server = 'postgresql://ann@h/lab';
    expect(pendingCount(p, server, 'team')).toBe(5);
    expect(pendingCount(p, server, 'team', 'bob')).toBe(3);
    const seqs = p.annotations.eventsAfter(0, 'ann');
    putCursor(p, { ...getCursor(p, server, 'team'), pushedSeq: seqs[1]!.seq });
    expect(pendingCount(p, server, 'team')).toBe(3);
    // Cursors are kept under the URL as shown: another sslmode is another key.
    expect(pendingCount(p, 'postgresql://ann@h/lab?sslmode=require', 'team')).toBe(5);
    expect(pendingCount(p, server, 'other')).toBe(5);
  });
});

const identity = (over: Partial<ReleaseIdentity> = {}): ReleaseIdentity => ({
  sha256: 'a'.repeat(64),
  rows: 10,
  models: ['m1', 'm2'],
  splits: ['S'],
  configs: ['16f', 'textonly'],
  ...over,
});

describe('describeReleaseDifference', () => {
  it('says nothing for the same release', () => {
    expect(describeReleaseDifference(identity(), identity({ rows: 11 }))).toEqual([]);
  });

  it('names what one side has and the other lacks, each way, then the row counts and both hashes', () => {
    const space = identity({ models: ['m1', 'm2'], configs: ['16f', 'textonly'] });
    const mine = identity({ sha256: 'b'.repeat(64), models: ['m1', 'm3'], splits: ['S', 'T'], configs: ['textonly'], rows: 12 });
    expect(describeReleaseDifference(space, mine)).toEqual([
      'models the space has and this project lacks: m2',
      'models this project has and the space lacks: m3',
      'splits this project has and the space lacks: T',
      'configs the space has and this project lacks: 16f',
      "labels/per_item.csv rows: the space's release has 10, this project 12",
      'labels/per_item.csv sha256: space aaaaaaaaaaaa…, project bbbbbbbbbbbb…',
    ]);
  });

  it('joins several names with commas', () => {
    expect(describeReleaseDifference(identity({ splits: ['S', 'T', 'U'] }), identity({ sha256: 'd'.repeat(64), splits: ['S'] }))[0]).toBe(
      'splits the space has and this project lacks: T, U',
    );
    expect(describeReleaseDifference(identity(), identity({ sha256: 'd'.repeat(64), models: ['m1', 'm2', 'm3', 'm4'] }))[0]).toBe(
      'models this project has and the space lacks: m3, m4',
    );
  });

  it('says the responses differ when everything else is the same', () => {
    expect(describeReleaseDifference(identity(), identity({ sha256: 'c'.repeat(64) }))).toEqual([
      'the same models, splits, configs and row count, but different responses (predictions, correctness or provenance)',
      'labels/per_item.csv sha256: space aaaaaaaaaaaa…, project cccccccccccc…',
    ]);
  });
});

describe('releaseIdentity', () => {
  it('is the sha256 of the per_item.csv an export writes, with its models, splits and configs once each in code-point order', () => {
    const file = path.join(tempDir('flipbook-identity-'), 'p.flipbook');
    const keys = ['textonly', '32f_151k', '16f_151k'];
    let line = 1;
    // Grids come back in (model, split) order: m1/T before m2/S, so the splits (T, S) and the
    // configs (textonly, then 16f and 32f) are met out of code-point order.
    const grids: [string, string, string[], string[]][] = [
      ['m2', 'S', ['q1', 'q2'], ['32f_151k', '16f_151k']],
      ['m1', 'T', ['q1'], ['textonly']],
      ['m1', 'U', ['q1', 'q2', 'q3'], ['textonly', '16f_151k']],
    ];
    const responses = grids.flatMap(([model, split, ids, configs]) =>
      ids.flatMap((sampleId) => configs.map((config) => response({ model, split, sampleId, config, pred: 'A', groundTruth: 'A', line: line++ }))),
    );
    createProjectWith(file, (p) => p.applyImport(batch('f.csv', { configs: keys.map((k) => makeConfigSpec(k)), responses })));
    const p = openProject(file);
    try {
      const id = releaseIdentity(p);
      const perItem = buildReleaseFiles(readReleaseData(p)).files.find((f) => f.path === 'labels/per_item.csv')!;
      expect(id).toEqual({
        sha256: createHash('sha256').update(perItem.data).digest('hex'),
        rows: 11,
        models: ['m1', 'm2'],
        splits: ['S', 'T', 'U'],
        configs: ['16f_151k', '32f_151k', 'textonly'],
      });
    } finally {
      p.close();
    }
  });

  it('hashes the project once per inputs version, and again after an import', () => {
    let version = 1;
    let scans = 0;
    const source = {
      inputsVersion: () => version,
      scanColumns: () => (scans++, []),
      listConfigs: () => [],
      listItems: () => [],
    };
    const first = releaseIdentity(source);
    expect(first).toEqual({ sha256: expect.stringMatching(/^[0-9a-f]{64}$/), rows: 0, models: [], splits: [], configs: [] });
    expect(releaseIdentity(source)).toBe(first);
    expect(scans).toBe(1);
    version = 2;
    releaseIdentity(source);
    expect(scans).toBe(2);
  });
});
