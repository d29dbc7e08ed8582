/**
 * The export's protocol files (docs/release-format.md "Protocols in the export" and
 * "labels/aggregated/protocols.json"): the main grid cut out of a scanned grid, worked by hand,
 * and protocols.json against the schema the docs give, spelled out here field by field over the
 * engine's comparison (docs/metrics.md §6), rates as percentages rounded to four decimals and
 * printed as floats.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigSpec, ResponseMatrix } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { isoComputeGroups } from '../../../shared/engine/iso-compute';
import { createMatrix } from '../../../shared/engine/matrix';
import { compareProtocols, type MembershipChange, type ProtocolSide, type SamplingRecovery } from '../../../shared/engine/protocols';
import { JsonFloat, jsonText, type JsonValue } from '../../../electron/release/format';
import { mainGridOf, protocolsJson } from '../../../electron/release/protocol-files';
import type { ReleaseGrid } from '../../../electron/release/release-data';
// Only a column's `at` and `length` matter to the protocol files.
import { column } from './columns';

const specsOf = (keys: string[]): Map<string, ConfigSpec> => new Map(keys.map((k) => [k, makeConfigSpec(k)]));

describe('mainGridOf', () => {
  // Rows: a (every column), b (variant only), c (main 32f only), d (text only), e (variant and text).
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const grid = (): ReleaseGrid => ({
    model: 'M',
    split: 'S',
    sampleIds: ids,
    rowItems: Int32Array.from([11, 12, 13, 14, 15]),
    columns: [column('16f_151k', 5, [0]), column('16f_151k@random', 5, [0, 1, 4]), column('32f_151k', 5, [0, 2]), column('textonly', 5, [0, 3, 4])],
  });
  const specs = specsOf(['16f_151k', '16f_151k@random', '32f_151k', 'textonly']);

  it("keeps the main protocol's columns and the rows with a cell in one of them", () => {
    const src = grid();
    const g = mainGridOf(src, specs, '')!;
    expect(g.model).toBe('M');
    expect(g.split).toBe('S');
    expect(g.columns.map((c) => c.config)).toEqual(['16f_151k', '32f_151k', 'textonly']);
    expect(g.sampleIds).toEqual(['a', 'c', 'd', 'e']);
    expect(Array.from(g.rowItems)).toEqual([11, 13, 14, 15]);
    expect(g.columns.map((c) => Array.from(c.at))).toEqual([
      [0, -1, -1, -1],
      [0, 1, -1, -1],
      [0, -1, 1, 2],
    ]);
    // The cells themselves are the scanned ones: only the row positions are new.
    expect(g.columns[1]!.correct).toBe(src.columns[2]!.correct);
    expect(g.columns[1]!.length).toBe(2);
  });

  it("a variant's grid takes the untagged text only with its own configs", () => {
    const g = mainGridOf(grid(), specs, 'random')!;
    expect(g.columns.map((c) => c.config)).toEqual(['16f_151k@random', 'textonly']);
    expect(g.sampleIds).toEqual(['a', 'b', 'd', 'e']);
    expect(Array.from(g.rowItems)).toEqual([11, 12, 14, 15]);
    expect(g.columns.map((c) => Array.from(c.at))).toEqual([
      [0, 1, -1, 2],
      [0, -1, 1, 2],
    ]);
  });

  it('gives the grid itself when nothing is dropped, and null when the protocol has no grid there', () => {
    const plain: ReleaseGrid = { ...grid(), columns: grid().columns.filter((c) => !c.config.includes('@')) };
    expect(mainGridOf(plain, specs, '')).toBe(plain);
    expect(mainGridOf(grid(), specs, 'other')).toBeNull();
    // Only the shared text only under the main protocol, visual configs under another: no main grid.
    const textAndVariant: ReleaseGrid = { ...grid(), columns: grid().columns.filter((c) => c.config === 'textonly' || c.config.includes('@')) };
    expect(mainGridOf(textAndVariant, specs, '')).toBeNull();
  });

  it('refuses a config the project does not know, naming it and the grid', () => {
    expect(() => mainGridOf(grid(), specsOf(['16f_151k', '32f_151k', 'textonly']), '')).toThrow('config "16f_151k@random" of M / S is not among the project\'s configs');
  });
});

/** A seeded MCQA matrix; cells missing with probability `missing`. */
function matrix(model: string, split: string, keys: string[], n: number, seed: number, missing: number): ResponseMatrix {
  const m = createMatrix({
    model,
    split,
    kind: 'mcqa',
    itemIds: Array.from({ length: n }, (_, i) => `s${String(i).padStart(2, '0')}`),
    configs: keys.map((k) => makeConfigSpec(k)),
  });
  let s = seed >>> 0;
  const next = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296;
  for (let k = 0; k < m.correct.length; k++) m.correct[k] = next() < missing ? -1 : next() < 0.55 ? 1 : 0;
  return m;
}

