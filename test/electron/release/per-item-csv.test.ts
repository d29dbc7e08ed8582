/**
 * per_item.csv's byte writer against a plain reference (one row array per cell through
 * csvText): repeated and free-text values, the item-answer fallback for a missing ground truth,
 * open-ended cells, optional columns, quoting and non-ASCII ids, whole and in chunks.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigSpec, ItemMeta } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { csvText, formatNumber } from '../../../electron/release/format';
import { latencySeconds, optionalColumnsOf, PER_ITEM_COLUMNS, perItemCsvBytes, wideCsvBytes, writePerItemCsv } from '../../../electron/release/per-item-csv';
import type { ReleaseColumn, ReleaseGrid, StringTable } from '../../../electron/release/release-data';

function table(values: (string | null)[]): StringTable {
  const dict: (string | null)[] = [null];
  const index = new Map<string, number>();
  const idx = new Uint32Array(values.length);
  values.forEach((v, k) => {
    if (v === null) return;
    let i = index.get(v);
    if (i === undefined) index.set(v, (i = dict.push(v) - 1));
    idx[k] = i;
  });
  return { idx: dict.length < 256 ? Uint8Array.from(idx) : idx, dict };
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
}

interface Cell {
  pred: string | null;
  gt: string | null;
  correct: number;
  score: number;
  confidence: number;
  latencyMs: number;
  frames: Int32Array | null;
  src: string | null;
  note: string | null;
}

/** A grid whose columns hold the given cells (row r of column j: cells[j][r], undefined = no cell). */
function grid(model: string, split: string, ids: string[], configs: string[], cells: (Cell | undefined)[][], withOptional: boolean, withScore = true): ReleaseGrid {
  const columns = configs.map((config, j): ReleaseColumn => {
    const present = cells[j]!.map((c, r) => [c, r] as const).filter(([c]) => c !== undefined) as [Cell, number][];
    const at = new Int32Array(ids.length).fill(-1);
    present.forEach(([, r], k) => (at[r] = k));
    const f64 = (get: (c: Cell) => number) => Float64Array.from(present, ([c]) => get(c));
    return {
      config,
      at,
      length: present.length,
      correct: Int8Array.from(present, ([c]) => c.correct),
      pred: table(present.map(([c]) => c.pred)),
      groundTruth: table(present.map(([c]) => c.gt)),
      score: withScore ? f64((c) => c.score) : null,
      confidence: withOptional ? f64((c) => c.confidence) : null,
      margin: null,
      latencyMs: withOptional ? f64((c) => c.latencyMs) : null,
      frames: withOptional ? present.map(([c]) => c.frames) : null,
      sourceTag: table(present.map(([c]) => c.src)),
      protocolNote: table(present.map(([c]) => c.note)),
    };
  });
  return { model, split, sampleIds: ids, rowItems: Int32Array.from(ids, (_, i) => i + 1), columns };
}

/** The reference: each cell's row as the release defines it, printed by csvText. */
function reference(grids: ReleaseGrid[], specs: Map<string, ConfigSpec>, answers: Map<string, string>): string {
  const optional = optionalColumnsOf(grids);
  const rows: (string | number | null)[][] = [];
  for (const g of grids) {
    g.sampleIds.forEach((id, r) => {
      for (const c of g.columns) {
        const k = c.at[r]!;
        if (k < 0) continue;
        const v = (t: StringTable) => t.dict[t.idx[k]!] ?? null;
        const open = c.score !== null && !Number.isNaN(c.score[k]!) && c.correct[k]! < 0;
        const spec = specs.get(c.config)!;
        const cor = c.correct[k]!;
        const row: (string | number | null)[] = [
          id,
          g.model,
          g.split,
          c.config,
          spec.frames,
          spec.pixelCount,
          open ? null : v(c.pred),
          open ? null : (v(c.groundTruth) ?? answers.get(`${g.split}\u0000${id}`) ?? null),
          cor < 0 ? null : cor,
          v(c.sourceTag),
          v(c.protocolNote),
        ];
        const num = (a: Float64Array | null) => (a === null || Number.isNaN(a[k]!) ? null : formatNumber(a[k]!));
        for (const o of optional) {
          if (o === 'confidence') row.push(num(c.confidence));
          else if (o === 'margin') row.push(num(c.margin));
          else if (o === 'latency_s') row.push(c.latencyMs === null || Number.isNaN(c.latencyMs[k]!) ? null : formatNumber(latencySeconds(c.latencyMs[k]!)));
          else if (o === 'frame_indices') row.push(c.frames?.[k] ? [...c.frames[k]!].join(' ') : null);
          else row.push(num(c.score));
        }
        rows.push(row);
      }
    });
  }
  return csvText([...PER_ITEM_COLUMNS, ...optional], rows);
}

