/**
 * The frame caches of the release's `code/cache_frames.py` (docs/formats.md "The release's
 * pipeline files"): one `metadata.json`, or a cache folder of `<video_id>/metadata.json`, read
 * into each video's frame times; every refusal names the file, line and field.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheMetadataFiles, readScalegridCache } from '../../../electron/importers/scalegrid-cache';
import { Scratch, expectImportError } from './helpers';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** A cache folder: per video folder its metadata (JSON, indented) and how many frame_*.jpg. */
function cache(videos: Record<string, { meta: object; jpgs?: number }>): string {
  const dir = scratch.freshDir();
  for (const [folder, v] of Object.entries(videos)) {
    scratch.write(`${dir}/${folder}/metadata.json`, JSON.stringify(v.meta, null, 2));
    for (let i = 1; i <= (v.jpgs ?? 0); i++) scratch.write(`${dir}/${folder}/frame_${String(i).padStart(6, '0')}.jpg`, 'x');
  }
  return scratch.path(dir);
}
const meta = (id: string, over: object = {}) => ({
  video_id: id,
  duration_sec: 2.5,
  extracted_fps: 2,
  frame_count: 3,
  timestamps_sec: [0, 0.5, 1.25],
  width: 1280,
  height: 720,
  ...over,
});

describe('readScalegridCache', () => {
  it("reads a folder's videos in name order, each with its frames' times, and one digest of their files", async () => {
    const dir = cache({
      vidB: { meta: meta('vidB'), jpgs: 3 },
      vidA: { meta: meta('vidA', { timestamps_sec: null, extracted_fps: 4, duration_sec: undefined }), jpgs: 3 },
      notes: { meta: {} },
    });
    // A folder without metadata.json is not a video's.
    scratch.write(`${relative(scratch.dir, dir)}/empty/readme.txt`, 'x');
    expect(cacheMetadataFiles(dir)).toEqual([`${dir}/notes/metadata.json`, `${dir}/vidA/metadata.json`, `${dir}/vidB/metadata.json`].sort());
    // Written out of name order: the folder's listing order is not the result's.
    const only = cache({
      vidA: { meta: meta('vidA', { timestamps_sec: null, extracted_fps: 4, duration_sec: undefined }), jpgs: 3 },
      vidC: { meta: meta('vidC', { frame_count: 1, timestamps_sec: [0] }), jpgs: 1 },
      vidB: { meta: meta('vidB'), jpgs: 3 },
    });
    const b = await readScalegridCache(only, {});
    expect(b.videoCaches).toEqual([
      { videoId: 'vidA', fps: 4, frameCount: 3, durationS: null, timestampsS: [0, 0.25, 0.5], source: `${only}/vidA/metadata.json`, line: 1 },
      { videoId: 'vidB', fps: 2, frameCount: 3, durationS: 2.5, timestampsS: [0, 0.5, 1.25], source: `${only}/vidB/metadata.json`, line: 1 },
      { videoId: 'vidC', fps: 2, frameCount: 1, durationS: 2.5, timestampsS: [0], source: `${only}/vidC/metadata.json`, line: 1 },
    ]);
    expect([b.items, b.responses, b.configs, b.warnings]).toEqual([[], [], [], []]);
    expect(b.run).toMatchObject({ sourcePath: only, format: 'scalegrid-cache', toolkit: 'video-mme-scalegrid', modelArgs: null });
    const digest = (f: string) =>
      createHash('sha256')
        .update(readFileSync(`${only}/${f}/metadata.json`))
        .digest('hex');
    expect(b.run.sha256).toBe(
      createHash('sha256')
        .update(`vidA\u0000${digest('vidA')}\nvidB\u0000${digest('vidB')}\nvidC\u0000${digest('vidC')}\n`)
        .digest('hex'),
    );
  });

  it("reads one metadata.json, its digest the file's; a folder without frames may have another name", async () => {
    const dir = cache({ elsewhere: { meta: meta('vid9') } });
    const b = await readScalegridCache(`${dir}/elsewhere/metadata.json`, {});
    expect(b.videoCaches?.map((c) => [c.videoId, c.frameCount])).toEqual([['vid9', 3]]);
    expect(b.run.sha256).toBe(
      createHash('sha256')
        .update(readFileSync(`${dir}/elsewhere/metadata.json`))
        .digest('hex'),
    );
  });

  it('refuses a folder holding no video, and a video cached twice at one frame rate', async () => {
    const empty = cache({});
    scratch.write(`${relative(scratch.dir, empty)}/x/readme.txt`, 'x');
    await expectImportError(readScalegridCache(empty, {}), {
      file: empty,
      line: 0,
      field: '',
      reason: /^no <video_id>\/metadata\.json in this folder \(a cache_frames\.py --cache-dir\)$/,
    });
    const twice = cache({ a: { meta: meta('v1') }, b: { meta: meta('v1') }, c: { meta: meta('v1', { extracted_fps: 1, timestamps_sec: null }) } });
    // The same video cached at two frame rates is two caches.
    const rates = cache({ a: { meta: meta('v1') }, b: { meta: meta('v1', { extracted_fps: 1, timestamps_sec: null }) } });
    expect((await readScalegridCache(rates, {})).videoCaches?.map((c) => [c.videoId, c.fps])).toEqual([
      ['v1', 2],
      ['v1', 1],
    ]);
    await expectImportError(readScalegridCache(twice, {}), {
      file: 'b/metadata.json',
      line: 1,
      field: 'video_id',
      reason: new RegExp(`^video v1 at 2 fps is also cached in ${twice}/a/metadata\\.json$`),
    });
  });

  it('refuses a cache folder not named by its video, and one holding another number of frames than it says', async () => {
    const named = cache({ other: { meta: meta('v1'), jpgs: 3 } });
    await expectImportError(readScalegridCache(named, {}), {
      file: 'other/metadata.json',
      line: 1,
      field: 'video_id',
      reason: /^v1 is not the name of its cache folder \(other\), where the pipeline looks for it$/,
    });
    const short = cache({ v1: { meta: meta('v1'), jpgs: 2 } });
    await expectImportError(readScalegridCache(short, {}), {
      file: 'v1/metadata.json',
      line: 1,
      field: 'frame_count',
      reason: /^3, but the folder holds 2 frame_\*\.jpg \(an incomplete cache, which cache_frames\.py rebuilds\)$/,
    });
    // Other files beside the frames are not frames.
    const extra = cache({ v1: { meta: meta('v1'), jpgs: 3 } });
    scratch.write(`${relative(scratch.dir, extra)}/v1/frame_x.jpg`, 'x');
    scratch.write(`${relative(scratch.dir, extra)}/v1/frame_000004.png`, 'x');
    expect((await readScalegridCache(extra, {})).videoCaches).toHaveLength(1);
  });

  it('refuses timestamps that are not one per frame or go backwards, and metadata out of its shape', async () => {
    const bad = async (m: object, where: { field: string; reason?: RegExp }) =>
      expectImportError(readScalegridCache(cache({ v1: { meta: m } }), {}), { file: 'v1/metadata.json', line: 1, ...where });
    await bad(meta('v1', { timestamps_sec: [0, 1] }), { field: 'timestamps_sec', reason: /^2 timestamps for 3 frames$/ });
    await bad(meta('v1', { timestamps_sec: [0, 1, 0.5] }), { field: 'timestamps_sec.2', reason: /^0\.5 comes before the previous frame's 1$/ });
    await bad(meta('v1', { timestamps_sec: [1, 0, 2] }), { field: 'timestamps_sec.1', reason: /^0 comes before the previous frame's 1$/ });
    await bad(meta('v1', { extracted_fps: 0 }), { field: 'extracted_fps' });
    await bad(meta('v1', { frame_count: 0 }), { field: 'frame_count' });
    await bad(meta('v1', { frame_count: 2.5 }), { field: 'frame_count' });
    await bad(meta('v1', { video_id: '' }), { field: 'video_id' });
    await bad(meta('v1', { timestamps_sec: [0, -1, 2] }), { field: 'timestamps_sec.1' });
    await bad(meta('v\u0001', {}), { field: 'video_id', reason: /control character/ });
    // Equal times are not backwards.
    expect((await readScalegridCache(cache({ v1: { meta: meta('v1', { timestamps_sec: [0, 0, 1] }) } }), {})).videoCaches?.[0]?.timestampsS).toEqual([0, 0, 1]);
  });
});
