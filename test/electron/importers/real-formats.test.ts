/**
 * The field's real result and metadata shapes (test/fixtures/formats/README.md names the
 * source of each): VLMEvalKit (Video-MME, MLVU, names with underscores, `_subs`), the official
 * Video-MME-v2 script, Video-MME's results templates, MLVU's metadata with its quirks and
 * choice_bench.py's output — each read as docs/formats.md says, into real projects.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { afterAll, describe, expect, it } from 'vitest';
import { parseResultName } from '../../../electron/importers/file-name-budget';
import { detectFormat, readImport } from '../../../electron/importers/index';
import { nullPythonFloats } from '../../../electron/importers/py-json';
import { openProject } from '../../../electron/store/project';
import type { ImportBatch } from '../../../shared/domain/types';
import { flipbook } from '../cli/cli-helpers';
import { Scratch, expectImportError, repoRoot } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

const FORMATS = join(repoRoot, 'test/fixtures/formats');
const fx = (p: string): string => join(FORMATS, p);

/** A copy of a fixture under a scratch name (file names carry model, budget and variant). */
function copy(fixture: string, name: string): string {
  const p = scratch.path(name);
  scratch.write(name, '');
  copyFileSync(fx(fixture), p);
  return p;
}

/** The TSV fixture written as VLMEvalKit's xlsx (same header and cells, one sheet). */
async function tsvToXlsx(fixture: string, name: string): Promise<string> {
  const rows: string[][] = parse(readFileSync(fx(fixture), 'utf8'), { delimiter: '\t', relax_quotes: false });
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Sheet1');
  for (const r of rows) ws.addRow(r.map((c) => (/^\d+$/.test(c) ? Number(c) : c)));
  const p = scratch.path(name);
  scratch.write(name, '');
  await wb.xlsx.writeFile(p);
  return p;
}

interface V1Row {
  video_id: string;
  videoID: string;
  duration: string;
  domain: string;
  sub_category: string;
  question_id: string;
  task_type: string;
  question: string;
  options: string[];
  answer: string;
}
const V1: V1Row[] = JSON.parse(readFileSync(fx('video-mme/questions.json'), 'utf8'));

/** Video-MME's parquet (its column set) holding `rows`. */
function videoMmeParquet(name: string, rows: V1Row[]): string {
  const col = (k: keyof V1Row) => ({ name: k, data: rows.map((r) => r[k] as string), type: 'STRING' as const });
  const cols = [
    col('video_id'),
    col('duration'),
    col('domain'),
    col('sub_category'),
    col('videoID'),
    col('question_id'),
    col('task_type'),
    col('question'),
    { name: 'options', data: rows.map((r) => r.options) },
    col('answer'),
  ];
  return scratch.write(name, new Uint8Array(parquetWriteBuffer({ columnData: cols })));
}

function newProject(name: string) {
  return openProject(scratch.path(name), { create: true });
}

describe('result file names', () => {
  it('reads <model>_<dataset>[_<budget>][_variant] from the right, and the Video-MME-v2 script order', () => {
    const cases: [string, Partial<ReturnType<typeof parseResultName>>][] = [
      ['Qwen2.5-VL-7B_Video-MME_64frame', { model: 'Qwen2.5-VL-7B', dataset: 'Video-MME', frames: 64, variant: null }],
      ['InternVL2_5-8B_Video-MME_8frame_subs', { model: 'InternVL2_5-8B', dataset: 'Video-MME', frames: 8, variant: 'subs' }],
      ['llava_video_qwen2_7b_MLVU_64frame', { model: 'llava_video_qwen2_7b', dataset: 'MLVU', frames: 64 }],
      ['InternVL2_5-8B_Video-MME-v2_64frame_reasoning_subs', { model: 'InternVL2_5-8B', dataset: 'Video-MME-v2', variant: 'reasoning_subs' }],
      ['Video-MME-v2_Qwen2.5-VL-7B-Instruct_64frame_subs_interleave', { model: 'Qwen2.5-VL-7B-Instruct', dataset: 'Video-MME-v2', frames: 64, variant: 'subs_interleave' }],
      ['Video-MME-v2_Qwen2.5-VL-7B-Instruct_1.0fps', { model: 'Qwen2.5-VL-7B-Instruct', fps: 1, frames: null }],
      ['Video-MME-v2_Qwen2.5-VL-7B-Instruct_64frame_subs_scored', { model: 'Qwen2.5-VL-7B-Instruct', variant: 'subs' }],
      ['InternVL2_5-8B_Video-MME_8frame_subs_gpt-4-0125_score', { model: 'InternVL2_5-8B', variant: 'subs' }],
      ['InternVL2_5-8B_MLVU_8frame_gpt-4-0125_score', { model: 'InternVL2_5-8B', variant: null }],
      ['MyModel_videomme_32f', { model: 'MyModel', dataset: 'videomme', frames: 32 }],
    ];
    for (const [stem, want] of cases) expect(parseResultName(stem), stem).toMatchObject(want);
  });
});

