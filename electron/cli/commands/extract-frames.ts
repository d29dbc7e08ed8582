import { copyFile, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { SAMPLING_POLICIES, type SamplingPolicy } from '../../../shared/domain/types';
import { sampleFrames } from '../../../shared/samplers/index';
import { createFrameService } from '../../frames/frame-service';
import { cacheFrameCount, nativeIndexForCacheFrame } from '../../frames/frame-selection';
import { createJobRunner } from '../../threads/job-runner';
import { createJsonFileMetadataCache } from '../../media/metadata-cache';
import { integerOption, listOption, parseCli, progress, requireOption } from '../args';
import { UsageError, type CliCommand } from '../command';

const HELP = `Usage: flipbook extract-frames --video V (--indices i,j,… | --policy P --n N [--seed S] [--video-id ID])
                               [--cache-fps R] --out DIR [--width W] [--format jpeg|webp] [--cache-dir C]

Extracts exact frames (the k-th frame in presentation order) and writes DIR/<index>.jpg (or .webp)
for each requested index. The last line printed is a JSON summary: frames, seconds, cache hits.

Options:
  --video V        the video file
  --indices L      comma-separated frame indices
  --policy P       a sampling policy (${SAMPLING_POLICIES.filter((p) => p !== 'explicit').join(', ')})
  --n N            frames requested from the policy
  --seed S         seed of the random policies (default 0)
  --video-id ID    benchmark video id (scalegrid-random)
  --cache-fps R    indices are over ffmpeg's fps=R frames (cached pipelines); files are named by
                   those indices and show the native frame fps=R would emit
  --out DIR        output folder (created)
  --width W        thumbnail width in pixels (default 320; 0 = full size)
  --format F       jpeg (default) or webp
  --cache-dir C    the content-addressed frame cache (default ~/.cache/flipbook/frames)

Exit codes: 0 ok, 1 failure (missing/unreadable video, index out of range), 2 bad usage.`;

function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'flipbook', 'frames');
}

export const extractFramesCommand: CliCommand = {
  help: HELP,
  async run(argv) {
    const { values } = parseCli(argv, {
      video: { type: 'string' },
      indices: { type: 'string' },
      policy: { type: 'string' },
      n: { type: 'string' },
      seed: { type: 'string' },
      'video-id': { type: 'string' },
      'cache-fps': { type: 'string' },
      out: { type: 'string' },
      width: { type: 'string' },
      format: { type: 'string' },
      'cache-dir': { type: 'string' },
    });
    const video = resolve(requireOption('video', values.video));
    const out = resolve(requireOption('out', values.out));
    if ((values.indices === undefined) === (values.policy === undefined)) throw new UsageError('give either --indices or --policy with --n');
    const width = integerOption('width', values.width) ?? 320;
    if (width < 0 || width === 1 || width > 16384) throw new UsageError('--width must be 0 (full size) or 2…16384');
    const format = values.format ?? 'jpeg';
    if (format !== 'jpeg' && format !== 'webp') throw new UsageError(`--format must be jpeg or webp, got '${format}'`);
    let cacheFps: number | null = null;
    if (values['cache-fps'] !== undefined) {
      cacheFps = Number(values['cache-fps']);
      if (!(cacheFps > 0) || !Number.isFinite(cacheFps)) throw new UsageError(`--cache-fps must be a positive number, got '${values['cache-fps']}'`);
    }
    let requested: number[] | null = null;
    if (values.indices !== undefined) {
      requested = (listOption('indices', values.indices) ?? []).map((s) => {
        if (!/^\d+$/.test(s)) throw new UsageError(`--indices: '${s}' is not a frame index`);
        return Number(s);
      });
    }
    let policy: SamplingPolicy | null = null;
    let n = 0;
    if (values.policy !== undefined) {
      if (!(SAMPLING_POLICIES as readonly string[]).includes(values.policy) || values.policy === 'explicit') throw new UsageError(`unknown --policy '${values.policy}'`);
      policy = values.policy as SamplingPolicy;
      n = integerOption('n', requireOption('n', values.n)) ?? 0;
      if (n < 1) throw new UsageError('--n must be ≥ 1');
    }
    const seed = integerOption('seed', values.seed);
    const cacheDir = resolve(values['cache-dir'] ?? defaultCacheDir());
    const svc = createFrameService({ cacheDir, metadataCache: createJsonFileMetadataCache(join(cacheDir, 'metadata.json')) });
    const runner = createJobRunner({ throttleMs: 250 });
    runner.subscribe((e) => {
      if (e.type === 'progress' && e.job.total) progress(`extract-frames: ${e.job.done ?? 0}/${e.job.total} frames`);
    });
    const job = runner.start('extract-frames', async (ctx) => {
      const t0 = performance.now();
      const meta = await svc.probe(video, ctx.signal);
      const total = cacheFps !== null ? cacheFrameCount(meta, cacheFps) : meta.frameCount;
      const sampled =
        requested ?? sampleFrames(policy as SamplingPolicy, { total, n, ...(seed !== undefined ? { seed } : {}), ...(values['video-id'] ? { videoId: values['video-id'] } : {}) });
      for (const x of sampled) {
        if (x >= total) throw new Error(`frame index ${x} is outside 0…${total - 1} (${total} ${cacheFps !== null ? `fps=${cacheFps} frames` : 'frames'} in ${video})`);
      }
      const native = sampled.map((x) => (cacheFps !== null ? nativeIndexForCacheFrame(meta, cacheFps, x) : x));
      const unique = [...new Set(native)];
      let done = 0;
      ctx.progress({ total: unique.length, done: 0 });
      const res = await svc.requestFrames({
        video: meta,
        indices: unique,
        spec: { width: width === 0 ? null : width, format },
        approximate: false,
        signal: ctx.signal,
        onTile: (t) => {
          if (t.kind === 'exact') ctx.progress({ done: ++done });
        },
      });
      if (res.failures.length) throw new Error(res.failures[0]?.message ?? 'extraction failed');
      await mkdir(out, { recursive: true });
      const written: string[] = [];
      const seen = new Set<number>();
      for (let i = 0; i < sampled.length; i++) {
        const x = sampled[i] as number;
        if (seen.has(x)) continue;
        seen.add(x);
        const src = res.files.get(native[i] as number);
        if (!src) throw new Error(`frame ${native[i]} was not delivered`);
        const dest = join(out, `${x}${extname(src)}`);
        await copyFile(src, dest);
        written.push(dest);
      }
      return {
        video,
        frames: written.length,
        indices: [...seen],
        ...(cacheFps !== null ? { cacheFps, nativeFrames: [...new Set(native)] } : {}),
        seconds: Math.round((performance.now() - t0) / 10) / 100,
        cacheHits: res.cacheHits,
        decoded: res.decoded,
        out,
      };
    });
    const onSigint = (): void => job.cancel();
    process.once('SIGINT', onSigint);
    const r = await job.result;
    process.off('SIGINT', onSigint);
    if (!r.ok) {
      console.error(`flipbook extract-frames: ${r.error.message}`);
      return 1;
    }
    console.log(JSON.stringify(r.value));
    return 0;
  },
};
