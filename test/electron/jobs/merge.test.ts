/**
 * Merging annotator bundles: real SQLite projects, real release exports (folder
 * and zip, written by electron/release/export.ts), the events.jsonl variant, and bad input.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import { exportRelease } from '../../../electron/release/export';
import { eventsJsonl } from '../../../electron/release/annotation-events';
import { mergeBundle } from '../../../electron/jobs/merge';
import { batch, config, response, tempDir } from '../store/helpers';

const item1 = { model: 'qwen', split: 'V1_short', sampleId: '001-1' };
const item2 = { model: 'qwen', split: 'V1_short', sampleId: '002-1' };

function project(name: string): Project {
  const p = openProject(path.join(tempDir(), `${name}.flipbook`), { create: true });
  p.applyImport(
    batch(`${name}.csv`, {
      configs: [config('textonly', 0), config('16f_151k', 16)],
      responses: ['001-1', '002-1'].flatMap((sampleId, i) => [
        response({ sampleId, config: 'textonly', pred: 'A', correct: true, groundTruth: 'A', line: 2 * i + 2 }),
        response({ sampleId, config: '16f_151k', pred: 'B', correct: false, groundTruth: 'A', line: 2 * i + 3 }),
      ]),
    }),
  );
  return p;
}

function label(p: Project, who: string, item: typeof item1, primary: string, extra: string[] = []): void {
  p.annotations.apply({ op: 'setPrimary', ...item, pathway: primary }, who);
  for (const x of extra) p.annotations.apply({ op: 'setPathway', ...item, pathway: x, on: true }, who);
  p.annotations.apply({ op: 'setStatus', ...item, status: 'done' }, who);
}

const stateHash = (p: Project): string => crypto.createHash('sha256').update(JSON.stringify(p.annotations.listStates())).digest('hex');
const statesOf = (p: Project, who: string) => p.annotations.listStates({ annotator: who });

function teams(): { alice: Project; bob: Project } {
  const alice = project('alice');
  const bob = project('bob');
  label(alice, 'alice', item1, 'evidence-missed', ['count-inflation']);
  label(alice, 'alice', item2, 'distractor-frames');
  label(bob, 'bob', item1, 'temporal-misorder');
  label(bob, 'bob', item2, 'distractor-frames', ['label-noise']);
  bob.annotations.apply({ op: 'setNotes', ...item1, notes: 'order, "quoted", and a\nnew line' }, 'bob');
  bob.annotations.apply({ op: 'addSpan', ...item1, span: { startS: 1.5, endS: 3.25, label: 'the swap', coveredBy: ['16f_151k'] } }, 'bob');
  bob.annotations.apply({ op: 'setConfidence', ...item1, confidence: 4 }, 'bob');
  return { alice, bob };
}

/** Bob's states as they should appear in Alice's project (ids of spans may differ: compare content). */
const comparable = (states: ReturnType<typeof statesOf>) =>
  states.map((s) => ({ ...s, spans: s.spans.map((x) => ({ startS: x.startS, endS: x.endS, label: x.label, coveredBy: x.coveredBy })) }));

