import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveFfmpeg, resolveFfprobe } from '../../../electron/media/ffmpeg-path';
import { ensureSampleMedia, sampleMediaHash } from '../../../electron/sample/render-videos';
import { loadSchedule, type Schedule } from '../../../electron/sample/schedule';
import { tempDir } from '../../temp-dir';

const ffmpeg = resolveFfmpeg();
const ffprobe = resolveFfprobe();
const missing = spawnSync(ffmpeg, ['-version']).error ?? spawnSync(ffprobe, ['-version']).error;
if (missing) console.log(`skipped sample video rendering tests: ffmpeg/ffprobe not runnable (${missing.message})`);

const tmp = tempDir('flipbook-sample-render-');

const { schedule: full } = loadSchedule();
// Two 4-second videos: enough to check every property the full sample relies on.
const schedule: Schedule = {
  ...full,
  videos: [
    {
      id: 'r1',
      durationS: 4,
      events: [
        { color: 'red', shape: 'square', x: 20, y: 20, start: 1.0, end: 2.0 }, // frames 25–49
        { color: 'yellow', shape: 'bar', x: 200, y: 120, start: 2.5, end: 2.6 }, // 62.5 rounds half up: frames 63–64
      ],
      questions: [{ kind: 'count', color: 'red', shape: 'square' }],
    },
    { id: 'r2', durationS: 4, events: [{ color: 'blue', shape: 'square', x: 100, y: 60, start: 0, end: 4 }], questions: [{ kind: 'first' }] },
  ],
};

function rgbAt(file: string, frame: number, x: number, y: number): [number, number, number] {
  const r = spawnSync(
    ffmpeg,
    ['-v', 'error', '-i', file, '-vf', `select=eq(n\\,${frame})`, '-fps_mode', 'passthrough', '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'],
    { maxBuffer: 1 << 24 },
  );
  expect(r.status, r.stderr?.toString()).toBe(0);
  const o = (y * schedule.width + x) * 3;
  return [r.stdout[o]!, r.stdout[o + 1]!, r.stdout[o + 2]!];
}

function near(rgb: [number, number, number], hex: string): boolean {
  const v = Number.parseInt(hex.slice(2), 16);
  const want = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  return rgb.every((c, i) => Math.abs(c - want[i]!) <= 40);
}

describe.skipIf(Boolean(missing))('sample video rendering', () => {
  const cacheDir = path.join(tmp, 'cache');
  const mediaA = path.join(tmp, 'a', 'media');

  it('encodes H.264 yuv420p at 25 fps with a keyframe every gop frames', async () => {
    const progress: number[] = [];
    const res = await ensureSampleMedia(schedule, mediaA, { cacheDir, onProgress: (d) => progress.push(d) });
    expect(res.source).toBe('encoded');
    expect(res.files).toEqual(['r1.mp4', 'r2.mp4']);
    expect(progress.sort()).toEqual([1, 2]);
    const file = path.join(mediaA, 'r1.mp4');
    const probe = spawnSync(
      ffprobe,
      ['-v', 'error', '-select_streams', 'v:0', '-count_frames', '-show_entries', 'stream=codec_name,pix_fmt,width,height,avg_frame_rate,nb_read_frames', '-of', 'json', file],
      { encoding: 'utf8' },
    );
    const stream = (JSON.parse(probe.stdout) as { streams: Record<string, unknown>[] }).streams[0]!;
    expect(stream).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p', width: 320, height: 180, avg_frame_rate: '25/1', nb_read_frames: '100' });
    const keys = spawnSync(ffprobe, ['-v', 'error', '-select_streams', 'v:0', '-skip_frame', 'nokey', '-show_entries', 'frame=pts_time', '-of', 'json', file], {
      encoding: 'utf8',
    });
    const keyTimes = (JSON.parse(keys.stdout) as { frames: { pts_time: string }[] }).frames.map((f) => Number(f.pts_time));
    expect(keyTimes).toEqual([0, 2]); // frames 0 and 50 of 100
  });

  it('draws each event on exactly its frames', () => {
    const file = path.join(mediaA, 'r1.mp4');
    const red = full.palette.red;
    const inRed = (k: number) => near(rgbAt(file, k, 38, 38), red);
    expect([inRed(0), inRed(24), inRed(25), inRed(49), inRed(50)]).toEqual([false, false, true, true, false]);
    const inYellow = (k: number) => near(rgbAt(file, k, 236, 129), full.palette.yellow);
    expect([inYellow(62), inYellow(63), inYellow(64), inYellow(65)]).toEqual([false, true, true, false]);
  });

  it('reuses the folder, then the shared cache, and re-encodes when the schedule changes', async () => {
    expect((await ensureSampleMedia(schedule, mediaA, { cacheDir })).source).toBe('marker');
    const mediaB = path.join(tmp, 'b', 'media');
    const b = await ensureSampleMedia(schedule, mediaB, { cacheDir });
    expect(b.source).toBe('cache');
    expect(fs.readFileSync(path.join(mediaB, 'r2.mp4')).equals(fs.readFileSync(path.join(mediaA, 'r2.mp4')))).toBe(true);
    const changed: Schedule = { ...schedule, videos: [schedule.videos[1]!] };
    expect(sampleMediaHash(changed)).not.toBe(sampleMediaHash(schedule));
    expect((await ensureSampleMedia(changed, mediaB, { cacheDir })).source).toBe('encoded');
  });

  it('reports a missing ffmpeg clearly', async () => {
    await expect(ensureSampleMedia(schedule, path.join(tmp, 'c', 'media'), { cacheDir: path.join(tmp, 'cache2'), ffmpeg: path.join(tmp, 'no-such-ffmpeg') })).rejects.toThrow(
      /not found/,
    );
    expect(fs.readdirSync(path.join(tmp, 'cache2'))).toEqual([]); // no half-written cache entry
  });
});