function cells(n: number, seed: number, freeText: boolean): (Cell | undefined)[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    if (r() < 0.1) return undefined;
    const open = r() < 0.05;
    const gt = r() < 0.15 ? null : freeText ? `gt ${i}, "${Math.floor(r() * 1000)}"` : pick(['A', 'B', 'C', 'D', 'say "x"', '']);
    return {
      pred: r() < 0.05 ? null : freeText ? `free, text ${i} ü ${Math.floor(r() * 1e6)}` : pick(['A', 'B', 'C', 'D', 'E,F', '']),
      gt: open ? null : gt,
      correct: open ? -1 : pick([1, 0, -1]),
      score: open ? Math.round(r() * 1e4) / 1e4 : r() < 0.2 ? 0.5 : NaN,
      confidence: r() < 0.5 ? Math.round(r() * 1e6) / 1e6 : NaN,
      latencyMs: r() < 0.4 ? Math.round(r() * 5e6) / 1000 : NaN,
      frames: r() < 0.3 ? Int32Array.from([0, 3, 6]) : null,
      src: pick(['official:m', 'other, "quoted"', null]),
      note: pick([null, 'llava_native_processor;max_32f', 'ünï\ncode']),
    };
  });
}

describe('perItemCsvBytes', () => {
  const configs = ['textonly', '16f_151k', '32f_151k'];
  const specs = new Map(configs.map((k) => [k, makeConfigSpec(k)]));
  const ids = ['001-1', 'a,b', 'say "hi"', '𝔘-astral', 'a-very-long-sample-identifier-0001', ...Array.from({ length: 120 }, (_, i) => `q${i}`)];
  // Every third item has an answer letter (A–H in turn): the fallback for a missing ground truth.
  const items: ItemMeta[] = ids.map(
    (sampleId, i) => ({ split: 'S1', sampleId, answer: i % 3 === 0 ? 'ABCDEFGH'[(i / 3) % 8] : i % 3 === 1 ? 'not a letter' : null }) as unknown as ItemMeta,
  );
  const answers = new Map(items.filter((i) => /^[A-H]$/.test(i.answer ?? '')).map((i) => [`${i.split}\u0000${i.sampleId}`, i.answer!]));

  for (const [name, freeText, withOptional, withScore] of [
    ['no optional columns', false, false, false],
    ['free text, no optional columns', true, false, false],
    ['a score column', false, false, true],
    ['optional columns', false, true, true],
    ['free-text columns, optional columns', true, true, true],
  ] as const) {
    it(`equals the reference: ${name}`, () => {
      const grids = [
        grid(
          'M "1"',
          'S1',
          ids,
          configs,
          configs.map((_, j) => cells(ids.length, j + 1, freeText)),
          withOptional,
          withScore,
        ),
        grid(
          'M2',
          'S,2',
          ids.slice(0, 40),
          configs.slice(1),
          configs.slice(1).map((_, j) => cells(40, j + 7, freeText)),
          withOptional,
          withScore,
        ),
        grid(
          'M3',
          'S3',
          [],
          configs,
          configs.map(() => []),
          withOptional,
          withScore,
        ),
      ];
      const want = reference(grids, specs, answers);
      expect(want.split('\n').length).toBeGreaterThan(100);
      if (withOptional) expect(want.split('\n')[0]).toContain('confidence');
      const got = Buffer.from(perItemCsvBytes(grids, [...specs.values()], items)).toString('utf8');
      expect(got).toBe(want);
      // In chunks (the folder export streams the file): a chunk smaller than a row grows, tiny
      // chunks flush after each row (or mid-row, before a cell's optional columns); the
      // default is one chunk here.
      for (const size of [1, 64, 1000, undefined]) {
        const chunks: Buffer[] = [];
        const total = writePerItemCsv(grids, [...specs.values()], items, (b) => chunks.push(Buffer.from(b)), size);
        expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
        expect(total).toBe(Buffer.byteLength(want));
        if (size === 64) expect(chunks.length).toBeGreaterThan(10);
      }
    });
  }

  it("equals the reference when every line is as long as its parts allow (the writer's bound is exact)", () => {
    // Every cell at its column's longest pred, ground truth, correct, tag and note, every id
    // equally long, many columns: a bound one byte short per line overflows here (a zip's
    // whole-file block ran out of room; a chunk overran its padding).
    // Config keys of one length, so every column's line is as long as the longest column's.
    const many = ['10f', '12f', '16f', '20f', '24f', '32f', '48f', '64f', '80f', '96f'];
    const manySpecs = new Map(many.map((k) => [k, makeConfigSpec(k)]));
    const sameIds = Array.from({ length: 300 }, (_, i) => `id-${String(i).padStart(4, '0')}`);
    const full = (): Cell => ({ pred: 'B', gt: 'C', correct: 0, score: NaN, confidence: NaN, latencyMs: NaN, frames: null, src: 'lmms-eval:videomme', note: 'max_32f' });
    const g = grid(
      'M',
      'S1',
      sameIds,
      many,
      many.map(() => sameIds.map(full)),
      false,
      false,
    );
    const want = reference([g], manySpecs, new Map());
    expect(Buffer.from(perItemCsvBytes([g], [...manySpecs.values()], [])).toString('utf8')).toBe(want);
    for (const size of [1, 1000, undefined]) {
      const chunks: Buffer[] = [];
      writePerItemCsv([g], [...manySpecs.values()], [], (b) => chunks.push(Buffer.from(b)), size);
      expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
    }
  });

  it("wideCsvBytes: sample id and each config's prediction, empty where missing or open-ended", () => {
    const g = grid(
      'M',
      'S1',
      ids,
      configs,
      configs.map((_, j) => cells(ids.length, j + 3, false)),
      false,
    );
    const rows = [
      ['sample_id', ...configs],
      ...ids.map((id, r) => [
        id,
        ...g.columns.map((c) => {
          const k = c.at[r]!;
          const open = k >= 0 && c.score !== null && !Number.isNaN(c.score[k]!) && c.correct[k]! < 0;
          return k < 0 || open ? '' : (c.pred.dict[c.pred.idx[k]!] ?? '');
        }),
      ]),
    ];
    expect(Buffer.from(wideCsvBytes(g)).toString('utf8')).toBe(csvText(rows[0]!, rows.slice(1)));
  });

  it('writes a hand-worked grid: optional columns, the answer-letter fallback, an open-ended cell, unknown pixels and an unknown config', () => {
    const none = (n: number): StringTable => ({ idx: new Uint8Array(n), dict: [null] });
    const base = (config: string, at: number[], length: number): ReleaseColumn => ({
      config,
      at: Int32Array.from(at),
      length,
      correct: new Int8Array(length),
      pred: none(length),
      groundTruth: none(length),
      score: null,
      confidence: null,
      margin: null,
      latencyMs: null,
      frames: null,
      sourceTag: none(length),
      protocolNote: none(length),
    });
    // Row a: a wrong 16f cell without a ground truth (item a's answer is C), with a
    // confidence, a latency of 1234.5678 ms and frames; row b: none there.
    const c16: ReleaseColumn = {
      ...base('16f_151k', [0, -1, 1], 2),
      correct: Int8Array.from([0, 1]),
      pred: table(['B', 'D']),
      groundTruth: table([null, 'D']),
      confidence: Float64Array.from([0.25, NaN]),
      latencyMs: Float64Array.from([1234.5678, 0.0004]),
      frames: [Int32Array.from([0, 5, 10]), null],
      sourceTag: table(['official', 'x,y']),
      protocolNote: table([null, 'say "n"']),
    };
    // Row b: an open-ended cell (a score, no correctness) of a config with unknown pixels: no
    // prediction and no ground truth written, though it holds both, and no fallback letter.
    const c8: ReleaseColumn = {
      ...base('8f', [-1, 0, -1], 1),
      correct: Int8Array.from([-1]),
      pred: table(['free text']),
      groundTruth: table(['ref']),
      score: Float64Array.from([0.75]),
      margin: Float64Array.from([0.125]),
    };
    // A config the project does not describe: frame_count and pixel_count empty. No ground
    // truth, and item c's answer in S is no letter (its answer in split T does not apply).
    const cx: ReleaseColumn = { ...base('zz', [-1, -1, 0], 1), correct: Int8Array.from([1]), pred: table(['A']) };
    const g: ReleaseGrid = { model: 'M', split: 'S', sampleIds: ['a', 'b', 'c'], rowItems: Int32Array.from([1, 2, 3]), columns: [c16, c8, cx] };
    const answers = [
      { split: 'S', sampleId: 'a', answer: 'C' },
      { split: 'S', sampleId: 'b', answer: 'B' },
      { split: 'S', sampleId: 'c', answer: 'AB' },
      { split: 'T', sampleId: 'c', answer: 'A' },
    ] as ItemMeta[];
    const want = [
      'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence,margin,latency_s,frame_indices,score',
      'a,M,S,16f_151k,16,151000,B,C,0,official,,0.25,,1.234568,0 5 10,',
      'b,M,S,8f,8,,,,,,,,0.125,,,0.75',
      'c,M,S,16f_151k,16,151000,D,D,1,"x,y","say ""n""",,,0,,',
      'c,M,S,zz,,,A,,1,,,,,,,',
      '',
    ].join('\n');
    const specs = [makeConfigSpec('16f_151k'), makeConfigSpec('8f')];
    expect(Buffer.from(perItemCsvBytes([g], specs, answers)).toString('utf8')).toBe(want);
    const chunks: Buffer[] = [];
    expect(writePerItemCsv([g], specs, answers, (b) => chunks.push(Buffer.from(b)), 16)).toBe(Buffer.byteLength(want));
    expect(Buffer.concat(chunks).toString('utf8')).toBe(want);
    // Without items carrying answers, a missing ground truth stays empty.
    expect(
      Buffer.from(perItemCsvBytes([g], specs, []))
        .toString('utf8')
        .split('\n')[1],
    ).toBe('a,M,S,16f_151k,16,151000,B,,0,official,,0.25,,1.234568,0 5 10,');
  });

  it('latencySeconds: milliseconds to seconds, rounded to the microsecond', () => {
    expect(latencySeconds(1234.5678)).toBe(1.234568);
    expect(latencySeconds(1234.5674)).toBe(1.234567);
    expect(latencySeconds(0.0004)).toBe(0);
    expect(latencySeconds(0.0005)).toBe(0.000001);
    expect(latencySeconds(2000)).toBe(2);
    expect(latencySeconds(-1.5)).toBe(-0.0015);
  });

  it('optionalColumnsOf: a column iff some cell has a value, always in the fixed order', () => {
    const nan = Float64Array.from([NaN, NaN]);
    const col = (o: Partial<ReleaseColumn>): ReleaseColumn => ({ ...grid('M', 'S', ['a'], ['16f'], [[undefined]], false, false).columns[0]!, ...o });
    const g = (...cols: ReleaseColumn[]): ReleaseGrid => ({ model: 'M', split: 'S', sampleIds: [], rowItems: new Int32Array(0), columns: cols });
    const one = Float64Array.from([NaN, 0]);
    expect(optionalColumnsOf([])).toEqual([]);
    expect(optionalColumnsOf([g(col({ confidence: nan, margin: nan, latencyMs: nan, score: nan, frames: [null, null] }))])).toEqual([]);
    expect(optionalColumnsOf([g(col({ confidence: one }))])).toEqual(['confidence']);
    expect(optionalColumnsOf([g(col({ margin: one }))])).toEqual(['margin']);
    expect(optionalColumnsOf([g(col({ latencyMs: one }))])).toEqual(['latency_s']);
    expect(optionalColumnsOf([g(col({ frames: [null, new Int32Array(0)] }))])).toEqual(['frame_indices']);
    expect(optionalColumnsOf([g(col({ score: one }))])).toEqual(['score']);
    // Found in any column of any grid, listed in the fixed order whatever order they are found in.
    expect(
      optionalColumnsOf([g(col({ score: one }), col({ frames: [Int32Array.from([1])] })), g(), g(col({ latencyMs: one, margin: nan }), col({ margin: one, confidence: one }))]),
    ).toEqual(['confidence', 'margin', 'latency_s', 'frame_indices', 'score']);
  });

  it('wideCsvBytes: quotes config keys and predictions that need it; a grid without columns is its ids', () => {
    const none = (n: number): StringTable => ({ idx: new Uint8Array(n), dict: [null] });
    const c: ReleaseColumn = {
      ...grid('M', 'S', ['a'], ['x'], [[undefined]], false, false).columns[0]!,
      config: 'odd,key',
      at: Int32Array.from([1, 0, -1]),
      length: 2,
      correct: Int8Array.from([1, -1]),
      pred: table(['say "x"', 'A']),
      score: Float64Array.from([NaN, NaN]),
      groundTruth: none(2),
    };
    // A column without scores: a cell without correctness is not open-ended there, its prediction stands.
    const d: ReleaseColumn = { ...c, config: 'plain', at: Int32Array.from([-1, 0, 1]), correct: Int8Array.from([-1, 1]), pred: table(['C', 'D']), score: null };
    const g: ReleaseGrid = { model: 'M', split: 'S', sampleIds: ['r1', 'r,2', 'r3'], rowItems: Int32Array.from([1, 2, 3]), columns: [c, d] };
    expect(Buffer.from(wideCsvBytes(g)).toString('utf8')).toBe('sample_id,"odd,key",plain\nr1,A,\n"r,2","say ""x""",C\nr3,,D\n');
    expect(Buffer.from(wideCsvBytes({ ...g, columns: [] })).toString('utf8')).toBe('sample_id\nr1\n"r,2"\nr3\n');
  });
});
