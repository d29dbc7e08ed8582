import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const GEN1 = [
  {
    video_id: '001',
    duration: 'short',
    domain: 'Knowledge',
    sub_category: 'History',
    videoID: 'vid001',
    questions: [
      { question_id: '001-1', task_type: 'Counting', question: 'How many?', options: ['A. 1', 'B. 2', 'C. 3', 'D. 4'], answer: 'C', response: 'C. 3' },
      { question_id: '001-2', task_type: 'OCR', question: 'What text?', options: ['A. x', 'B. y', 'C. z', 'D. w'], answer: 'A', response: 'The answer is B' },
    ],
  },
];
const GEN2 = [
  {
    video_id: '002',
    duration: 'medium',
    domain: 'Sports',
    sub_category: 'Ball',
    videoID: 'vid002',
    question_id: '002-1',
    task_type: 'Action',
    question: 'Who?',
    options: ['A. a', 'B. b'],
    answer: 'B',
    response: '(B)',
  },
];

describe('Video-MME official result JSON', () => {
  it('reads the nested generation (videos with questions)', async () => {
    const p = scratch.write('Model-X_videomme_32f.json', JSON.stringify(GEN1, null, 2));
    expect(await detectFormat(p)).toBe('videomme-results');
    const [b] = await readImport(p);
    expect(b!.configs.map((c) => c.key)).toEqual(['32f']);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual([
      ['Model-X', 'videomme', '001-1', 'C', true],
      ['Model-X', 'videomme', '001-2', 'B', false],
    ]);
    expect(b!.items[0]).toMatchObject({ options: ['1', '2', '3', '4'], videoFile: 'vid001.mp4', durationBucket: 'short' });
    // lines point at each question object in the pretty-printed file
    expect(b!.responses[0]!.line).toBe(9);
  });

  it('reads the flat generation and takes --split with {duration}', async () => {
    const p = scratch.write('flat.json', JSON.stringify(GEN2));
    expect(await detectFormat(p)).toBe('videomme-results');
    const [b] = await readImport(p, { model: 'M', config: '64f_151k', split: 'V1_{duration}' });
    expect(b!.responses[0]).toMatchObject({ split: 'V1_medium', config: '64f_151k', pred: 'B', correct: true });
  });

  it('needs a budget: from the file name or --config', async () => {
    const p = scratch.write('nobudget.json', JSON.stringify(GEN2));
    await expectImportError(readImport(p, { model: 'M' }), { file: 'nobudget.json', line: 0, field: 'config' });
  });

  it('rejects a wrong type and a config contradicting the file name', async () => {
    const bad = structuredClone(GEN1);
    (bad[0]!.questions[1] as Record<string, unknown>).response = 7;
    const p = scratch.write('Model-X_videomme_32f_bad.json', JSON.stringify(bad, null, 2));
    await expectImportError(readImport(p), { file: 'Model-X_videomme_32f_bad.json', line: 22, field: '[0].questions[1].response' });
    const q = scratch.write('Model-X_videomme_32frame.json', JSON.stringify(GEN1));
    await expectImportError(readImport(q, { config: '16f' }), { file: 'Model-X_videomme_32frame.json', line: 0, field: 'config', reason: /16 frames but the file name says 32/ });
  });

  it('rejects a duplicate question with a different response', async () => {
    const dup = [...GEN2, { ...GEN2[0], response: 'A' }];
    const p = scratch.write('M_videomme_8f.json', JSON.stringify(dup, null, 1));
    await expectImportError(readImport(p), { file: 'M_videomme_8f.json', line: 18, field: 'response', reason: /duplicate key/ });
  });
});

const MLVU_META = [
  {
    video: 'plot_1.mp4',
    duration: 312.5,
    question: 'What happens first?',
    candidates: ['A dog barks', 'A man runs', 'It rains', 'Nothing'],
    answer: 'A man runs',
    question_type: 'plotQA',
  },
  { video: 'plot_2.mp4', duration: 200, question: 'Where?', candidates: ['Park', 'Home'], answer: 'Park', question_type: 'plotQA' },
];

describe('MLVU JSON', () => {
  it('reads task metadata (answers → letters) and results that join on the derived ids', async () => {
    const meta = scratch.write('1_plotQA.json', JSON.stringify(MLVU_META, null, 2));
    expect(await detectFormat(meta)).toBe('mlvu-meta');
    const [m] = await readImport(meta);
    expect(m!.responses).toHaveLength(0);
    expect(m!.items[0]).toMatchObject({ split: 'MLVU', answer: 'B', options: MLVU_META[0]!.candidates, durationS: 312.5, taskType: 'plotQA', videoFile: 'plot_1.mp4' });
    expect(m!.items[0]!.sampleId).toMatch(/^plot_1#[0-9a-f]{8}$/);

    const results = {
      acc: 0.5,
      res_list: MLVU_META.map((x, i) => ({
        video: x.video,
        question: x.question,
        candidates: x.candidates,
        question_type: x.question_type,
        gt: x.answer,
        pred: i === 0 ? '(B) A man runs' : 'B',
      })),
    };
    const res = scratch.write('ModelY_mlvu_16f.json', JSON.stringify(results));
    expect(await detectFormat(res)).toBe('mlvu-results');
    const [r] = await readImport(res);
    expect(r!.responses.map((x) => [x.model, x.config, x.pred, x.correct])).toEqual([
      ['ModelY', '16f', 'B', true],
      ['ModelY', '16f', 'B', false],
    ]);
    expect(r!.responses.map((x) => x.sampleId)).toEqual(m!.items.map((x) => x.sampleId));
  });

  it('reads MLVU test-format outputs (question_id, question_type, option)', async () => {
    const p = scratch.write('Z_mlvu_test_8frame.json', JSON.stringify([{ question_id: 'AR_0', question_type: 'anomaly_reco', option: 'B' }]));
    const [b] = await readImport(p);
    expect(b!.responses[0]).toMatchObject({ sampleId: 'AR_0', pred: 'B', correct: null, config: '8f' });
  });

  it('skips (and counts) an answer that is not a candidate: MLVU ships such rows', async () => {
    const bad = structuredClone(MLVU_META);
    bad[1]!.answer = 'Moon';
    const p = scratch.write('2_bad.json', JSON.stringify(bad, null, 2));
    const [b] = await readImport(p, { format: 'mlvu-meta' });
    expect(b!.items.map((x) => x.videoFile)).toEqual(['plot_1.mp4']);
    expect(b!.warnings).toContain(`${p}:15: [1].answer: skipped — answer "Moon" is not among the candidates`);
    expect(b!.warnings).toContain('2_bad.json: 1 benchmark row(s) skipped (MLVU quirks listed above)');
  });

  it('rejects a wrong type', async () => {
    const bad = structuredClone(MLVU_META) as unknown as Record<string, unknown>[];
    bad[0]!.candidates = 'A dog barks';
    const p = scratch.write('3_bad.json', JSON.stringify(bad, null, 2));
    await expectImportError(readImport(p, { format: 'mlvu-meta' }), { file: '3_bad.json', line: 2, field: '[0].candidates' });
  });
});
