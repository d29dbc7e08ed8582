/**
 * Protocols (docs/metrics.md §6) at their edges: how people write a protocol, what a variant's
 * provenance says differs, and protocol agreement and sampling recovery recomputed by brute force
 * from the §2 definitions on seeded random grids. Every engine call sits inside an `it`, so a
 * failure is a failing test, never a file that does not load.
 */
import { describe, expect, it } from 'vitest';
import { operations } from '../../../shared/api/contract';
import type { SamplingPolicy } from '../../../shared/domain/types';
import { makeConfigSpec } from '../../../shared/engine/config';
import { createMatrix } from '../../../shared/engine/matrix';
import { mulberry32, seededPermutation } from '../../../shared/engine/prng';
import {
  budgetOf,
  compareProtocols,
  defaultMainProtocol,
  MAIN_PROTOCOL_SETTING,
  protocolConfigs,
  protocolLabel,
  protocolName,
  protocolOf,
  type MembershipChange,
  type ProtocolAgreement,
  type ProtocolSide,
  type SamplingRecovery,
} from '../../../shared/engine/protocols';
import { fromPatterns } from './helpers';

const keys = (cs: { key: string }[]) => cs.map((c) => c.key);

describe('how a protocol is written', () => {
  it('untagged or empty is the untagged protocol, a leading @ is dropped, spaces are trimmed', () => {
    expect(protocolName('untagged')).toBe('');
    expect(protocolName('  untagged ')).toBe('');
    expect(protocolName('')).toBe('');
    expect(protocolName('   ')).toBe('');
    expect(protocolName('@random')).toBe('random');
    expect(protocolName(' @seed7 ')).toBe('seed7');
    expect(protocolName('raw')).toBe('raw');
    expect(protocolName(' subs')).toBe('subs');
  });
  it('a label is @tag, or untagged for the untagged protocol, and reads back as the same protocol', () => {
    expect(protocolLabel('')).toBe('untagged');
    expect(protocolLabel('random')).toBe('@random');
    for (const p of ['', 'random', 'seed7', 'subs']) expect(protocolName(protocolLabel(p))).toBe(p);
  });
  it('a key without variant is untagged; the budget is what precedes the @', () => {
    expect(protocolOf('textonly')).toBe('');
    expect(protocolOf('16f')).toBe('');
    expect(protocolOf('textonly@subs')).toBe('subs');
    expect(budgetOf('64f_151k@random')).toBe('64f_151k');
    expect(budgetOf('textonly@subs')).toBe('textonly');
    expect(budgetOf('32f')).toBe('32f');
    // Nothing before the @: an empty budget, not the whole string.
    expect(budgetOf('@seed7')).toBe('');
  });
  it('the main-protocol setting is the one the API sets, and setting it re-reads the project', () => {
    expect(operations['settings:get'].request.safeParse({ key: MAIN_PROTOCOL_SETTING }).success).toBe(true);
    const changes = operations['settings:set'].effects.changes;
    expect(typeof changes === 'function' ? changes({ key: MAIN_PROTOCOL_SETTING, value: null } as never) : changes).toBe('project');
  });
  it('an untagged visual config makes the untagged protocol main even when a tag has more', () => {
    expect(defaultMainProtocol(['16f', '16f@a', '32f@a', '64f@a'])).toBe('');
    expect(defaultMainProtocol(['textonly', '16f@a', '32f@a', '64f@b'])).toBe('a');
  });
  it('the untagged grid is its untagged configs, with or without an untagged text only', () => {
    const withText = ['textonly', '16f', '16f@random', 'textonly@subs'].map((k) => makeConfigSpec(k));
    expect(keys(protocolConfigs(withText, ''))).toEqual(['textonly', '16f']);
    const noText = ['16f', '32f', '16f@random', 'textonly@subs'].map((k) => makeConfigSpec(k));
    expect(keys(protocolConfigs(noText, ''))).toEqual(['16f', '32f']);
    expect(protocolConfigs([makeConfigSpec('16f@random')], '')).toEqual([]);
  });
});

