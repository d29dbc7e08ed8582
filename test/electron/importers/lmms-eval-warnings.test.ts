/**
 * What an lmms-eval import says about its log (docs/formats.md "lmms-eval"): where Flipbook's
 * re-extracted letter differs from lmms-eval's own `pred_answer` or a task's parsed answer (with
 * up to five examples), and the lines keyed by doc_id for want of an id.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readLmmsEval } from '../../../electron/importers/lmms-eval';
import { mlvuSampleId } from '../../../electron/importers/mlvu-id';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const log = (task: string, records: object[]): string => scratch.freshFile(`20260301_101500_samples_${task}.jsonl`, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
const OPTS = { model: 'M', config: '8f' };

describe('lmms-eval warnings', () => {
  it('counts every line where the re-extracted letter differs from pred_answer, and shows the first five', async () => {
    const recs: object[] = Array.from({ length: 7 }, (_, i) => ({
      doc_id: i,
      target: 'A',
      filtered_resps: [i < 6 ? 'B' : 'A'],
      videomme_perception_score: { question_id: `00${i}-1`, answer: 'A', pred_answer: i === 5 ? '' : 'A' },
      // With a pred_answer, a task's parsed letter is not compared.
      ...(i === 6 && { lvb_acc: { parsed_pred: 'C' } }),
    }));
    // No letter, and an empty pred_answer: they agree.
    recs.push({ doc_id: 7, target: 'A', filtered_resps: ['no idea'], videomme_perception_score: { question_id: '007-1', answer: 'A', pred_answer: '' } });
    const b = await readLmmsEval(log('videomme', recs), OPTS);
    expect(b.warnings.filter((x) => x.includes('parsed answer'))).toEqual([]);
    // lmms-eval's own spelling `_percetion_score` is the score object too, with or without an id.
    const typo = await readLmmsEval(log('mlvu_dev', [{ doc_id: 0, target: 'B', filtered_resps: ['B'], mlvu_percetion_score: { answer: 'B', pred_answer: 'A' } }]), OPTS);
    expect(typo.warnings.filter((x) => x.includes('pred_answer'))).toHaveLength(1);
    const w = b.warnings.filter((x) => x.includes('pred_answer'));
    expect(w).toEqual([
      "20260301_101500_samples_videomme.jsonl: re-extracted letter differs from lmms-eval's pred_answer on 6 line(s): " +
        [0, 1, 2, 3, 4].map((i) => `line ${i + 1} (00${i}-1): "B" → B vs pred_answer "A"`).join('; '),
    ]);
  });

  it("compares with a task's own parsed letter where there is no pred_answer", async () => {
    const recs = [
      { doc_id: 0, target: 'B', filtered_resps: ['B'], lvb_acc: { id: 'l0', answer: 'B', parsed_pred: 'C' }, doc: { candidates: ['x', 'y', 'z'] } },
      { doc_id: 1, target: 'B', filtered_resps: ['no idea'], lvb_acc: { id: 'l1', answer: 'B', parsed_pred: 'A' }, doc: { candidates: ['x', 'y', 'z'] } },
      { doc_id: 2, target: 'B', filtered_resps: ['B'], lvb_acc: { id: 'l2', answer: 'B', parsed_pred: 'B' }, doc: { candidates: ['x', 'y', 'z'] } },
      ...[3, 4, 5, 6].map((i) => ({
        doc_id: i,
        target: 'B',
        filtered_resps: ['A'],
        lvb_acc: { id: `l${i}`, answer: 'B', parsed_pred: 'C' },
        doc: { candidates: ['x', 'y', 'z'] },
      })),
    ];
    const b = await readLmmsEval(log('longvideobench_val_v', recs), OPTS);
    expect(b.responses.map((r) => r.sampleId)).toEqual(['l0', 'l1', 'l2', 'l3', 'l4', 'l5', 'l6']);
    expect(b.warnings.filter((x) => x.includes('parsed answer'))).toEqual([
      `20260301_101500_samples_longvideobench_val_v.jsonl: re-extracted letter differs from the task's own parsed answer on 6 line(s): ` +
        'line 1 (l0): "B" → B vs "C"; line 2 (l1): "no idea" → none vs "A"; line 4 (l3): "A" → A vs "C"; line 5 (l4): "A" → A vs "C"; line 6 (l5): "A" → A vs "C"',
    ]);
  });

  it('says how many lines had no id and were keyed by doc_id', async () => {
    const recs = [
      { doc_id: 4, target: 'A', filtered_resps: ['A'], doc: { options: ['A. x', 'B. y'] } },
      { doc_id: 5, target: 'B', filtered_resps: ['A'], doc: { options: ['A. x', 'B. y'] } },
    ];
    const b = await readLmmsEval(log('mytask', recs), OPTS);
    expect(b.responses.map((r) => [r.sampleId, r.split, r.correct])).toEqual([
      ['4', 'mytask', true],
      ['5', 'mytask', false],
    ]);
    expect(b.warnings).toContain('20260301_101500_samples_mytask.jsonl: 2 line(s) have no question_id; keyed by doc_id');
  });

  it("keys a record whose question_id is the question's text by its video, or, with no video, by doc_id with a word", async () => {
    const q = 'How many people appear?\n(A) one\n(B) two';
    const recs = [
      {
        doc_id: 0,
        target: 'B',
        filtered_resps: ['B'],
        mlvu_percetion_score: { question_id: q, answer: 'B' },
        doc: { video_name: 'clip.mp4', question: q, candidates: ['one', 'two'] },
      },
      { doc_id: 1, target: 'A', filtered_resps: ['B'], mlvu_percetion_score: { question_id: q, answer: 'A' }, input: q },
    ];
    const b = await readLmmsEval(log('mlvu_dev', recs), OPTS);
    expect(b.responses.map((r) => r.sampleId)).toEqual([mlvuSampleId('clip.mp4', 'How many people appear?'), '1']);
    expect(b.warnings).toContain(
      '20260301_101500_samples_mlvu_dev.jsonl: 1 line(s) use the question text as question_id and the log has no doc (video): keyed by doc_id, so they do not join MLVU metadata',
    );
  });
});
