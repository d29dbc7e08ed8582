import { beforeAll, describe, expect, it } from 'vitest';
import { makeConfigSpec, parseConfigKey } from '../../../shared/engine/config';
import { compareProtocols, defaultMainProtocol, mainConfigs, protocolConfigs, protocolOf, protocolsOf } from '../../../shared/engine/protocols';
import { fromPatterns } from './helpers';

const keys = (cs: { key: string }[]) => cs.map((c) => c.key);

describe('protocols of config keys (docs/metrics.md §6)', () => {
  const grid = ['textonly', '16f_151k', '64f_151k', '64f_151k@random', '32f_151k@subs', 'textonly@subs', '64f_151k@raw'].map((k) => makeConfigSpec(k));
  it('a variant is the protocol; text only may carry one', () => {
    expect(protocolOf('64f_151k@random')).toBe('random');
    expect(protocolOf('64f_151k')).toBe('');
    expect(parseConfigKey('textonly@subs')).toEqual({ frames: 0, pixelCount: 0, pixelLabel: null, variant: 'subs' });
    expect(protocolsOf(keys(grid))).toEqual(['', 'random', 'raw', 'subs']);
  });
  it("a protocol's grid: its configs, plus the untagged text only when it has none of its own", () => {
    expect(keys(protocolConfigs(grid, ''))).toEqual(['textonly', '16f_151k', '64f_151k']);
    expect(keys(protocolConfigs(grid, 'random'))).toEqual(['textonly', '64f_151k@random']);
    expect(keys(protocolConfigs(grid, 'subs'))).toEqual(['32f_151k@subs', 'textonly@subs']);
    expect(keys(protocolConfigs(grid, 'none'))).toEqual([]);
  });
  it('no main grid where the main protocol has only text beside other protocols’ visual configs', () => {
    const g = ['textonly', '16f@subs', '32f@subs'].map((k) => makeConfigSpec(k));
    expect(mainConfigs(g, '')).toEqual([]);
    expect(keys(mainConfigs(g, 'subs'))).toEqual(['textonly', '16f@subs', '32f@subs']);
    expect(keys(mainConfigs([makeConfigSpec('textonly')], ''))).toEqual(['textonly']);
  });
  it('default main protocol: untagged when a visual config is, else the most common tag', () => {
    expect(defaultMainProtocol(['textonly', '16f', '16f@random'])).toBe('');
    expect(defaultMainProtocol(['textonly', '16f@subs', '32f@subs', '16f@raw'])).toBe('subs');
    expect(defaultMainProtocol(['16f@b', '16f@a'])).toBe('a');
    expect(defaultMainProtocol(['textonly'])).toBe('');
  });
});

describe('compareProtocols', () => {
  // columns: text, 16f, 32f, 32f@random, 16f@raw   (items a–f)
  const cols = ['textonly', '16f_151k', '32f_151k', '32f_151k@random', '16f_151k@raw'];
  const m = fromPatterns(cols, ['01011', '11001', '10110', '11100', '0101.', '00111'], ['a', 'b', 'c', 'd', 'e', 'f']);
  // Computed in beforeAll, not while the file is collected: a throw there fails the tests
  // below instead of the whole file (which a mutation run would count as no failure).
  let r!: NonNullable<ReturnType<typeof compareProtocols>>;
  beforeAll(() => {
    r = compareProtocols(m, '')!;
  });
  it('main grid, and every other protocol with its grid', () => {
    expect(r.mainConfigs).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(r.variants.map((v) => [v.protocol, v.configs])).toEqual([
      ['random', ['textonly', '32f_151k@random']],
      ['raw', ['textonly', '16f_151k@raw']],
    ]);
  });
  it('agreement on the shared budgets: rates per side, membership moves and Jaccard', () => {
    const a = r.variants[0]!.agreement!;
    expect(a.budgets).toEqual(['textonly', '32f_151k']);
    // main {text, 32f}: a 00, b 10, c 11, d 11, e 00, f 01 → confused (text 1, 32f 0): b
    // random {text, 32f@random}: a 01, b 10, c 11, d 10, e 01, f 01 → confused: b, d
    expect(a.main.visualConfusionRate).toBeCloseTo(1 / 6, 15);
    expect(a.variant.visualConfusionRate).toBeCloseTo(2 / 6, 15);
    expect(a.confused).toEqual({ onlyMain: [], onlyVariant: ['d'], both: 1, jaccard: 1 / 2 });
    expect(a.textOverwritten).toEqual({ onlyMain: [], onlyVariant: ['d'], both: 1, jaccard: 1 / 2 });
    const raw = r.variants[1]!.agreement!;
    // raw's complete items exclude e (no cell); main {text,16f}: a 01 b 11 c 10 d 11 f 00 → confused c
    // raw {text,16f@raw}: a 01 b 11 c 10 d 10 f 01 → confused c, d
    expect(raw.nCommon).toBe(5);
    expect(raw.confused).toEqual({ onlyMain: [], onlyVariant: ['d'], both: 1, jaccard: 1 / 2 });
  });
  it('sampling recovery at the terminal budget, and none without a config there', () => {
    // main terminal 32f_151k; terminal regressions (32f wrong, text or 16f right): a, b, e
    const rec = r.variants[0]!.recovery;
    expect(rec).toMatchObject({ terminalConfig: '32f_151k', alternatives: ['32f_151k@random'], n: 6, regressions: 3, recovered: 2 });
    expect(rec.recoveredItems).toEqual(['a', 'e']);
    expect(rec.recoveryRate).toBeCloseTo(2 / 3, 15);
    expect(r.variants[1]!.recovery.recoveryRate).toBeNull();
    expect(r.variants[1]!.recovery.note).toMatch(/terminal 32f_151k/);
    expect(r.anyRecovery).toMatchObject({ alternatives: ['32f_151k@random'], recovered: 2 });
  });
  it('no agreement without a shared visual budget; no report without a main grid', () => {
    const x = fromPatterns(['textonly', '16f', '32f@subs'], ['111']);
    const v = compareProtocols(x, '')!.variants[0]!;
    expect(v.agreement).toBeNull();
    expect(v.agreementNote).toMatch(/no visual budget in common/);
    expect(compareProtocols(fromPatterns(['textonly', '16f@subs'], ['11']), '')).toBeNull();
  });
});
