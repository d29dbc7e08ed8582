/**
 * A cached config's strips show exactly the frames the release's pipeline read
 * (docs/metrics.md §8, docs/formats.md "The release's pipeline files"). A real video whose
 * frames encode their own index is cached the way `code/cache_frames.py` caches it (its ffmpeg
 * command, `fps=1 -q:v 2 frame_%06d.jpg`, and its metadata.json: video_id, src_video_path,
 * duration_sec, extracted_fps, decode_mode, frame_count, timestamps_sec, …); run_inference.py rows
 * (with selected_frame_indices) and run_inference_internvl.py rows (without: the cached uniform
 * sampler over frame_count) are imported with the cache folder through `flipbook import`.
 * Every strip frame decodes to the same index as the cache's own JPEG at that position, at
 * timestamps_sec. A cache whose timestamps are not x / fps (and whose frame count is not the
 * video's duration × fps) is followed too.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/project';
import { probeVideo } from '../../../electron/media/probe';
import { selectItemFrames } from '../../../electron/frames/item-frames';
import { createFrameService } from '../../../electron/frames/frame-service';
import { selectFramesForConfig } from '../../../electron/frames/frame-selection';
import { makeConfigSpec } from '../../../shared/engine/config';
import { tempDir } from '../store/helpers';
import { flipbook } from '../cli/cli-helpers';
import { barcodeVideo, readBarcode, readBarcodes } from './barcode-video';

const VIDEO_ID = 'vid042';

/** cache_frames.py's build_cache_for_video for one video, with its exact ffmpeg call and metadata keys. */
function cacheFrames(video: string, cacheDir: string, fps = 1.0): { frameCount: number; dir: string } {
  const dir = path.join(cacheDir, VIDEO_ID);
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('ffmpeg', ['-y', '-v', 'error', '-i', video, '-vf', `fps=${fps}`, '-q:v', '2', path.join(dir, 'frame_%06d.jpg')]);
  const frames = fs.readdirSync(dir).filter((f) => /^frame_\d+\.jpg$/.test(f)).length;
  const probe = JSON.parse(
    execFileSync(
      'ffprobe',
      ['-v', 'error', '-print_format', 'json', '-show_entries', 'format=duration', '-show_entries', 'stream=index,codec_type,r_frame_rate,avg_frame_rate,width,height', video],
      { encoding: 'utf8' },
    ),
  ) as { format: { duration: string }; streams: { codec_type: string; width: number; height: number; avg_frame_rate: string; r_frame_rate: string }[] };
  const v = probe.streams.find((s) => s.codec_type === 'video')!;
  const metadata = {
    video_id: VIDEO_ID,
    src_video_path: video,
    duration_sec: Number(probe.format.duration),
    extracted_fps: fps,
    decode_mode: 'generic',
    frame_count: frames,
    timestamps_sec: Array.from({ length: frames }, (_, i) => i / fps),
    width: v.width,
    height: v.height,
    avg_frame_rate: v.avg_frame_rate,
    r_frame_rate: v.r_frame_rate,
    codec_name: null,
  };
  fs.writeFileSync(path.join(dir, 'metadata.json'), JSON.stringify(metadata, null, 2));
  return { frameCount: frames, dir };
}

const pyRound = (x: number) => {
  const f = Math.floor(x);
  const d = x - f;
  return d > 0.5 || (d === 0.5 && f % 2 === 1) ? f + 1 : f;
};
/** run_inference.py's uniform select_frame_indices. */
const uniform = (total: number, n: number) =>
  n >= total
    ? Array.from({ length: total }, (_, i) => i)
    : [...new Set(Array.from({ length: n }, (_, i) => Math.min(total - 1, pyRound((i * (total - 1)) / (n - 1)))))].sort((a, b) => a - b);

