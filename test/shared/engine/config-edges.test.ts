/**
 * Edge cases of config keys, the budget order and the release's config order (docs/metrics.md §1,
 * docs/formats.md "One config identity") that config.test.ts does not reach.
 */
import { describe, expect, it } from 'vitest';
import type { ConfigSpec } from '../../../shared/domain/types';
import {
  compareCodePoints,
  configKeyFor,
  configOrder,
  isLowerBudget,
  ladder,
  makeConfigSpec,
  mostCommonPpf,
  parseConfigKey,
  parsePixelLabel,
  pixelLabelFor,
  sameLabelledBudget,
  terminalConfig,
} from '../../../shared/engine/config';
import { mulberry32 } from '../../../shared/engine/prng';

const spec = (k: string, over: Partial<ConfigSpec> = {}) => makeConfigSpec(k, over);
const specs = (ks: readonly string[]) => ks.map((k) => spec(k));
const keys = (cs: readonly { key: string }[]) => cs.map((c) => c.key);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('parsePixelLabel', () => {
  it('reads decimal k and m labels that name a whole count', () => {
    expect(parsePixelLabel('1.25k')).toBe(1250);
    expect(parsePixelLabel('1.1m')).toBe(1_100_000);
    // 128.003 × 1000 is 128002.99999999999 in floating point: still the whole count 128003.
    expect(parsePixelLabel('128.003k')).toBe(128_003);
  });

  it('every whole count written as an exact decimal k or m label reads back as that count (seed 20240611)', () => {
    const rnd = mulberry32(20240611);
    for (let t = 0; t < 400; t++) {
      // Counts up to 2^46 so that the float error of the product exceeds 1e-6 for some of them.
      const n = 1 + Math.floor(rnd() * 2 ** 46);
      const digits = String(n);
      for (const [unit, places] of [
        ['k', 3],
        ['m', 6],
      ] as const) {
        const padded = digits.padStart(places + 1, '0');
        const label = `${padded.slice(0, -places)}.${padded.slice(-places)}${unit}`;
        expect(parsePixelLabel(label), label).toBe(n);
      }
    }
  });

  it('reads input<side> and <w>x<h> only when they are the whole label', () => {
    expect(parsePixelLabel('input224')).toBe(224 * 224);
    expect(parsePixelLabel('448x252')).toBe(448 * 252);
    for (const junk of ['xinput224', 'input224x', 'a448x448', '448x448a', 'abc']) {
      expect(() => parsePixelLabel(junk), junk).toThrow(new RegExp(`"${escape(junk)}" is not understood`));
    }
  });

  it('rejects a zero budget, naming the label', () => {
    for (const zero of ['0', '0k', '0.0m', 'input0', '0x448', '448x0']) {
      expect(() => parsePixelLabel(zero), zero).toThrow(new RegExp(`"${escape(zero)}"`));
    }
  });

  it('rejects a fraction of a pixel, naming the label', () => {
    expect(() => parsePixelLabel('1.2345k')).toThrow(/"1\.2345k" is not a positive whole number/);
  });
});

describe('parseConfigKey', () => {
  it('reads textonly@<variant> (text only under another protocol)', () => {
    expect(parseConfigKey('textonly@subs')).toEqual({ frames: 0, pixelCount: 0, pixelLabel: null, variant: 'subs' });
    expect(parseConfigKey('textonly@seed7.b')).toEqual({ frames: 0, pixelCount: 0, pixelLabel: null, variant: 'seed7.b' });
  });

  it('rejects text-only keys that are not exactly textonly@<variant>', () => {
    for (const junk of ['xtextonly@subs', 'textonly@subs!', 'textonly@-subs', 'textonly@']) {
      expect(() => parseConfigKey(junk), junk).toThrow(new RegExp(`"${escape(junk)}"`));
    }
  });

  it('says which forms a key may take, the @<variant> suffix included', () => {
    expect(() => parseConfigKey('16')).toThrow(/"textonly".*"<frames>f_<pixels>".*@<variant>/);
  });
});

