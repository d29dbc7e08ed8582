/**
 * labels/derived.csv and labels/aggregated/* as aggregatedFiles arranges them, on small grids
 * built column by column (the store's scan shape) with hand-worked expectations from
 * docs/release-format.md: table 2's split order, the (model, split) order of every per-grid
 * list, the counts the README reports, mixed-resolution grids, and the manifest's provenance —
 * each cell's most common source tag and protocol note (ties to the code-point first, as
 * test/bench/baseline_export.py's `mode` does) and which grids go under `wide_sources`.
 */
import { parse } from 'csv-parse/sync';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeConfigSpec } from '../../../shared/engine/config';
import { aggregatedFiles, type AggregatedFiles } from '../../../electron/release/aggregated-files';
import { compareCodePoints } from '../../../electron/release/format';
import { gridMatrices } from '../../../electron/release/grid-matrices';
import type { ReleaseColumn, ReleaseData, ReleaseGrid, StringTable } from '../../../electron/release/release-data';
import type { ManifestCell } from '../../../shared/release/aggregate';

/** One cell: its outcome and its provenance (null = none). */
interface Cell {
  correct: 0 | 1;
  tag?: string | null;
  note?: string | null;
}

function table(values: (string | null)[]): StringTable {
  const dict: (string | null)[] = [null];
  const index = new Map<string, number>();
  const idx = new Uint8Array(values.length);
  values.forEach((v, k) => {
    if (v === null) return;
    let i = index.get(v);
    if (i === undefined) index.set(v, (i = dict.push(v) - 1));
    idx[k] = i;
  });
  return { idx, dict };
}

/** A grid of rows `ids`; `columns[config][r]` is row r's cell (undefined = none). Columns in key code-point order, as the scan gives them. */
function grid(model: string, split: string, ids: string[], columns: Record<string, (Cell | undefined)[]>): ReleaseGrid {
  const keys = Object.keys(columns).sort(compareCodePoints);
  return {
    model,
    split,
    sampleIds: ids,
    rowItems: Int32Array.from(ids, (_, i) => i + 1),
    columns: keys.map((config): ReleaseColumn => {
      const present = columns[config]!.map((c, r) => [c, r] as const).filter((x): x is readonly [Cell, number] => x[0] !== undefined);
      const at = new Int32Array(ids.length).fill(-1);
      present.forEach(([, r], k) => (at[r] = k));
      return {
        config,
        at,
        length: present.length,
        correct: Int8Array.from(present, ([c]) => c.correct),
        pred: table(present.map(([c]) => (c.correct ? 'A' : 'B'))),
        groundTruth: table(present.map(() => 'A')),
        score: null,
        confidence: null,
        margin: null,
        latencyMs: null,
        frames: null,
        sourceTag: table(present.map(([c]) => c.tag ?? null)),
        protocolNote: table(present.map(([c]) => c.note ?? null)),
      };
    }),
  };
}

/** Cells with the given outcomes and source tags (no notes). */
function tagged(correct: (0 | 1)[], tags: (string | null)[]): Cell[] {
  return correct.map((c, k) => ({ correct: c, tag: tags[k] ?? null }));
}

const ones = (n: number, tag: string | null = null, note: string | null = null): Cell[] => Array.from({ length: n }, () => ({ correct: 1, tag, note }));

function releaseData(grids: ReleaseGrid[], matchedGrid: string[] = []): ReleaseData {
  const keys = [...new Set(grids.flatMap((g) => g.columns.map((c) => c.config)))];
  const configs = keys.map((k) => makeConfigSpec(k));
  return {
    grids,
    configs,
    items: [],
    mainProtocol: '',
    mainGrids: grids,
    matrices: gridMatrices(grids, configs),
    protocolMatrices: new Map(),
    matchedGrid,
    codebook: null,
    pathways: [],
    spans: [],
    events: [],
  };
}

function textOf(out: AggregatedFiles, path: string): string {
  const f = out.files.find((x) => x.path === path);
  if (!f) throw new Error(`no ${path} among ${out.files.map((x) => x.path).join(', ')}`);
  return 'text' in f ? f.text : new TextDecoder().decode(f.data);
}

interface Manifest {
  cells: ManifestCell[];
  wide_sources: { source_tag: string; cells: Record<string, { total: number; correct: number }> }[];
}

const manifestOf = (out: AggregatedFiles): Manifest => JSON.parse(textOf(out, 'labels/aggregated/release_manifest.json')) as Manifest;