describe('cached configs show the frames of the cache', () => {
  it('strips equal the cache_frames.py JPEGs at selected_frame_indices and at the cached uniform selection', async () => {
    const dir = tempDir('fb-cache-strips-');
    const media = path.join(dir, 'media');
    fs.mkdirSync(media);
    // 13.4 s at 25 fps, with B-frames and a 2.5 s start offset: fps=1 over it is not index / 25.
    const src = barcodeVideo({ name: 'cache-strips-offset.mkv', frames: 335, gop: 50, bframes: 3, startOffsetS: 2.5 });
    const video = path.join(media, `${VIDEO_ID}.mkv`);
    fs.copyFileSync(src, video);
    const cache = cacheFrames(video, path.join(dir, 'cache'));
    expect(cache.frameCount).toBeGreaterThan(10);

    const qwenIdx = uniform(cache.frameCount, 8);
    const qwen = {
      sample_id: '042-1',
      video_id: VIDEO_ID,
      correct_letter: 'A',
      task_type: 'Action Reasoning',
      duration_category: 'short',
      base_pred: 'A',
      base_correct: 1,
      base_option_probs: { A: 0.8, B: 0.1, C: 0.05, D: 0.05 },
      base_margin: 0.7,
      final_pred: 'A',
      final_correct: 1,
      cached_frame_count: qwenIdx.length,
      cached_sample_fps: qwenIdx.length / 13.4,
      cached_raw_fps: 1.0,
      prompt_style: 'cached',
      inference_mode: 'prob',
      subtitle_mode: 'none',
      subtitle_char_count: 0,
      frame_sampling: 'uniform',
      frame_sampling_seed: 42,
      selected_frame_indices: qwenIdx,
    };
    const internvl = {
      sample_id: '042-1',
      video_id: VIDEO_ID,
      correct_letter: 'A',
      task_type: 'Action Reasoning',
      duration_category: 'short',
      base_pred: 'B',
      base_text: 'B',
      base_correct: 0,
      final_pred: 'B',
      final_correct: 0,
      cached_frame_count: Math.min(6, cache.frameCount),
      input_size: 448,
    };
    const q = path.join(dir, 'qwen25_8f_short.jsonl');
    fs.writeFileSync(q, `${JSON.stringify(qwen)}\n`);
    const iv = path.join(dir, 'internvl3_6f_short.jsonl');
    fs.writeFileSync(iv, `${JSON.stringify(internvl)}\n`);
    const project = path.join(dir, 'p.flipbook');
    const a = flipbook('import', q, '--project', project, '--model', 'Qwen2.5-VL-7B', '--split', 'V1_short');
    expect(a.code, a.stderr).toBe(0);
    const b = flipbook('import', iv, path.join(dir, 'cache'), '--project', project, '--model', 'InternVL3-8B', '--split', 'V1_short');
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/frame caches: 1 video/);

    const p = openProject(project);
    try {
      p.setSetting('mediaRoot', media);
      // The item names the video by its id: <video_id>.mp4 by default, here the file's own name.
      p.db.prepare('UPDATE items SET video_file = ? WHERE video_id = ?').run(`${VIDEO_ID}.mkv`, VIDEO_ID);
      const svc = createFrameService({ cacheDir: tempDir('fb-cache-strips-frames-') });
      const cacheJpgs = fs
        .readdirSync(cache.dir)
        .filter((f) => f.endsWith('.jpg'))
        .sort();
      const truth = readBarcodes(cacheJpgs.map((f) => path.join(cache.dir, f)));
      for (const [model, key, want] of [
        ['Qwen2.5-VL-7B', '8f_151k', qwenIdx],
        ['InternVL3-8B', '6f_151k', uniform(cache.frameCount, 6)],
      ] as const) {
        const configs = p.gridConfigs(model, 'V1_short').filter((c) => c.key === key);
        const sel = await selectItemFrames(p, (f) => probeVideo(f), { model, split: 'V1_short', sampleId: '042-1' }, configs);
        const c = sel!.configs[0]!;
        expect(c.domain).toBe('cache');
        expect(c.cacheMetadata).toBe(true);
        expect(c.total).toBe(cache.frameCount);
        expect(c.sampled).toEqual(want);
        expect(c.timestampsS).toEqual(want.map((x) => x / 1.0));
        // The image each strip tile shows is the cache's own JPEG at that index.
        const res = await svc.requestFrames({ video: video, indices: c.frames, approximate: false });
        expect(res.failures).toEqual([]);
        expect(c.frames.map((f) => readBarcode(res.files.get(f)!))).toEqual(want.map((x) => truth[x]));
      }
    } finally {
      p.close();
    }
  }, 120_000);

  it('a cache whose timestamps are not x / fps and whose frame count is not duration × fps', async () => {
    const src = barcodeVideo({ name: 'cache-strips-plain.mp4', frames: 300, gop: 30, bframes: 2 });
    const meta = await probeVideo(src);
    // A cache of 9 frames taken mid-second (0.5 s, 1.5 s, …): not what duration × fps (12) or x / fps give.
    const timestamps = Array.from({ length: 9 }, (_, i) => i + 0.5);
    const caches = [{ videoId: VIDEO_ID, fps: 1, frameCount: 9, durationS: 12, timestampsS: timestamps, source: null }];
    const config = makeConfigSpec('4f_151k', { sampling: { policy: 'scalegrid-uniform', seed: null, fps: 1 }, pipeline: 'cache' });
    const c = selectFramesForConfig({ meta, config, model: 'M', caches, videoId: VIDEO_ID });
    expect(c.total).toBe(9);
    expect(c.sampled).toEqual(uniform(9, 4));
    expect(c.timestampsS).toEqual(uniform(9, 4).map((x) => x + 0.5));
    // 25 fps from 0: at t = x + 0.5 s fps=1 shows the last frame whose time, in ticks, rounds to at
    // most t — the last before t (frame 12 at 0.48 s for t = 0.5 s).
    expect(c.frames).toEqual(uniform(9, 4).map((x) => Math.ceil((x + 0.5) * 25) - 1));
    // Without the cache, the domain is the video's own: 12 frames at x / 1.
    const plain = selectFramesForConfig({ meta, config, model: 'M', videoId: VIDEO_ID });
    expect(plain.total).toBe(12);
    expect(plain.cacheMetadata).toBe(false);
  });

  it('a damaged cache is refused naming the file and field', () => {
    const dir = tempDir('fb-cache-bad-');
    const d = path.join(dir, 'cache', VIDEO_ID);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, 'frame_000001.jpg'), 'x');
    fs.writeFileSync(path.join(d, 'metadata.json'), JSON.stringify({ video_id: VIDEO_ID, extracted_fps: 1.0, frame_count: 3, timestamps_sec: [0, 1, 2] }));
    const project = path.join(dir, 'p.flipbook');
    let r = flipbook('import', path.join(dir, 'cache'), '--project', project);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/metadata\.json:1: frame_count: 3, but the folder holds 1 frame_\*\.jpg/);
    fs.writeFileSync(path.join(d, 'metadata.json'), JSON.stringify({ video_id: VIDEO_ID, extracted_fps: 1.0, frame_count: 1, timestamps_sec: [0, 1] }));
    r = flipbook('import', path.join(dir, 'cache'), '--project', project);
    expect(r.stderr).toMatch(/metadata\.json:1: timestamps_sec: 2 timestamps for 1 frames/);
    expect(fs.existsSync(project)).toBe(false);
  });
});