describe('Python JSON', () => {
  it("reads json.dump's bare NaN / Infinity / -Infinity as null, and leaves them alone inside strings", () => {
    const text = '[{"a": NaN, "b": "NaN and Infinity", "c": -Infinity, "d": [Infinity, 1]}]';
    expect(JSON.parse(nullPythonFloats(text))).toEqual([{ a: null, b: 'NaN and Infinity', c: null, d: [null, 1] }]);
    expect(nullPythonFloats('{"x": 1}')).toBe('{"x": 1}');
  });

  it('every JSON reader takes them: Video-MME results (a NaN response) and MLVU outputs (a NaN score)', async () => {
    const vm = readFileSync(fx('video-mme/GPT-4o_videomme_384f.json'), 'utf8').replace('"response": "C"', '"response": NaN');
    const vp = scratch.write('nan/GPT-4o_videomme_384f.json', vm);
    const [v] = await readImport(vp);
    expect(v!.responses[0]).toMatchObject({ sampleId: '001-1', pred: null, correct: false });
    const gen = [{ video_name: 'summarySynth_6.mp4', Q: 'Please summarize this synthetic video.', A: 'A boat sails out.', pred: 'A boat sails out.', score: Number.NaN }];
    const mp = scratch.write('nan/ToyOpen_mlvu_16f.json', JSON.stringify(gen).replace('null', 'NaN'));
    expect(readFileSync(mp, 'utf8')).toContain('"score":NaN');
    const [m] = await readImport(mp);
    expect(m!.responses[0]).toMatchObject({ split: 'MLVU_gen', score: 1 });
  });
});

