import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFrameService } from '../../../electron/frames/frame-service';
import { planDecodeRuns, selectExpression } from '../../../electron/frames/extraction-plan';
import { MediaError } from '../../../electron/media/media-error';
import { probeVideo } from '../../../electron/media/probe';
import { barcodeVideo, readBarcodes } from './barcode-video';

const video = (): string => barcodeVideo({ name: 'bars-b3-offset.mkv', frames: 300, gop: 50, bframes: 3, startOffsetS: 2.5 });

describe('decode planning', () => {
  it('groups by keyframe interval, merges close intervals, keeps select lists short', async () => {
    const m = await probeVideo(video());
    expect(planDecodeRuns(m, [5, 7, 60, 61, 290], { mergeGapFrames: 0 })).toEqual([
      { keyframe: 0, indices: [5, 7] },
      { keyframe: 50, indices: [60, 61] },
      { keyframe: 250, indices: [290] },
    ]);
    // 45 → next keyframe 50 is 5 frames away: cheaper to decode through than to start a process
    expect(planDecodeRuns(m, [45, 60], { mergeGapFrames: 10 })).toEqual([{ keyframe: 0, indices: [45, 60] }]);
    const odd = Array.from({ length: 25 }, (_, i) => 2 * i + 1);
    const runs = planDecodeRuns(m, odd, { maxTerms: 10 });
    expect(runs.every((r) => r.indices.length <= 10)).toBe(true);
    expect(runs.flatMap((r) => r.indices)).toEqual(odd);
    // minRuns splits a long run at an interval boundary so both cores work
    const split = planDecodeRuns(m, [10, 120, 220], { mergeGapFrames: 1000, minRuns: 2 });
    expect(split.length).toBe(2);
    expect(split.flatMap((r) => r.indices)).toEqual([10, 120, 220]);
    expect(() => planDecodeRuns(m, [300])).toThrow(/outside 0…299/);
    expect(selectExpression(m, [3, 4, 5, 9]).split('between').length - 1).toBe(2);
  });
});

describe('frame service scheduling', () => {
  it('shares frames between concurrent requests and decodes each once', async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'flipbook-share-'));
    const svc = createFrameService({ cacheDir, parallelism: 1 });
    const [a, b] = await Promise.all([
      svc.requestFrames({ video: video(), indices: [10, 20, 30], approximate: false }),
      svc.requestFrames({ video: video(), indices: [20, 30, 40], approximate: false }),
    ]);
    expect(readBarcodes([...a.files.keys()].sort((x, y) => x - y).map((k) => a.files.get(k) ?? ''))).toEqual([10, 20, 30]);
    expect(readBarcodes([20, 30, 40].map((k) => b.files.get(k) ?? ''))).toEqual([20, 30, 40]);
    expect(a.decoded + b.decoded).toBe(6); // per request "delivered by decoding", shared ones count in both
    const files = readdirSync(join(cacheDir, a.meta.hash.slice(0, 2), a.meta.hash)).filter((f) => /^\d+-w320\.jpg$/.test(f));
    expect(files.sort()).toEqual(['10-w320.jpg', '20-w320.jpg', '30-w320.jpg', '40-w320.jpg']);
  });

  it('the current view is served before queued prefetch work', async () => {
    const svc = createFrameService({ cacheDir: mkdtempSync(join(tmpdir(), 'flipbook-prio-')), parallelism: 1, plan: { mergeGapFrames: 0, maxRunsPerProcess: 1 } });
    const order: string[] = [];
    const blocker = svc.requestFrames({ video: video(), indices: [5], approximate: false });
    const prefetch = svc.requestFrames({ video: video(), indices: [60, 110, 160], priority: 5, approximate: false, onTile: () => order.push('prefetch') });
    const meta = await svc.probe(video());
    // wait until the prefetch runs are queued behind the blocker
    while (svc.stats().queued < 3) await new Promise((r) => setTimeout(r, 5));
    const view = svc.requestFrames({ video: meta, indices: [260], priority: 0, approximate: false, onTile: () => order.push('view') });
    await Promise.all([blocker, prefetch, view]);
    expect(order.indexOf('view')).toBeLessThan(order.lastIndexOf('prefetch'));
    expect(order[0]).toBe('view');
  });

  it('cancelling a request drops its queued work and rejects with cancelled; shared work survives', async () => {
    const svc = createFrameService({ cacheDir: mkdtempSync(join(tmpdir(), 'flipbook-cancel-')), parallelism: 1, plan: { mergeGapFrames: 0, maxRunsPerProcess: 1 } });
    const meta = await svc.probe(video());
    const leave = new AbortController();
    const left = svc.requestFrames({ video: meta, indices: [10, 60, 110, 160, 210], signal: leave.signal, approximate: false });
    const stay = svc.requestFrames({ video: meta, indices: [160], approximate: false });
    while (svc.stats().queued + svc.stats().running < 5) await new Promise((r) => setTimeout(r, 5));
    leave.abort();
    const err = await left.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(MediaError);
    expect((err as MediaError).code).toBe('cancelled');
    const s = await stay;
    expect(readBarcodes([s.files.get(160) ?? ''])).toEqual([160]);
    // the shared run finishes its bookkeeping just after delivering; nothing else is left queued
    expect(svc.stats().queued).toBe(0);
    while (svc.stats().running) await new Promise((r) => setTimeout(r, 5));
  });
});
