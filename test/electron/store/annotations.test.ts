import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { openProject, type Project } from '../../../electron/store/index';
import type { AnnotationEvent } from '../../../shared/domain/annotations';
import { tempDir } from './helpers';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const target = { model: 'qwen', split: 'V1_short', sampleId: '001-1' };

/** A colleague's (pat's) status edit on the target item, stamped `at`. */
const peer = (uuid: string, at: string): AnnotationEvent => ({
  uuid,
  at,
  annotator: 'pat',
  ...target,
  kind: 'setStatus',
  payload: { status: 'done' },
  codebookVersion: null,
  targetUuid: null,
});

function fresh(): { project: Project; file: string } {
  const file = path.join(tempDir(), 'p.flipbook');
  return { project: openProject(file, { create: true }), file };
}

describe('annotations', () => {
  it('applies each kind of edit and keeps the current state', () => {
    const { project } = fresh();
    const a = project.annotations;
    a.apply({ op: 'setStatus', ...target, status: 'in_progress' }, 'ana');
    a.apply({ op: 'setPathway', ...target, pathway: 'evidence-missed', on: true }, 'ana');
    a.apply({ op: 'setPathway', ...target, pathway: 'distractor-frames', on: true }, 'ana');
    a.apply({ op: 'setPathway', ...target, pathway: 'distractor-frames', on: false }, 'ana');
    a.apply({ op: 'setPrimary', ...target, pathway: 'count-inflation' }, 'ana');
    a.apply({ op: 'setTransition', ...target, transition: '16f_151k>64f_151k' }, 'ana');
    a.apply({ op: 'setConfidence', ...target, confidence: 4 }, 'ana');
    a.apply({ op: 'setNotes', ...target, notes: 'the third cube appears at 0:41' }, 'ana');
    a.apply({ op: 'addSpan', ...target, span: { id: 's1', startS: 41, endS: 44, label: 'cube', coveredBy: ['64f_151k'] } }, 'ana');
    a.apply({ op: 'addSpan', ...target, span: { id: 's2', startS: 10, endS: 12 } }, 'ana');
    a.apply({ op: 'updateSpan', ...target, spanId: 's1', patch: { endS: 45, coveredBy: ['32f_151k', '64f_151k'] } }, 'ana');
    const last = a.apply({ op: 'deleteSpan', ...target, spanId: 's2' }, 'ana');
    expect(last).toMatchObject({
      ...target,
      annotator: 'ana',
      status: 'in_progress',
      primaryPathway: 'count-inflation',
      pathways: ['count-inflation', 'evidence-missed'],
      transition: '16f_151k>64f_151k',
      confidence: 4,
      notes: 'the third cube appears at 0:41',
    });
    expect(last.spans).toMatchObject([{ id: 's1', startS: 41, endS: 45, label: 'cube', coveredBy: ['32f_151k', '64f_151k'] }]);
    expect(a.state(target.model, target.split, target.sampleId)).toEqual([last]);
    expect(a.history(target)).toHaveLength(12);
    expect(a.listAnnotators()).toEqual(['ana']);
    expect(() => a.apply({ op: 'setConfidence', ...target, confidence: 9 } as never, 'ana')).toThrow();
    expect(a.history(target)).toHaveLength(12);
    project.close();
  });

  it('refuses an edit made on a stale view and records nothing for one already made elsewhere', () => {
    const { project } = fresh();
    const a = project.annotations;
    // Window B tags count-inflation; window A still shows it off.
    a.apply({ op: 'setPathway', ...target, pathway: 'count-inflation', on: true, seen: false }, 'ana');
    const events = () => a.exportEvents({ ...target }).length;
    const n = events();
    // A presses the same key: "set it on", seen off. The saved state already is on: answered with it, nothing recorded.
    expect(a.apply({ op: 'setPathway', ...target, pathway: 'count-inflation', on: true, seen: false }, 'ana').pathways).toEqual(['count-inflation']);
    expect(events()).toBe(n);
    // B set the status to done while A still showed todo: A's change is refused, and the saved state stays.
    a.apply({ op: 'setStatus', ...target, status: 'done', seen: 'todo' }, 'ana');
    expect(() => a.apply({ op: 'setStatus', ...target, status: 'needs_review', seen: 'todo' }, 'ana')).toThrow(
      /^not saved: status of 001-1 \(qwen\) is done now, not todo as shown when you changed it to needs_review/,
    );
    expect(a.state(target.model, target.split, target.sampleId)[0]?.status).toBe('done');
    expect(events()).toBe(n + 1);
    // What the user saw is what is saved: applied. Without `seen` (a script) the value is set as given.
    expect(a.apply({ op: 'setStatus', ...target, status: 'needs_review', seen: 'done' }, 'ana').status).toBe('needs_review');
    expect(a.apply({ op: 'setStatus', ...target, status: 'skipped' }, 'ana').status).toBe('skipped');
    // Spans: a span moved elsewhere is not moved back, nor deleted, by a view that saw it where it was.
    a.apply({ op: 'addSpan', ...target, span: { id: 'sp', startS: 1, endS: 2, label: 'x' } }, 'ana');
    a.apply({ op: 'updateSpan', ...target, spanId: 'sp', patch: { endS: 3 }, seen: { startS: 1, endS: 2, label: 'x' } }, 'ana');
    expect(() => a.apply({ op: 'updateSpan', ...target, spanId: 'sp', patch: { startS: 0.5 }, seen: { startS: 1, endS: 2, label: 'x' } }, 'ana')).toThrow(
      /evidence span .* is 1\.00–3\.00 s “x” now, not 1\.00–2\.00 s “x”/,
    );
    expect(() => a.apply({ op: 'deleteSpan', ...target, spanId: 'sp', seen: { startS: 1, endS: 2, label: 'x' } }, 'ana')).toThrow(/not saved: evidence span/);
    expect(a.state(target.model, target.split, target.sampleId)[0]?.spans.map((s) => [s.startS, s.endS])).toEqual([[1, 3]]);
    // `seen` is a precondition, never recorded in the event (bundles carry the plain edit).
    expect(a.exportEvents({ ...target }).every((e) => !('seen' in e.payload))).toBe(true);
    // Toggling is not an edit: the op is refused by the schema.
    expect(() => a.apply({ op: 'togglePathway', ...target, pathway: 'x' } as never, 'ana')).toThrow();
  });

  it('undo and redo scoped to an item touch only that item, whatever was edited last elsewhere', () => {
    const { project } = fresh();
    const a = project.annotations;
    const other = { ...target, sampleId: '002-1' };
    a.apply({ op: 'setStatus', ...target, status: 'done' }, 'ana');
    a.apply({ op: 'setStatus', ...other, status: 'done' }, 'ana'); // the latest edit overall
    const u = a.undo('ana', target);
    expect(u?.target).toMatchObject({ ...target, kind: 'setStatus' });
    expect(u?.state).toBeNull();
    expect(a.state(other.model, other.split, other.sampleId)[0]?.status).toBe('done');
    expect(a.undo('ana', target)).toBeNull();
    expect(a.canRedo('ana', target)).toBe(true);
    expect(a.canRedo('ana', other)).toBe(false);
    // An edit of another item does not clear this item's redo.
    a.apply({ op: 'setNotes', ...other, notes: 'n' }, 'ana');
    expect(a.redo('ana', target)?.state?.status).toBe('done');
    expect(a.undo('ana', other)?.state).toMatchObject({ status: 'done', notes: '' });
    project.close();
  });

  it('redo after earlier redos takes the most recently undone edit, also from the rebuilt stacks after a reopen', () => {
    const { project, file } = fresh();
    const a = project.annotations;
    a.apply({ op: 'setStatus', ...target, status: 'done' }, 'ana');
    a.apply({ op: 'setPathway', ...target, pathway: 'label-noise', on: true }, 'ana');
    a.apply({ op: 'setNotes', ...target, notes: 'third' }, 'ana');
    expect(a.undo('ana')?.target.kind).toBe('setNotes');
    expect(a.undo('ana')?.target.kind).toBe('setPathway');
    expect(a.redo('ana')?.target.kind).toBe('setPathway'); // an earlier redo…
    expect(a.undo('ana')?.target.kind).toBe('setPathway');
    expect(a.undo('ana')?.target.kind).toBe('setStatus');
    project.close();
    // …and the stacks rebuilt from the log must still redo in reverse order of undoing.
    const reopened = openProject(file);
    const b = reopened.annotations;
    expect(b.redo('ana')?.target.kind).toBe('setStatus');
    expect(b.redo('ana')?.target.kind).toBe('setPathway');
    const last = b.redo('ana');
    expect(last?.target.kind).toBe('setNotes');
    expect(last?.state).toMatchObject({ status: 'done', pathways: ['label-noise'], notes: 'third' });
    expect(b.redo('ana')).toBeNull();
    reopened.close();
  });

  it('undo and redo walk the event log and survive a reopen', () => {
    const { project, file } = fresh();
    const a = project.annotations;
    a.apply({ op: 'setStatus', ...target, status: 'done' }, 'ana');
    a.apply({ op: 'setPathway', ...target, pathway: 'label-noise', on: true }, 'ana');
    a.apply({ op: 'setStatus', ...target, status: 'needs_review' }, 'bob'); // another annotator's stack
    const u = a.undo('ana');
    expect(u?.target.kind).toBe('setPathway');
    expect(u?.state).toMatchObject({ status: 'done', pathways: [] });
    project.close();

    const p2 = openProject(file);
    const b = p2.annotations;
    expect(b.canUndo('ana')).toBe(true);
    expect(b.canRedo('ana')).toBe(true);
    expect(b.redo('ana')?.state).toMatchObject({ status: 'done', pathways: ['label-noise'] });
    expect(b.undo('ana')?.state?.pathways).toEqual([]);
    expect(b.undo('ana')?.state).toBeNull(); // nothing effective remains for ana
    expect(b.undo('ana')).toBeNull();
    expect(b.state(target.model, target.split, target.sampleId).map((s) => s.annotator)).toEqual(['bob']);
    expect(b.redo('ana')?.state).toMatchObject({ status: 'done' });
    // A new edit clears the redo stack.
    b.apply({ op: 'setNotes', ...target, notes: 'x' }, 'ana');
    expect(b.canRedo('ana')).toBe(false);
    expect(b.redo('ana')).toBeNull();
    const inactive = b.history({ ...target, annotator: 'ana' }).filter((e) => !e.active);
    expect(inactive.map((e) => e.kind)).toEqual(['setPathway']);
    p2.close();
  });

  it('shows every edit after the writing process is killed with SIGKILL', async () => {
    const { project, file } = fresh();
    project.close();
    const count = 30;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'annotate-child.ts'), file, String(count)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('ready\n')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`child exited early (${code}): ${err}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(out.match(/^saved \d+$/gm)).toHaveLength(count);

    // The dead child's lock is stale and is taken over.
    const p = openProject(file);
    const events = p.annotations.exportEvents({ annotator: 'crash' });
    expect(events).toHaveLength(count);
    const states = p.annotations.listStates({ annotator: 'crash' });
    expect(states).toHaveLength(4);
    for (let k = 0; k < 4; k++) {
      const s = states.find((x) => x.sampleId === `item-${k}`)!;
      const mine = [...Array(count).keys()].filter((i) => i % 4 === k);
      expect(s.pathways).toEqual(
        mine
          .filter((i) => i % 3 === 0)
          .map((i) => `p${i}`)
          .sort(),
      );
      expect(s.spans.map((x) => x.id).sort()).toEqual(
        mine
          .filter((i) => i % 3 === 2)
          .map((i) => `span-${i}`)
          .sort(),
      );
      const lastNote = mine.filter((i) => i % 3 === 1).pop();
      expect(s.notes).toBe(lastNote === undefined ? '' : `note ${lastNote}`);
    }
    p.close();
  });

  it('merges another annotator bundle by uuid: twice is a no-op, nobody loses edits', () => {
    const alice = fresh();
    const bob = fresh();
    alice.project.annotations.apply({ op: 'setPrimary', ...target, pathway: 'evidence-missed' }, 'alice');
    alice.project.annotations.apply({ op: 'setStatus', ...target, status: 'done' }, 'alice');
    bob.project.annotations.apply({ op: 'setPrimary', ...target, pathway: 'text-prior-overwrite' }, 'bob');
    bob.project.annotations.apply({ op: 'setNotes', ...target, notes: 'b1' }, 'bob');
    bob.project.annotations.apply({ op: 'setNotes', ...target, notes: 'b2' }, 'bob');
    bob.project.annotations.undo('bob');
    const bundle: AnnotationEvent[] = bob.project.annotations.exportEvents();
    // Through JSON, as a bundle file would carry it.
    const wire = JSON.parse(JSON.stringify(bundle)) as unknown[];

    const first = alice.project.annotations.importEvents(wire);
    expect(first).toEqual({ added: 4, skipped: 0, keysRecomputed: 1 });
    const snapshot = () => ({
      states: alice.project.annotations.listStates(),
      events: alice.project.db.prepare('SELECT count(*) FROM annotation_events').pluck().get(),
    });
    const after = snapshot();
    expect(after.states.map((s) => [s.annotator, s.primaryPathway, s.notes, s.status])).toEqual([
      ['alice', 'evidence-missed', '', 'done'],
      ['bob', 'text-prior-overwrite', 'b1', 'todo'],
    ]);
    expect(alice.project.annotations.importEvents(wire)).toEqual({ added: 0, skipped: 4, keysRecomputed: 0 });
    expect(snapshot()).toEqual(after);
    // Bob's state is the same on both machines (replay by (at, uuid)).
    expect(bob.project.annotations.listStates()).toEqual(after.states.filter((s) => s.annotator === 'bob'));
    // Merged events are not on the local undo stack.
    expect(alice.project.annotations.canUndo('bob')).toBe(false);
    expect(() => alice.project.annotations.importEvents([{ uuid: 'short' }])).toThrow(/annotation event 1/);
    alice.project.close();
    bob.project.close();
  });

  it('a local stamp follows the latest event only up to the clock bound (docs/team-sync.md §3, Clocks)', () => {
    const { project } = fresh();
    const a = project.annotations;
    const BOUND = 5 * 60_000;
    // A colleague's events stamped one minute and one day ahead (their clock was wrong).
    a.importEvents([peer('0e1f2a3b-4c5d-4e6f-8a9b-000000000010', new Date(Date.now() + 60_000).toISOString())]);
    a.apply({ op: 'setStatus', ...target, status: 'in_progress' }, 'ana');
    const first = a.exportEvents({ annotator: 'ana' })[0]!.at;
    // Within the bound a new edit still comes after it (replay order = the order things happened).
    expect(Date.parse(first)).toBeGreaterThan(Date.now() + 50_000);
    a.importEvents([peer('0e1f2a3b-4c5d-4e6f-8a9b-000000000011', new Date(Date.now() + 86_400_000).toISOString())]);
    for (let i = 0; i < 3; i++) a.apply({ op: 'setNotes', ...target, notes: `n${i}` }, 'ana');
    const ats = a.exportEvents({ annotator: 'ana' }).map((e) => e.at);
    for (const at of ats) expect(Date.parse(at)).toBeLessThanOrEqual(Date.now() + BOUND);
    // Still strictly increasing among the local edits, and the last edit is the state.
    expect([...ats].sort()).toEqual(ats);
    expect(new Set(ats).size).toBe(ats.length);
    expect(a.listStates({ annotator: 'ana' })[0]?.notes).toBe('n2');
  });

  it('at the clock bound, edits faster than the clock ticks are still stamped in order and within the bound', () => {
    const { project } = fresh();
    const a = project.annotations;
    const BOUND = 5 * 60_000;
    // A clock that ticks one millisecond every 7 reads: several edits fall in each millisecond.
    const base = Date.now();
    let reads = 0;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => base + Math.floor(reads++ / 7));
    try {
      a.importEvents([peer('0e1f2a3b-4c5d-4e6f-8a9b-000000000030', new Date(base + 86_400_000).toISOString())]);
      for (let i = 0; i < 20; i++) {
        a.apply({ op: 'setNotes', ...target, notes: `n${i}` }, 'ana');
        const ats = a.exportEvents({ annotator: 'ana' }).map((e) => Date.parse(e.at));
        // Each stamp within the bound of the clock as it read right after the edit.
        expect(ats[ats.length - 1]!).toBeLessThanOrEqual(Date.now() + BOUND);
      }
      const ats = a.exportEvents({ annotator: 'ana' }).map((e) => Date.parse(e.at));
      for (let i = 1; i < ats.length; i++) expect(ats[i]!).toBeGreaterThan(ats[i - 1]!);
      expect(a.listStates({ annotator: 'ana' })[0]?.notes).toBe('n19');
    } finally {
      clock.mockRestore();
      project.close();
    }
  });

  it("another annotator's span with the same id leaves this one's span in place (ids are per annotator)", () => {
    const { project } = fresh();
    const a = project.annotations;
    a.apply({ op: 'addSpan', ...target, span: { id: 's1', startS: 1, endS: 2, label: 'mine' } }, 'ana');
    const at = new Date(Date.now() + 1000).toISOString();
    a.importEvents([
      {
        uuid: '0e1f2a3b-4c5d-4e6f-8a9b-000000000020',
        at,
        annotator: 'pat',
        ...target,
        kind: 'addSpan',
        payload: { span: { id: 's1', startS: 5, endS: 6, label: 'theirs' } },
        codebookVersion: null,
        targetUuid: null,
      },
    ]);
    const spans = (who: string) => a.listStates({ annotator: who })[0]?.spans.map((x) => [x.id, x.label]);
    expect(spans('ana')).toEqual([['s1', 'mine']]);
    expect(spans('pat')).toEqual([['s1', 'theirs']]);
    // Deleting one deletes only that one.
    a.apply({ op: 'deleteSpan', ...target, spanId: 's1' }, 'ana');
    expect(spans('ana')).toEqual([]);
    expect(spans('pat')).toEqual([['s1', 'theirs']]);
  });

  it('versions the codebook: a changed definition bumps it, an unchanged one does not', () => {
    const { project } = fresh();
    const a = project.annotations;
    const cb = { id: 'test-book', version: 1, pathways: [{ id: 'evidence-missed', label: 'Evidence missed', description: 'the frames skip it' }] };
    const v1 = a.setCodebook(cb);
    const base = v1.version;
    expect(a.setCodebook(cb).version).toBe(base);
    const changed = a.setCodebook({ ...cb, pathways: [{ ...cb.pathways[0]!, description: 'the sampled frames miss the evidence' }] });
    expect(changed.version).toBe(base + 1);
    expect(a.getCodebook()).toEqual(changed);
    const st = a.apply({ op: 'setStatus', ...target, status: 'done' }, 'ana');
    expect(st.codebookVersion).toBe(base + 1);
    expect(() => a.setCodebook({ id: 'x' })).toThrow();
    project.close();
  });
});
