/**
 * Config specs during an import: a config key must agree with its frame count, a config the
 * project already has must agree in frames and pixels (its missing provenance is filled), and
 * a key only named by responses gets a spec from the key itself.
 */
import type Database from 'better-sqlite3';
import { ImportError } from '../importers/errors';
import type { ConfigSpec, RunInfo } from '../../shared/domain/types';

/** Frames named by a config key (`textonly` → 0, `16f…` → 16), or null when the key names none. */
export function framesFromKey(key: string): number | null {
  if (key === 'textonly' || key.startsWith('textonly@')) return 0;
  const m = /^(\d+)f(?:_|$)/.exec(key);
  return m ? Number(m[1]) : null;
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
    config: db.prepare<[string], { id: number; frames: number; pixel_count: number | null }>(
      'SELECT id, frames, pixel_count FROM configs WHERE key = ?',
    ),
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
    if (stored.pixel_count !== null && spec.pixelCount !== null && stored.pixel_count !== spec.pixelCount) {
      throw new ImportError(
        file,
        line,
        'pixel_count',
        `config "${spec.key}" has ${spec.pixelCount} pixels per frame here but ${stored.pixel_count} in the project`,
      );
    }
    q.configFill.run(spec.pixelCount, ...prov, stored.id);
    return stored.id;
  };
}
