/**
 * Config keys, the budget order (dominance) and the release's config order — docs/metrics.md §1,
 * docs/release-format.md ("config order", "matched grid").
 */
import type { ConfigSpec } from '../domain/types';

export interface ParsedConfigKey {
  frames: number;
  /** Pixels per frame; 0 for text only; null when the key carries no pixel budget. */
  pixelCount: number | null;
  /** The pixel part of the key as written (`151k`, `input224`, `448x448`); null if none. */
  pixelLabel: string | null;
  /**
   * Optional variant after `@` (e.g. `64f_151k@random`): distinguishes configs that differ only
   * in sampling policy or pipeline, which the `<frames>f_<pixels>` form alone cannot name.
   */
  variant: string | null;
}

const KEY_RE = /^([0-9]+)f(?:_([^@]+))?(?:@([A-Za-z0-9][A-Za-z0-9_.-]*))?$/;
const TEXT_VARIANT_RE = /^textonly@([A-Za-z0-9][A-Za-z0-9_.-]*)$/;
const SCALED_RE = /^([0-9]+(?:\.[0-9]+)?)([km]?)$/;
const INPUT_RE = /^input([0-9]+)$/;
const WXH_RE = /^([0-9]+)x([0-9]+)$/;

/** Pixel count of a pixel label: `151k` → 151000, `1.2m` → 1200000, `input224` → 224², `448x448`. */
export function parsePixelLabel(label: string): number {
  const scaled = SCALED_RE.exec(label);
  if (scaled) {
    const mult = scaled[2] === 'k' ? 1_000 : scaled[2] === 'm' ? 1_000_000 : 1;
    const v = Number(scaled[1]) * mult;
    // `1.5k` is fine (1500); `1.2345k` is not a whole pixel count.
    const r = Math.round(v);
    if (Math.abs(v - r) > 1e-6 * Math.max(1, v) || r <= 0) {
      throw new Error(`config pixel budget "${label}" is not a positive whole number of pixels`);
    }
    return r;
  }
  const input = INPUT_RE.exec(label);
  if (input) {
    const side = Number(input[1]);
    if (side <= 0) throw new Error(`config pixel budget "${label}" has a zero input side`);
    return side * side;
  }
  const wxh = WXH_RE.exec(label);
  if (wxh) {
    const w = Number(wxh[1]);
    const h = Number(wxh[2]);
    if (w <= 0 || h <= 0) throw new Error(`config pixel budget "${label}" has a zero side`);
    return w * h;
  }
  throw new Error(`config pixel budget "${label}" is not understood (expected e.g. 151k, 2m, 50176, input224 or 448x448)`);
}

/**
 * Parses `textonly`, `<frames>f`, `<frames>f_<pixels>` with an optional `@<variant>` suffix
 * (`textonly@<variant>` too).
 * Throws an Error naming the key for anything else.
 */
export function parseConfigKey(key: string): ParsedConfigKey {
  if (key === 'textonly') return { frames: 0, pixelCount: 0, pixelLabel: null, variant: null };
  // Text only under another protocol (e.g. subtitles and no frames: `textonly@subs`).
  const text = TEXT_VARIANT_RE.exec(key);
  if (text) return { frames: 0, pixelCount: 0, pixelLabel: null, variant: text[1]! };
  const m = KEY_RE.exec(key);
  if (!m) {
    throw new Error(
      `config key "${key}" is not understood: expected "textonly", "<frames>f" or "<frames>f_<pixels>" ` +
        `(e.g. 16f, 16f_151k, 128f_input224), optionally followed by "@<variant>"`,
    );
  }
  const frames = Number(m[1]);
  if (!Number.isSafeInteger(frames) || frames <= 0) {
    throw new Error(`config key "${key}" has frame count ${m[1]}: must be ≥ 1 (text only is "textonly")`);
  }
  const pixelLabel = m[2] ?? null;
  let pixelCount: number | null = null;
  if (pixelLabel !== null) {
    try {
      pixelCount = parsePixelLabel(pixelLabel);
    } catch (e) {
      throw new Error(`config key "${key}": ${(e as Error).message}`);
    }
  }
  return { frames, pixelCount, pixelLabel, variant: m[3] ?? null };
}

