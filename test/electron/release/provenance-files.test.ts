/**
 * provenance/configs.json, provenance/videos.csv, labels/items.csv and labels/generations.csv
 * against docs/release-format.md: the JSON text worked out by hand in Python's
 * `json.dumps(indent=2)` layout, the CSVs read back by an independent parser (csv-parse) and
 * compared with rows built here from the rules — which items or cells get a row, in which
 * order, and which columns.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { ConfigSpec, ItemMeta } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { configsJson, generationsCsv, itemsCsv, videosCsv } from '../../../electron/release/provenance-files';
import type { ReleaseColumn, ReleaseGrid, StringTable } from '../../../electron/release/release-data';

const read = (text: string): string[][] => parse(text) as string[][];

describe('configsJson', () => {
  it('prints every field of a config, unknown ones null, as json.dumps(indent=2)', () => {
    const c: ConfigSpec = {
      key: '16f_151k',
      frames: 16,
      pixelCount: 151200,
      width: 448,
      height: 336,
      sampling: { policy: 'scalegrid-random', seed: 7, fps: 0.5 },
      pipeline: 'cache',
      toolkit: 'lmms-eval',
      modelArgs: 'max_pixels=151200',
      notes: 'say "hi"',
    };
    const t: ConfigSpec = {
      ...makeConfigSpec('textonly'),
      pixelCount: null,
      width: null,
      height: null,
      sampling: { policy: null, seed: null, fps: null },
      pipeline: null,
      toolkit: null,
      modelArgs: null,
      notes: null,
    };
    expect(configsJson([t, c])).toBe(
      [
        '{',
        '  "16f_151k": {',
        '    "frames": 16,',
        '    "pixel_count": 151200,',
        '    "width": 448,',
        '    "height": 336,',
        '    "sampling": {',
        '      "policy": "scalegrid-random",',
        '      "seed": 7,',
        '      "fps": 0.5',
        '    },',
        '    "pipeline": "cache",',
        '    "toolkit": "lmms-eval",',
        '    "model_args": "max_pixels=151200",',
        '    "notes": "say \\"hi\\""',
        '  },',
        '  "textonly": {',
        '    "frames": 0,',
        '    "pixel_count": null,',
        '    "width": null,',
        '    "height": null,',
        '    "sampling": {',
        '      "policy": null,',
        '      "seed": null,',
        '      "fps": null',
        '    },',
        '    "pipeline": null,',
        '    "toolkit": null,',
        '    "model_args": null,',
        '    "notes": null',
        '  }',
        '}',
      ].join('\n'),
    );
  });

  it('orders configs by key in code-point order, whatever order they come in', () => {
    // Code-point order: digits before letters, '128f' before '16f', the private-use U+E000
    // before an astral key (UTF-16 order would put the astral one first).
    const keys = ['textonly', '16f_151k', '\uE000f', '128f_151k', '𝔘f', '16f_302k', 'Zf'];
    const configs = keys.map((key) => ({ ...makeConfigSpec('16f_151k'), key }));
    const want = ['128f_151k', '16f_151k', '16f_302k', 'Zf', 'textonly', '\uE000f', '𝔘f'];
    expect(Object.keys(JSON.parse(configsJson(configs)) as object)).toEqual(want);
    expect(Object.keys(JSON.parse(configsJson(configs.slice().reverse())) as object)).toEqual(want);
    // The caller's array is left as it was.
    expect(configs.map((c) => c.key)).toEqual(keys);
  });
});

/** Items out of order: the same sample id in two splits, splits that sort apart from their ids. */
function items(): ItemMeta[] {
  return [
    {
      split: 'v2',
      sampleId: '001',
      question: 'Q, "one"',
      options: ['a', 'b,c'],
      answer: 'B',
      taskType: 'count',
      durationS: 12.5,
      durationBucket: 'short',
      domain: 'd',
      subCategory: 's',
      videoId: 'vid1',
      videoFile: 'x/1.mp4',
    },
    { split: 'v1', sampleId: '010', question: 'line\nbreak', answer: 'free text', references: ['r1', 'r2'], videoId: 'vid2' },
    { split: 'v1', sampleId: '002', durationS: 3 },
    { split: 'v1', sampleId: '𝔘', videoFile: 'u.mp4' },
    { split: 'v1', sampleId: '\uE000', durationBucket: 'long' },
    { split: 'v10', sampleId: '000' },
    { split: 'v1', sampleId: '001', question: null, videoId: null, videoFile: null, durationS: null, durationBucket: null },
  ];
}

