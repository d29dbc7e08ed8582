import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFrameService } from '../../../electron/frames/frame-service';
import { resolveFfmpeg, resolveFfprobe } from '../../../electron/media/ffmpeg-path';
import { MediaError } from '../../../electron/media/media-error';
import { createJsonFileMetadataCache, createMemoryMetadataCache, type MetadataCache } from '../../../electron/media/metadata-cache';
import { probeVideo } from '../../../electron/media/probe';
import { ensurePlayable } from '../../../electron/media/proxy';
import { barcodeVideo, readBarcode } from '../frames/barcode-video';
import { tempDir } from '../../temp-dir';

const dir = tempDir('flipbook-probe-');

function ffmpeg(...args: string[]): void {
  execFileSync('ffmpeg', ['-y', '-v', 'error', ...args]);
}

async function mediaError(p: Promise<unknown>): Promise<MediaError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MediaError) return e;
    throw e;
  }
  throw new Error('expected a MediaError');
}

describe('probe', () => {
  it('reads size, rate, codec, rotation and the container frame count', async () => {
    const f = join(dir, 'rot.mp4');
    const plain = join(dir, 'plain.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=30:d=2', '-c:v', 'libx264', '-preset', 'ultrafast', plain);
    ffmpeg('-i', plain, '-c', 'copy', '-metadata:s:v', 'rotate=90', f); // the tag only sticks on stream copy
    const m = await probeVideo(f);
    expect(m).toMatchObject({ codec: 'h264', width: 320, height: 240, frameCount: 60, containerFrameCount: 60, playable: true, variableFrameRate: false });
    expect(m.realFrameRate).toBe(30);
    expect(m.durationS).toBeCloseTo(2, 6);
    expect(m.startTimeS).toBe(0);
    expect([90, 270]).toContain(m.rotation);
    expect(m.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('missing, truncated, non-video and empty files give clear MediaErrors, and other videos keep working', async () => {
    const good = join(dir, 'good.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=30:d=3', '-c:v', 'libx264', '-preset', 'ultrafast', good);
    const trunc = join(dir, 'trunc.mp4');
    writeFileSync(trunc, readFileSync(good).subarray(0, 20_000)); // moov is at the end: cut before it
    const fast = join(dir, 'faststart.mp4');
    ffmpeg('-i', good, '-c', 'copy', '-movflags', '+faststart', fast);
    const truncFast = join(dir, 'trunc-faststart.mp4');
    writeFileSync(truncFast, readFileSync(fast).subarray(0, Math.floor(readFileSync(fast).length / 2)));
    const text = join(dir, 'notes.mp4');
    writeFileSync(text, 'this is not a video\n'.repeat(100));
    const empty = join(dir, 'empty.mp4');
    writeFileSync(empty, '');
    const audio = join(dir, 'audio.m4a');
    ffmpeg('-f', 'lavfi', '-i', 'sine=d=1', '-c:a', 'aac', audio);

    const cases: [string, string, RegExp][] = [
      [join(dir, 'nope.mp4'), 'missing', /not found/],
      [dir, 'not-a-file', /not a regular file/],
      [trunc, 'truncated', /truncated/],
      [truncFast, 'truncated', /truncated/],
      [text, 'not-video', /not a readable video/],
      [empty, 'not-video', /empty/],
      [audio, 'not-video', /no video stream/],
    ];
    const svc = createFrameService({ cacheDir: join(dir, 'cache') });
    for (const [file, code, msg] of cases) {
      const e = await mediaError(probeVideo(file));
      expect(e.code, file).toBe(code);
      expect(e.message).toMatch(msg);
      expect(e.message).toContain(file);
      // the service reports the same error for a strip request instead of crashing
      const e2 = await mediaError(svc.requestFrames({ video: file, indices: [0] }));
      expect(e2.code).toBe(code);
    }
    const ok = await svc.requestFrames({ video: good, indices: [0, 89] });
    expect(ok.failures).toEqual([]);
    expect(ok.files.size).toBe(2);
  });

  it('out-of-range indices are a clear bad-request error', async () => {
    const f = barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 });
    const e = await mediaError(createFrameService({ cacheDir: join(dir, 'c2') }).requestFrames({ video: f, indices: [60] }));
    expect(e.code).toBe('bad-request');
    expect(e.message).toMatch(/outside 0…59/);
  });
});

describe('metadata cache', () => {
  async function countingProbe(cache: MetadataCache, file: string): Promise<number> {
    let calls = 0;
    // a wrapper ffprobe that counts its runs: the cache must make repeat probes free
    const counter = join(dir, 'count.txt');
    const wrapper = join(dir, 'ffprobe-counting.sh');
    writeFileSync(wrapper, `#!/bin/sh\necho x >> '${counter}'\nexec ffprobe "$@"\n`, { mode: 0o755 });
    writeFileSync(counter, '');
    await probeVideo(file, { cache, ffprobe: wrapper });
    await probeVideo(file, { cache, ffprobe: wrapper });
    calls = readFileSync(counter, 'utf8').split('\n').filter(Boolean).length;
    return calls;
  }

  it('probes once per (path, size, mtime, head/tail hash), again after the file changes', async () => {
    const f = join(dir, 'cached.mp4');
    copyFileSync(barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 }), f);
    const mem = createMemoryMetadataCache();
    expect(await countingProbe(mem, f)).toBe(2); // one run = format/streams + packets
    const jsonFile = join(dir, 'meta-cache.json');
    expect(await countingProbe(createJsonFileMetadataCache(jsonFile), f)).toBe(2);
    // a fresh JSON cache object reading the same file: no ffprobe at all
    expect(await countingProbe(createJsonFileMetadataCache(jsonFile), f)).toBe(0);
    // touching the file (new mtime) invalidates
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    expect(await countingProbe(createJsonFileMetadataCache(jsonFile), f)).toBe(2);
  });

  it('a corrupt cache file is treated as empty', async () => {
    const jsonFile = join(dir, 'corrupt.json');
    writeFileSync(jsonFile, '{not json');
    const f = barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 });
    const m = await probeVideo(f, { cache: createJsonFileMetadataCache(jsonFile) });
    expect(m.frameCount).toBe(60);
  });
});