/** A rate as docs/release-format.md prints rates: a percentage to four decimals (no ties at n < 100), a float. */
const rate = (x: number | null): JsonValue => (x === null || !Number.isFinite(x) ? null : new JsonFloat(Number((100 * x).toFixed(4))));

function side(s: ProtocolSide): JsonValue {
  return {
    protocol: s.protocol,
    configs: s.configs,
    n: s.n,
    n_excluded: s.nExcluded,
    terminal_config: s.terminalConfig,
    visual_confusion_rate: rate(s.visualConfusionRate),
    terminal_regression_rate: rate(s.terminalRegressionRate),
    overwrite_rate: rate(s.textOverwriteRate),
    visually_confused: s.counts.visuallyConfused,
    terminal_regressions: s.counts.terminalRegressions,
    text_overwritten: s.counts.textOverwritten,
  };
}

const membership = (x: MembershipChange | null): JsonValue =>
  x === null ? null : { both: x.both, only_main: x.onlyMain, only_variant: x.onlyVariant, jaccard: x.jaccard === null ? null : new JsonFloat(x.jaccard) };

const recovery = (r: SamplingRecovery | null): JsonValue =>
  r === null
    ? null
    : {
        terminal_config: r.terminalConfig,
        alternatives: r.alternatives,
        n: r.n,
        regressions: r.regressions,
        recovered: r.recovered,
        recovery_rate: rate(r.recoveryRate),
        recovered_items: r.recoveredItems,
        note: r.note,
      };

/** protocols.json spelled out from docs/release-format.md over the engine's comparison and iso-compute groups. */
function expected(main: string, mains: ResponseMatrix[], all: Map<string, ResponseMatrix>): JsonValue {
  const grids: JsonValue[] = mains
    .filter((m) => m.kind === 'mcqa')
    .map((m) => {
      const whole = all.get(`${m.model}\u0000${m.split}`);
      const report = whole === undefined ? null : compareProtocols(whole, main);
      return {
        model: m.model,
        split: m.split,
        main_configs: m.configs.map((c) => c.key),
        iso_compute: isoComputeGroups(m).groups.map((g) => ({
          configs: g.configs,
          compute: g.compute,
          best_config: g.bestConfig,
          best_accuracy: rate(g.bestAccuracy),
          oracle: rate(g.oracleAccuracy),
          headroom: new JsonFloat(Number(g.oracleHeadroomPts.toFixed(4))),
          pairs: g.pairs.map((p) => ({ a: p.a, b: p.b, only_a: p.onlyA, only_b: p.onlyB, both: p.both, neither: p.neither })),
        })),
        protocols: (report?.variants ?? []).map((v) => ({
          protocol: v.protocol,
          configs: v.configs,
          differs_in: v.differsIn,
          agreement:
            v.agreement === null
              ? null
              : {
                  budgets: v.agreement.budgets,
                  main: side(v.agreement.main),
                  variant: side(v.agreement.variant),
                  n_common: v.agreement.nCommon,
                  confused: membership(v.agreement.confused),
                  terminal_regression: membership(v.agreement.terminalRegression),
                  text_overwritten: membership(v.agreement.textOverwritten),
                },
          agreement_note: v.agreementNote,
          sampling_recovery: recovery(v.recovery),
        })),
        any_recovery: recovery(report?.anyRecovery ?? null),
      };
    });
  return { main_protocol: main, grids };
}