/** items.csv's columns as docs/release-format.md lists them ("one row per item, `split, …`"). */
const ITEM_HEADER = (() => {
  const doc = fs.readFileSync(path.join(__dirname, '../../../docs/release-format.md'), 'utf8');
  const m = /`items\.csv`: one row per item, `([^`]+)`/.exec(doc);
  if (!m) throw new Error('docs/release-format.md: no items.csv columns');
  return m[1]!.split(/,\s*/);
})();

describe('itemsCsv', () => {
  it('writes one row per item sorted by (split, sample_id), options and references as JSON, no context column without contexts', () => {
    const got = read(itemsCsv(items()));
    expect(got).toEqual([
      ITEM_HEADER,
      ['v1', '001', '', '', '', '', '', '', '', '', '', '', ''],
      ['v1', '002', '', '', '', '', '', '3', '', '', '', '', ''],
      ['v1', '010', 'line\nbreak', '', 'free text', '["r1","r2"]', '', '', '', '', '', 'vid2', ''],
      ['v1', '\uE000', '', '', '', '', '', '', 'long', '', '', '', ''],
      ['v1', '𝔘', '', '', '', '', '', '', '', '', '', '', 'u.mp4'],
      ['v10', '000', '', '', '', '', '', '', '', '', '', '', ''],
      ['v2', '001', 'Q, "one"', '["a","b,c"]', 'B', '', 'count', '12.5', 'short', 'd', 's', 'vid1', 'x/1.mp4'],
    ]);
  });

  it('adds the context column, as canonical JSON, when some item has a non-empty context', () => {
    const list = items();
    list[0]!.context = { history: [{ question: 'q1', answer: 'a1' }], caption: null, summary: 'sum', prompt: null };
    // An empty context is no context.
    list[1]!.context = { history: [], caption: null, summary: null, prompt: null };
    const got = read(itemsCsv(list));
    expect(got[0]).toEqual([...ITEM_HEADER, 'context']);
    expect(got.map((r) => [r[0], r[1], r[13]])).toEqual([
      ['split', 'sample_id', 'context'],
      ['v1', '001', ''],
      ['v1', '002', ''],
      ['v1', '010', ''],
      ['v1', '\uE000', ''],
      ['v1', '𝔘', ''],
      ['v10', '000', ''],
      ['v2', '001', '{"history":[{"question":"q1","answer":"a1"}],"caption":null,"summary":"sum","prompt":null}'],
    ]);
    // Only empty contexts: the thirteen columns.
    list[0]!.context = { history: [], caption: null, summary: null, prompt: null };
    expect(read(itemsCsv(list))[0]).toEqual(ITEM_HEADER);
  });

  it('leaves the caller’s array in its order', () => {
    const list = items();
    const before = list.map((it) => `${it.split}/${it.sampleId}`);
    itemsCsv(list);
    expect(list.map((it) => `${it.split}/${it.sampleId}`)).toEqual(before);
  });
});

describe('videosCsv', () => {
  it('writes the items that name a video id, a video file, a duration or a bucket, sorted by (split, sample_id)', () => {
    expect(read(videosCsv(items()))).toEqual([
      ['split', 'sample_id', 'video_id', 'video_file', 'duration_s', 'duration_bucket'],
      ['v1', '002', '', '', '3', ''],
      ['v1', '010', 'vid2', '', '', ''],
      ['v1', '\uE000', '', '', '', 'long'],
      ['v1', '𝔘', '', 'u.mp4', '', ''],
      ['v2', '001', 'vid1', 'x/1.mp4', '12.5', 'short'],
    ]);
  });

  it('writes the header alone when no item names a video or a duration', () => {
    expect(videosCsv([{ split: 's', sampleId: 'a', question: 'q' }])).toBe('split,sample_id,video_id,video_file,duration_s,duration_bucket\n');
    // A duration of 0 is a duration.
    expect(read(videosCsv([{ split: 's', sampleId: 'a', durationS: 0 }]))[1]).toEqual(['s', 'a', '', '', '0', '']);
  });
});

function table(values: (string | null)[]): StringTable {
  const dict: (string | null)[] = [null];
  const idx = Uint32Array.from(values, (v) => {
    if (v === null) return 0;
    const i = dict.indexOf(v, 1);
    return i > 0 ? i : dict.push(v) - 1;
  });
  return { idx, dict };
}

interface GenCell {
  correct: number;
  score: number;
  pred: string | null;
}

/** A column whose row r holds cells[r] (undefined: no cell), cells stored in reverse row order. */
function column(config: string, cells: (GenCell | undefined)[], withScore = true): ReleaseColumn {
  const rows = cells.map((c, r) => [c, r] as const).filter(([c]) => c !== undefined) as [GenCell, number][];
  rows.reverse();
  const at = new Int32Array(cells.length).fill(-1);
  rows.forEach(([, r], k) => (at[r] = k));
  const none = table(rows.map(() => null));
  return {
    config,
    at,
    length: rows.length,
    correct: Int8Array.from(rows, ([c]) => c.correct),
    pred: table(rows.map(([c]) => c.pred)),
    groundTruth: none,
    score: withScore ? Float64Array.from(rows, ([c]) => c.score) : null,
    confidence: null,
    margin: null,
    latencyMs: null,
    frames: null,
    sourceTag: none,
    protocolNote: none,
  };
}

const gridOf = (model: string, split: string, sampleIds: string[], columns: ReleaseColumn[]): ReleaseGrid => ({
  model,
  split,
  sampleIds,
  rowItems: Int32Array.from(sampleIds, (_, i) => i + 1),
  columns,
});

describe('generationsCsv', () => {
  it('writes each open-ended cell with text (a score, no correctness) in grid, row, column order', () => {
    const open = (pred: string | null, score = 0.5): GenCell => ({ correct: -1, score, pred });
    const g1 = gridOf(
      'M "1"',
      'S,1',
      ['a', 'b', 'c'],
      [
        column('16f_151k', [open('first, "quoted"'), { correct: 1, score: 0.9, pred: 'mcqa with score' }, open('')]),
        column('32f_151k', [open('line\nbreak', 0), undefined, { correct: -1, score: NaN, pred: 'no score' }]),
        column('textonly', [open(null), open('b text'), { correct: 0, score: 0.25, pred: 'wrong, with a score' }]),
      ],
    );
    const g2 = gridOf('M2', 'S', ['z'], [column('16f_151k', [open('z text')]), column('32f_151k', [open('no score column')], false)]);
    expect(read(generationsCsv([g1, g2])!)).toEqual([
      ['sample_id', 'model', 'split', 'config', 'text'],
      ['a', 'M "1"', 'S,1', '16f_151k', 'first, "quoted"'],
      ['a', 'M "1"', 'S,1', '32f_151k', 'line\nbreak'],
      ['b', 'M "1"', 'S,1', 'textonly', 'b text'],
      ['z', 'M2', 'S', '16f_151k', 'z text'],
    ]);
  });

  it('is null when no cell has generated text', () => {
    expect(generationsCsv([])).toBeNull();
    const g = gridOf(
      'M',
      'S',
      ['a', 'b'],
      [
        column('16f_151k', [
          { correct: 1, score: 0.5, pred: 'A' },
          { correct: -1, score: 0.5, pred: '' },
        ]),
        column('32f_151k', [{ correct: -1, score: 0.5, pred: 'x' }, undefined], false),
      ],
    );
    expect(generationsCsv([g])).toBeNull();
  });
});