describe('ffmpeg resolution', () => {
  it('env wins, then PATH (ffmpeg-static is absent here)', () => {
    expect(resolveFfmpeg({ FLIPBOOK_FFMPEG: '/opt/x/ffmpeg' })).toBe('/opt/x/ffmpeg');
    expect(resolveFfprobe({ FLIPBOOK_FFPROBE: '/opt/x/ffprobe' })).toBe('/opt/x/ffprobe');
    expect(['ffmpeg', expect.stringContaining('ffmpeg')]).toContainEqual(resolveFfmpeg({}));
    expect(resolveFfprobe({})).toBe('ffprobe');
  });

  it('a missing tool is a clear error', async () => {
    const f = barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 });
    const e = await mediaError(probeVideo(f, { ffprobe: join(dir, 'no-such-ffprobe') }));
    expect(e.code).toBe('tool-missing');
    expect(e.message).toMatch(/FLIPBOOK_FFPROBE/);
  });
});

describe('H.264 proxy for codecs Chromium cannot play', () => {
  it('HEVC and MPEG-4 part 2 get one cached H.264 proxy with progress; strips from the original stay exact', async () => {
    for (const codec of ['libx265', 'mpeg4'] as const) {
      const f = barcodeVideo({ name: `bars-${codec}.mkv`, frames: 90, gop: 30, codec });
      const m = await probeVideo(f);
      expect(m.playable).toBe(false);
      const cacheDir = join(dir, `proxy-${codec}`);
      const progress: number[] = [];
      const out = await ensurePlayable(m, { cacheDir, onProgress: (p) => progress.push(p) });
      expect(out).not.toBe(f);
      expect(progress.at(-1)).toBe(1);
      const pm = await probeVideo(out);
      expect(pm.codec).toBe('h264');
      expect(pm.playable).toBe(true);
      expect(pm.frameCount).toBe(90);
      // cached: the second call returns at once without progress
      const again: number[] = [];
      expect(await ensurePlayable(m, { cacheDir, onProgress: (p) => again.push(p) })).toBe(out);
      expect(again).toEqual([]);
      const res = await createFrameService({ cacheDir }).requestFrames({ video: f, indices: [0, 31, 89], approximate: false });
      expect([0, 31, 89].map((k) => readBarcode(res.files.get(k) ?? ''))).toEqual([0, 31, 89]);
    }
  });

  it('a playable video is its own proxy', async () => {
    const f = barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 });
    const m = await probeVideo(f);
    expect(await ensurePlayable(m, { cacheDir: join(dir, 'p') })).toBe(f);
  });
});