describe('VLMEvalKit Video-MME (no question_id)', () => {
  it('derives Video-MME ids from index (001-1 …) in xlsx and tsv, split videomme, and says how', async () => {
    const t = copy('vlmevalkit/Qwen2.5-VL-7B_Video-MME_8frame.tsv', 'a/Qwen2.5-VL-7B_Video-MME_8frame.tsv');
    const x = await tsvToXlsx('vlmevalkit/Qwen2.5-VL-7B_Video-MME_8frame.tsv', 'a/Qwen2.5-VL-7B_Video-MME_8frame.xlsx');
    for (const p of [t, x]) {
      expect(await detectFormat(p)).toBe('vlmevalkit');
      const [b] = await readImport(p);
      expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.config, r.pred, r.correct])).toEqual([
        ['Qwen2.5-VL-7B', 'videomme', '001-1', '8f', 'C', true],
        ['Qwen2.5-VL-7B', 'videomme', '001-2', '8f', 'A', true],
        ['Qwen2.5-VL-7B', 'videomme', '001-3', '8f', 'B', false],
        ['Qwen2.5-VL-7B', 'videomme', '002-1', '8f', 'A', true],
        ['Qwen2.5-VL-7B', 'videomme', '002-2', '8f', 'D', false],
        ['Qwen2.5-VL-7B', 'videomme', '002-3', '8f', 'B', true],
      ]);
      expect(b!.items[2]).toMatchObject({ question: V1[2]!.question, options: ['OPEN.', 'CLOSED.', 'EXIT.', "It's blank."], videoId: 'synthYT0001a', durationBucket: 'short' });
      expect(b!.warnings.join('\n')).toMatch(/no question_id column — 6 item id\(s\) derived from Video-MME's structure/);
      expect(b!.derivedIds?.rows).toHaveLength(6);
    }
  });

  it('--split V1_{duration} uses the duration column; a row without one is an error, not V1_unknown', async () => {
    const t = copy('vlmevalkit/Qwen2.5-VL-7B_Video-MME_8frame.tsv', 'b/Qwen2.5-VL-7B_Video-MME_8frame.tsv');
    const [b] = await readImport(t, { split: 'V1_{duration}' });
    expect([...new Set(b!.responses.map((r) => r.split))]).toEqual(['V1_short', 'V1_medium']);
    const noDur = scratch.write('c/M_Video-MME_8frame.tsv', readFileSync(t, 'utf8').replace('"short"', '""'));
    await expectImportError(readImport(noDur, { split: 'V1_{duration}' }), { file: 'M_Video-MME_8frame.tsv', line: 2, field: 'duration', reason: /needs a duration bucket/ });
  });

  it('rows out of Video-MME order are caught in the file, and against the project’s question text', async () => {
    const t = readFileSync(fx('vlmevalkit/Qwen2.5-VL-7B_Video-MME_8frame.tsv'), 'utf8').split('\n');
    // Row of index 3 (video 002) renumbered 2: video 001's slot then holds two videos.
    const swapped = [...t];
    swapped[4] = swapped[4]!.replace(/^"3"/, '"2"');
    swapped[3] = swapped[3]!.replace(/^"2"/, '"3"');
    const bad = scratch.write('d/M_Video-MME_8frame.tsv', swapped.join('\n'));
    await expectImportError(readImport(bad), { file: 'M_Video-MME_8frame.tsv', line: 4, field: 'index', reason: /not Video-MME's table order/ });

    // Questions 1 and 2 of video 001 swapped: the file alone cannot tell, the parquet can.
    const qswap = [...t];
    qswap[1] = t[2]!.replace(/^"1"/, '"0"');
    qswap[2] = t[1]!.replace(/^"0"/, '"1"');
    const wrong = scratch.write('e/M_Video-MME_8frame.tsv', qswap.join('\n'));
    const project = newProject('order.flipbook');
    try {
      const pq = videoMmeParquet('e/test-00000-of-00001.parquet', V1);
      project.applyImports(await readImport(pq));
      const before = project.listItems().map((i) => [i.sampleId, i.question]);
      const batches = await readImport(wrong);
      let err: unknown = null;
      try {
        project.applyImports(batches);
      } catch (e) {
        err = e;
      }
      expect(String(err)).toMatch(/M_Video-MME_8frame\.tsv:2: index: derived item id 001-1 \(split videomme\) is a different question/);
      // Nothing changed.
      expect(project.listItems().map((i) => [i.sampleId, i.question])).toEqual(before);
      expect(project.listModels()).toEqual([]);
    } finally {
      project.close();
    }
  });

  it('a model name with underscores, and the _subs file as another config of the same budget (no conflict)', async () => {
    const plain = copy('vlmevalkit/InternVL2_5-8B_Video-MME_8frame.tsv', 'f/InternVL2_5-8B_Video-MME_8frame.tsv');
    const subs = copy('vlmevalkit/InternVL2_5-8B_Video-MME_8frame_subs.tsv', 'f/InternVL2_5-8B_Video-MME_8frame_subs.tsv');
    const project = newProject('subs.flipbook');
    try {
      const batches = [...(await readImport(plain)), ...(await readImport(subs))];
      project.applyImports(batches);
      expect(project.listModels()).toEqual(['InternVL2_5-8B']);
      expect(project.gridConfigs('InternVL2_5-8B', 'videomme').map((c) => [c.key, c.frames])).toEqual([
        ['8f', 8],
        ['8f@subs', 8],
      ]);
      expect(project.responsesForItem('InternVL2_5-8B', 'videomme', '001-2').map((r) => [r.config, r.pred])).toEqual([
        ['8f', 'A'],
        ['8f@subs', 'B'],
      ]);
    } finally {
      project.close();
    }
  });
});

