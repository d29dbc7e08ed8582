import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { TOKEN_F1_NOTE } from '../../../electron/importers/open-ended';
import { openProject } from '../../../electron/store/project';
import type { ImportBatch, ResponseRow } from '../../../shared/domain/types';
import { openMetrics } from '../../../shared/engine/open-ended';
import { tokenF1 } from '../../../shared/engine/token-f1';
import { aggregatedOpenJson } from '../../../shared/release/aggregate';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/**
 * An independent Token-F1 (docs/metrics.md §7) written differently from the engine's: punctuation
 * dropped character by character, articles dropped as whole tokens, the multiset
 * intersection by merging two sorted lists. Agrees with the engine on ordinary words.
 */
function f1Independent(pred: string, refs: string[]): number {
  const norm = (s: string): string[] =>
    [...s.toLowerCase()]
      .filter((ch) => !/\p{P}/u.test(ch))
      .join('')
      .split(/\s+/)
      .filter((w) => w !== '' && w !== 'a' && w !== 'an' && w !== 'the');
  const one = (p: string[], r: string[]): number => {
    if (p.length === 0 && r.length === 0) return 1;
    if (p.length === 0 || r.length === 0) return 0;
    const a = [...p].sort();
    const b = [...r].sort();
    let i = 0;
    let j = 0;
    let common = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) {
        common++;
        i++;
        j++;
      } else if ((a[i] as string) < (b[j] as string)) i++;
      else j++;
    }
    if (common === 0) return 0;
    const P = common / p.length;
    const R = common / r.length;
    return (2 * P * R) / (P + R);
  };
  return Math.max(0, ...refs.map((r) => one(norm(pred), norm(r))));
}

// Four items of an open-ended lmms-eval task; responses at 8 and 16 frames, with the F1
// values worked out by hand (normalised tokens in the comments).
const ITEMS = [
  // ref [cat sat on mat]; 8f [cat sat on mat] → 1; 16f [dog sat]: common 1, P 1/2, R 1/4 → 1/3
  { qid: 'oq-1', target: 'a cat sat on a mat', r8: 'The cat sat on the mat.', r16: 'the dog sat', f8: 1, f16: 1 / 3 },
  // refs [cat] | [dog runs]; 8f [dog runs very fast]: P 2/4, R 1 → 2/3; 16f [dog runs] → 1
  { qid: 'oq-2', target: ['a cat', 'dog runs'], r8: 'dog runs very fast', r16: 'Dog runs!', f8: 2 / 3, f16: 1 },
  // ref [dog runs in big park]; 8f [nothing] → 0; 16f [dog runs in park quickly]: 4 common of 5/5 → 0.8
  { qid: 'oq-3', target: 'the dog runs in a big park', r8: 'nothing', r16: 'A dog runs in the park quickly', f8: 0, f16: 0.8 },
  // ref [red ball]; both [red ball] → 1
  { qid: 'oq-4', target: 'red ball', r8: 'a red ball', r16: 'A red ball.', f8: 1, f16: 1 },
] as const;

function openLine(i: number, qid: string, target: string | readonly string[], resp: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    doc_id: i,
    doc: { question_id: qid, question: `What happens in clip ${i}?`, videoID: `clip${i}` },
    target,
    filtered_resps: [resp],
    resps: [[resp]],
    input: `Answer in one sentence.\nWhat happens in clip ${i}?`,
    ...extra,
  });
}

function lmmsLog(dir: string, frames: number, lines: string[], task = 'opencaps'): string {
  scratch.write(
    `${dir}/20250102_030405_results.json`,
    JSON.stringify({ config: { model: 'toy', model_args: `pretrained=/m/Toy-Open-7B,max_frames_num=${frames}` }, model_name: '/m/Toy-Open-7B' }),
  );
  return scratch.write(`${dir}/20250102_030405_samples_${task}.jsonl`, lines.join('\n') + '\n');
}

const byId = (rows: ResponseRow[]): Map<string, ResponseRow> => new Map(rows.map((r) => [r.sampleId, r]));

