/**
 * MLVU's answers as MLVU's own scorer gives them (docs/formats.md "MLVU quirks"). The scorer is
 * `evaluation/multiple_choice_evaluation/choice_bench.py` (JUNJIE99/MLVU): `qa_template` makes
 * the answer `"(<letter>) <answer>"` with the letter of the LAST candidate equal to the answer
 * ("(@)" when none is), and `check_ans` compares the letter before the prediction's first ")"
 * with it; every row counts in `acc_dict`'s totals. So a blank answer beside a blank candidate
 * (3_ego.json twice in the published data, 7_topic_reasoning.json's blank row) is a scorable row
 * with that candidate's letter, and a repeated candidate that is the answer (1_plotQA.json,
 * 6_anomaly_reco.json, 7_topic_reasoning.json) is its later letter.
 *
 * The rows below have the shapes of those published rows; the choice_bench.py output is built
 * by an independent transcription of `qa_template` / `check_ans` here, and the import must give
 * the same letters, the same per-row outcome and the scorer's accuracy over the rows it keeps.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { Scratch } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

interface MetaRow {
  video: string;
  duration: number;
  question: string;
  candidates: string[];
  answer: string;
  question_type: string;
}

const ROWS: MetaRow[] = [
  // 3_ego.json's two blank answers: beside a blank third candidate, and a blank last one.
  {
    video: 'egoBlank_1.mp4',
    duration: 375.37,
    question: 'Where was the drill before I picked it up?',
    candidates: ['In the garage', 'In the toolbox', '', 'On the shelf'],
    answer: '',
    question_type: 'ego',
  },
  { video: 'egoBlank_2.mp4', duration: 201.5, question: 'How many jars did I see in the cabinet?', candidates: ['2', '5', '10', ''], answer: '', question_type: 'ego' },
  // 1_plotQA.json: the answer is a candidate that appears twice.
  { video: 'plotDup_1.mp4', duration: 480, question: 'How many sheep are in the pen?', candidates: ['Six', 'Three', 'Three', 'Eight'], answer: 'Three', question_type: 'plotQA' },
  {
    video: 'plotDup_2.mp4',
    duration: 512,
    question: 'Where does the man buy medicine?',
    candidates: ['Pharmacy', 'Restaurant', 'Coffee shop', 'Pharmacy'],
    answer: 'Pharmacy',
    question_type: 'plotQA',
  },
  // 7_topic_reasoning.json's blank row.
  { video: 'topicBlank_1.mp4', duration: 677, question: '', candidates: ['', '', '', ''], answer: '', question_type: 'topic_reasoning' },
  // A blank answer with no blank candidate (a white-space one is not equal): choice_bench.py's "(@) ".
  { video: 'egoBlank_3.mp4', duration: 300, question: 'What did I drop?', candidates: ['keys', ' ', 'phone', 'wallet'], answer: '', question_type: 'ego' },
  {
    video: 'egoPlain_1.mp4',
    duration: 480,
    question: 'What did I put in the bin?',
    candidates: ['box', 'paper', 'banana peel', 'plastic bottle'],
    answer: 'box',
    question_type: 'ego',
  },
];
/** What the model said, per row (choice_bench.py's `pred`: the text after its "Best option:(" prompt). */
const PREDS = ['C) ', 'D', 'C) Three', 'A) Pharmacy', 'D', 'B)  ', 'A) box'];

/** choice_bench.py `qa_template`, transcribed. */
function qaTemplate(r: MetaRow): { question: string; gt: string } {
  let question = `Question: ${r.question}\nOptions:\n`;
  let at = -1;
  r.candidates.forEach((c, i) => {
    question += `(${String.fromCharCode(65 + i)}) ${c}\n`;
    if (c === r.answer) at = i;
  });
  return { question: question.trimEnd(), gt: `(${String.fromCharCode(65 + at)}) ${r.answer}` };
}

/** choice_bench.py `check_ans`, transcribed. */
function checkAns(pred: string, gt: string): boolean {
  const gtOption = gt.slice(gt.indexOf('(') + 1, gt.indexOf(')'));
  const p = pred.includes(')') ? pred.slice(pred.indexOf(')') - 1, pred.indexOf(')')) : pred;
  return p === gtOption;
}

const scored = ROWS.map((r, i) => ({ ...qaTemplate(r), pred: PREDS[i]!, ok: checkAns(PREDS[i]!, qaTemplate(r).gt) }));