describe('Video-MME-v2', () => {
  const rows: Record<string, string | number>[] = JSON.parse(readFileSync(fx('video-mme-v2/test_rows.json'), 'utf8'));
  function v2Parquet(name: string): string {
    const str = (k: string) => ({ name: k, data: rows.map((r) => String(r[k])), type: 'STRING' as const });
    const cols = [
      str('video_id'),
      str('url'),
      str('group_type'),
      str('group_structure'),
      str('question_id'),
      str('question'),
      str('options'),
      str('answer'),
      { name: 'level', data: rows.map((r) => Number(r.level)), type: 'DOUBLE' as const },
      str('second_head'),
      str('third_head'),
    ];
    return scratch.write(name, new Uint8Array(parquetWriteBuffer({ columnData: cols })));
  }

  it("the official script's Video-MME-v2_<model>_<N>frame_subs.tsv and the v2 parquet join as one item per question", async () => {
    const tsv = copy('video-mme-v2/Video-MME-v2_Qwen2.5-VL-7B-Instruct_64frame_subs.tsv', 'v2/Video-MME-v2_Qwen2.5-VL-7B-Instruct_64frame_subs.tsv');
    expect(await detectFormat(tsv)).toBe('vlmevalkit');
    const [b] = await readImport(tsv);
    expect(b!.configs.map((c) => [c.key, c.frames])).toEqual([['64f@subs', 64]]);
    expect(b!.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct])).toEqual(
      rows.map((r, i) => ['Qwen2.5-VL-7B-Instruct', 'videomme_v2', r.question_id, 'ABCDEFGH'[i], 'ABCDEFGH'[i] === r.answer]),
    );
    expect(b!.items[0]).toMatchObject({ options: Array.from({ length: 8 }, (_, j) => `Synthetic option ${j + 1} for question 1.`), videoFile: '001.mp4' });
    expect(b!.derivedIds).toBeUndefined();

    const pq = v2Parquet('v2/test.parquet');
    expect(await detectFormat(pq)).toBe('videomme-parquet');
    const [m] = await readImport(pq);
    expect(m!.items).toHaveLength(8);
    expect(m!.items[0]).toMatchObject({
      split: 'videomme_v2',
      sampleId: '001-1',
      answer: rows[0]!.answer,
      taskType: 'Synthetic head',
      subCategory: 'Synthetic subhead',
      videoFile: '001.mp4',
    });
    expect(m!.items[0]!.durationBucket ?? null).toBeNull();
    // v2 states no duration: a {duration} split is refused, not filled with "unknown".
    await expectImportError(readImport(pq, { split: 'V2_{duration}' }), { file: 'test.parquet', line: 1, field: 'duration' });
    // (A TSV record's line is where it ends, csv-records.ts: the first record spans lines 2–9.)
    await expectImportError(readImport(tsv, { split: 'V2_{duration}' }), { file: 'Video-MME-v2_Qwen2.5-VL-7B-Instruct_64frame_subs.tsv', line: 9, field: 'duration' });

    const project = newProject('v2.flipbook');
    try {
      project.applyImports([m!, b!]);
      expect(project.listItems({ split: 'videomme_v2' })).toHaveLength(8);
      expect(project.listSplits()).toEqual(['videomme_v2']);
    } finally {
      project.close();
    }
  });
});