describe('aggregatedFiles: order of splits and grids', () => {
  it("table2_metrics.json lists the release's splits in its order (V1_medium, V1_short, V2_medium, MLVU), then others by code point", () => {
    // The order of the published labels/aggregated/table2_metrics.json; test/bench/baseline_export.py
    // writes the same.
    const splits = ['MLVU', 'Z_extra', 'V2_medium', 'V1_short', 'A_extra', 'V1_medium'];
    const out = aggregatedFiles(releaseData(splits.map((s) => grid('M', s, ['a'], { textonly: ones(1) }))));
    const t2 = JSON.parse(textOf(out, 'labels/aggregated/table2_metrics.json')) as Record<string, Record<string, unknown>>;
    expect(Object.keys(t2)).toEqual(['V1_medium', 'V1_short', 'V2_medium', 'MLVU', 'A_extra', 'Z_extra']);
    for (const s of splits) expect(Object.keys(t2[s]!)).toEqual(['M']);
  });

  describe('matrices given out of (model, split) order', () => {
    let data: ReleaseData;
    let given: string[];
    let out: AggregatedFiles;
    const sorted = ['A S1', 'A S2', 'B S1', 'B S2'];

    beforeAll(() => {
      const grids = [
        grid('B', 'S2', ['x', 'y'], { textonly: ones(2), '16f_151k': ones(2) }),
        grid('A', 'S2', ['x', 'y'], { textonly: ones(2), '16f_151k': ones(2) }),
        grid('B', 'S1', ['x', 'y'], { textonly: ones(2), '16f_151k': ones(2) }),
        grid('A', 'S1', ['x', 'y'], { textonly: ones(2), '16f_151k': ones(2) }),
      ];
      data = releaseData(grids);
      given = data.matrices.map((m) => `${m.model} ${m.split}`);
      out = aggregatedFiles(data);
    });

    it('derived.csv rows come by (model, split, sample_id)', () => {
      const rows = parse(textOf(out, 'labels/derived.csv'), { columns: true }) as Record<string, string>[];
      expect(rows.map((r) => `${r.model} ${r.split} ${r.sample_id}`)).toEqual(sorted.flatMap((k) => [`${k} x`, `${k} y`]));
    });

    it('manifest cells and protocols.json grids come by (model, split)', () => {
      const cells = manifestOf(out).cells;
      expect(cells.map((c) => `${c.model} ${c.split} ${c.config}`)).toEqual(sorted.flatMap((k) => [`${k} textonly`, `${k} 16f_151k`]));
      const protocols = JSON.parse(textOf(out, 'labels/aggregated/protocols.json')) as { grids: { model: string; split: string }[] };
      expect(protocols.grids.map((g) => `${g.model} ${g.split}`)).toEqual(sorted);
    });

    it('leaves the given matrices in their order', () => {
      expect(data.matrices.map((m) => `${m.model} ${m.split}`)).toEqual(given);
      expect(given).not.toEqual(sorted);
    });
  });
});

describe('aggregatedFiles: counts for the README', () => {
  it('derivedRows counts the complete items and excluded the incomplete ones, over every grid', () => {
    const out = aggregatedFiles(
      releaseData([
        // Row c lacks 16f_151k: 2 rows in derived.csv, 1 excluded.
        grid('M', 'S1', ['a', 'b', 'c'], { textonly: ones(3), '16f_151k': [...ones(2), undefined] }),
        // Rows a and b lack one config each: 1 row, 2 excluded.
        grid('M', 'S2', ['a', 'b', 'c'], { textonly: [undefined, ...ones(2)], '16f_151k': [...ones(1), undefined, ...ones(1)] }),
      ]),
    );
    expect(out.derivedRows).toBe(3);
    expect(out.excluded).toBe(3);
    expect(out.grids).toBe(2);
    const rows = parse(textOf(out, 'labels/derived.csv'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => `${r.split} ${r.sample_id}`)).toEqual(['S1 a', 'S1 b', 'S2 c']);
  });
});

describe('aggregatedFiles: mixed-resolution grids', () => {
  it('lists only the grids whose visual configs span more than one pixel budget', () => {
    const out = aggregatedFiles(
      releaseData([
        // textonly (0 pixels) beside one budget is not mixed.
        grid('M', 'ladder', ['a', 'b'], { textonly: ones(2), '16f_151k': ones(2), '32f_151k': ones(2) }),
        grid('M', 'one', ['a', 'b'], { '16f_151k': ones(2) }),
        // 16f_input224 (224² = 50,176 pixels) ≺ 16f_151k: item a is right at the lower budget and
        // wrong at the higher one, so 1 of 2 items is visually confused (docs/metrics.md §2).
        grid('M', 'mixed', ['a', 'b'], { textonly: ones(2), '16f_151k': tagged([0, 1], []), '16f_input224': ones(2) }),
      ]),
    );
    expect(out.mixedResolution).toEqual([{ model: 'M', split: 'mixed', configs: 3, visualConfusionRate: 50 }]);
  });

  it('is empty when no grid mixes budgets', () => {
    const out = aggregatedFiles(releaseData([grid('M', 'S', ['a'], { textonly: ones(1), '16f_151k': ones(1), '32f_151k': ones(1) })]));
    expect(out.mixedResolution).toEqual([]);
  });
});