describe('mergeBundle', () => {
  // An export carries annotations/events.jsonl (the whole log); with it removed, the bundle
  // merges from pathways.csv/evidence_spans.csv rows as content-hashed snapshots.
  for (const [zip, rowsOnly] of [
    [false, false],
    [true, false],
    [false, true],
  ] as const) {
    it(`merges an exported release ${zip ? 'zip' : 'folder'} (${rowsOnly ? 'rows only' : 'event log'}): nothing lost, twice is a no-op, conflicts queued`, async () => {
      const { alice, bob } = teams();
      const out = path.join(tempDir(), 'bob-release');
      const exportBob = async () => {
        await exportRelease(bob, out, { zip });
        if (rowsOnly) fs.rmSync(path.join(out, 'annotations', 'events.jsonl'));
      };
      await exportBob();
      const bundle = zip ? `${out}.zip` : out;
      const aliceBefore = statesOf(alice, 'alice');
      const inBundle = rowsOnly ? 2 : bob.annotations.eventCount();

      const first = await mergeBundle(alice, bundle);
      expect(first).toMatchObject({
        source: rowsOnly ? 'rows' : 'events',
        eventsInBundle: inBundle,
        added: inBundle,
        skipped: 0,
        keysRecomputed: 2,
        annotators: ['bob'],
        openConflicts: 1,
      });
      expect(statesOf(alice, 'alice')).toEqual(aliceBefore);
      expect(comparable(statesOf(alice, 'bob'))).toEqual(comparable(statesOf(bob, 'bob')));
      expect(alice.annotations.conflicts().map((c) => [c.sampleId, c.primaries])).toEqual([['001-1', { alice: 'evidence-missed', bob: 'temporal-misorder' }]]);

      const hash = stateHash(alice);
      const events = alice.annotations.eventCount();
      const states = alice.annotations.listStates().length;
      const second = await mergeBundle(alice, bundle);
      expect(second).toMatchObject({ added: 0, skipped: inBundle, keysRecomputed: 0, openConflicts: 1 });
      expect(alice.annotations.eventCount()).toBe(events);
      expect(alice.annotations.listStates().length).toBe(states);
      expect(stateHash(alice)).toBe(hash);

      // Bob keeps working and exports again: only his new row snapshot is added, his earlier edits stay.
      bob.annotations.apply({ op: 'setPrimary', ...item2, pathway: 'label-noise' }, 'bob');
      await exportBob();
      const third = await mergeBundle(alice, bundle);
      expect(third).toMatchObject({ added: 1, skipped: rowsOnly ? 1 : inBundle, openConflicts: 2 });
      expect(comparable(statesOf(alice, 'bob'))).toEqual(comparable(statesOf(bob, 'bob')));
      expect(statesOf(alice, 'alice')).toEqual(aliceBefore);
      alice.close();
      bob.close();
    });
  }

  it('merges an annotations/ folder with events.jsonl: every event kept by uuid, undo included, twice is a no-op', async () => {
    const { alice, bob } = teams();
    bob.annotations.apply({ op: 'setNotes', ...item2, notes: 'typo' }, 'bob');
    bob.annotations.undo('bob');
    const dir = path.join(tempDir(), 'annotations');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'events.jsonl'), eventsJsonl(bob.annotations.exportEvents()));
    const first = await mergeBundle(alice, dir);
    expect(first.source).toBe('events');
    expect(first.added).toBe(bob.annotations.eventCount());
    expect(statesOf(alice, 'bob')).toEqual(statesOf(bob, 'bob'));
    const hash = stateHash(alice);
    const n = alice.annotations.eventCount();
    expect((await mergeBundle(alice, dir)).added).toBe(0);
    expect(alice.annotations.eventCount()).toBe(n);
    expect(stateHash(alice)).toBe(hash);
    // The merged events are not Alice's to undo.
    expect(alice.annotations.canUndo('bob')).toBe(false);
  });

  it('rejects a bad bundle with file, line and field, and changes nothing', async () => {
    const { alice } = teams();
    const dir = tempDir();
    const header = 'sample_id,model,split,annotator,status,primary_pathway,pathways,transition,notes,confidence,codebook_version,created_at,updated_at\n';
    const good = '001-1,qwen,V1_short,bob,done,x,x,,,,1,2024-05-01T10:00:00.000Z,2024-05-01T10:00:00.000Z\n';
    fs.writeFileSync(path.join(dir, 'pathways.csv'), header + good + '002-1,qwen,V1_short,bob,finished,x,x,,,,1,2024-05-01T10:00:00.000Z,2024-05-01T10:00:00.000Z\n');
    const before = alice.annotations.eventCount();
    await expect(mergeBundle(alice, dir)).rejects.toThrow(/pathways\.csv:3: status: /);
    expect(alice.annotations.eventCount()).toBe(before);
    fs.writeFileSync(path.join(dir, 'pathways.csv'), header + good.replace('2024-05-01T10:00:00.000Z\n', 'yesterday\n'));
    await expect(mergeBundle(alice, dir)).rejects.toThrow(/pathways\.csv:2: updated_at: /);
    fs.rmSync(path.join(dir, 'pathways.csv'));
    fs.writeFileSync(path.join(dir, 'events.jsonl'), '{"uuid":"12345678","at":"2024-05-01T10:00:00.000Z"}\n');
    await expect(mergeBundle(alice, dir)).rejects.toThrow(/events\.jsonl:1: annotator: /);
    fs.rmSync(path.join(dir, 'events.jsonl'));
    await expect(mergeBundle(alice, dir)).rejects.toThrow(/no annotations found/);
    expect(alice.annotations.eventCount()).toBe(before);
  });
});
