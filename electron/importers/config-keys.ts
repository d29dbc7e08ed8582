import type { ConfigSpec } from '../../shared/domain/types';
import { ImportError } from './errors';

import { configKeyFor, makeConfigSpec, parseConfigKey, pixelLabelFor as enginePixelLabel } from '../../shared/engine/config';

/**
 * Config keys as importers need them, on top of the engine's parser (shared/engine/config.ts)
 * so that importers and metrics read keys identically.
 */
export interface ParsedKey {
  /** 0 for `textonly`. */
  frames: number;
  /** The part after `<frames>f_` (e.g. `151k`, `input224`); null when absent. */
  pixelLabel: string | null;
  /** Pixels per frame the label stands for (151k → 151000); null when the key has none. */
  pixelCount: number | null;
}

/** Parses a config key; null when it is not one (the engine's reason is dropped). */
export function parseKey(key: string): ParsedKey | null {
  try {
    const p = parseConfigKey(key);
    return { frames: p.frames, pixelLabel: p.pixelLabel, pixelCount: p.pixelCount };
  } catch {
    return null;
  }
}

/** `<frames>f` plus `_<pixelLabel>` when the pixel budget is known; frames 0 → `textonly`. */
export function keyFor(frames: number, pixelLabel?: string | null): string {
  return configKeyFor(frames, pixelLabel ?? null);
}

/** The release's label for a pixel count (engine rule: 151000 → `151k`, else digits). */
export function pixelLabelFor(pixels: number | null | undefined): string | null {
  if (pixels == null || !Number.isSafeInteger(pixels) || pixels <= 0) return null;
  return enginePixelLabel(pixels);
}

/** A full ConfigSpec (engine's makeConfigSpec); unknown fields null. */
export function specFor(key: string, partial: Partial<Omit<ConfigSpec, 'key'>> = {}): ConfigSpec {
  return makeConfigSpec(key, partial);
}

/**
 * The config key of a file whose budget comes from its metadata (frames, pixels) and/or
 * the user's `--config`. A `--config` whose frame count contradicts the source is rejected.
 */
export function resolveConfigKey(
  file: string,
  source: { frames: number | null; pixels: number | null; line?: number; field?: string; what?: string },
  override: string | undefined,
): string {
  const line = source.line ?? 0;
  if (override) {
    const parsed = parseKey(override);
    if (!parsed) {
      throw new ImportError(file, line, 'config', `--config ${override} is not textonly, <frames>f or <frames>f_<pixels>`);
    }
    if (source.frames !== null && parsed.frames !== source.frames) {
      throw new ImportError(file, line, source.field ?? 'config', `config ${override} means ${parsed.frames} frames but ${source.what ?? 'the source'} says ${source.frames}`);
    }
    return override;
  }
  if (source.frames === null) {
    throw new ImportError(file, line, 'config', 'frame budget unknown: the file does not state it; pass --config (e.g. 16f)');
  }
  return keyFor(source.frames, pixelLabelFor(source.pixels));
}

/**
 * `key` with the config variant a file name carries (`8f` + `subs` → `8f@subs`): VLMEvalKit's
 * `_subs` files are another config of the same budget, never a conflict with the plain file
 * (docs/formats.md "File names"). A key that already names a variant (a `--config` with `@`)
 * is kept as given.
 */
export function withVariant(file: string, key: string, variant: string | null): string {
  if (!variant || key.includes('@')) return key;
  const out = `${key}@${variant}`;
  if (!parseKey(out)) {
    throw new ImportError(file, 0, 'config', `the file name's suffix "${variant}" is not a config variant (letters, digits, _ . -); pass --config`);
  }
  return out;
}

/** The warning for a model name taken from an ambiguous file name (unknown dataset part). */
export function guessWarning(file: string, model: string): string {
  return `${file}: model "${model}" is the file name's first "_" part (the dataset part is not one Flipbook knows); pass --model if the model's name has underscores`;
}