describe('aggregatedFiles: manifest cells take each column’s most common source tag and note', () => {
  let cells: ManifestCell[];

  beforeAll(() => {
    const y: (0 | 1)[] = [1, 0, 1, 1];
    const g = grid('P', 'S', ['a', 'b', 'c', 'd'], {
      // The first cell has no tag, the other three share one.
      textonly: tagged(y, [null, 'run:b', 'run:b', 'run:b']).map((c, k) => ({ ...c, note: k === 0 ? null : 'n1' })),
      // Only the first cell has a tag: no tag (as '') is the most common.
      '8f_151k': tagged(y, ['run:a', null, null, null]),
      // Two each, the code-point first value first in the column.
      '16f_151k': tagged(y, ['run:a', 'run:b', 'run:b', 'run:a']),
      // Two each, the code-point first value second.
      '32f_151k': tagged(y, ['run:b', 'run:a', 'run:a', 'run:b']),
      // Three against one, the lone value code-point first.
      '64f_151k': tagged(y, ['run:b', 'run:b', 'run:a', 'run:b']),
    });
    cells = manifestOf(aggregatedFiles(releaseData([g]))).cells;
  });

  it('picks the value most cells hold, ties going to the code-point first (baseline_export.py `mode`)', () => {
    const by = (config: string) => cells.find((c) => c.config === config);
    expect(by('textonly')).toEqual({ model: 'P', split: 'S', config: 'textonly', total: 4, correct: 3, source_tag: 'run:b', protocol_note: 'n1' });
    expect(by('8f_151k')?.source_tag).toBe('');
    expect(by('16f_151k')?.source_tag).toBe('run:a');
    expect(by('32f_151k')?.source_tag).toBe('run:a');
    expect(by('64f_151k')?.source_tag).toBe('run:b');
    for (const c of cells.filter((x) => x.config !== 'textonly')) expect(c.protocol_note).toBe('');
  });

  it('lists every config of the grid once, in config order', () => {
    expect(cells.map((c) => c.config)).toEqual(['textonly', '8f_151k', '16f_151k', '32f_151k', '64f_151k']);
  });

  it('gives a config column without cells no tag and no note', () => {
    const g = grid('E', 'S', ['a'], { textonly: ones(1, 'run:t'), '16f_151k': [undefined] });
    const m = manifestOf(aggregatedFiles(releaseData([g])));
    expect(m.wide_sources).toEqual([]);
    expect(m.cells).toEqual([
      { model: 'E', split: 'S', config: 'textonly', total: 1, correct: 1, source_tag: 'run:t', protocol_note: '' },
      { model: 'E', split: 'S', config: '16f_151k', total: 0, correct: 0, source_tag: '', protocol_note: '' },
    ]);
  });
});

describe('aggregatedFiles: wide_sources (docs/release-format.md "release_manifest.json")', () => {
  /** The manifest of one grid `W` / `S`. */
  function manifestOfGrid(columns: Record<string, (Cell | undefined)[]>): Manifest {
    return manifestOf(aggregatedFiles(releaseData([grid('W', 'S', ['a', 'b'], columns)])));
  }

  it('lists a grid whose every cell has one config-less tag and no note as a wide source, configs in config order', () => {
    const m = manifestOfGrid({ textonly: ones(2, 'legacy:W:S:wide'), '16f_151k': tagged([1, 0], ['legacy:W:S:wide', 'legacy:W:S:wide']) });
    expect(m.cells).toEqual([]);
    expect(m.wide_sources).toEqual([{ source_tag: 'legacy:W:S:wide', cells: { textonly: { total: 2, correct: 2 }, '16f_151k': { total: 2, correct: 1 } } }]);
    expect(Object.keys(m.wide_sources[0]!.cells)).toEqual(['textonly', '16f_151k']);
  });

  const notWide: [string, Record<string, (Cell | undefined)[]>][] = [
    ['no cell has a tag', { textonly: ones(2), '16f_151k': ones(2) }],
    ['the cells carry a protocol note', { textonly: ones(2, 'legacy:x', 'n'), '16f_151k': ones(2, 'legacy:x', 'n') }],
    ['the tag names one of its configs', { textonly: ones(2, 'run:W:S:16f_151k'), '16f_151k': ones(2, 'run:W:S:16f_151k') }],
    ['one column holds two tags', { textonly: tagged([1, 1], ['legacy:a', 'legacy:b']) }],
    [
      'one column holds a note on some cells only',
      {
        textonly: [
          { correct: 1, tag: 'legacy:x' },
          { correct: 1, tag: 'legacy:x', note: 'n' },
        ],
      },
    ],
    ['two columns carry different tags', { textonly: ones(2, 'legacy:b'), '16f_151k': ones(2, 'legacy:a') }],
    // The first column (16f_151k) has the note, the last none.
    ['one column carries a note the others do not', { textonly: ones(2, 'legacy:x'), '16f_151k': ones(2, 'legacy:x', 'n') }],
  ];
  for (const [why, columns] of notWide) {
    it(`lists the grid cell by cell when ${why}`, () => {
      const m = manifestOfGrid(columns);
      expect(m.wide_sources).toEqual([]);
      expect(m.cells.map((c) => c.config).sort()).toEqual(Object.keys(columns).sort());
      for (const c of m.cells) expect(c.total).toBe(2);
    });
  }
});
