import { copyFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileIdentity } from '../../../electron/media/file-identity';
import { createProjectMetadataCache } from '../../../electron/media/project-metadata-cache';
import { probeVideo } from '../../../electron/media/probe';
import { openProject } from '../../../electron/store/index';
import { barcodeVideo } from '../frames/barcode-video';
import { tempDir } from '../../temp-dir';

describe('metadata cache in the project store (media table)', () => {
  it('stores the probe, serves it back while the file is unchanged, and survives reopening', async () => {
    const dir = tempDir('flipbook-pmc-');
    const video = join(dir, 'v.mp4');
    copyFileSync(barcodeVideo({ name: 'bars-small.mp4', frames: 60, gop: 20, bframes: 2 }), video);
    const projectFile = join(dir, 'p.flipbook');
    const p = openProject(projectFile, { create: true });
    const meta = await probeVideo(video, { cache: createProjectMetadataCache(p) });
    const id = await fileIdentity(video);
    expect(p.getMedia(video)).toMatchObject({ path: video, size: id.size, mtimeMs: id.mtimeMs, headTailHash: id.headTailHash });
    p.close();

    const p2 = openProject(projectFile, { readOnly: true });
    const cache = createProjectMetadataCache(p2);
    // a probe with a non-existent ffprobe succeeds only if the cache answers
    expect(await probeVideo(video, { cache, ffprobe: join(dir, 'no-ffprobe') })).toEqual(meta);
    utimesSync(video, new Date(), new Date(Date.now() + 10_000));
    expect(await cache.get(await fileIdentity(video))).toBeNull();
    // read-only project: the fresh probe works, the write is skipped instead of failing
    expect((await probeVideo(video, { cache })).frameCount).toBe(60);
    p2.close();
  });
});