describe('open-ended imports with Token-F1', () => {
  it('the hand-computed cases: the engine and the independent implementation agree with the worked values', () => {
    expect(tokenF1('The cat sat on the mat.', 'a cat sat on a mat')).toBe(1);
    expect(tokenF1('the dog sat', 'a cat sat on a mat')).toBeCloseTo(1 / 3, 15);
    for (const it of ITEMS) {
      const refs = typeof it.target === 'string' ? [it.target] : [...it.target];
      expect(tokenF1(it.r8, refs)).toBeCloseTo(it.f8, 15);
      expect(f1Independent(it.r8, refs)).toBeCloseTo(it.f8, 15);
      expect(tokenF1(it.r16, refs)).toBeCloseTo(it.f16, 15);
      expect(f1Independent(it.r16, refs)).toBeCloseTo(it.f16, 15);
    }
  });

  it('lmms-eval: free-text targets give open rows scored by Token-F1 and open items with references', async () => {
    const p = lmmsLog(
      'lm8',
      8,
      ITEMS.map((it, i) => openLine(i, it.qid, it.target, it.r8)),
    );
    expect(await detectFormat(p)).toBe('lmms-eval');
    const [b] = await readImport(p);
    expect(b!.configs.map((c) => c.key)).toEqual(['8f']);
    const rows = byId(b!.responses);
    for (const it of ITEMS) {
      const r = rows.get(it.qid)!;
      const refs = typeof it.target === 'string' ? [it.target] : [...it.target];
      expect(r).toMatchObject({ model: 'Toy-Open-7B', split: 'opencaps', config: '8f', pred: it.r8, correct: null, groundTruth: null, protocolNote: TOKEN_F1_NOTE });
      expect(r.score).toBeCloseTo(it.f8, 15);
      expect(r.score).toBeCloseTo(f1Independent(it.r8, refs), 15);
    }
    const item = b!.items.find((x) => x.sampleId === 'oq-2')!;
    expect(item).toMatchObject({ kind: 'open', references: ['a cat', 'dog runs'], answer: null, options: null, question: 'What happens in clip 1?', videoId: 'clip1' });
    expect(b!.warnings.join('\n')).not.toMatch(/own score/);
  });

  it("lmms-eval: a file's own score in [0, 1] wins over Token-F1 (with a warning); Token-F1 only where no score is given", async () => {
    const lines = [
      // text F1 would be 1; the task's score 0.25 is kept
      openLine(0, 's-1', 'a cat sat on a mat', 'The cat sat on the mat.', { opencaps_score: 0.25 }),
      // an object-valued metric with a numeric score, given as a string
      openLine(1, 's-2', 'red ball', 'red ball', { gpt_eval_score: { question_id: 's-2', score: '0.5' } }),
      // no score: Token-F1
      openLine(2, 's-3', 'the dog runs in a big park', 'A dog runs in the park quickly'),
    ];
    const [b] = await readImport(lmmsLog('lmscore', 8, lines));
    const rows = byId(b!.responses);
    expect(rows.get('s-1')).toMatchObject({ score: 0.25, protocolNote: 'score: opencaps_score', pred: 'The cat sat on the mat.' });
    expect(rows.get('s-2')).toMatchObject({ score: 0.5, protocolNote: 'score: gpt_eval_score.score' });
    expect(rows.get('s-3')!.score).toBeCloseTo(0.8, 15);
    expect(rows.get('s-3')!.protocolNote).toBe(TOKEN_F1_NOTE);
    const w = b!.warnings.join('\n');
    expect(w).toMatch(/2 open-ended row\(s\) keep the file's own score/);
    expect(w).toMatch(/on 2 of them it differs from Token-F1/);
    expect(w).toMatch(/1 other row\(s\) have no score/);
  });

  it('lmms-eval: a score outside [0, 1], a non-numeric score and a mixed-kind file are rejected with file:line:field; doc.answer lists serve as references', async () => {
    const bad = lmmsLog('lmbad', 8, [openLine(0, 'b-1', 'red ball', 'red ball'), openLine(1, 'b-2', 'red ball', 'red', { opencaps_score: 3 })], 'badscore');
    await expectImportError(readImport(bad), { file: '20250102_030405_samples_badscore.jsonl', line: 2, field: 'opencaps_score', reason: /outside \[0, 1\]/ });
    const nan = lmmsLog('lmnan', 8, [openLine(0, 'b-1', 'red ball', 'red ball', { opencaps_score: 'high' })], 'nanscore');
    await expectImportError(readImport(nan), { file: '20250102_030405_samples_nanscore.jsonl', line: 1, field: 'opencaps_score' });
    const mcq = JSON.stringify({ doc_id: 1, target: 'B', filtered_resps: ['B'], input: 'Pick one.\nHow many?\nA. 1\nB. 2\nAnswer:' });
    const mixed = lmmsLog('lmmixed', 8, [openLine(0, 'm-1', 'red ball', 'red ball'), mcq], 'mixed');
    await expectImportError(readImport(mixed), {
      file: '20250102_030405_samples_mixed.jsonl',
      line: 2,
      field: 'target',
      reason: /multiple-choice record in a file whose records are open-ended/,
    });
    const docRefs = lmmsLog(
      'lmdocref',
      8,
      [openLine(0, 'n-1', 'red ball', 'red'), JSON.stringify({ doc_id: 1, doc: { question_id: 'n-2', answer: ['x', 'y'] }, filtered_resps: ['y'] })],
      'docref',
    );
    const [nb] = await readImport(docRefs);
    expect(byId(nb!.responses).get('n-2')!.score).toBe(1);
    expect(byId(nb!.responses).get('n-1')!.score).toBeCloseTo(2 / 3, 15);
    expect(nb!.items.find((x) => x.sampleId === 'n-2')!.references).toEqual(['x', 'y']);
  });

  it('lmms-eval: a dialogue-style open record keeps the history it carries (doc.dialog before the asked turn) and the rendered prompt', async () => {
    const dialog = [
      { question: 'what is the man holding ?', answer: 'a red cup' },
      { question: 'does he drink from it ?', answer: 'yes , twice' },
      { question: 'where does he put it ?', answer: '' },
    ];
    const input = `Q: ${dialog[0]!.question}\nA: ${dialog[0]!.answer}\nQ: ${dialog[1]!.question}\nA: ${dialog[1]!.answer}\nQ: ${dialog[2]!.question}`;
    const withDoc = JSON.stringify({
      doc_id: 0,
      doc: { question_id: 'd-1', question: dialog[2]!.question, dialog, videoID: 'v1' },
      target: 'on the table',
      filtered_resps: ['he puts it on the table'],
      input,
    });
    const [b] = await readImport(lmmsLog('lmdialog', 8, [withDoc], 'dialogtask'));
    expect(b!.items[0]).toMatchObject({ question: dialog[2]!.question, kind: 'open', context: { history: dialog.slice(0, 2), caption: null, summary: null, prompt: input } });
    // A 0.4+ log (no doc): the prompt the model saw is kept whole, the question is its last line.
    const noDoc = JSON.stringify({ doc_id: 0, target: 'on the table', filtered_resps: ['on the table'], input });
    const [nb] = await readImport(lmmsLog('lmdialog04', 8, [noDoc], 'dialogtask'));
    expect(nb!.items[0]).toMatchObject({ question: `Q: ${dialog[2]!.question}`, context: { history: [], prompt: input } });
  });

  it('MLVU: generation metadata (no candidates) → open items; {video_name, Q, A, pred} outputs → open rows with Token-F1', async () => {
    const meta = [
      { video: 'subPlot_1.mp4', duration: 300, question: 'Describe the scene where the chef cooks.', answer: 'The chef fries an egg in a pan.', question_type: 'subPlot' },
      { video: 'summary_2.mp4', duration: 600, question: 'Summarise the video.', answer: 'A man walks his dog in the park and meets a friend.', question_type: 'summary' },
    ];
    const preds = ['A chef is frying an egg.', 'The man and his dog meet a friend in the park.'];
    const mp = scratch.write('mlvu/gen_meta.json', JSON.stringify(meta, null, 2));
    const rp = scratch.write(
      'mlvu/ToyOpen_mlvu_gen_16f.json',
      JSON.stringify(
        meta.map((m, i) => ({ video_name: m.video, Q: m.question, A: m.answer, pred: preds[i] })),
        null,
        2,
      ),
    );
    expect(await detectFormat(mp)).toBe('mlvu-meta');
    expect(await detectFormat(rp)).toBe('mlvu-results');
    const [mb] = await readImport(mp);
    const [rb] = await readImport(rp);
    expect(mb!.items.map((x) => [x.kind, x.references, x.answer, x.taskType])).toEqual([
      ['open', [meta[0]!.answer], null, 'subPlot'],
      ['open', [meta[1]!.answer], null, 'summary'],
    ]);
    expect(rb!.responses.map((r) => r.sampleId)).toEqual(mb!.items.map((x) => x.sampleId));
    rb!.responses.forEach((r, i) => {
      // Generation items have their own split: one (model, split) grid is of one kind.
      expect(r).toMatchObject({ model: 'ToyOpen', split: 'MLVU_gen', config: '16f', pred: preds[i], correct: null });
      expect(r.score).toBeCloseTo(f1Independent(preds[i]!, [meta[i]!.answer]), 15);
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThan(1);
    });
    // [chef is frying egg] vs [chef fries egg in pan]: common 2, P 2/4, R 2/5 → 4/9
    expect(rb!.responses[0]!.score).toBeCloseTo(4 / 9, 15);

    // A record with its own score keeps it; one outside [0, 1] (a 1–5 judge rating) is rejected.
    const scored = meta.map((m, i) => ({ video_name: m.video, Q: m.question, A: m.answer, pred: preds[i], score: i === 0 ? 0.9 : 1.5 }));
    const sp = scratch.write('mlvu/ToyOpen_mlvu_scored_16f.json', JSON.stringify(scored, null, 2));
    await expectImportError(readImport(sp), { file: 'ToyOpen_mlvu_scored_16f.json', line: 9, field: '[1].score', reason: /outside \[0, 1\]/ });
    // A generation record with neither a reference nor a score cannot be scored.
    const noRef = scratch.write(
      'mlvu/ToyOpen_mlvu_noref_16f.json',
      JSON.stringify([{ video: 'subPlot_9.mp4', question: 'Describe it.', question_type: 'subPlot', pred: 'something' }], null, 2),
    );
    await expectImportError(readImport(noRef), { file: 'ToyOpen_mlvu_noref_16f.json', line: 2, field: '[0].answer', reason: /neither a score nor a reference/ });
    scored[1]!.score = 0.3;
    const [sb] = await readImport(scratch.write('mlvu/ToyOpen_mlvu_scored2_16f.json', JSON.stringify(scored, null, 2)));
    expect(sb!.responses.map((r) => [r.score, r.protocolNote])).toEqual([
      [0.9, 'score: score'],
      [0.3, 'score: score'],
    ]);
  });

  it('VLMEvalKit: an open dataset (no options; answer and prediction text) → open rows with Token-F1; a score column wins; a bad score is rejected', async () => {
    const header = ['index', 'video', 'question', 'answer', 'prediction'];
    const rows = [
      [0, 'v0', 'What is on the table?', 'a red ball', 'There is a red ball.'],
      [1, 'v1', 'Who enters?', 'an old man', 'A young woman enters.'],
      [2, 'v2', 'What colour is the car?', 'blue', ''],
    ];
    const tsv = (name: string, h: string[], rs: (string | number)[][]): string => scratch.write(name, [h.join('\t'), ...rs.map((r) => r.join('\t'))].join('\n') + '\n');
    const p = tsv('vlm/ToyOpen_OpenQA_16frame.tsv', header, rows);
    const [b] = await readImport(p);
    expect(b!.responses.map((r) => [r.sampleId, r.split, r.config, r.pred, r.correct])).toEqual([
      ['0', 'OpenQA', '16f', 'There is a red ball.', null],
      ['1', 'OpenQA', '16f', 'A young woman enters.', null],
      ['2', 'OpenQA', '16f', null, null],
    ]);
    b!.responses.forEach((r, i) => expect(r.score).toBeCloseTo(f1Independent(String(rows[i]![4]), [String(rows[i]![3])]), 15));
    // [there is red ball] vs [red ball]: P 2/4, R 1 → 2/3; [young woman enters] vs [old man] → 0; no text → 0
    expect(b!.responses.map((r) => r.score)).toEqual([expect.closeTo(2 / 3, 15), 0, 0]);
    expect(b!.items[1]).toMatchObject({ kind: 'open', references: ['an old man'], options: null, answer: null, videoFile: 'v1.mp4' });
    expect(b!.warnings.join('\n')).toMatch(/1 open-ended row\(s\) have no predicted text/);

    const withScore = rows.map((r, i) => [...r, ['0.75', '', '0'][i]!]);
    const [sb] = await readImport(tsv('vlm2/ToyOpen_OpenQA_16frame.tsv', [...header, 'score'], withScore));
    expect(sb!.responses.map((r) => [r.score, r.protocolNote])).toEqual([
      [0.75, 'score: score'],
      [0, TOKEN_F1_NOTE], // empty score cell → Token-F1 (0 here)
      [0, 'score: score'],
    ]);
    const badScore = rows.map((r, i) => [...r, ['0.75', '-0.1', '0'][i]!]);
    await expectImportError(readImport(tsv('vlm3/ToyOpen_OpenQA_16frame.tsv', [...header, 'score'], badScore)), {
      file: 'ToyOpen_OpenQA_16frame.tsv',
      line: 3,
      field: 'score',
      reason: /outside \[0, 1\]/,
    });
  });

  it('applied to a real project: the grids are open-ended, openMetrics and the aggregated open JSON are computed from the imported scores', async () => {
    const b8 = await readImport(
      lmmsLog(
        'proj8',
        8,
        ITEMS.map((it, i) => openLine(i, it.qid, it.target, it.r8)),
      ),
    );
    const b16 = await readImport(
      lmmsLog(
        'proj16',
        16,
        ITEMS.map((it, i) => openLine(i, it.qid, it.target, it.r16)),
      ),
    );
    const vlm = await readImport(
      scratch.write('projvlm/ToyOpen_OpenQA_16frame.tsv', 'index\tquestion\tanswer\tprediction\n0\tWhat?\ta red ball\tred ball\n1\tWho?\tan old man\tan old woman\n'),
    );
    const batches: ImportBatch[] = [...b8, ...b16, ...vlm];
    const project = openProject(join(scratch.dir, 'open.flipbook'), { create: true });
    try {
      project.applyImports(batches);
      const grids = project.listGrids().map((g) => [g.model, g.split, g.kind, g.configs.map((c) => c.key), g.nItems]);
      expect(grids).toEqual(
        expect.arrayContaining([
          ['Toy-Open-7B', 'opencaps', 'open', ['8f', '16f'], 4],
          ['ToyOpen', 'OpenQA', 'open', ['16f'], 2],
        ]),
      );
      expect(project.getItem('opencaps', 'oq-2')).toMatchObject({ kind: 'open', references: ['a cat', 'dog runs'] });

      const m = project.loadMatrix('Toy-Open-7B', 'opencaps');
      expect(m.kind).toBe('open');
      const om = openMetrics(m);
      const mean8 = (1 + 2 / 3 + 0 + 1) / 4;
      const mean16 = (1 / 3 + 1 + 0.8 + 1) / 4;
      const oracle = (1 + 1 + 0.8 + 1) / 4;
      expect(om.n).toBe(4);
      expect(om.nExcluded).toBe(0);
      expect(om.configs).toEqual(['8f', '16f']);
      expect(om.mean['8f']).toBeCloseTo(mean8, 12);
      expect(om.mean['16f']).toBeCloseTo(mean16, 12);
      expect(om.bestFixed).toBe('16f');
      expect(om.oracleMean).toBeCloseTo(oracle, 12);
      expect(om.oracleGapPts).toBeCloseTo(100 * (oracle - mean16), 9);
      // only oq-1 drops by more than ε = 0.05 from 8f to 16f (1 → 1/3)
      expect(om.regressionRate).toBeCloseTo(0.25, 12);
      expect(om.transitions).toEqual([{ from: '8f', to: '16f', improved: 2, regressed: 1, netPts: expect.closeTo(100 * (mean16 - mean8), 9) }]);

      const agg = aggregatedOpenJson(m, { matchedGrid: null, metric: 'token_f1' });
      expect(agg).toMatchObject({
        n: 4,
        configs: ['8f', '16f'],
        metric: 'token_f1',
        mean_by_config: { '8f': 66.6667, '16f': 78.3333 },
        best_fixed: 78.3333,
        oracle: 95,
        headroom: 16.6667,
        visual_confusion_rate: 25,
        overwrite_rate: null,
        regression_epsilon: 0.05,
        n_excluded: 0,
      });

      const v = openMetrics(project.loadMatrix('ToyOpen', 'OpenQA'));
      // [red ball] = [red ball] → 1; [old woman] vs [old man]: P 1/2, R 1/2 → 1/2
      expect(v.mean['16f']).toBeCloseTo((1 + 0.5) / 2, 12);
    } finally {
      project.close();
    }
  });
});
