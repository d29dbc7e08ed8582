/**
 * The benchmarks researchers run beside Video-MME (docs/formats.md "lmms-eval", "VLMEvalKit"),
 * in the exact record shapes of the toolkits' own task code:
 * - lmms-eval (EvolvingLMMs-Lab/lmms-eval `lmms_eval/tasks/<task>/utils.py`, `_default_template_yaml`):
 *   MVBench (`doc_to_target: answer`, the option text; `mvbench_accuracy: {pred_answer,
 *   gt_answer, score}`; the prompt's `(A) …` options), LongVideoBench (`doc_to_target:
 *   correct_choice`, a 0-based index; `lvb_acc: {id, duration_group, question_category, answer,
 *   parsed_pred}`; `submission`), EgoSchema subset (`answer`, an index as digits;
 *   `submission: {video_idx: index}`, `score: {pred, ground_truth}`), TempCompass multi-choice
 *   (target `"D. text"`; `avg_accuracy: {video_id, question, gt-answer, video-llm-prediction,
 *   match_success, rating, dim}`), all in the ≥ 0.4 layout without `doc`;
 * - VLMEvalKit (open-compass/VLMEvalKit `vlmeval/dataset/{mvbench,longvideobench,tempcompass}.py`,
 *   `video_concat_dataset.py`): `<model>_<dataset>_<N>frame.tsv` with the columns each dataset's
 *   TSV has plus `prediction` (and `score` in the `_score` file).
 * Then the generic `--columns` reader. Every damaged file is `file:line: field: reason` and changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readImport } from '../../../electron/importers/index';
import { openProject } from '../../../electron/store/project';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { Scratch, expectImportError } from './helpers';
import { flipbook } from '../cli/cli-helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const RESULTS = {
  results: {},
  config: { model: 'llava_vid', model_args: 'pretrained=lmms-lab/LLaVA-Video-7B-Qwen2,max_frames_num=32' },
  model_name: 'lmms-lab/LLaVA-Video-7B-Qwen2',
};
/** An lmms-eval ≥ 0.4 samples log of `task` (and its results.json beside it), one record per line. */
function lmmsLog(task: string, records: object[], folder = task): string {
  const dir = scratch.path(folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '20250401_090000_results.json'), JSON.stringify(RESULTS, null, 2));
  const f = path.join(dir, `20250401_090000_samples_${task}.jsonl`);
  fs.writeFileSync(f, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
}

const mvbenchPrompt = (q: string, c: string[]) => `Question:${q}\nOption:\n${c.map((x, i) => `(${'ABCDE'[i]}) ${x}\n`).join('')}Only give the best option.\n`;
const MV = [
  { q: 'What is the action performed by the person in the video?', c: ['Not sure', 'Stretching arms', 'Folding arms'], answer: 'Stretching arms', resp: '(B) Stretching arms' },
  { q: 'Which direction is the ball moving?', c: ['left', 'right', 'up', 'down'], answer: 'down', resp: 'A' },
];
const mvRecord = (i: number, withGt = true) => {
  const m = MV[i]!;
  const gt = 'ABCDE'[m.c.indexOf(m.answer)]!;
  const score = m.resp.includes(gt) ? 1 : 0;
  return {
    doc_id: i,
    target: m.answer,
    filtered_resps: [m.resp],
    resps: [[m.resp]],
    doc_hash: 'e3b0c442',
    mvbench_accuracy: withGt ? { pred_answer: m.resp, gt_answer: gt, score } : { pred_answer: m.resp, score },
    input: mvbenchPrompt(m.q, m.c),
  };
};

