import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleFrames } from '../../../shared/samplers/index';
import { createFrameService, type FrameService, type TileEvent } from '../../../electron/frames/frame-service';
import { cacheFrameCount, nativeIndexForCacheFrame } from '../../../electron/frames/frame-selection';
import { probeVideo } from '../../../electron/media/probe';
import { tempDir } from '../store/helpers';
import { barcodeVideo, readBarcode, readBarcodes } from './barcode-video';

// Each video: B-frames, and (mkv) a stream that starts at 2.5 s, (mp4) an edit list and an odd GOP,
// (vfr) irregular frame times — the cases where a naive "seek to k/fps" shows the wrong frame.
const videos = {
  mkvOffset: () => barcodeVideo({ name: 'bars-b3-offset.mkv', frames: 300, gop: 50, bframes: 3, startOffsetS: 2.5 }),
  mp4: () => barcodeVideo({ name: 'bars-b2-gop37.mp4', frames: 260, gop: 37, bframes: 2 }),
  vfr: () => barcodeVideo({ name: 'bars-vfr.mkv', frames: 200, gop: 40, bframes: 2, setpts: "'N/25/TB+if(gte(N,60),0.37/TB,0)+if(gte(N,120),(N-120)*0.013/TB,0)'" }),
};

function newService(): FrameService {
  return createFrameService({ cacheDir: tempDir('flipbook-fcache-') });
}

async function expectExact(svc: FrameService, video: string, indices: number[]): Promise<void> {
  const res = await svc.requestFrames({ video, indices, approximate: false });
  expect(res.failures).toEqual([]);
  const want = [...new Set(indices)].sort((a, b) => a - b);
  expect([...res.files.keys()].sort((a, b) => a - b)).toEqual(want);
  const seen = readBarcodes(want.map((k) => res.files.get(k) ?? ''));
  expect(seen).toEqual(want);
}

describe('exact frames from index-encoded videos', () => {
  beforeAll(() => {
    for (const make of Object.values(videos)) make();
  });

  it('probe sees B-frames, start offset and counts frames the container does not list', async () => {
    const m = await probeVideo(videos.mkvOffset());
    expect(m.frameCount).toBe(300);
    expect(m.containerFrameCount).toBeNull();
    expect(m.startTimeS).toBeCloseTo(2.5, 6);
    expect(m.keyframes).toEqual([0, 50, 100, 150, 200, 250]);
    expect(m.variableFrameRate).toBe(false);
    expect(m.avgFrameRate).toBeCloseTo(25, 6);
    const v = await probeVideo(videos.vfr());
    expect(v.variableFrameRate).toBe(true);
    expect(v.pts.kind).toBe('list');
  });

  for (const [name, make] of Object.entries(videos)) {
    it(`${name}: first, last, interval edges and scattered indices`, async () => {
      const file = make();
      const m = await probeVideo(file);
      const last = m.frameCount - 1;
      const edges = m.keyframes.flatMap((k) => [k - 1, k, k + 1]).filter((k) => k >= 0 && k <= last);
      await expectExact(newService(), file, [0, last, ...edges, 7, 13, 14, 15, 16, 101, last - 1]);
    });

    it(`${name}: every sampling policy delivers its frames`, async () => {
      const file = make();
      const m = await probeVideo(file);
      // One request for the union of all policies (as the item view does), then each policy's
      // indices are checked against what was delivered.
      const lists: number[][] = [];
      for (const policy of ['uniform-linspace', 'uniform-linspace-round', 'uniform-center', 'scalegrid-uniform', 'scalegrid-dense-start', 'random'] as const) {
        for (const n of [1, 8, 33]) lists.push(sampleFrames(policy, { total: m.frameCount, n, seed: 7 }));
      }
      lists.push(sampleFrames('scalegrid-random', { total: m.frameCount, n: 16, seed: 3, videoId: 'abc' }));
      const union = [...new Set(lists.flat())].sort((a, b) => a - b);
      const res = await newService().requestFrames({ video: file, indices: union, approximate: false });
      expect(res.failures).toEqual([]);
      const decoded = readBarcodes(union.map((u) => res.files.get(u) ?? ''));
      const shown = new Map(union.map((k, i) => [k, decoded[i]]));
      for (const list of lists) expect(list.map((k) => shown.get(k))).toEqual(list);
    });
  }

  it('all frames of a video in one request (long select lists are split, consecutive ranges merged)', async () => {
    const file = videos.mp4();
    const m = await probeVideo(file);
    const every = Array.from({ length: m.frameCount }, (_, i) => i);
    const odd = every.filter((i) => i % 2 === 1);
    const svc = newService();
    await expectExact(svc, file, every);
    await expectExact(newService(), file, odd);
  });

  it('WebP and full-size output are exact too', async () => {
    const file = videos.mkvOffset();
    const svc = newService();
    const webp = await svc.requestFrames({ video: file, indices: [0, 77, 299], spec: { width: 160, format: 'webp' }, approximate: false });
    expect([...webp.files.values()].every((f) => f.endsWith('.webp'))).toBe(true);
    expect([0, 77, 299].map((k) => readBarcode(webp.files.get(k) ?? ''))).toEqual([0, 77, 299]);
    const full = await svc.requestFrames({ video: file, indices: [123], spec: { width: null, format: 'jpeg' }, approximate: false });
    const f = full.files.get(123) ?? '';
    expect(f).toMatch(/123-full\.jpg$/);
    expect(readBarcode(f)).toBe(123);
  });

  it('cache-domain (fps=r) indices map to the frames ffmpeg fps=r itself emits', async () => {
    for (const file of [videos.mkvOffset(), videos.vfr()]) {
      const m = await probeVideo(file);
      for (const r of [1, 2]) {
        const out = tempDir('flipbook-fps-');
        execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-vf', `fps=${r},format=yuvj420p`, join(out, '%05d.jpg')]);
        const emitted = readBarcodes(
          readdirSync(out)
            .sort()
            .map((f) => join(out, f)),
        );
        expect(cacheFrameCount(m, r)).toBe(emitted.length);
        const mapped = emitted.map((_, x) => nativeIndexForCacheFrame(m, r, x));
        expect(mapped).toEqual(emitted);
      }
    }
  });

  it('approximate tiles come first, are marked, show a keyframe, and are replaced by exact ones', async () => {
    const file = videos.mkvOffset();
    const svc = newService();
    const tiles: TileEvent[] = [];
    const indices = [10, 60, 140, 222];
    const res = await svc.requestFrames({ video: file, indices, onTile: (t) => tiles.push(t) });
    const m = res.meta;
    for (const k of indices) {
      const mine = tiles.filter((t) => t.index === k);
      expect(mine.at(-1)?.kind).toBe('exact');
      const approx = mine.filter((t) => t.kind === 'approximate');
      for (const a of approx) {
        expect(m.keyframes).toContain(a.shownIndex);
        expect(a.shownIndex).not.toBe(k);
        expect(readBarcode(a.file)).toBe(a.shownIndex);
        expect(a.file).not.toBe(res.files.get(k));
      }
    }
    expect(tiles.some((t) => t.kind === 'approximate')).toBe(true);
    expect(res.approxFilledSeconds).not.toBeNull();
    // second request: all cache hits, no approximate tiles needed
    const again: TileEvent[] = [];
    const res2 = await svc.requestFrames({ video: file, indices, onTile: (t) => again.push(t) });
    expect(res2.cacheHits).toBe(indices.length);
    expect(again.every((t) => t.kind === 'exact')).toBe(true);
  });
});