describe('configKeyFor', () => {
  it('writes variants and treats an empty pixel label as none', () => {
    expect(configKeyFor(0, null, 'subs')).toBe('textonly@subs');
    expect(configKeyFor(64, '151k', 'random')).toBe('64f_151k@random');
    expect(configKeyFor(16, null, 'raw')).toBe('16f@raw');
    expect(configKeyFor(16, '')).toBe('16f');
    for (const [frames, label, variant] of [
      [0, null, 'subs'],
      [64, '151k', 'random'],
      [16, '', null],
    ] as const) {
      const p = parseConfigKey(configKeyFor(frames, label, variant));
      expect(p.frames).toBe(frames);
      expect(p.variant).toBe(variant);
    }
  });

  it('rejects a frame count that is not a whole number ≥ 0 with its own message', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => configKeyFor(bad, null), String(bad)).toThrow(new RegExp(`frame count ${escape(String(bad))} is not a whole number ≥ 0`));
    }
  });
});

describe('pixel labels of counts (docs/formats.md "One config identity")', () => {
  it('writes 1000 as 1k: only counts below 1000 keep their digits', () => {
    expect(pixelLabelFor(1000)).toBe('1k');
    expect(pixelLabelFor(999)).toBe('999');
  });

  it('an exact count always matches itself, whatever the label', () => {
    expect(sameLabelledBudget('input224', 50176, 50176)).toBe(true);
    expect(sameLabelledBudget('448x448', 200704, 200704)).toBe(true);
  });

  it('a <n>k label covers two counts only when both round to n thousand', () => {
    expect(sameLabelledBudget('151k', 151200, 151000)).toBe(true);
    expect(sameLabelledBudget('151k', 152000, 151000)).toBe(false);
    expect(sameLabelledBudget('151k', 151000, 152000)).toBe(false);
  });

  it('a label that is not exactly <n>k stands for its exact count', () => {
    // Each of these contains a "151k" but is not a `<n>k` label, so 151000 and 151200 differ.
    for (const label of ['0.151k', 'x151k', '151kx']) {
      expect(sameLabelledBudget(label, 151000, 151200), label).toBe(false);
    }
  });
});

describe('isLowerBudget (docs/metrics.md §1)', () => {
  it('a known ppf, even 0, is not comparable with an unknown one', () => {
    const zero = spec('16f', { pixelCount: 0 });
    expect(isLowerBudget(zero, spec('32f'))).toBe(false);
    expect(isLowerBudget(spec('8f'), zero)).toBe(false);
  });

  it('configs with unknown ppf and equal frames (policy variants) are not ordered', () => {
    expect(isLowerBudget(spec('64f'), spec('64f@random'))).toBe(false);
    expect(isLowerBudget(spec('64f@random'), spec('64f'))).toBe(false);
  });
});