describe('lmms-eval: MVBench, LongVideoBench, EgoSchema, TempCompass multiple choice', () => {
  it("MVBench: the option text's letter (gt_answer, else the prompt's options), the task's own score kept", async () => {
    const [b] = await readImport(lmmsLog('mvbench_action_antonym', [mvRecord(0), mvRecord(1, false)]));
    expect(b!.responses.map((r) => [r.split, r.sampleId, r.pred, r.groundTruth, r.correct, r.protocolNote])).toEqual([
      ['mvbench_action_antonym', '0', 'B', 'B', true, 'score: mvbench_accuracy.score'],
      ['mvbench_action_antonym', '1', 'A', 'D', false, 'score: mvbench_accuracy.score'],
    ]);
    expect(b!.items.find((i) => i.sampleId === '1')).toMatchObject({ question: MV[1]!.q, options: MV[1]!.c, answer: 'D', kind: 'mcqa' });
    expect(b!.configs[0]!.key).toBe('32f');
  });

  it('LongVideoBench: lvb_acc.id is the item, the 0-based correct_choice (or lvb_acc.answer) the letter', async () => {
    const rec = (i: number, id: string, choice: number, resp: string, parsed: string, withAnswer = true) => ({
      doc_id: i,
      target: choice,
      filtered_resps: [resp],
      doc_hash: 'ab12',
      lvb_acc: { id, duration_group: 600, question_category: 'TOS', ...(withAnswer && { answer: 'ABCDE'[choice] }), parsed_pred: parsed },
      submission: { [id]: resp },
      input: `In the video, what does the man do after he puts down the cup?\nA. He leaves\nB. He sits\nC. He drinks\nD. He waves\nAnswer with the option's letter from the given choices directly.\n`,
    });
    const [b] = await readImport(
      lmmsLog('longvideobench_val_v', [rec(0, '86CxyhFV9MI_0', 2, 'C', 'C'), rec(1, '86CxyhFV9MI_1', 3, 'The answer is B', 'B', false), rec(2, 'Zx4_2', 0, 'none of them', 'D')]),
    );
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['86CxyhFV9MI_0', 'C', 'C', true],
      ['86CxyhFV9MI_1', 'B', 'D', false],
      // Its parser picks a random letter when it reads none; Flipbook reads none and says so.
      ['Zx4_2', null, 'A', false],
    ]);
    expect(b!.warnings.join('\n')).toMatch(/differs from the task's own parsed answer on 1 line\(s\): line 3 \(Zx4_2\)/);
  });

  it("EgoSchema: the submission's video_idx is the item, the index answer its letter", async () => {
    const rec = (i: number, vid: string, answer: string, resp: string, pred: number) => ({
      doc_id: i,
      target: answer,
      filtered_resps: [resp],
      doc_hash: 'cd34',
      submission: { [vid]: pred },
      score: { pred, ground_truth: answer },
      input: `What is the overarching activity of c in the video?\nA. cooking\nB. cleaning\nC. gardening\nD. painting\nE. reading\nAnswer with the option's letter from the given choices directly.`,
    });
    const [b] = await readImport(
      lmmsLog('egoschema_subset', [rec(0, '001934bb-81bd-4cd8-a574-0472ef3f6678', '2', 'C.', 2), rec(1, '0074f737-11cb-497d-8d07-77c3a8127391', '0', 'B', 1)]),
    );
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct])).toEqual([
      ['001934bb-81bd-4cd8-a574-0472ef3f6678', 'C', 'C', true],
      ['0074f737-11cb-497d-8d07-77c3a8127391', 'B', 'A', false],
    ]);
    expect(b!.items[0]!.options).toEqual(['cooking', 'cleaning', 'gardening', 'painting', 'reading']);
  });

  it('TempCompass multi-choice: "D. text" is D; the rating (its judge included) is the outcome', async () => {
    const question = 'What is the speed of the car in the video?\nA. slow\nB. normal\nC. fast\nD. not moving';
    const rec = (i: number, video: string, answer: string, resp: string, rating: number) => {
      const m = { video_id: video, question, 'gt-answer': answer, 'video-llm-prediction': resp, match_success: true, rating, dim: 'speed' };
      return {
        doc_id: i,
        target: answer,
        filtered_resps: [resp],
        doc_hash: 'ef56',
        avg_accuracy: m,
        speed_accuracy: m,
        input: `${question}\nPlease directly give the best option:`,
      };
    };
    const [b] = await readImport(lmmsLog('tempcompass_multi_choice', [rec(0, '1009', 'D. not moving', 'D', 1), rec(1, '1010', 'A. slow', 'It is slow.', 1)]));
    expect(b!.responses.map((r) => [r.sampleId, r.pred, r.groundTruth, r.correct, r.protocolNote])).toEqual([
      ['0', 'D', 'D', true, 'score: avg_accuracy.rating'],
      // No letter in the text; the task's judge rated it correct, and that is kept.
      ['1', null, 'A', true, 'score: avg_accuracy.rating'],
    ]);
    expect(b!.items[0]).toMatchObject({
      question: 'What is the speed of the car in the video?',
      options: ['slow', 'normal', 'fast', 'not moving'],
      answer: 'D',
      videoFile: '1009.mp4',
    });
  });

  it('damaged: an index past the options, an answer that is no option; nothing changes', async () => {
    const bad = { ...mvRecord(0, false), target: 'Jumping' };
    await expectImportError(readImport(lmmsLog('mvbench_fine_grained_action', [mvRecord(0), bad], 'bad-mv')), {
      file: 'samples_mvbench_fine_grained_action.jsonl',
      line: 2,
      field: 'target',
      reason: /the answer "Jumping" is neither an option letter nor one of the options \(A\. Not sure; B\. Stretching arms; C\. Folding arms\)/,
    });
    const lvb = {
      doc_id: 0,
      target: 7,
      filtered_resps: ['A'],
      lvb_acc: { id: 'x_0', parsed_pred: 'A' },
      input: "Q?\nA. a\nB. b\nAnswer with the option's letter from the given choices directly.\n",
    };
    const f = lmmsLog('longvideobench_val_v', [lvb], 'bad-lvb');
    await expectImportError(readImport(f), { file: 'samples_longvideobench_val_v.jsonl', line: 1, field: 'target', reason: /option index 7 is past the 2 options/ });
    const project = scratch.path('bench.flipbook');
    expect(flipbook('import', lmmsLog('mvbench_action_antonym', [mvRecord(0)], 'ok-mv'), '--project', project).code).toBe(0);
    const before = fs.readFileSync(project);
    const r = flipbook('import', f, '--project', project);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/samples_longvideobench_val_v\.jsonl:1: target: option index 7/);
    expect(fs.readFileSync(project).equals(before)).toBe(true);
  });
});