describe('Video-MME results templates', () => {
  it('the June-2024 template (duration_category, video_category, video_subcategory, choices) reads like the current one', async () => {
    // Same file name as the current template's, so model and config are the same too.
    const june = copy('video-mme/GPT-4o_videomme_june2024_384f.json', 'vmj/GPT-4o_videomme_384f.json');
    const now = copy('video-mme/GPT-4o_videomme_384f.json', 'vm/GPT-4o_videomme_384f.json');
    const read = async (p: string): Promise<ImportBatch> => (await readImport(p, { split: 'V1_{duration}' }))[0]!;
    const [a, b] = [await read(june), await read(now)];
    expect(await detectFormat(june)).toBe('videomme-results');
    expect([a.configs[0]!.key, b.configs[0]!.key]).toEqual(['384f', '384f']);
    const view = (x: ImportBatch) => ({
      rows: x.responses.map((r) => [r.model, r.split, r.sampleId, r.pred, r.correct]),
      items: x.items.map((i) => [i.split, i.sampleId, i.options, i.durationBucket, i.domain, i.subCategory]),
    });
    expect(view(a)).toEqual(view(b));
    expect(view(a).rows.map((r) => r[1])).toEqual(['V1_short', 'V1_short', 'V1_short', 'V1_medium', 'V1_medium', 'V1_medium']);
    expect(a.items[0]).toMatchObject({ options: ['One.', 'Two.', 'Three.', 'Four.'], domain: 'Knowledge', subCategory: 'Humanity & History', videoId: 'synthYT0001a' });

    // A video without a duration bucket under a {duration} split is an error naming it.
    const doc = JSON.parse(readFileSync(june, 'utf8'));
    delete doc[1].duration_category;
    const text = JSON.stringify(doc, null, 4);
    const p = scratch.write('vm2/M_videomme_8f.json', text);
    const videoLine = text.split('\n').findIndex((l) => l.includes('"video_id": "002"')); // the line before it opens video [1]
    await expectImportError(readImport(p, { split: 'V1_{duration}' }), { file: 'M_videomme_8f.json', line: videoLine, field: '[1].duration', reason: /needs a duration bucket/ });
  });
});

describe('VLMEvalKit MLVU (multiple-choice and open-ended rows in one file)', () => {
  it('reads both kinds (tsv, and json with bare NaN), skips MLVU quirk rows with file:line warnings, and joins MLVU metadata ids', async () => {
    const meta = await Promise.all(['1_plotQA.json', '2_needle.json', '3_ego.json', '4_count.json', '8_sub_scene.json', '9_summary.json'].map((f) => readImport(fx(`mlvu/${f}`))));
    const metaIds = new Map(meta.flat().flatMap((b) => b.items.map((i) => [`${i.split}/${i.videoFile}/${i.question}`, i.sampleId] as const)));
    for (const ext of ['tsv', 'json']) {
      const p = copy(`vlmevalkit/llava_video_qwen2_7b_MLVU_8frame.${ext}`, `mlvu-${ext}/llava_video_qwen2_7b_MLVU_8frame.${ext}`);
      expect(await detectFormat(p)).toBe('vlmevalkit');
      const [b] = await readImport(p);
      const rows = b!.responses.map((r) => [r.model, r.split, r.config, r.pred, r.correct, r.score === null ? null : 'scored']);
      expect(rows).toEqual([
        ['llava_video_qwen2_7b', 'MLVU', '8f', 'A', true, null],
        ['llava_video_qwen2_7b', 'MLVU', '8f', 'A', true, null],
        ['llava_video_qwen2_7b', 'MLVU', '8f', 'B', true, null],
        ['llava_video_qwen2_7b', 'MLVU_gen', '8f', 'A chef comes in and says hello to the guests.', null, 'scored'],
        ['llava_video_qwen2_7b', 'MLVU_gen', '8f', 'People on a boat film whales.', null, 'scored'],
      ]);
      const w = b!.warnings.join('\n');
      // TSV rows are lines 3 (needle) and 5 (second ego); JSON records start at their `{`.
      if (ext === 'tsv') {
        expect(w).toContain(`${p}:3: answer: skipped — answer "Catching a drone in flight" is not among the candidates`);
        expect(w).toContain(`${p}:5: candidates: skipped — the same video and question as line 4 with different candidates`);
      } else {
        expect(w).toMatch(/:16: answer: skipped — answer "Catching a drone in flight" is not among the candidates/);
        expect(w).toMatch(/:44: candidates: skipped — the same video and question as line 30 with different candidates/);
      }
      expect(w).toContain('llava_video_qwen2_7b_MLVU_8frame.' + ext + ': 2 benchmark row(s) skipped (MLVU quirks listed above)');
      // Every row's item is the metadata's item (same split and id).
      for (const it of b!.items) expect(metaIds.get(`${it.split}/${it.videoFile}/${it.question}`), it.question ?? '').toBe(it.sampleId);
    }
  });
});

