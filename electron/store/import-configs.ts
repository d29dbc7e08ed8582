/**
 * Config specs during an import: a config key must agree with its frame count, a config the
 * project already has must agree in frames and pixels (its missing provenance is filled), and
 * a key only named by responses gets a spec from the key itself.
 */
import type Database from 'better-sqlite3';
import { ImportError } from '../importers/errors';
import type { ConfigSpec, RunInfo } from '../../shared/domain/types';
import { parseConfigKey, sameLabelledBudget } from '../../shared/engine/config';

/** Frames named by a config key (`textonly` → 0, `16f…` → 16), or null when the key names none. */
export function framesFromKey(key: string): number | null {
  if (key === 'textonly' || key.startsWith('textonly@')) return 0;
  const m = /^(\d+)f(?:_|$)/.exec(key);
  return m ? Number(m[1]) : null;
}

/** A key as the engine reads it, or null for a key the store holds that the engine does not parse. */
function parsedKey(key: string): ReturnType<typeof parseConfigKey> | null {
  try {
    return parseConfigKey(key);
  } catch {
    return null;
  }
}

/** The spec of a config that only responses name: its frames come from its key. */
export function specFromKey(config: string, run: Pick<RunInfo, 'toolkit' | 'modelArgs'>, file: string, line: number): ConfigSpec {
  const frames = framesFromKey(config);
  if (frames === null) {
    throw new ImportError(file, line, 'config', `config "${config}" does not name its frame count and the file gives none (use --config)`);
  }
  return {
    key: config,
    frames,
    pixelCount: frames === 0 ? 0 : null,
    width: null,
    height: null,
    sampling: { policy: null, seed: null, fps: null },
    pipeline: null,
    toolkit: run.toolkit,
    modelArgs: run.modelArgs,
    notes: null,
  };
}

/** upsert(spec, file, line) → the config's id: inserts a new config or checks and fills a stored one. */
export function createConfigUpserter(db: Database.Database) {
  const q = {
    config: db.prepare<[string], { id: number; frames: number; pixel_count: number | null }>('SELECT id, frames, pixel_count FROM configs WHERE key = ?'),
    configInsert: db.prepare(
      `INSERT INTO configs (key, frames, pixel_count, width, height, sampling_policy, sampling_seed, sampling_fps, pipeline, toolkit, model_args, notes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    configFill: db.prepare(
      `UPDATE configs SET pixel_count = COALESCE(pixel_count, ?), width = COALESCE(width, ?), height = COALESCE(height, ?),
         sampling_policy = COALESCE(sampling_policy, ?), sampling_seed = COALESCE(sampling_seed, ?), sampling_fps = COALESCE(sampling_fps, ?),
         pipeline = COALESCE(pipeline, ?), toolkit = COALESCE(toolkit, ?), model_args = COALESCE(model_args, ?), notes = COALESCE(notes, ?)
       WHERE id = ?`,
    ),
  };
  return function upsertConfig(spec: ConfigSpec, file: string, line: number): number {
    const named = framesFromKey(spec.key);
    if (named !== null && named !== spec.frames) {
      throw new ImportError(file, line, 'config', `config "${spec.key}" names ${named} frames but its frame count is ${spec.frames}`);
    }
    const stored = q.config.get(spec.key);
    const s = spec.sampling;
    const prov = [spec.width, spec.height, s.policy, s.seed, s.fps, spec.pipeline, spec.toolkit, spec.modelArgs, spec.notes] as const;
    if (!stored) return Number(q.configInsert.run(spec.key, spec.frames, spec.pixelCount, ...prov).lastInsertRowid);
    if (stored.frames !== spec.frames) {
      throw new ImportError(file, line, 'config', `config "${spec.key}" has ${spec.frames} frames here but ${stored.frames} in the project`);
    }
    const label = parsedKey(spec.key)?.pixelLabel ?? null;
    // The same key with another count of the same `<n>k` budget is the same config: the stored count stays.
    if (
      stored.pixel_count !== null &&
      spec.pixelCount !== null &&
      stored.pixel_count !== spec.pixelCount &&
      !(label !== null && sameLabelledBudget(label, stored.pixel_count, spec.pixelCount))
    ) {
      throw new ImportError(file, line, 'pixel_count', `config "${spec.key}" has ${spec.pixelCount} pixels per frame here but ${stored.pixel_count} in the project`);
    }
    q.configFill.run(spec.pixelCount, ...prov, stored.id);
    return stored.id;
  };
}

/** Pixel budgets this close (relative) name one setting twice when their keys differ (docs/formats.md "One config identity"). */
const NEAR_DUPLICATE = 0.01;

/**
 * Warnings for the configs an import would add that look like a config the project (or the
 * same import) already has under another key: the same frames and variant, a pixel budget
 * within 1% (`32f_151200` beside `32f_151k`). Two keys are two configs, so the grids would not
 * join; the warning says which key to pass instead.
 */
export function nearDuplicateConfigWarnings(db: Database.Database, batches: readonly { configs: readonly ConfigSpec[] }[]): string[] {
  const known = new Map<string, { frames: number; pixels: number | null }>();
  for (const r of db.prepare('SELECT key, frames, pixel_count FROM configs').all() as { key: string; frames: number; pixel_count: number | null }[]) {
    known.set(r.key, { frames: r.frames, pixels: r.pixel_count });
  }
  const out: string[] = [];
  const said = new Set<string>();
  for (const b of batches) {
    for (const c of b.configs) {
      if (known.has(c.key)) continue;
      const variant = parsedKey(c.key)?.variant ?? null;
      for (const [key, k] of known) {
        if (c.frames === 0 || k.frames !== c.frames || c.pixelCount === null || k.pixels === null) continue;
        if ((parsedKey(key)?.variant ?? null) !== variant) continue;
        if (Math.abs(c.pixelCount - k.pixels) > NEAR_DUPLICATE * Math.min(c.pixelCount, k.pixels)) continue;
        const pair = `${c.key}\u0000${key}`;
        if (said.has(pair)) continue;
        said.add(pair);
        out.push(
          `config ${c.key} (${c.pixelCount} pixels per frame) is a near-duplicate of ${key} (${k.pixels}): the same frames and a pixel budget within 1%, under another key, so their grids do not join; if they are one setting, import with --config ${key}`,
        );
      }
      known.set(c.key, { frames: c.frames, pixels: c.pixelCount });
    }
  }
  return out;
}
