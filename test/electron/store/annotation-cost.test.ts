// An annotation edit keeps the current state incrementally (electron/store/annotations.ts):
// its cost must not grow with the item's event count, and the stored state must always equal
// the replay of the key's events — after edits, undo/redo, merges and pathway edits.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { replay } from '../../../electron/store/annotation-replay';
import type { AnnotationEdit } from '../../../shared/domain/annotations';
import { mulberry32 } from '../../../shared/engine/prng';
import { tempDir } from './helpers';

const heavy = { model: 'm', split: 'S', sampleId: 'heavy' };
const light = { model: 'm', split: 'S', sampleId: 'light' };

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('annotation edit cost', () => {
  it('an edit on an item with 4,000 events costs about what one on a fresh item does', () => {
    const project = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    try {
      const a = project.annotations;
      // 4,000 earlier events of the same key (notes, and 20 evidence spans), merged in one transaction.
      const t0 = Date.parse('2026-01-01T00:00:00.000Z');
      a.importEvents(
        Array.from({ length: 4000 }, (_, i) => ({
          uuid: randomUUID(),
          at: new Date(t0 + i).toISOString(),
          annotator: 'ana',
          ...heavy,
          kind: i % 200 === 0 ? 'addSpan' : 'setNotes',
          payload:
            i % 200 === 0 ? { span: { id: `s${i}`, startS: i / 100, endS: i / 100 + 1, label: 'x'.repeat(50), coveredBy: ['8f'] } } : { notes: `note ${i} ${'y'.repeat(200)}` },
          codebookVersion: null,
          targetUuid: null,
        })),
      );
      const once = (item: typeof heavy, i: number): number => {
        const t = process.hrtime.bigint();
        a.apply({ op: 'setConfidence', ...item, confidence: (i % 5) + 1 }, 'ana');
        return Number(process.hrtime.bigint() - t) / 1e6;
      };
      for (let i = 0; i < 5; i++) (once(light, i), once(heavy, i)); // warm up statements
      // Interleaved, so load from other processes weighs on both series alike.
      const light40: number[] = [];
      const heavy40: number[] = [];
      for (let i = 0; i < 40; i++) (light40.push(once(light, i)), heavy40.push(once(heavy, i)));
      const onLight = median(light40);
      const onHeavy = median(heavy40);
      // Replaying 4,000 events per edit made it ~5× slower; a constant-cost edit stays within 2×
      // (plus 1 ms of slack for a shared machine).
      expect(onHeavy, `median edit ${onHeavy.toFixed(2)} ms on the heavy item vs ${onLight.toFixed(2)} ms on a fresh one`).toBeLessThan(2 * onLight + 1);
    } finally {
      project.close();
    }
  }, 60_000);

  it('the stored state always equals the replay of the key’s events (edits, toggles, undo/redo, merges)', () => {
    const project = openProject(path.join(tempDir(), 'p.flipbook'), { create: true });
    try {
      const a = project.annotations;
      const rnd = mulberry32(11);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
      const items = [heavy, light];
      const check = (): void => {
        for (const item of items) {
          for (const annotator of ['ana', 'bo']) {
            const key = { ...item, annotator };
            const events = a.exportEvents({ ...item, annotator });
            const stored = a.listStates({ ...item, annotator })[0] ?? null;
            expect(stored).toEqual(replay(key, events));
          }
        }
      };
      const spans: string[] = [];
      for (let i = 0; i < 300; i++) {
        const item = pick(items);
        const annotator = pick(['ana', 'bo']);
        const r = rnd();
        if (r < 0.1) a.undo(annotator);
        else if (r < 0.15) a.redo(annotator);
        else if (r < 0.2) {
          // A merged event from another machine, stamped in the past: the key is replayed.
          a.importEvents([
            {
              uuid: randomUUID(),
              at: new Date(Date.parse('2025-06-01T00:00:00.000Z') + i).toISOString(),
              annotator,
              ...item,
              kind: 'setStatus',
              payload: { status: 'needs_review' },
              codebookVersion: null,
              targetUuid: null,
            },
          ]);
        } else {
          const edits: AnnotationEdit[] = [
            { op: 'setPathway', ...item, pathway: pick(['evidence-missed', 'distractor-frames', 'label-noise']), on: pick([true, false]) },
            { op: 'setPrimary', ...item, pathway: pick(['evidence-missed', 'count-inflation', null]) },
            { op: 'setNotes', ...item, notes: `n${i}` },
            { op: 'setConfidence', ...item, confidence: pick([1, 2, 3, 4, 5, null]) },
            { op: 'setStatus', ...item, status: pick(['todo', 'in_progress', 'done', 'skipped']) },
            { op: 'setTransition', ...item, transition: pick(['8f>16f', null]) },
            { op: 'addSpan', ...item, span: { id: `sp${i}`, startS: rnd() * 10, endS: 10 + rnd() * 10, label: 'e', coveredBy: ['8f'] } },
          ];
          if (spans.length > 0) {
            const id = pick(spans);
            edits.push({ op: 'updateSpan', ...item, spanId: id, patch: { endS: 30 + rnd() } }, { op: 'deleteSpan', ...item, spanId: id });
          }
          const edit = pick(edits);
          if (edit.op === 'addSpan') spans.push(edit.span.id!);
          a.apply(edit, annotator);
        }
        if (i % 25 === 0) check();
      }
      check();
    } finally {
      project.close();
    }
  }, 60_000);
});
