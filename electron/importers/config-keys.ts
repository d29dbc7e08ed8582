import type { ConfigSpec } from '../../shared/domain/types';
import { ImportError } from './errors';

/**
 * Config keys as importers need them. The engine (shared/engine/config.ts) owns the
 * definitive parser; this adapter keeps every importer on one small surface so the switch
 * to the engine's `parseConfigKey` / `configKeyFor` / `makeConfigSpec` touches one file.
 */
export interface ParsedKey {
  /** 0 for `textonly`. */
  frames: number;
  /** The part after `<frames>f_` (e.g. `151k`, `input224`); null when absent. */
  pixelLabel: string | null;
}

const KEY = /^(\d+)f(?:_([A-Za-z0-9.]+))?$/;

/** Parses `textonly`, `<frames>f` or `<frames>f_<pixels>`; null when the key has another shape. */
export function parseKey(key: string): ParsedKey | null {
  if (key === 'textonly') return { frames: 0, pixelLabel: null };
  const m = KEY.exec(key);
  if (!m?.[1]) return null;
  return { frames: Number(m[1]), pixelLabel: m[2] ?? null };
}

/** `<frames>f` plus `_<pixelLabel>` when the pixel budget is known; frames 0 → `textonly`. */
export function keyFor(frames: number, pixelLabel?: string | null): string {
  if (frames === 0) return 'textonly';
  return pixelLabel ? `${frames}f_${pixelLabel}` : `${frames}f`;
}

/** A human label for a pixel count: 150528 → `151k` (rounded to thousands, as the release names them). */
export function pixelLabelFor(pixels: number | null | undefined): string | null {
  if (pixels == null || !Number.isFinite(pixels) || pixels <= 0) return null;
  return `${Math.round(pixels / 1000)}k`;
}

/** A full ConfigSpec; unknown fields null (release-format.md, provenance/configs.json). */
export function specFor(key: string, partial: Partial<Omit<ConfigSpec, 'key'>> = {}): ConfigSpec {
  const parsed = parseKey(key);
  return {
    key,
    frames: partial.frames ?? parsed?.frames ?? 0,
    pixelCount: partial.pixelCount ?? (parsed?.frames === 0 ? 0 : null),
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
      throw new ImportError(
        file,
        line,
        source.field ?? 'config',
        `config ${override} means ${parsed.frames} frames but ${source.what ?? 'the source'} says ${source.frames}`,
      );
    }
    return override;
  }
  if (source.frames === null) {
    throw new ImportError(file, line, 'config', 'frame budget unknown: the file does not state it; pass --config (e.g. 16f)');
  }
  return keyFor(source.frames, pixelLabelFor(source.pixels));
}