function files(dir: string): { meta: string; choice: string; vlm: string } {
  // MLVU's data files: json.dump(indent=4).
  const meta = scratch.write(`${dir}/3_ego.json`, JSON.stringify(ROWS, null, 4));
  const acc: Record<string, [number, number]> = {};
  ROWS.forEach((r, i) => {
    const a = (acc[r.question_type] ??= [0, 0]);
    a[1]++;
    if (scored[i]!.ok) a[0]++;
  });
  const resList = ROWS.map((r, i) => ({
    pred: scored[i]!.pred,
    gt: scored[i]!.gt,
    question: scored[i]!.question,
    question_type: r.question_type,
    video: `/MLVU_all/video/${r.question_type}/${r.video}`,
  }));
  // choice_bench.py: json.dump({acc_dict, res_list}, f), Python's default separators.
  const choice = scratch.write(`${dir}/test_all_choice.json`, JSON.stringify({ acc_dict: acc, res_list: resList }).replace(/","/g, '", "').replace(/":/g, '": '));
  // VLMEvalKit's MLVU_MCQ TSV (vlmeval/dataset/mlvu.py generate_tsv + the prediction), every cell quoted; a blank cell is empty.
  const q = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`;
  const py = (cs: string[]) => `[${cs.map((c) => `'${c}'`).join(', ')}]`;
  const header = ['task_type', 'prefix', 'duration', 'video', 'question', 'answer', 'candidates', 'index', 'prediction'];
  const lines = ROWS.map((r, i) =>
    [r.question_type, `./MLVU/video/${r.question_type}`, r.duration, r.video, r.question, r.answer, py(r.candidates), i, PREDS[i]!].map(q).join('\t'),
  );
  const vlm = scratch.write(`${dir}/llava_video_qwen2_7b_MLVU_MCQ_16frame.tsv`, [header.map(q).join('\t'), ...lines].join('\n') + '\n');
  return { meta, choice, vlm };
}

describe("MLVU: the letter MLVU's own scorer gives", () => {
  it('blank answers beside a blank candidate are kept with that letter and warned about; a repeated candidate is its later letter', async () => {
    const { meta } = files('meta');
    const [b] = await readImport(meta);
    const byVideo = new Map(b!.items.map((i) => [i.videoFile, i]));
    // The letters of choice_bench.py's gt for every row it can score ("(@)" cannot be).
    for (const [i, r] of ROWS.entries()) {
      const letter = scored[i]!.gt[1];
      if (letter === '@') expect(byVideo.has(r.video), r.video).toBe(false);
      else expect(byVideo.get(r.video)?.answer, r.video).toBe(letter);
    }
    expect([...byVideo.keys()]).toEqual(['egoBlank_1.mp4', 'egoBlank_2.mp4', 'plotDup_1.mp4', 'plotDup_2.mp4', 'topicBlank_1.mp4', 'egoPlain_1.mp4']);
    expect(b!.items.map((i) => i.answer)).toEqual(['C', 'D', 'C', 'D', 'D', 'A']);
    expect(byVideo.get('topicBlank_1.mp4')).toMatchObject({ question: '', options: ['', '', '', ''] });
    const w = b!.warnings.join('\n');
    expect(w).toContain(`${meta}:2: [0].candidates[2]: kept — the answer is a blank candidate; scored as MLVU's choice_bench.py scores it, with answer C`);
    expect(w).toContain(`${meta}:15: [1].candidates[3]: kept — the answer is a blank candidate; scored as MLVU's choice_bench.py scores it, with answer D`);
    expect(w).toMatch(
      /:54: \[4\]\.candidates\[3\]: kept — a blank row of the benchmark \(blank question, candidates and answer\); scored as MLVU's choice_bench\.py scores it, with answer D/,
    );
    expect(w).toContain(`${meta}:67: [5].answer: skipped — blank answer, and no blank candidate to be it`);
    expect(w).toContain("3_ego.json: 3 blank-answer row(s) kept with the answer MLVU's scorer gives them (listed above)");
    expect(w).toContain('3_ego.json: 1 benchmark row(s) skipped (MLVU quirks listed above)');
  });

  it("choice_bench.py's output: each kept row's outcome is check_ans's, and the accuracy is the scorer's over the rows kept", async () => {
    const { meta, choice } = files('choice');
    const [m] = await readImport(meta);
    const [r] = await readImport(choice, { model: 'VideoChat2', config: '16f' });
    const metaById = new Map(m!.items.map((i) => [i.sampleId, i]));
    const kept = ROWS.map((row, i) => ({ row, s: scored[i]! })).filter((x) => x.s.gt[1] !== '@');
    expect(r!.responses.map((x) => [metaById.get(x.sampleId)?.videoFile, x.groundTruth, x.correct])).toEqual(kept.map((x) => [x.row.video, x.s.gt[1], x.s.ok]));
    // The blank rows are in the denominator, as in acc_dict; a model that picks the blank option is right.
    expect(kept.filter((x) => x.row.answer === '' && x.s.ok).length).toBe(3);
    const project = openProject(scratch.path('choice.flipbook'), { create: true });
    try {
      project.applyImports([m!, r!]);
      const acc = mcqaMetrics(project.loadMatrix('VideoChat2', 'MLVU')).accuracy['16f']!;
      expect(acc).toBeCloseTo(kept.filter((x) => x.s.ok).length / kept.length, 12);
      expect(acc).toBeCloseTo(5 / 6, 12);
    } finally {
      project.close();
    }
  });

  it("VLMEvalKit's MLVU file of the same rows gives the same items and letters", async () => {
    const { meta, vlm } = files('vlm');
    const [m] = await readImport(meta);
    const [v] = await readImport(vlm);
    const view = (xs: NonNullable<typeof m>['items']) => xs.map((i) => [i.sampleId, i.answer, i.options]);
    expect(view(v!.items)).toEqual(view(m!.items));
    expect(v!.responses.map((x) => [x.groundTruth, x.pred, x.correct])).toEqual([
      ['C', 'C', true],
      ['D', 'D', true],
      ['C', 'C', true],
      ['D', 'A', false],
      ['D', 'D', true],
      ['A', 'A', true],
    ]);
  });
});
