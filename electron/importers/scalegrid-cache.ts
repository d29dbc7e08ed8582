/**
 * The frame caches the release's `code/cache_frames.py` writes (docs/formats.md "The release's
 * pipeline files"): `<cache_dir>/<video_id>/metadata.json` beside `frame_000001.jpg …`, holding
 * `video_id, duration_sec, extracted_fps, frame_count, timestamps_sec, width, height, …`. The
 * pipeline samples over those frames (run_inference*.py), so a cached config's frame index x
 * is the cache's frame x at `timestamps_sec[x]`: imported, the strips show exactly that frame.
 *
 * Reads one `metadata.json`, or a cache folder (every `<video_id>/metadata.json` one level
 * down). A metadata file whose `video_id` is not its folder's name, whose `timestamps_sec`
 * does not have one entry per frame (or goes backwards), or whose folder holds another number
 * of `frame_*.jpg` than `frame_count` (cache_frames.py's own validity check) is refused.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as z from 'zod';
import type { ImportBatch, VideoCache } from '../../shared/domain/types';
import { parseWith, type ImportOptions } from './batch-builder';
import { ImportError } from './errors';
import { sha256File } from './file-hash';
import { readJsonSource } from './json-source';
import { checkId } from './text-input';

const MetadataSchema = z
  .object({
    video_id: z.string().min(1),
    duration_sec: z.number().nonnegative().nullish(),
    extracted_fps: z.number().positive(),
    frame_count: z.number().int().positive(),
    timestamps_sec: z.array(z.number().nonnegative()).nullish(),
  })
  .passthrough();

/** The metadata.json files of a cache folder, one per video folder, in name order. */
export function cacheMetadataFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'metadata.json')))
    .map((e) => join(dir, e.name, 'metadata.json'))
    .sort();
}

async function readOne(file: string): Promise<VideoCache> {
  const src = await readJsonSource(file);
  const m = parseWith(MetadataSchema, src.value, file, src.lineOf(src.value));
  const line = src.lineOf(src.value);
  checkId(m.video_id, file, line, 'video_id');
  const folder = basename(dirname(file));
  const jpgs = readdirSync(dirname(file)).filter((f) => /^frame_\d+\.jpg$/.test(f)).length;
  // run_inference*.py find a video's cache as <cache_dir>/<video_id>/: a cache folder is named by its id.
  if (jpgs > 0 && folder !== m.video_id) {
    throw new ImportError(file, line, 'video_id', `${m.video_id} is not the name of its cache folder (${folder}), where the pipeline looks for it`);
  }
  if (jpgs > 0 && jpgs !== m.frame_count) {
    throw new ImportError(file, line, 'frame_count', `${m.frame_count}, but the folder holds ${jpgs} frame_*.jpg (an incomplete cache, which cache_frames.py rebuilds)`);
  }
  let timestamps: number[];
  if (m.timestamps_sec != null) {
    if (m.timestamps_sec.length !== m.frame_count) {
      throw new ImportError(file, line, 'timestamps_sec', `${m.timestamps_sec.length} timestamps for ${m.frame_count} frames`);
    }
    for (let i = 1; i < m.timestamps_sec.length; i++) {
      if (m.timestamps_sec[i]! < m.timestamps_sec[i - 1]!)
        throw new ImportError(file, line, `timestamps_sec.${i}`, `${m.timestamps_sec[i]} comes before the previous frame's ${m.timestamps_sec[i - 1]}`);
    }
    timestamps = m.timestamps_sec;
  } else {
    // run_inference.py's own fallback without timestamps: index / extracted_fps.
    timestamps = Array.from({ length: m.frame_count }, (_, i) => i / m.extracted_fps);
  }
  return { videoId: m.video_id, fps: m.extracted_fps, frameCount: m.frame_count, durationS: m.duration_sec ?? null, timestampsS: timestamps, source: file, line };
}

export async function readScalegridCache(path: string, _opts: ImportOptions): Promise<ImportBatch> {
  const files = statSync(path).isDirectory() ? cacheMetadataFiles(path) : [path];
  if (files.length === 0) throw new ImportError(path, 0, '', 'no <video_id>/metadata.json in this folder (a cache_frames.py --cache-dir)');
  const caches: VideoCache[] = [];
  const seen = new Map<string, string>();
  for (const f of files) {
    const c = await readOne(f);
    const k = `${c.videoId}\u0000${c.fps}`;
    const other = seen.get(k);
    if (other) throw new ImportError(f, c.line ?? 0, 'video_id', `video ${c.videoId} at ${c.fps} fps is also cached in ${other}`);
    seen.set(k, f);
    caches.push(c);
  }
  return {
    run: {
      sourcePath: path,
      sha256: files.length === 1 ? await sha256File(files[0]!) : await sha256OfFiles(files),
      format: 'scalegrid-cache',
      toolkit: 'video-mme-scalegrid',
      modelArgs: null,
    },
    items: [],
    responses: [],
    configs: [],
    warnings: [],
    videoCaches: caches,
  };
}

/** One digest for a folder of metadata files: the digests of its files in name order. */
async function sha256OfFiles(files: readonly string[]): Promise<string> {
  const { createHash } = await import('node:crypto');
  const h = createHash('sha256');
  for (const f of files) h.update(`${basename(dirname(f))}\u0000${await sha256File(f)}\n`);
  return h.digest('hex');
}
