import { describe, expect, it } from 'vitest';
import {
  compareCodePoints,
  configKeyFor,
  configOrder,
  isLowerBudget,
  ladder,
  makeConfigSpec,
  mostCommonPpf,
  parseConfigKey,
  pixelLabelFor,
  sameLabelledBudget,
  terminalConfig,
} from '../../../shared/engine/config';

const spec = (k: string, over = {}) => makeConfigSpec(k, over);
const keys = (cs: { key: string }[]) => cs.map((c) => c.key);

describe('parseConfigKey', () => {
  it('reads the release keys', () => {
    expect(parseConfigKey('textonly')).toEqual({ frames: 0, pixelCount: 0, pixelLabel: null, variant: null });
    expect(parseConfigKey('16f_151k')).toEqual({ frames: 16, pixelCount: 151000, pixelLabel: '151k', variant: null });
    expect(parseConfigKey('128f_input224')).toEqual({ frames: 128, pixelCount: 224 * 224, pixelLabel: 'input224', variant: null });
    expect(parseConfigKey('16f')).toEqual({ frames: 16, pixelCount: null, pixelLabel: null, variant: null });
    expect(parseConfigKey('8f_2m').pixelCount).toBe(2_000_000);
    expect(parseConfigKey('8f_1.5k').pixelCount).toBe(1500);
    expect(parseConfigKey('8f_50176').pixelCount).toBe(50176);
    expect(parseConfigKey('8f_448x252').pixelCount).toBe(448 * 252);
    expect(parseConfigKey('64f_151k@random')).toEqual({ frames: 64, pixelCount: 151000, pixelLabel: '151k', variant: 'random' });
  });
  it('rejects junk with a message naming the key', () => {
    for (const junk of ['', 'text', '16', 'f16', '0f', '16f_', '16f_abc', '16f_151q', '-4f', '16F_151k', '16f_1.2345k', '16f_151k@']) {
      expect(() => parseConfigKey(junk), junk).toThrow(new RegExp(`"${junk.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    }
  });
  it('round-trips through configKeyFor', () => {
    expect(configKeyFor(0, null)).toBe('textonly');
    expect(configKeyFor(0, '151k')).toBe('textonly');
    expect(configKeyFor(16, null)).toBe('16f');
    expect(configKeyFor(16, '151k')).toBe('16f_151k');
    expect(configKeyFor(128, 'input224')).toBe('128f_input224');
    expect(() => configKeyFor(16, 'bogus')).toThrow(/bogus/);
    expect(() => configKeyFor(-1, null)).toThrow();
    expect(pixelLabelFor(151000)).toBe('151k');
    // The release's `<frames>f_<k>k` naming (docs/formats.md "One config identity"): thousands, rounded.
    expect(pixelLabelFor(151200)).toBe('151k');
    expect(pixelLabelFor(75600)).toBe('76k');
    expect(pixelLabelFor(50176)).toBe('50k');
    expect(pixelLabelFor(784)).toBe('784');
    expect(sameLabelledBudget('151k', 151000, 151200)).toBe(true);
    expect(sameLabelledBudget('151k', 151000, 152000)).toBe(false);
    expect(sameLabelledBudget('input224', 50176, 50000)).toBe(false);
  });
  it('makeConfigSpec fills unknowns with null and lets partial fields win', () => {
    const c = makeConfigSpec('32f_302k');
    expect(c).toEqual({
      key: '32f_302k',
      frames: 32,
      pixelCount: 302000,
      width: null,
      height: null,
      sampling: { policy: null, seed: null, fps: null },
      pipeline: null,
      toolkit: null,
      modelArgs: null,
      notes: null,
    });
    expect(makeConfigSpec('32f', { pixelCount: 1000, pipeline: 'cache' })).toMatchObject({ pixelCount: 1000, pipeline: 'cache' });
  });
});

describe('isLowerBudget (dominance)', () => {
  const t = spec('textonly');
  it('text is below every visual config, known or unknown ppf, and not below itself', () => {
    expect(isLowerBudget(t, spec('16f_151k'))).toBe(true);
    expect(isLowerBudget(t, spec('16f'))).toBe(true);
    expect(isLowerBudget(spec('16f'), t)).toBe(false);
    expect(isLowerBudget(t, t)).toBe(false);
  });
  it('orders by frames and ppf with one strict', () => {
    expect(isLowerBudget(spec('16f_151k'), spec('32f_151k'))).toBe(true);
    expect(isLowerBudget(spec('64f_76k'), spec('64f_151k'))).toBe(true);
    expect(isLowerBudget(spec('32f_76k'), spec('64f_151k'))).toBe(true);
    expect(isLowerBudget(spec('32f_151k'), spec('16f_151k'))).toBe(false);
    expect(isLowerBudget(spec('32f_151k'), spec('32f_151k'))).toBe(false);
  });
  it('iso-compute pairs are not ordered either way', () => {
    expect(isLowerBudget(spec('32f_302k'), spec('128f_76k'))).toBe(false);
    expect(isLowerBudget(spec('128f_76k'), spec('32f_302k'))).toBe(false);
  });
  it('unknown ppf: equal to unknown, incomparable with known', () => {
    expect(isLowerBudget(spec('16f'), spec('32f'))).toBe(true);
    expect(isLowerBudget(spec('32f'), spec('16f'))).toBe(false);
    expect(isLowerBudget(spec('16f'), spec('32f_151k'))).toBe(false);
    expect(isLowerBudget(spec('16f_151k'), spec('32f'))).toBe(false);
  });
  it('configs differing only in policy are not ordered', () => {
    expect(isLowerBudget(spec('64f_151k'), spec('64f_151k@random'))).toBe(false);
    expect(isLowerBudget(spec('64f_151k@random'), spec('64f_151k'))).toBe(false);
  });
});

describe('config order, ladder, terminal', () => {
  const qwen = ['128f_151k', '128f_76k', '16f_151k', '256f_151k', '32f_151k', '32f_302k', '64f_151k', '64f_235k', '64f_360k', '64f_76k', 'textonly'];
  it("reproduces the release's order for Qwen2.5-VL-7B V1_short", () => {
    expect(keys(configOrder(qwen.map((k) => spec(k))))).toEqual([
      'textonly',
      '16f_151k',
      '32f_151k',
      '64f_151k',
      '128f_151k',
      '256f_151k',
      '128f_76k',
      '32f_302k',
      '64f_235k',
      '64f_360k',
      '64f_76k',
    ]);
    expect(keys(ladder(qwen.map((k) => spec(k))))).toEqual(['textonly', '16f_151k', '32f_151k', '64f_151k', '128f_151k', '256f_151k']);
    expect(terminalConfig(qwen.map((k) => spec(k)))!.key).toBe('256f_151k');
  });
  it('frames sort numerically, not as text', () => {
    expect(keys(configOrder(['8f_151k', '32f_151k', 'textonly', '16f_151k'].map((k) => spec(k))))).toEqual(['textonly', '8f_151k', '16f_151k', '32f_151k']);
  });
  it('breaks a most-common tie toward the known, then the smaller, ppf', () => {
    const cs = ['32f_302k', '16f_302k', '64f_76k', '8f_76k', '4f', '2f'].map((k) => spec(k));
    expect(mostCommonPpf(cs)).toEqual({ ppf: 76000 });
    expect(keys(configOrder(cs))).toEqual(['8f_76k', '64f_76k', '16f_302k', '2f', '32f_302k', '4f']);
    expect(mostCommonPpf(['4f', '2f', '8f_1k'].map((k) => spec(k)))).toEqual({ ppf: null });
    expect(mostCommonPpf([spec('textonly')])).toBeUndefined();
  });
  it('ladder keeps one rung per frame count; text-free and resolution-less grids work', () => {
    expect(keys(ladder(['64f_151k@random', '64f_151k', '32f_151k'].map((k) => spec(k))))).toEqual(['32f_151k', '64f_151k']);
    expect(keys(ladder(['32f', '16f', 'textonly'].map((k) => spec(k))))).toEqual(['textonly', '16f', '32f']);
    expect(keys(ladder([spec('128f_input224')]))).toEqual(['128f_input224']);
  });
  it('terminal: largest frames × ppf, ties to more frames then larger key; unknown ppf only when none known', () => {
    expect(terminalConfig(['32f_302k', '64f_151k', 'textonly'].map((k) => spec(k)))!.key).toBe('64f_151k');
    expect(terminalConfig(['64f_151k@b', '64f_151k@a'].map((k) => spec(k)))!.key).toBe('64f_151k@b');
    expect(terminalConfig(['256f', '16f_151k'].map((k) => spec(k)))!.key).toBe('16f_151k');
    expect(terminalConfig(['256f', '16f'].map((k) => spec(k)))!.key).toBe('256f');
    expect(terminalConfig([spec('textonly')])!.key).toBe('textonly');
    expect(terminalConfig([])).toBeUndefined();
  });
  it('compares code points, not UTF-16 units', () => {
    expect(compareCodePoints('\u{1F600}', '\uFFFF')).toBe(1);
    expect('\u{1F600}' < '\uFFFF').toBe(true);
    expect(compareCodePoints('a', 'ab')).toBe(-1);
    expect(compareCodePoints('ab', 'a')).toBe(1);
    expect(compareCodePoints('x\uE000', 'x\u{10000}')).toBe(-1);
    expect(compareCodePoints('\uD7FF', '\u{10000}')).toBe(-1);
    const words = ['\u{1F600}', '\uFFFF', 'a', '\uE000', '\uD7FF', 'ab', '', '\u{10000}z'];
    const byPoints = (x: string, y: string) => {
      const p = [...x].map((c) => c.codePointAt(0)!);
      const q = [...y].map((c) => c.codePointAt(0)!);
      for (let i = 0; i < Math.min(p.length, q.length); i++) if (p[i] !== q[i]) return p[i]! - q[i]!;
      return p.length - q.length;
    };
    expect([...words].sort(compareCodePoints)).toEqual([...words].sort(byPoints));
  });
});