/** The key of a config: `textonly` for 0 frames, else `<frames>f` plus `_<pixelLabel>` when known. */
export function configKeyFor(frames: number, pixelLabel: string | null, variant: string | null = null): string {
  if (!Number.isSafeInteger(frames) || frames < 0) throw new Error(`frame count ${frames} is not a whole number ≥ 0`);
  if (frames === 0) return variant ? `textonly@${variant}` : 'textonly';
  const base = pixelLabel === null || pixelLabel === '' ? `${frames}f` : `${frames}f_${pixelLabel}`;
  const key = variant ? `${base}@${variant}` : base;
  parseConfigKey(key); // reject labels we could not read back
  return key;
}

/**
 * The release's label for a pixel count (docs/formats.md "One config identity"): thousands,
 * rounded, with `k` — `151000` and lmms-eval's `max_pixels=151200` are both `151k`, so a user's
 * logs and the public release name the same setting alike; below 1000, the digits.
 */
export function pixelLabelFor(pixelCount: number): string {
  if (pixelCount >= 1000) return `${Math.round(pixelCount / 1000)}k`;
  return String(pixelCount);
}

/**
 * Whether two pixel counts are the same budget under a key's pixel label: a `<n>k` label
 * stands for every count that rounds to n thousand (the release's 151000, lmms-eval's 151200);
 * any other label (`input224`, `448x448`, digits) for its exact count.
 */
export function sameLabelledBudget(label: string, a: number, b: number): boolean {
  if (a === b) return true;
  const m = /^(\d+)k$/.exec(label);
  if (!m) return false;
  const n = Number(m[1]);
  return Math.round(a / 1000) === n && Math.round(b / 1000) === n;
}

/** A full ConfigSpec for a key; `partial` fields win over what the key says (unknown fields null). */
export function makeConfigSpec(key: string, partial: Partial<ConfigSpec> = {}): ConfigSpec {
  const p = parseConfigKey(key);
  return {
    key,
    frames: partial.frames ?? p.frames,
    pixelCount: partial.pixelCount !== undefined ? partial.pixelCount : p.pixelCount,
    width: partial.width ?? null,
    height: partial.height ?? null,
    sampling: partial.sampling ?? { policy: null, seed: null, fps: null },
    pipeline: partial.pipeline ?? null,
    toolkit: partial.toolkit ?? null,
    modelArgs: partial.modelArgs ?? null,
    notes: partial.notes ?? null,
  };
}

/**
 * `a ≺ b` (docs/metrics.md §1): frames(a) ≤ frames(b) and ppf(a) ≤ ppf(b), one strict. Text is below
 * every visual config. Two unknown ppfs compare equal; a known and an unknown ppf are not
 * comparable, so neither is lower.
 */
export function isLowerBudget(a: ConfigSpec, b: ConfigSpec): boolean {
  const aText = a.frames === 0;
  const bText = b.frames === 0;
  if (aText || bText) return aText && !bText;
  const pa = a.pixelCount;
  const pb = b.pixelCount;
  if (pa === null || pb === null) {
    if (pa !== pb) return false;
    return a.frames < b.frames;
  }
  return a.frames <= b.frames && pa <= pb && (a.frames < b.frames || pa < pb);
}

/**
 * Code-point order of strings. JS `<` compares UTF-16 units, which differs from code-point order
 * only when a surrogate (U+D800–DFFF, part of a character above U+FFFF) meets a unit ≥ U+E000;
 * remapping those two ranges at the first difference fixes it without iterating code points.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    // The remap is a bijection of 0…0xFFFF, so x ≠ y still and the sign is -1 or 1.
    return Math.sign(x - y);
  }
  // Equal strings end here too (every unit matched, same length): -1, 0 or 1 by length.
  return Math.sign(a.length - b.length);
}

/**
 * The model's most common pixel budget among its visual configs (null = unknown counts as one
 * budget). Ties: the group with more configs wins; on equal counts a known ppf beats unknown and
 * the smaller ppf wins — a deterministic rule the release never needed (its grids have a clear
 * majority). Returns undefined when there is no visual config.
 */