describe('what a variant differs in, from its configs provenance', () => {
  const spec = (key: string, policy: SamplingPolicy | null, seed: number | null, fps: number | null, pipeline: 'raw' | 'cache' | null) =>
    makeConfigSpec(key, { sampling: { policy, seed, fps }, pipeline });
  it('only fields known on both sides and unequal count, at a budget the main grid has, text only aside', () => {
    const specs = [
      makeConfigSpec('textonly', { pipeline: 'cache' }),
      spec('16f_151k', 'uniform-linspace', 0, 1, 'cache'),
      spec('32f_151k', 'uniform-linspace', null, 1, 'cache'),
      // @random: another policy; its seed is unknown on the main side, fps and pipeline agree;
      // 64f has no main config, so its raw pipeline is not a difference.
      spec('32f_151k@random', 'random', 7, 1, 'cache'),
      spec('64f_151k@random', 'random', 7, 2, 'raw'),
      // @raw: the policy is unknown on the variant side; seed, fps and pipeline all differ.
      spec('16f_151k@raw', null, 3, 2, 'raw'),
      // @subs: its visual config is the main one's twin; its own text only runs raw, but a
      // text-only run sees no frame, so that is no sampling or pipeline difference.
      spec('32f_151k@subs', 'uniform-linspace', null, 1, 'cache'),
      makeConfigSpec('textonly@subs', { pipeline: 'raw' }),
    ];
    const m = fromPatterns(specs, ['11111111', '01010101']);
    const r = compareProtocols(m, '')!;
    const differs = Object.fromEntries(r.variants.map((v) => [v.protocol, [...v.differsIn].sort()]));
    expect(differs).toEqual({
      random: ['sampling policy'],
      raw: ['cache fps', 'pipeline', 'sampling seed'],
      subs: [],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Brute force: every config of these grids has an unknown ppf, so `a ≺ b` is frames(a) <
// frames(b), text only (0 frames) lowest, and the terminal is the config of most frames
// (docs/metrics.md §1–§2). Grids are written in config order.

type Cell = 0 | 1 | null;
const framesOf = (key: string) => (key.startsWith('textonly') ? 0 : Number(/^(\d+)f/.exec(key)![1]));
const budget = (key: string) => key.split('@')[0]!;

interface World {
  ids: string[];
  cell: (item: number, key: string) => Cell;
}

interface ItemFlags {
  confused: boolean;
  terminalRegression: boolean;
  textOverwritten: boolean;
}

const terminalOf = (grid: readonly string[]) => grid.reduce((a, b) => (framesOf(b) > framesOf(a) ? b : a));
const complete = (w: World, i: number, grid: readonly string[]) => grid.every((k) => w.cell(i, k) !== null);

function itemFlags(w: World, i: number, grid: readonly string[]): ItemFlags {
  const y = (k: string) => w.cell(i, k);
  const confused = grid.some((a) => grid.some((b) => framesOf(a) < framesOf(b) && y(a) === 1 && y(b) === 0));
  const text = grid.find((k) => framesOf(k) === 0);
  const textOverwritten = text !== undefined && y(text) === 1 && grid.some((k) => framesOf(k) > 0 && y(k) === 0);
  const t = terminalOf(grid);
  const terminalRegression = y(t) === 0 && grid.some((k) => framesOf(k) < framesOf(t) && y(k) === 1);
  return { confused, terminalRegression, textOverwritten };
}

function bruteSide(w: World, protocol: string, grid: readonly string[]): ProtocolSide {
  const items = w.ids.map((_, i) => i).filter((i) => complete(w, i, grid));
  const n = items.length;
  const count = (f: keyof ItemFlags) => items.filter((i) => itemFlags(w, i, grid)[f]).length;
  const c = count('confused');
  const t = count('terminalRegression');
  const o = count('textOverwritten');
  const hasText = grid.some((k) => framesOf(k) === 0);
  return {
    protocol,
    configs: [...grid],
    n,
    // Every item here has a cell in every grid, so the excluded are the incomplete ones.
    nExcluded: w.ids.length - n,
    terminalConfig: terminalOf(grid),
    visualConfusionRate: c / n,
    terminalRegressionRate: t / n,
    textOverwriteRate: hasText ? o / n : null,
    counts: { visuallyConfused: c, terminalRegressions: t, textOverwritten: o },
  };
}

function bruteMembership(w: World, common: number[], a: readonly string[], b: readonly string[], f: keyof ItemFlags): MembershipChange {
  const onlyMain: string[] = [];
  const onlyVariant: string[] = [];
  let both = 0;
  for (const i of common) {
    const x = itemFlags(w, i, a)[f];
    const y = itemFlags(w, i, b)[f];
    if (x && y) both++;
    else if (x) onlyMain.push(w.ids[i]!);
    else if (y) onlyVariant.push(w.ids[i]!);
  }
  const union = both + onlyMain.length + onlyVariant.length;
  // Ids here are ASCII, where the default sort is code-point order.
  return { onlyMain: onlyMain.sort(), onlyVariant: onlyVariant.sort(), both, jaccard: union === 0 ? null : both / union };
}

/** §6 protocol agreement of grid `variantGrid` with `mainGrid`, both in config order. */
function bruteAgreement(w: World, main: string, mainGrid: readonly string[], protocol: string, variantGrid: readonly string[]): ProtocolAgreement {
  const a = mainGrid.filter((k) => variantGrid.some((v) => budget(v) === budget(k)));
  const b = variantGrid.filter((k) => mainGrid.some((v) => budget(v) === budget(k)));
  const common = w.ids.map((_, i) => i).filter((i) => complete(w, i, a) && complete(w, i, b));
  const hasText = a.some((k) => framesOf(k) === 0);
  return {
    budgets: a.map(budget),
    main: bruteSide(w, main, a),
    variant: bruteSide(w, protocol, b),
    nCommon: common.length,
    confused: bruteMembership(w, common, a, b, 'confused'),
    terminalRegression: bruteMembership(w, common, a, b, 'terminalRegression'),
    textOverwritten: hasText ? bruteMembership(w, common, a, b, 'textOverwritten') : null,
  };
}

/** §6 sampling recovery of the main grid's terminal regressions by `alternatives`. */
function bruteRecovery(w: World, mainGrid: readonly string[], alternatives: readonly string[]): SamplingRecovery {
  const terminal = terminalOf(mainGrid);
  const base = { terminalConfig: terminal, alternatives: [...alternatives] };
  if (alternatives.length === 0) {
    return { ...base, n: 0, regressions: 0, recovered: 0, recoveryRate: null, recoveredItems: [], note: expect.stringContaining(terminal) as string };
  }
  const items = w.ids.map((_, i) => i).filter((i) => complete(w, i, mainGrid) && complete(w, i, alternatives));
  const regressed = items.filter((i) => itemFlags(w, i, mainGrid).terminalRegression);
  const recovered = regressed.filter((i) => alternatives.some((k) => w.cell(i, k) === 1)).map((i) => w.ids[i]!);
  return {
    ...base,
    n: items.length,
    regressions: regressed.length,
    recovered: recovered.length,
    recoveryRate: regressed.length > 0 ? recovered.length / regressed.length : null,
    recoveredItems: recovered.sort(),
    note: regressed.length > 0 ? null : (expect.stringContaining('no terminal regression') as string),
  };
}

describe('agreement and recovery equal a brute-force recomputation of §6', () => {
  const MAIN = ['textonly', '16f', '32f', '64f'];
  // Each protocol's grid in config order: @random and @raw have no text only of their own, so the
  // untagged one joins them; 128f@random has no main budget, so agreement leaves it out.
  const GRIDS: Record<string, string[]> = {
    random: ['textonly', '16f@random', '32f@random', '128f@random'],
    raw: ['textonly', '64f@raw'],
    subs: ['textonly@subs', '32f@subs', '64f@subs'],
  };
  const ALL = [...MAIN, ...GRIDS.random!.slice(1), ...GRIDS.raw!.slice(1), ...GRIDS.subs!];

  /**
   * A seeded random world: cells of 32 frames and more go missing at random (so the items
   * complete in each grid differ both ways), the others are always there (so every item has a
   * cell in every grid); ids are a shuffled, not sorted, list.
   */
  function world(seed: number, nItems: number): { w: World; patterns: string[] } {
    const rand = mulberry32(seed);
    const perm = seededPermutation(nItems, seed + 1);
    const ids = Array.from(perm, (p) => `it${String(p).padStart(3, '0')}`);
    const cells = ids.map(() => ALL.map((k): Cell => (framesOf(k) >= 32 && rand() < 0.2 ? null : rand() < 0.55 ? 1 : 0)));
    const w: World = { ids, cell: (i, k) => cells[i]![ALL.indexOf(k)]! };
    const patterns = cells.map((row) => row.map((v) => (v === null ? '.' : String(v))).join(''));
    return { w, patterns };
  }

  for (const seed of [101, 202, 303, 404]) {
    it(`seed ${seed}: each variant's agreement and recovery, and recovery by any protocol`, () => {
      const { w, patterns } = world(seed, 60);
      const r = compareProtocols(fromPatterns(ALL, patterns, w.ids), '')!;
      expect(r.mainConfigs).toEqual(MAIN);
      expect(r.variants.map((v) => [v.protocol, v.configs])).toEqual(Object.entries(GRIDS));
      const alternatives: Record<string, string[]> = { random: [], raw: ['64f@raw'], subs: ['64f@subs'] };
      for (const v of r.variants) {
        expect(v.agreement).toEqual(bruteAgreement(w, '', MAIN, v.protocol, GRIDS[v.protocol]!));
        expect(v.agreementNote).toBeNull();
        expect(v.recovery).toEqual(bruteRecovery(w, MAIN, alternatives[v.protocol]!));
      }
      expect(r.anyRecovery).toEqual(bruteRecovery(w, MAIN, ['64f@raw', '64f@subs']));
    });
  }

  it('the random worlds do exercise every branch the comparison has', () => {
    // Guards the brute-force test above against data too tame to tell right from wrong.
    let onlyMain = 0;
    let onlyVariant = 0;
    let recovered = 0;
    let missed = 0;
    for (const seed of [101, 202, 303, 404]) {
      const { w } = world(seed, 60);
      for (const [p, grid] of Object.entries(GRIDS)) {
        const a = bruteAgreement(w, '', MAIN, p, grid);
        for (const s of [a.confused, a.terminalRegression, a.textOverwritten!]) {
          onlyMain += s.onlyMain.length > 1 ? 1 : 0;
          onlyVariant += s.onlyVariant.length > 1 ? 1 : 0;
        }
      }
      const any = bruteRecovery(w, MAIN, ['64f@raw', '64f@subs']);
      recovered += any.recovered;
      missed += any.regressions - any.recovered;
    }
    expect(onlyMain).toBeGreaterThan(4);
    expect(onlyVariant).toBeGreaterThan(4);
    expect(recovered).toBeGreaterThan(0);
    expect(missed).toBeGreaterThan(0);
  });
});

describe('comparison edges', () => {
  it('a one-config main grid without text: its terminal is that config, empty sets have no Jaccard', () => {
    // No config has a lower budget than the only one: no confusion, no terminal regression.
    const m = fromPatterns(['32f_151k', '32f_151k@random'], ['10', '01', '1.', '00'], ['d', 'c', 'b', 'a']);
    const r = compareProtocols(m, '')!;
    const a = r.variants[0]!.agreement!;
    expect(a.budgets).toEqual(['32f_151k']);
    expect(a.main).toEqual({
      protocol: '',
      configs: ['32f_151k'],
      n: 4,
      nExcluded: 0,
      terminalConfig: '32f_151k',
      visualConfusionRate: 0,
      terminalRegressionRate: 0,
      textOverwriteRate: null,
      counts: { visuallyConfused: 0, terminalRegressions: 0, textOverwritten: 0 },
    });
    expect(a.variant).toMatchObject({ protocol: 'random', configs: ['32f_151k@random'], n: 3, nExcluded: 1, terminalConfig: '32f_151k@random', textOverwriteRate: null });
    expect(a.nCommon).toBe(3);
    const none = { onlyMain: [], onlyVariant: [], both: 0, jaccard: null };
    expect(a.confused).toEqual(none);
    expect(a.terminalRegression).toEqual(none);
    expect(a.textOverwritten).toBeNull();
    // The alternative answers items d, c, a (b has no cell there); no terminal regression to recover.
    expect(r.variants[0]!.recovery).toEqual({
      terminalConfig: '32f_151k',
      alternatives: ['32f_151k@random'],
      n: 3,
      regressions: 0,
      recovered: 0,
      recoveryRate: null,
      recoveredItems: [],
      note: expect.stringContaining('no terminal regression') as string,
    });
  });

  it('recovery counts only items with a cell at every alternative, at the terminal frames and ppf', () => {
    // Main {text, 16f, 32f_151k}; @random has 32f at 151k (the terminal's budget) and at 300k (not).
    // cols: text 16f 32f | 32f@random 32f_300k@random
    const m = fromPatterns(
      ['textonly', '16f_151k', '32f_151k', '32f_151k@random', '32f_300k@random'],
      [
        '11010', // z: regression (32f wrong, text right), recovered at 32f@random
        '01001', // y: regression (16f right), not recovered (the 300k config does not count)
        '1.011', // x: not complete on the main grid
        '1101.', // w: regression, recovered; no cell at 32f_300k, which is no alternative
        '100.1', // v: regression, no cell at the alternative: not counted
        '11111', // u: no regression
      ],
      ['z', 'y', 'x', 'w', 'v', 'u'],
    );
    const rec = compareProtocols(m, '')!.variants[0]!.recovery;
    expect(rec).toEqual({
      terminalConfig: '32f_151k',
      alternatives: ['32f_151k@random'],
      n: 4,
      regressions: 3,
      recovered: 2,
      recoveryRate: 2 / 3,
      recoveredItems: ['w', 'z'],
      note: null,
    });
  });

  it('a protocol of text only is no variant; without another protocol there is no recovery by any', () => {
    const m = fromPatterns(['textonly', '16f', '32f', 'textonly@subs'], ['1011', '0110']);
    const r = compareProtocols(m, '')!;
    expect(r.mainConfigs).toEqual(['textonly', '16f', '32f']);
    expect(r.variants).toEqual([]);
    expect(r.anyRecovery).toBeNull();
  });

  it('no shared visual budget: the note names the protocol and lists its configs', () => {
    const m = fromPatterns(['textonly', '16f', '32f@subs', '64f@subs'], ['1111']);
    const v = compareProtocols(m, '')!.variants[0]!;
    expect(v.agreement).toBeNull();
    expect(v.agreementNote).toContain('@subs has textonly, 32f@subs, 64f@subs');
  });

  it('only multiple-choice matrices are compared', () => {
    const m = createMatrix({ model: 'M', split: 'S', kind: 'open', itemIds: ['a'], configs: [makeConfigSpec('16f'), makeConfigSpec('16f@random')] });
    expect(() => compareProtocols(m, '')).toThrow(/protocol comparison/);
  });
});