describe('compareCodePoints', () => {
  const byPoints = (x: string, y: string) => {
    const p = [...x].map((c) => c.codePointAt(0)!);
    const q = [...y].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(p.length, q.length); i++) if (p[i] !== q[i]) return Math.sign(p[i]! - q[i]!);
    return Math.sign(p.length - q.length);
  };

  it('is 0 for equal strings and antisymmetric', () => {
    expect(compareCodePoints('abc', 'abc')).toBe(0);
    expect(compareCodePoints('', '')).toBe(0);
    expect(compareCodePoints('\u{1F600}', '\u{1F600}')).toBe(0);
    expect(compareCodePoints('\u{10000}', '\uE000')).toBe(1);
    expect(compareCodePoints('\uE000', '\u{10000}')).toBe(-1);
  });

  it('agrees with a code-point by code-point comparison on seeded strings around the surrogates (seed 7)', () => {
    const rnd = mulberry32(7);
    const units = [0x41, 0x7a, 0xd7ff, 0xe000, 0xe001, 0xfffe, 0xffff];
    const pieces = [...units.map((u) => String.fromCharCode(u)), '\u{10000}', '\u{1F600}', '\u{10FFFF}'];
    const word = () => Array.from({ length: Math.floor(rnd() * 4) }, () => pieces[Math.floor(rnd() * pieces.length)]!).join('');
    for (let t = 0; t < 2000; t++) {
      const a = word();
      const b = rnd() < 0.1 ? a : word();
      expect(compareCodePoints(a, b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`).toBe(byPoints(a, b));
    }
  });
});

describe('mostCommonPpf', () => {
  it('the larger group wins even when a smaller group comes first', () => {
    expect(mostCommonPpf(specs(['16f_76k', '16f_151k', '32f_151k']))).toEqual({ ppf: 151000 });
    expect(mostCommonPpf(specs(['16f', '16f_151k', '32f_151k']))).toEqual({ ppf: 151000 });
    expect(mostCommonPpf(specs(['16f_151k', '16f', '32f']))).toEqual({ ppf: null });
  });

  it('ties: a known ppf beats unknown in either order, then the smaller ppf', () => {
    expect(mostCommonPpf(specs(['4f', '8f_1k']))).toEqual({ ppf: 1000 });
    expect(mostCommonPpf(specs(['8f_1k', '4f']))).toEqual({ ppf: 1000 });
    expect(mostCommonPpf(specs(['4f', '8f_2k', '8f_1k']))).toEqual({ ppf: 1000 });
    expect(mostCommonPpf(specs(['8f_1k', '4f', '8f_2k']))).toEqual({ ppf: 1000 });
  });

  it('text only is no budget of its own', () => {
    expect(mostCommonPpf(specs(['textonly', 'textonly@subs', '8f_2k']))).toEqual({ ppf: 2000 });
    expect(mostCommonPpf([])).toBeUndefined();
  });
});

describe('configOrder and ladder', () => {
  it('several text configs come first, in key order', () => {
    expect(keys(configOrder(specs(['16f_151k', 'textonly@subs', 'textonly'])))).toEqual(['textonly', 'textonly@subs', '16f_151k']);
  });

  it('a ladder starts at the smallest frame count, even 1', () => {
    expect(keys(ladder(specs(['2f_151k', '1f_151k'])))).toEqual(['1f_151k', '2f_151k']);
  });

  it('text only is one rung whatever ppf it records', () => {
    const text = spec('textonly', { pixelCount: null });
    expect(keys(ladder([text, ...specs(['32f', '16f'])]))).toEqual(['textonly', '16f', '32f']);
  });

  it('a grid without visual configs has only text on its ladder', () => {
    expect(keys(ladder(specs(['textonly'])))).toEqual(['textonly']);
    expect(ladder([])).toEqual([]);
  });
});

describe('terminalConfig (docs/metrics.md §2: largest frames × ppf, ties: more frames, then the larger key)', () => {
  it('is the largest product, not the most frames or the largest ppf alone, in any input order', () => {
    // 16 × 302000 = 4 832 000 > 32 × 76000 = 2 432 000
    const cs = specs(['32f_76k', '16f_302k', '8f_151k']);
    expect(terminalConfig(cs)!.key).toBe('16f_302k');
    expect(terminalConfig([...cs].reverse())!.key).toBe('16f_302k');
    expect(terminalConfig(specs(['64f_151k', '32f_151k']))!.key).toBe('64f_151k');
  });

  it('equal products: more frames wins even against a larger key', () => {
    // 8 × 302000 = 16 × 151000; "8f_302k" is the larger key.
    expect(terminalConfig(specs(['16f_151k', '8f_302k']))!.key).toBe('16f_151k');
    expect(terminalConfig(specs(['8f_302k', '16f_151k']))!.key).toBe('16f_151k');
  });

  it('equal products and frames: the larger key, in either order', () => {
    expect(terminalConfig(specs(['64f_151k@a', '64f_151k@b']))!.key).toBe('64f_151k@b');
    expect(terminalConfig(specs(['64f_151k@b', '64f_151k@a']))!.key).toBe('64f_151k@b');
  });

  it('unknown ppf does not compete while a known one exists, even a smaller product', () => {
    expect(terminalConfig(specs(['1024f', '1f_784']))!.key).toBe('1f_784');
    expect(terminalConfig(specs(['1f_784', '1024f']))!.key).toBe('1f_784');
  });

  it('a text-only grid: the larger key', () => {
    expect(terminalConfig(specs(['textonly@subs', 'textonly']))!.key).toBe('textonly@subs');
    expect(terminalConfig(specs(['textonly', 'textonly@subs']))!.key).toBe('textonly@subs');
  });
});