/** A VLMEvalKit TSV as `dump` writes it (pandas to_csv, tab-separated, every field quoted). */
function vlmTsv(name: string, header: string[], rows: (string | number)[][]): string {
  const q = (v: string | number) => `"${String(v).replace(/"/g, '""')}"`;
  return scratch.write(`vlm/${name}`, [header, ...rows].map((r) => r.map(q).join('\t')).join('\n') + '\n');
}

describe('VLMEvalKit: MVBench, LongVideoBench, TempCompass', () => {
  it("MVBench: the answer's option text is its letter among the candidates", async () => {
    const header = ['task_type', 'prefix', 'data_type', 'bound', 'start', 'end', 'video', 'question', 'answer', 'candidates', 'index', 'prediction'];
    const f = vlmTsv('Qwen2-VL-7B_MVBench_8frame.tsv', header, [
      [
        'Action Antonym',
        'video/ssv2_video/',
        'video',
        'False',
        '',
        '',
        '166583.webm',
        MV[0]!.q,
        MV[0]!.answer,
        "['Not sure', 'Stretching arms', 'Folding arms']",
        0,
        '(B) Stretching arms',
      ],
      ['Moving Direction', 'video/clevrer/video_validation/', 'video', 'False', '', '', 'video_10009.mp4', MV[1]!.q, 'down', "['left', 'right', 'up', 'down']", 1, 'D'],
    ]);
    const [b] = await readImport(f);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct])).toEqual([
      ['Qwen2-VL-7B', 'MVBench', '0', '8f', 'B', 'B', true],
      ['Qwen2-VL-7B', 'MVBench', '1', '8f', 'D', 'D', true],
    ]);
    expect(b!.items[1]).toMatchObject({ taskType: 'Moving Direction', options: ['left', 'right', 'up', 'down'], videoFile: 'video_10009.mp4' });
  });

  it("LongVideoBench: its id is the item (as lmms-eval's), correct_choice the 0-based letter", async () => {
    const header = [
      'video_id',
      'question',
      'question_wo_referring_query',
      'candidates',
      'correct_choice',
      'position',
      'topic_category',
      'question_category',
      'level',
      'id',
      'video_path',
      'subtitle_path',
      'duration_group',
      'starting_timestamp_for_subtitles',
      'duration',
      'view_count',
      'index',
      'video',
      'prediction',
    ];
    const f = vlmTsv('InternVL2_5-8B_LongVideoBench_64frame.tsv', header, [
      [
        '86CxyhFV9MI',
        'What does the man do?',
        'What does the man do?',
        "['He leaves', 'He sits', 'He drinks', 'He waves']",
        2,
        '[100]',
        'T1',
        'TOS',
        'L1',
        '86CxyhFV9MI_0',
        './videos/86CxyhFV9MI.mp4',
        '86CxyhFV9MI_en.json',
        600,
        0,
        512.3,
        1000,
        0,
        '86CxyhFV9MI',
        'C. He drinks',
      ],
    ]);
    const [b] = await readImport(f);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.groundTruth, r.correct])).toEqual([
      ['InternVL2_5-8B', 'LongVideoBench', '86CxyhFV9MI_0', '64f', 'C', 'C', true],
    ]);
    expect(b!.items[0]).toMatchObject({ taskType: 'TOS', answer: 'C' });
    const bad = vlmTsv('InternVL2_5-8B_LongVideoBench_8frame.tsv', header, [['v', 'q', 'q', "['a', 'b']", 5, '', '', 'TOS', '', 'v_0', '', '', 60, 0, 10, 1, 0, 'v', 'A']]);
    await expectImportError(readImport(bad), { file: 'LongVideoBench_8frame.tsv', line: 2, field: 'correct_choice', reason: /option index 5 is past the 2 candidates/ });
  });

  it('TempCompass (a concatenated dataset): multiple choice, yes/no and captioning parts are splits of their own; _score files keep their scores', async () => {
    const header = ['video', 'question', 'answer', 'dim', 'candidates', 'mc_question', 'mc_answer', 'SUB_DATASET', 'original_index', 'index', 'prediction', 'score'];
    const f = vlmTsv('LLaVA-Video-7B_TempCompass_8frame_score.tsv', header, [
      ['1009', 'What is the speed of the car?', 'D. not moving', 'speed', "['A. slow', 'B. normal', 'C. fast', 'D. not moving']", '', '', 'TempCompass_MCQ', 0, 0, 'D', 1],
      ['1010', 'What is the speed of the car?', 'A. slow', 'speed', "['A. slow', 'B. normal']", '', '', 'TempCompass_MCQ', 1, 1, 'The car is slow', 1],
      ['1009', 'Is the car moving fast?', 'no', 'speed', '', '', '', 'TempCompass_YorN', 0, 2, 'No, it is not.', 1],
      ['1009', 'Describe the speed of the car.', 'The car is not moving.', 'speed', '', 'q', 'a', 'TempCompass_Captioning', 0, 3, 'The car stands still.', 0.8],
    ]);
    const [b] = await readImport(f);
    expect(b!.responses.map((r) => [r.split, r.sampleId, r.pred, r.groundTruth, r.correct, r.score])).toEqual([
      ['TempCompass_MCQ', '0', 'D', 'D', true, null],
      // The judged score (1) is kept where the letter cannot be read.
      ['TempCompass_MCQ', '1', null, 'A', true, null],
      ['TempCompass_YorN', '0', 'B', 'B', true, null],
      ['TempCompass_Captioning', '0', 'The car stands still.', null, null, 0.8],
    ]);
    expect(b!.items.find((i) => i.split === 'TempCompass_YorN')).toMatchObject({ options: ['yes', 'no'], answer: 'B', kind: 'mcqa' });
    expect(b!.items.find((i) => i.split === 'TempCompass_MCQ' && i.sampleId === '0')).toMatchObject({ options: ['slow', 'normal', 'fast', 'not moving'], answer: 'D' });
  });
});