describe('MLVU metadata and choice_bench.py', () => {
  const META = ['1_plotQA.json', '2_needle.json', '3_ego.json', '4_count.json', '7_topic_reasoning.json', '8_sub_scene.json', '9_summary.json'];

  it('the metadata files import together; quirk rows are skipped, blank-answer rows kept, each with file:line and why, and counted', async () => {
    const project = newProject('mlvu-meta.flipbook');
    try {
      const batches = (await Promise.all(META.map((f) => readImport(fx(`mlvu/${f}`))))).flat();
      const summary = project.applyImports(batches);
      // 1_plotQA's third row pads two options with blank candidates: answerable, so imported. So are
      // 3_ego's blank answer beside a blank candidate and 7_topic_reasoning's blank row, as MLVU scores them.
      expect(summary.itemsAdded).toBe(11);
      expect(project.listItems().find((i) => i.videoFile === 'movieSynth_12.mp4')).toMatchObject({
        answer: 'C',
        options: ['', 'There is an archery scene', 'There is no archery scene', ''],
      });
      expect(summary.splits).toEqual(['MLVU', 'MLVU_gen']);
      const w = summary.warnings.join('\n');
      expect(w).toContain(`${fx('mlvu/2_needle.json')}:2: [0].answer: skipped — answer "Catching a drone in flight" is not among the candidates`);
      expect(w).toContain(`${fx('mlvu/3_ego.json')}:15: [1].candidates[2]: kept — the answer is a blank candidate; scored as MLVU's choice_bench.py scores it, with answer C`);
      expect(project.listItems().find((i) => i.videoFile === 'egoSynth_9.mp4')).toMatchObject({ answer: 'C', options: ['In the garage', 'In the toolbox', '', 'On the shelf'] });
      expect(w).toContain(`${fx('mlvu/3_ego.json')}:28: [2].candidates: skipped — the same video and question as line 2 with different candidates`);
      expect(w).toContain(
        `${fx('mlvu/7_topic_reasoning.json')}:15: [1].candidates[3]: kept — a blank row of the benchmark (blank question, candidates and answer); scored as MLVU's choice_bench.py scores it, with answer D`,
      );
      for (const [f, n] of [
        ['2_needle.json', 1],
        ['3_ego.json', 1],
      ] as const) {
        expect(w).toContain(`${f}: ${n} benchmark row(s) skipped (MLVU quirks listed above)`);
      }
      for (const f of ['3_ego.json', '7_topic_reasoning.json']) expect(w).toContain(`${f}: 1 blank-answer row(s) kept with the answer MLVU's scorer gives them (listed above)`);
      expect(w).not.toContain('7_topic_reasoning.json: 1 benchmark row(s) skipped');
      expect(
        project
          .listItems()
          .filter((i) => i.kind === 'open')
          .map((i) => i.split),
      ).toEqual(['MLVU_gen', 'MLVU_gen']);
    } finally {
      project.close();
    }
  });

  it('choice_bench.py\'s output: letters from gt "(B) text" and pred, correctness, the metadata\'s items', async () => {
    const p = fx('mlvu/test_all_choice.json');
    expect(await detectFormat(p)).toBe('mlvu-results');
    const [r] = await readImport(p, { model: 'VideoLLaVA', config: '16f' });
    const metaItems = (await Promise.all(META.map((f) => readImport(fx(`mlvu/${f}`))))).flat().flatMap((b) => b.items);
    const byId = new Map(metaItems.map((i) => [i.sampleId, i]));
    expect(r!.responses.map((x) => [byId.get(x.sampleId)?.videoFile, x.pred, x.groundTruth, x.correct])).toEqual([
      ['countSynth_4.mp4', 'B', 'B', true],
      ['egoSynth_3.mp4', 'A', 'A', true],
      ['egoSynth_9.mp4', 'B', 'C', false],
      ['needleSynth_8.mp4', 'B', 'B', true],
      ['movieSynth_1.mp4', 'A', 'A', true],
      ['movieSynth_7.mp4', 'C', 'B', false],
      ['topicSynth_10.mp4', 'A', 'A', true],
      ['topicSynth_11.mp4', 'A', 'D', false],
    ]);
    for (const it of r!.items) {
      const m = byId.get(it.sampleId)!;
      expect([it.question, it.options, it.answer, it.videoFile]).toEqual([m.question, m.options, m.answer, m.videoFile]);
    }
    // The "(@)" answer and the repeated question are skipped; the blank-candidate answers (the blank row's too) kept.
    expect(r!.warnings).toContain('test_all_choice.json: 2 benchmark row(s) skipped (MLVU quirks listed above)');
    expect(r!.warnings).toContain("test_all_choice.json: 2 blank-answer row(s) kept with the answer MLVU's scorer gives them (listed above)");
  });
});

