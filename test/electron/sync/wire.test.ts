import { describe, expect, it } from 'vitest';
import type { Codebook } from '../../../shared/domain/annotations';
import type { StoredCodebook } from '../../../electron/store/annotation-codebooks';
import { describeCodebookDifference, parseSpaceCodebooks, planCodebooks } from '../../../electron/sync/space-codebooks';
import { sameEvent, toRows } from '../../../electron/sync/sync-pull';
import { serverRefusal } from '../../../electron/sync/sync-server';

// What a client makes of the server's answers (docs/team-sync.md §1 and §3), without a server.

const cb = (version: number, pathways: [string, string][], id = 'flipbook-default'): Codebook => ({
  id,
  version,
  pathways: pathways.map(([pid, label]) => ({ id: pid, label, description: '' })),
});
const stored = (c: Codebook): StoredCodebook => ({ version: c.version, codebook: c, createdAt: '2026-01-01T00:00:00.000Z' });

describe('parseSpaceCodebooks', () => {
  it('keeps each row that is a codebook naming its own version, and names each other row', () => {
    const good = cb(2, [['a', 'A']]);
    const r = parseSpaceCodebooks([[2, good, '2026-01-01'], [3, cb(4, []), 'x'], [5, { id: '' }, 'x'], 'not a row', [-1, cb(0, []), 'x']]);
    expect(r.versions).toEqual([{ version: 2, codebook: good, createdAt: '2026-01-01' }]);
    expect(r.invalid).toEqual([
      'codebook version 3: not a codebook naming its own version',
      'codebook version 5: not a codebook naming its own version',
      'codebook version ?: not a codebook naming its own version',
      'codebook version -1: not a codebook naming its own version',
    ]);
    expect(parseSpaceCodebooks(null)).toEqual({ versions: [], invalid: [] });
    expect(parseSpaceCodebooks([['x'.repeat(100)]]).invalid[0]).toBe(`codebook version "${'x'.repeat(39)}: not a codebook naming its own version`);
  });
});

describe('planCodebooks', () => {
  it('pushes what the space lacks, pulls what the project lacks, and names each version stored differently', () => {
    const mine = [
      stored(cb(1, [['a', 'A']])),
      stored(
        cb(2, [
          ['a', 'A'],
          ['b', 'B'],
        ]),
      ),
      stored(cb(4, [])),
    ];
    const space = [
      stored(cb(1, [['a', 'A']])),
      stored(
        cb(2, [
          ['a', 'A'],
          ['c', 'C'],
        ]),
      ),
      stored(cb(3, [])),
    ];
    const plan = planCodebooks(mine, space);
    expect(plan.toPush.map((v) => v.version)).toEqual([4]);
    expect(plan.toPull.map((v) => v.version)).toEqual([3]);
    expect(plan.conflicts).toEqual(['version 2: pathways the space has and this project lacks: c; pathways this project has and the space lacks: b']);
    expect(planCodebooks(mine, mine)).toEqual({ toPush: [], toPull: [], conflicts: [] });
  });
});

describe('describeCodebookDifference', () => {
  it('says which id, which pathways and which definitions differ', () => {
    expect(describeCodebookDifference(cb(1, [['a', 'A']], 'lab-v1'), cb(1, [['a', 'A']], 'mine'))).toBe("the space's codebook is 'lab-v1', this project's 'mine'");
    expect(
      describeCodebookDifference(
        cb(1, [
          ['a', 'A'],
          ['b', 'B'],
        ]),
        cb(1, [
          ['a', 'A*'],
          ['b', 'B'],
        ]),
      ),
    ).toBe('pathways defined differently: a');
    expect(
      describeCodebookDifference(
        cb(1, [
          ['a', 'A'],
          ['b', 'B'],
        ]),
        cb(1, [
          ['b', 'B'],
          ['a', 'A'],
        ]),
      ),
    ).toBe('the same pathways in another order, or other fields differ');
    // Several names are joined with commas.
    const space = cb(1, [
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
      ['d', 'D'],
    ]);
    const mine = cb(1, [
      ['a', 'A*'],
      ['b', 'B*'],
      ['e', 'E'],
      ['f', 'F'],
    ]);
    expect(describeCodebookDifference(space, mine)).toBe(
      'pathways the space has and this project lacks: c, d; pathways this project has and the space lacks: e, f; pathways defined differently: a, b',
    );
  });
});