describe('--columns: any table, by naming its columns', () => {
  it('a CSV and a JSONL with their own column names; index, letter and option-text answers; its own outcome kept', async () => {
    const csv = scratch.write(
      'cols/mine.csv',
      'qid,budget,resp,gt,opts,ok\nq1,16f_151k,B,B,"[""red"", ""blue""]",\nq2,16f_151k,the answer is A,blue,"[""red"", ""blue""]",\nq3,32f_151k,A,0,"[""red"", ""blue""]",0\n',
    );
    const [b] = await readImport(csv, { columns: 'sample_id=qid,prediction=resp,answer=gt,options=opts,config=budget,correct=ok', model: 'Mine', split: 'MyBench' });
    expect(b!.responses.map((r) => [r.sampleId, r.config, r.pred, r.groundTruth, r.correct])).toEqual([
      ['q1', '16f_151k', 'B', 'B', true],
      ['q2', '16f_151k', 'A', 'B', false],
      // Its own outcome (0) is kept although the letters match.
      ['q3', '32f_151k', 'A', 'A', false],
    ]);
    const jsonl = scratch.write(
      'cols/mine.jsonl',
      '{"id": "v1_q", "m": "X", "s": "Bench", "out": "C", "truth": "C", "c": "8f"}\n{"id": "v2_q", "m": "X", "s": "Bench", "out": "D", "truth": "A", "c": "8f"}\n',
    );
    const [j] = await readImport(jsonl, { columns: 'sample_id=id,model=m,split=s,prediction=out,answer=truth,config=c' });
    expect(j!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual([
      ['X', 'Bench', 'v1_q', 'C', true],
      ['X', 'Bench', 'v2_q', 'D', false],
    ]);
  });

  it('refuses a mapping it cannot follow, naming the file, line and column, and changes nothing', async () => {
    const csv = scratch.write('cols/bad.csv', 'qid,resp,gt\nq1,B,B\nq2,A,7\n');
    await expectImportError(readImport(csv, { columns: 'sample_id=qid,prediction=response', model: 'M', split: 'S', config: '8f' }), {
      file: 'bad.csv',
      line: 1,
      field: 'response',
      reason: /no such column for prediction= \(the file has qid, resp, gt\)/,
    });
    await expectImportError(readImport(csv, { columns: 'sample_id=qid,answer=gt', model: 'M', split: 'S', config: '8f' }), {
      file: 'bad.csv',
      line: 0,
      field: 'columns',
      reason: /--columns: needs prediction=<column>/,
    });
    await expectImportError(readImport(csv, { columns: 'sample_id=qid,prediction=resp,answer=gt,colour=x' }), {
      file: 'bad.csv',
      line: 0,
      field: 'columns',
      reason: /unknown role "colour"/,
    });
    await expectImportError(readImport(csv, { columns: 'sample_id=qid,prediction=resp,answer=gt', model: 'M', split: 'S' }), {
      file: 'bad.csv',
      line: 0,
      field: 'config',
      reason: /pass --config/,
    });
    // An answer that is free text in a multiple-choice file (no options: "7" is no letter).
    await expectImportError(readImport(csv, { columns: 'sample_id=qid,prediction=resp,answer=gt', model: 'M', split: 'S', config: '8f' }), {
      file: 'bad.csv',
      line: 3,
      field: 'gt',
      reason: /open-ended \(free-text answer, no options\) record in a file whose records are multiple-choice \(from line 2\)/,
    });
    const project = scratch.path('cols.flipbook');
    const good = scratch.write('cols/good.csv', 'qid,resp,gt\nq1,B,B\n');
    expect(flipbook('import', good, '--project', project, '--columns', 'sample_id=qid,prediction=resp,answer=gt', '--model', 'M', '--split', 'S', '--config', '8f').code).toBe(0);
    const before = fs.readFileSync(project);
    const r = flipbook('import', csv, '--project', project, '--columns', 'sample_id=qid,prediction=resp,answer=gt', '--model', 'M', '--split', 'S', '--config', '16f');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.csv:3: gt: /);
    expect(fs.readFileSync(project).equals(before)).toBe(true);
    const p = openProject(project, { readOnly: true });
    try {
      expect(mcqaMetrics(p.loadMatrix('M', 'S')).accuracy['8f']).toBe(1);
    } finally {
      p.close();
    }
  });
});