export function mostCommonPpf(configs: readonly ConfigSpec[]): { ppf: number | null } | undefined {
  // Keyed by the ppf itself: null (unknown) is one key, and SameValueZero groups numbers as equal.
  const counts = new Map<number | null, { ppf: number | null; n: number }>();
  for (const c of configs) {
    if (c.frames === 0) continue;
    const e = counts.get(c.pixelCount);
    if (e) e.n += 1;
    else counts.set(c.pixelCount, { ppf: c.pixelCount, n: 1 });
  }
  let best: { ppf: number | null; n: number } | undefined;
  for (const e of counts.values()) {
    if (!best || e.n > best.n) {
      best = e;
    } else if (e.n === best.n) {
      // Only one group is unknown, so a tie with an unknown best is a known ppf, which wins.
      if (best.ppf === null) best = e;
      else if (e.ppf !== null && e.ppf < best.ppf) best = e;
    }
  }
  return best ? { ppf: best.ppf } : undefined;
}

function byFramesThenKey(a: ConfigSpec, b: ConfigSpec): number {
  return a.frames - b.frames || compareCodePoints(a.key, b.key);
}

/**
 * The release's config order: text only first, then the configs at the most common ppf by
 * ascending frames (same frames: key order), then every other config in code-point order of key.
 * Several text configs (unusual) are ordered by key. Returns a new array.
 */
export function configOrder(configs: readonly ConfigSpec[]): ConfigSpec[] {
  const text = configs.filter((c) => c.frames === 0).sort((a, b) => compareCodePoints(a.key, b.key));
  const common = mostCommonPpf(configs);
  const main: ConfigSpec[] = [];
  const rest: ConfigSpec[] = [];
  for (const c of configs) {
    if (c.frames === 0) continue;
    if (common && c.pixelCount === common.ppf) main.push(c);
    else rest.push(c);
  }
  main.sort(byFramesThenKey);
  rest.sort((a, b) => compareCodePoints(a.key, b.key));
  return [...text, ...main, ...rest];
}

/**
 * The budget ladder: text only (if present) then the configs at the most common ppf by frames.
 * When several configs share a frame count there (policy variants), only the first in config
 * order is a rung — a ladder is a chain of strictly growing budgets.
 */
export function ladder(configs: readonly ConfigSpec[]): ConfigSpec[] {
  const ordered = configOrder(configs);
  // undefined only when there is no visual config, and then the loop below never reads it.
  const ppf = mostCommonPpf(configs)?.ppf;
  const out: ConfigSpec[] = [];
  const text = ordered.find((c) => c.frames === 0);
  if (text) out.push(text);
  let lastFrames = -1;
  for (const c of ordered) {
    if (c.frames === 0 || c.pixelCount !== ppf) continue;
    if (c.frames === lastFrames) continue;
    out.push(c);
    lastFrames = c.frames;
  }
  return out;
}

/**
 * The config with the largest frames × ppf (ties: more frames, then the larger key). Configs with
 * an unknown ppf only compete when no visual config has a known one (they are then ranked by
 * frames). Text only is terminal only in a text-only grid. undefined for an empty list.
 */
export function terminalConfig(configs: readonly ConfigSpec[]): ConfigSpec | undefined {
  const visual = configs.filter((c) => c.frames > 0);
  if (visual.length === 0) {
    return [...configs].sort((a, b) => compareCodePoints(b.key, a.key))[0];
  }
  const known = visual.filter((c) => c.pixelCount !== null);
  const pool = known.length > 0 ? known : visual;
  const costOf = (c: ConfigSpec) => c.frames * (c.pixelCount ?? 1);
  // pool is not empty; starting from its first config, the loop's first pass changes nothing.
  let best = pool[0]!;
  let bestCost = costOf(best);
  for (const c of pool) {
    const cost = costOf(c);
    if (cost > bestCost || (cost === bestCost && (c.frames > best.frames || (c.frames === best.frames && compareCodePoints(c.key, best.key) > 0)))) {
      best = c;
      bestCost = cost;
    }
  }
  return best;
}
