/**
 * The frame caches of cached pipelines (electron/store/video-caches.ts): stored with the
 * import, read back per video in rate order, the same cache again is nothing, and one of the
 * same video and rate with other frames refuses the whole import, naming file, line and field.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../../electron/importers/errors';
import { openProject } from '../../../electron/store/index';
import type { ImportBatch, VideoCache } from '../../../shared/domain/types';
import { batch, config, response, tempDir } from './helpers';

const cache = (videoId: string, fps: number, frames: number, extra: Partial<VideoCache> = {}): VideoCache => ({
  videoId,
  fps,
  frameCount: frames,
  durationS: frames / fps,
  timestampsS: Array.from({ length: frames }, (_, i) => i / fps),
  source: 'cache/meta.json',
  ...extra,
});
const withCaches = (name: string, caches: VideoCache[]): ImportBatch => ({
  ...batch(name, { configs: [config('16f', 16)], responses: [response({ sampleId: 'q1', config: '16f', line: 2, pred: 'A' })] }),
  videoCaches: caches,
});

describe('frame caches of cached pipelines', () => {
  it('are stored with the import and read back per video, in rate order; the same again adds nothing', () => {
    const p = openProject(path.join(tempDir('flipbook-caches-'), 'p.flipbook'), { create: true });
    const s = p.applyImport(withCaches('a.csv', [cache('v1', 2, 4), cache('v1', 1, 3, { durationS: null, source: null }), cache('v2', 1, 2)]));
    expect(s.videoCachesAdded).toBe(3);
    expect(p.videoCaches('v1')).toEqual([
      { videoId: 'v1', fps: 1, frameCount: 3, durationS: null, timestampsS: [0, 1, 2], source: null },
      { videoId: 'v1', fps: 2, frameCount: 4, durationS: 2, timestampsS: [0, 0.5, 1, 1.5], source: 'cache/meta.json' },
    ]);
    expect(p.videoCaches('v3')).toEqual([]);
    const again = p.applyImport(withCaches('b.csv', [cache('v1', 2, 4), cache('v3', 4, 1)]));
    expect(again.videoCachesAdded).toBe(1);
    expect(p.applyImport(withCaches('c.csv', [cache('v1', 2, 4)])).videoCachesAdded).toBeUndefined();
  });

  it('one of the same video and rate with other frames is refused, naming where it came from, and nothing of the import stays', () => {
    const p = openProject(path.join(tempDir('flipbook-caches-'), 'p.flipbook'), { create: true });
    p.applyImport(withCaches('a.csv', [cache('v1', 2, 4)]));
    const runs = p.listRuns().length;
    const refuse = (c: VideoCache) => {
      try {
        p.applyImport(withCaches('b.csv', [cache('v9', 1, 1), c]));
      } catch (e) {
        return e;
      }
      return null;
    };
    // Other timestamps for the same number of frames.
    const shifted = refuse(cache('v1', 2, 4, { timestampsS: [0, 0.5, 1, 1.6], line: 7 }));
    expect(shifted).toBeInstanceOf(ImportError);
    expect((shifted as ImportError).message).toBe(
      'cache/meta.json:7: frame_count: video v1 already has a 2 fps cache of 4 frames (from cache/meta.json); this one has 4 with other timestamps',
    );
    // Another frame count; no source or line of its own: the import's file, line 0.
    const longer = refuse(cache('v1', 2, 5, { source: null }));
    expect((longer as ImportError).message).toBe(
      'b.csv:0: frame_count: video v1 already has a 2 fps cache of 4 frames (from cache/meta.json); this one has 5 with other timestamps',
    );
    expect(p.videoCaches('v9')).toEqual([]);
    expect(p.listRuns()).toHaveLength(runs);
  });

  it('an earlier cache without a source is named as from an earlier import', () => {
    const p = openProject(path.join(tempDir('flipbook-caches-'), 'p.flipbook'), { create: true });
    p.applyImport(withCaches('a.csv', [cache('v1', 2, 4, { source: null })]));
    expect(() => p.applyImport(withCaches('b.csv', [cache('v1', 2, 3)]))).toThrow('(from an earlier import)');
  });
});
