/**
 * The per_item.csv reader's decoders of single fields off the hot path's bytes: counts,
 * numbers in a range, frame indices, and the check of a config's frame_count and pixel_count
 * (docs/release-format.md "labels/per_item.csv"). Each refusal names `file:line: field`.
 */
import { parseKey } from './config-keys';
import { ImportError } from './errors';

/** Non-negative integer of at most 12 digits, else NaN. */
export function parseCount(s: string): number {
  if (s.length === 0 || s.length > 12) return NaN;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

/** parseCount on the characters [s, e) of `text`. */
export function countBytes(buf: Buffer, s: number, e: number): number {
  if (e === s || e - s > 12) return NaN;
  let n = 0;
  for (let i = s; i < e; i++) {
    const c = buf[i]! - 48;
    if (c < 0 || c > 9) return NaN;
    n = n * 10 + c;
  }
  return n;
}

export function parseUnit(file: string, line: number, field: string, s: string, min: number, max: number): number {
  if (s === '') return NaN;
  const v = Number(s);
  if (!Number.isFinite(v) || v < min || v > max) {
    throw new ImportError(file, line, field, `expected a number in [${min}, ${max}], got ${JSON.stringify(s)}`);
  }
  return v;
}

export function parseFrameIndices(file: string, line: number, s: string): number[] | null {
  if (s === '') return null;
  const out: number[] = [];
  for (const part of s.split(' ')) {
    if (part === '') continue;
    const n = parseCount(part);
    if (Number.isNaN(n)) throw new ImportError(file, line, 'frame_indices', `expected space-separated integers, got ${JSON.stringify(part)}`);
    out.push(n);
  }
  return out;
}

export interface ConfigSeen {
  key: string;
  frames: number;
  /** −1 = none. */
  pixelCount: number;
  line: number;
}

export function configError(file: string, line: number, seen: ConfigSeen | undefined, config: string, fcRaw: string, pcRaw: string): ConfigSeen {
  const frames = parseCount(fcRaw);
  if (Number.isNaN(frames)) {
    throw new ImportError(file, line, 'frame_count', `expected a non-negative integer, got ${JSON.stringify(fcRaw)}`);
  }
  const pixelCount = pcRaw === '' ? null : parseCount(pcRaw);
  if (pixelCount !== null && Number.isNaN(pixelCount)) {
    throw new ImportError(file, line, 'pixel_count', `expected a non-negative integer or empty, got ${JSON.stringify(pcRaw)}`);
  }
  const parsed = parseKey(config);
  if (!parsed) {
    throw new ImportError(file, line, 'config', `config "${config}" is not textonly, <frames>f or <frames>f_<pixels>`);
  }
  if (parsed.frames !== frames) {
    throw new ImportError(file, line, 'frame_count', `config ${config} means ${parsed.frames} frames but frame_count is ${frames}`);
  }
  const pc = pixelCount ?? -1;
  if (seen && seen.frames !== frames) {
    throw new ImportError(file, line, 'frame_count', `config ${config} had frame_count ${seen.frames} at line ${seen.line}, here ${frames}`);
  }
  if (seen && seen.pixelCount !== pc) {
    const was = seen.pixelCount < 0 ? null : seen.pixelCount;
    throw new ImportError(file, line, 'pixel_count', `config ${config} had pixel_count ${was} at line ${seen.line}, here ${pixelCount}`);
  }
  return seen ?? { key: config, frames, pixelCount: pc, line };
}