describe('one item per question across VLMEvalKit, lmms-eval and the Video-MME parquet', () => {
  it('a VLMEvalKit xlsx, an lmms-eval log and the parquet of the same questions import as one item per question (CLI)', async () => {
    const xlsx = await tsvToXlsx('vlmevalkit/Qwen2.5-VL-7B_Video-MME_8frame.tsv', 'three/Qwen2.5-VL-7B_Video-MME_8frame.xlsx');
    const pq = videoMmeParquet('three/test-00000-of-00001.parquet', V1);
    // An lmms-eval --log_samples file in the shape of the real one (../shared/fixtures/lmms-eval).
    const letters = ['B', 'A', 'D', 'A', 'C', 'C'];
    const log = V1.map((q, i) =>
      JSON.stringify({
        doc_id: i,
        target: q.answer,
        filtered_resps: [`${letters[i]}.`],
        doc_hash: '0'.repeat(64),
        videomme_perception_score: {
          question_id: q.question_id,
          duration: q.duration,
          category: q.domain,
          sub_category: q.sub_category,
          task_category: q.task_type,
          pred_answer: letters[i],
          answer: q.answer,
        },
        input: `Select the best answer to the following multiple-choice question based on the video and the subtitles. Respond with only the letter (A, B, C, or D) of the correct option.\n${q.question}\n${q.options.join('\n')}\nThe best answer is:`,
      }),
    );
    const jsonl = scratch.write('three/lmms/20251106_202956_samples_videomme.jsonl', `${log.join('\n')}\n`);
    const project = scratch.path('three.flipbook');
    const a = flipbook('import', pq, xlsx, '--project', project);
    expect(a.stderr + a.stdout).toContain('Qwen2.5-VL-7B_Video-MME_8frame.xlsx: no question_id column — 6 item id(s) derived from Video-MME');
    expect(a.stdout).toContain('Qwen2.5-VL-7B_Video-MME_8frame.xlsx: all 6 derived item id(s) agree with the question text of the items already known');
    expect(a.code).toBe(0);
    const b = flipbook('import', jsonl, '--model', 'LLaVA-Video-7B', '--config', '16f', '--project', project);
    expect(b.code, b.stderr).toBe(0);
    const p = openProject(project);
    try {
      expect(p.listSplits()).toEqual(['videomme']);
      const items = p.listItems();
      expect(items.map((i) => i.sampleId).sort()).toEqual(V1.map((q) => q.question_id));
      expect(items.find((i) => i.sampleId === '002-3')).toMatchObject({ question: V1[5]!.question, answer: 'B', videoId: 'synthYT0002b' });
      expect(p.listModels()).toEqual(['LLaVA-Video-7B', 'Qwen2.5-VL-7B']);
      expect(p.responsesForItem('LLaVA-Video-7B', 'videomme', '001-3').map((r) => [r.pred, r.correct])).toEqual([['D', true]]);
      expect(p.responsesForItem('Qwen2.5-VL-7B', 'videomme', '001-3').map((r) => [r.pred, r.correct])).toEqual([['B', false]]);
    } finally {
      p.close();
    }
  }, 60_000);
});