const mainOnly = (m: ResponseMatrix, main: string): ResponseMatrix => {
  const keep = m.configs.map((c, j) => [c, j] as const).filter(([c]) => (main === '' ? !c.key.includes('@') : c.key.endsWith(`@${main}`) || c.key === 'textonly'));
  const out = createMatrix({ model: m.model, split: m.split, kind: 'mcqa', itemIds: m.itemIds, configs: keep.map(([c]) => c) });
  const C = m.configs.length;
  m.itemIds.forEach((_, i) => keep.forEach(([, j], jj) => (out.correct[i * keep.length + jj] = m.correct[i * C + j]!)));
  return out;
};

describe('protocolsJson', () => {
  const variantKeys = ['textonly', '16f_151k', '32f_151k', '64f_151k', '32f_75k', '16f_151k@random', '64f_151k@random', '8f_151k@subs'];

  it('has one entry per MCQA grid with a main grid, holding iso-compute groups, the other protocols and the recovery', () => {
    const whole = [
      matrix('M1', 'S1', variantKeys, 60, 1, 0.05),
      matrix('M1', 'S2', variantKeys, 45, 2, 0),
      matrix('M2', 'S1', ['textonly', '16f_151k', '32f_151k', '32f_75k'], 30, 3, 0),
    ];
    const all = new Map(whole.map((m) => [`${m.model}\u0000${m.split}`, m]));
    const open: ResponseMatrix = { ...mainOnly(whole[2]!, ''), split: 'OPEN', kind: 'open' };
    const mains = [mainOnly(whole[0]!, ''), mainOnly(whole[1]!, ''), open, mainOnly(whole[2]!, '')];
    const got = protocolsJson('', mains, all);
    const want = expected('', mains, all);
    expect(jsonText(got)).toBe(jsonText(want));
    // The value itself, not only its text: an undefined number is null, not a float of nothing.
    expect(got).toEqual(want);
    // The case reaches what it is meant to: variants with and without a common budget, iso-compute
    // groups, a recovery rate, an open-ended grid left out, a grid with no other protocol.
    const parsed = JSON.parse(jsonText(got)) as {
      grids: {
        split: string;
        protocols: { protocol: string; agreement: unknown; sampling_recovery: { recovery_rate: number | null } }[];
        iso_compute: unknown[];
        any_recovery: unknown;
      }[];
    };
    expect(parsed.grids.map((g) => g.split)).toEqual(['S1', 'S2', 'S1']);
    expect(parsed.grids[0]!.protocols.map((p) => [p.protocol, p.agreement === null])).toEqual([
      ['random', false],
      ['subs', true],
    ]);
    expect(parsed.grids.some((g) => g.protocols.some((p) => p.sampling_recovery.recovery_rate !== null))).toBe(true);
    expect(parsed.grids[0]!.iso_compute.length).toBeGreaterThan(0);
    expect(parsed.grids[2]!.protocols).toEqual([]);
    expect(parsed.grids[2]!.any_recovery).toBeNull();
  });

  it('without a text-only config: no text-overwrite membership, no overwrite rate', () => {
    const whole = matrix('M', 'S', ['16f_151k', '32f_151k', '16f_151k@random', '32f_151k@random'], 40, 5, 0);
    const all = new Map([['M\u0000S', whole]]);
    const mains = [mainOnly(whole, '')];
    const got = protocolsJson('', mains, all);
    expect(got).toEqual(expected('', mains, all));
    const a = (JSON.parse(jsonText(got)) as { grids: { protocols: { agreement: { text_overwritten: unknown; main: { overwrite_rate: unknown } } }[] }[] }).grids[0]!.protocols[0]!
      .agreement;
    expect(a.text_overwritten).toBeNull();
    expect(a.main.overwrite_rate).toBeNull();
  });

  it('a grid without the whole matrix has no protocols and no recovery', () => {
    const m = mainOnly(matrix('M', 'S', variantKeys, 20, 4, 0), '');
    const got = protocolsJson('', [m], new Map());
    expect(jsonText(got)).toBe(jsonText(expected('', [m], new Map())));
    expect((JSON.parse(jsonText(got)) as { grids: { protocols: unknown[]; any_recovery: unknown }[] }).grids[0]).toMatchObject({ protocols: [], any_recovery: null });
  });

  it('prints rates as percentages to four decimals and as floats, by hand', () => {
    // Three items, one config each of textonly / 16f / 32f: item 0 right everywhere, item 1
    // right at 16f only (visually confused, a terminal regression), item 2 wrong everywhere.
    const m = createMatrix({
      model: 'M',
      split: 'S',
      kind: 'mcqa',
      itemIds: ['i0', 'i1', 'i2'],
      configs: ['textonly', '16f_151k', '32f_151k', '16f_151k@random', '32f_151k@random'].map((k) => makeConfigSpec(k)),
    });
    // Columns in config order: textonly, 16f, 16f@random, 32f, 32f@random.
    expect(m.configs.map((c) => c.key)).toEqual(['textonly', '16f_151k', '16f_151k@random', '32f_151k', '32f_151k@random']);
    m.correct.set([1, 1, 1, 1, 1, /* i1 */ 0, 1, 0, 0, 1, /* i2 */ 0, 0, 0, 0, 0]);
    const text = jsonText(protocolsJson('', [mainOnly(m, '')], new Map([['M\u0000S', m]])));
    // Main side: 1 of 3 items a terminal regression, 1 of 3 visually confused.
    expect(text).toContain('"terminal_config": "32f_151k"');
    expect(text).toContain('"terminal_regression_rate": 33.3333');
    // The variant: no regression, so 0 printed as a float.
    expect(text).toContain('"terminal_regression_rate": 0.0');
    // i1, a regression of the main grid, is right at 32f@random: recovered, 1 of 1.
    expect(text).toContain('"recovery_rate": 100.0');
    expect(text).toContain('"recovered_items": [\n');
    expect(text).toContain('"main_protocol": ""');
  });

  it('leaves a rate null where no item is complete on a grid (0 / 0), and a jaccard null where both sets are empty', () => {
    const m = createMatrix({
      model: 'M',
      split: 'S',
      kind: 'mcqa',
      itemIds: ['i0', 'i1', 'i2'],
      configs: ['textonly', '16f_151k', '32f_151k', '16f_151k@random', '32f_151k@random'].map((k) => makeConfigSpec(k)),
    });
    // Every item misses a cell of the variant's grid: its side has n = 0.
    m.correct.set([1, 1, -1, 1, 1, /* i1 */ 0, 1, -1, 0, 1, /* i2 */ 0, 0, -1, 0, 1]);
    const all = new Map([['M\u0000S', m]]);
    const mains = [mainOnly(m, '')];
    const got = protocolsJson('', mains, all);
    expect(got).toEqual(expected('', mains, all));
    const v = (
      JSON.parse(jsonText(got)) as {
        grids: {
          protocols: {
            agreement: {
              main: { n: number; visual_confusion_rate: number };
              variant: { n: number; visual_confusion_rate: null; overwrite_rate: null };
              confused: { jaccard: null };
            };
          }[];
        }[];
      }
    ).grids[0]!.protocols[0]!.agreement;
    expect(v.main.n).toBe(3);
    expect(v.main.visual_confusion_rate).toBe(33.3333);
    expect(v.variant).toMatchObject({ n: 0, visual_confusion_rate: null, overwrite_rate: null });
    expect(v.confused.jaccard).toBeNull();
  });
});