describe('toRows', () => {
  it('reads the server id (a number or bigint text) and the fields in json_build_array order', () => {
    const row = [7, 'u', 'at', 'ann', 'm', 's', 'q', 'setNotes', { notes: '' }, 1, null];
    const r = toRows([row, ['12', 'v'], [3]]);
    expect(r.maxId).toBe(12);
    expect(r.rows[0]).toEqual({
      id: 7,
      fields: { uuid: 'u', at: 'at', annotator: 'ann', model: 'm', split: 's', sampleId: 'q', kind: 'setNotes', payload: { notes: '' }, codebookVersion: 1, targetUuid: null },
      raw: row,
    });
    expect(r.rows.map((x) => x.id)).toEqual([7, 12, 3]);
    expect(toRows([])).toEqual({ maxId: 0, rows: [] });
  });

  it('refuses a list that is not one, and an id that is not a positive integer', () => {
    for (const wire of [null, {}, [1], [[0]], [['x']], [[1.5]], [[-2]]]) expect(() => toRows(wire), JSON.stringify(wire)).toThrow();
  });
});

describe('sameEvent', () => {
  const e = {
    uuid: 'u',
    at: '2026-01-01T00:00:00.000Z',
    annotator: 'ann',
    model: 'm',
    split: 's',
    sampleId: 'q',
    kind: 'setNotes',
    payload: { notes: 'x', more: [1, { b: 2, a: 1 }] },
    codebookVersion: 1,
    targetUuid: null,
  };
  it('is a re-sent copy when every field is the same, payload keys in any order', () => {
    expect(sameEvent(e, { ...e, payload: { more: [1, { a: 1, b: 2 }], notes: 'x' } })).toBe(true);
    expect(sameEvent(e, { ...e, uuid: 'other' })).toBe(true);
  });
  it('is another event when any one field differs', () => {
    const changes = [
      { at: '2026-01-01T00:00:00.001Z' },
      { annotator: 'bob' },
      { model: 'm2' },
      { split: 't' },
      { sampleId: 'r' },
      { kind: 'setStatus' },
      { codebookVersion: null },
      { targetUuid: 'u' },
      { payload: { notes: 'x', more: [1, { b: 2, a: 2 }] } },
    ];
    for (const c of changes) expect([c, sameEvent(e, { ...e, ...c })]).toEqual([c, false]);
  });
});

describe('serverRefusal', () => {
  it('reads which event and which rule the trigger refused, and nothing else', () => {
    const err = (constraint: string, over: object = {}) =>
      Object.assign(new Error('the server refuses event u-1: at: before 2000'), { code: '23514', constraint, detail: 'u-1', ...over });
    expect(serverRefusal(err('flipbook_event_rules'))).toEqual({ uuid: 'u-1', rule: 'rules', message: 'at: before 2000' });
    expect(serverRefusal(err('flipbook_event_clock'))?.rule).toBe('clock');
    expect(serverRefusal(err('flipbook_event_owner'))?.rule).toBe('owner');
    expect(serverRefusal(err('flipbook_event_rulesx'))).toBeNull();
    expect(serverRefusal(err('xflipbook_event_rules'))).toBeNull();
    expect(serverRefusal(err('flipbook_event_rules', { code: '23505' }))).toBeNull();
    expect(serverRefusal(err('flipbook_event_rules', { detail: undefined }))).toBeNull();
    expect(serverRefusal(err('flipbook_event_rules', { message: 'other words' }))?.message).toBe('other words');
  });
});
