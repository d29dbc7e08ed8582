import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { Scratch, expectImportError, sharedFixtures } from './helpers';
import { realFixturesPresent } from '../../real-fixtures';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const REAL = join(sharedFixtures, 'lmms-eval/20251106_202956_samples_videomme.jsonl');
const HAVE_REAL = realFixturesPresent('lmms-eval real log', REAL);

function line(i: number, o: { qid?: string; resp?: string; answer?: string; pred?: string; duration?: string } = {}): string {
  const answer = o.answer ?? 'A';
  return JSON.stringify({
    doc_id: i,
    target: answer,
    filtered_resps: [o.resp ?? 'A.'],
    doc_hash: 'h',
    videomme_perception_score: {
      question_id: o.qid ?? `q-${i}`,
      duration: o.duration ?? 'short',
      category: 'Knowledge',
      sub_category: 'History',
      task_category: 'Counting Problem',
      pred_answer: o.pred ?? (o.resp ?? 'A.').slice(0, 1),
      answer,
    },
    input: 'Select the best answer.\nHow many cats?\nA. 1.\nB. 2.\nC. 3.\nD. 4.\nThe best answer is:',
  });
}

const RESULTS = JSON.stringify({
  config: { model: 'llava_vid', model_args: 'pretrained=/x/y/Toy-Model-7B,max_frames_num=8,max_pixels=151000' },
  model_name: '/x/y/Toy-Model-7B',
});

function logDir(lines: string[], o: { results?: string | null; trailingNewline?: boolean } = {}): string {
  const dir = `run-${Math.random().toString(36).slice(2)}`;
  if (o.results !== null) scratch.write(`${dir}/20250101_120000_results.json`, o.results ?? RESULTS);
  return scratch.write(`${dir}/20250101_120000_samples_videomme.jsonl`, lines.join('\n') + (o.trailingNewline === false ? '' : '\n'));
}

describe('lmms-eval --log_samples', () => {
  it.skipIf(!HAVE_REAL)('ACCEPTANCE: the real log imports as 2,700 items of one 16-frame config at 59.4444%', async () => {
    expect(await detectFormat(REAL)).toBe('lmms-eval');
    const batches = await readImport(REAL);
    expect(batches).toHaveLength(1);
    const b = batches[0]!;
    expect(b.configs).toHaveLength(1);
    expect(b.configs[0]).toMatchObject({ key: '16f', frames: 16, toolkit: 'lmms-eval' });
    expect(new Set(b.responses.map((r) => r.config))).toEqual(new Set(['16f']));
    expect(b.items).toHaveLength(2700);
    expect(new Set(b.responses.map((r) => `${r.split}/${r.sampleId}`)).size).toBe(2700);
    const acc = (100 * b.responses.filter((r) => r.correct).length) / b.responses.length;
    expect(acc.toFixed(4)).toBe('59.4444');
    expect(b.responses[0]).toMatchObject({ model: 'LLaVA-NeXT-Video-7B-Qwen2', sampleId: '001-1', pred: 'B', groundTruth: 'C', correct: false, line: 1 });
    expect(b.run).toMatchObject({ format: 'lmms-eval', toolkit: 'lmms-eval' });
    expect(b.run.modelArgs).toContain('max_frames_num=16');
    // question text is parsed from `input` (kept in the project, never exported unless asked)
    expect(b.items[0]!.options).toHaveLength(4);
    expect(b.items[0]!.durationBucket).toBe('short');
  });

  it('keys by question_id, re-extracts letters, reads frames/pixels/model from results.json', async () => {
    const p = logDir([line(5, { qid: '001-1', resp: 'The answer is (B)', pred: 'B', answer: 'B' }), line(0, { qid: '001-2', resp: 'C', answer: 'A' })]);
    const [b] = await readImport(p);
    expect(b!.configs[0]).toMatchObject({ key: '8f_151k', frames: 8, pixelCount: 151000 });
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual([
      ['Toy-Model-7B', 'videomme', '001-1', 'B', true],
      ['Toy-Model-7B', 'videomme', '001-2', 'C', false],
    ]);
    expect(b!.items[0]).toMatchObject({ question: 'How many cats?', options: ['1.', '2.', '3.', '4.'], answer: 'B', taskType: 'Counting Problem' });
    expect(b!.warnings).toEqual([]);
  });

  it('warns where the re-extracted letter disagrees with pred_answer', async () => {
    const [b] = await readImport(logDir([line(0, { resp: 'Answer: C', pred: 'A' })]));
    expect(b!.responses[0]!.pred).toBe('C');
    expect(b!.warnings.join()).toMatch(/differs from lmms-eval's pred_answer on 1 line/);
  });

  it('honours --model/--split (with {duration})/--config', async () => {
    const p = logDir([line(0, { duration: 'medium' })], { results: null });
    await expectImportError(readImport(p), { file: 'samples_videomme.jsonl', line: 0, field: 'model' });
    const [b] = await readImport(p, { model: 'M', split: 'V1_{duration}', config: '16f' });
    expect(b!.responses[0]).toMatchObject({ model: 'M', split: 'V1_medium', config: '16f' });
  });

  it('reads the older layout with doc and resps', async () => {
    const old = JSON.stringify({
      doc_id: 3,
      doc: { question_id: '010-2', videoID: 'abc', duration: 'long', task_type: 'OCR', question: 'Q?', options: ['A. x', 'B. y'], answer: 'B' },
      target: 'B',
      resps: [['B']],
      filtered_resps: ['B'],
    });
    const [b] = await readImport(logDir([old]));
    expect(b!.responses[0]).toMatchObject({ sampleId: '010-2', pred: 'B', correct: true });
    expect(b!.items[0]).toMatchObject({ videoId: 'abc', videoFile: 'abc.mp4', options: ['x', 'y'], taskType: 'OCR' });
  });

  it('rejects a truncated final line with its line number', async () => {
    const p = logDir([line(0), line(1), line(2).slice(0, 40)], { trailingNewline: false });
    await expectImportError(readImport(p), { file: 'samples_videomme.jsonl', line: 3, field: '', reason: /truncated/ });
  });

  it('rejects a malformed line', async () => {
    await expectImportError(readImport(logDir([line(0), '{"doc_id": 1,,}', line(2)])), { file: 'samples_videomme.jsonl', line: 2, field: '', reason: /malformed JSON/ });
  });

  it('rejects a wrong type', async () => {
    const bad = JSON.parse(line(1)) as Record<string, unknown>;
    bad.filtered_resps = 42; // a string is v0.7's layout (lmms-eval-formats.test.ts); a number is no response
    await expectImportError(readImport(logDir([line(0), JSON.stringify(bad)])), { file: 'samples_videomme.jsonl', line: 2, field: 'filtered_resps' });
    const bad2 = JSON.parse(line(1)) as { videomme_perception_score: Record<string, unknown> };
    bad2.videomme_perception_score.answer = 'yes';
    await expectImportError(readImport(logDir([JSON.stringify(bad2)])), { file: 'samples_videomme.jsonl', line: 1, field: 'videomme_perception_score.answer' });
  });

  it('rejects a duplicate question_id with a different value', async () => {
    const p = logDir([line(0, { qid: 'x' }), line(1), line(2, { qid: 'x', resp: 'B.', pred: 'B' })]);
    await expectImportError(readImport(p), { file: 'samples_videomme.jsonl', line: 3, field: 'filtered_resps', reason: /duplicate key/ });
  });

  it('rejects a --config contradicting the frame count in model_args', async () => {
    await expectImportError(readImport(logDir([line(0)]), { config: '16f_151k' }), {
      file: '_results.json',
      line: 0,
      field: 'model_args',
      reason: /16f_151k means 16 frames but model_args says 8/,
    });
  });
});
