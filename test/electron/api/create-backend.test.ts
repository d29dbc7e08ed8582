/**
 * The workspace backend on real parts: a real SQLite project, real ffmpeg-made videos
 * (H.264 and MPEG-4 part 2), the real frame service, and the web mode's HTTP media route.
 * Covers the H.264 proxy, strip legends, full-size frames, missing videos and read-only.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, ItemDetail, Strip } from '../../../shared/api/contract';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { checkedHandlers } from './checked-handlers';
import { startWebMode, type WebMode } from '../../../electron/server/start-web-mode';
import { openProject } from '../../../electron/store/project';
import { config, response, tempDir } from '../store/helpers';

const MODEL = 'InternVL3-8B'; // model default sampler: uniform-center
const SPLIT = 'V1_short';

function ffmpeg(args: string[]): void {
  execFileSync('ffmpeg', ['-hide_banner', '-v', 'error', '-y', ...args]);
}
function probeCodec(file: string): { codec: string; width: number; height: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height', '-of', 'json', file], { encoding: 'utf8' });
  const s = (JSON.parse(out) as { streams: { codec_name: string; width: number; height: number }[] }).streams[0]!;
  return { codec: s.codec_name, width: s.width, height: s.height };
}

describe('workspace backend (real project, real videos)', () => {
  let dir: string;
  let file: string;
  let backend: Backend;
  const events: { name: EventName; payload: unknown }[] = [];
  const call = async <T>(b: Backend, op: string, req: unknown): Promise<T> => {
    const r = await dispatch(checkedHandlers(b.handlers), op, req);
    if (!r.ok) throw new Error(`${op}: ${r.error.code} ${r.error.message}`);
    return r.value as T;
  };

  beforeAll(() => {
    dir = tempDir('fb-backend-');
    const media = path.join(dir, 'media');
    fs.mkdirSync(media);
    // 3 s at 25 fps: H.264 (playable) and MPEG-4 part 2 (Chromium cannot play it).
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25:d=3', '-c:v', 'libx264', '-g', '25', '-pix_fmt', 'yuv420p', path.join(media, 'h264.mp4')]);
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=s=320x240:r=25:d=3', '-c:v', 'mpeg4', '-q:v', '4', '-g', '25', path.join(media, 'part2.mp4')]);
    file = path.join(dir, 'p.flipbook');
    const configs = [config('textonly', 0), config('8f', 8), config('16f', 16)];
    const items = [
      { split: SPLIT, sampleId: 'h', question: 'q h', options: ['a', 'b'], answer: 'A', videoFile: 'h264.mp4' },
      { split: SPLIT, sampleId: 'm', question: 'q m', options: ['a', 'b'], answer: 'A', videoFile: 'part2.mp4' },
      { split: SPLIT, sampleId: 'gone', question: 'q gone', options: ['a', 'b'], answer: 'A', videoFile: 'missing.mp4' },
    ];
    let line = 1;
    const responses = items.flatMap((it) =>
      configs.map((c, i) =>
        response({
          model: MODEL,
          split: SPLIT,
          sampleId: it.sampleId,
          config: c.key,
          line: line++,
          pred: i === 2 ? 'B' : 'A',
          correct: i !== 2,
          groundTruth: 'A',
          // The 8f run recorded which frames it saw.
          frameIndices: c.key === '8f' ? [0, 10, 20, 30, 40, 50, 60, 70] : null,
        }),
      ),
    );
    const p = openProject(file, { create: true });
    p.applyImports([{ run: { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null }, items, responses, configs, warnings: [] }]);
    p.setSetting('mediaRoot', media);
    p.close();
    backend = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => {
    backend?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('plays an MPEG-4 part 2 video through an H.264 proxy, transcoded once with progress', async () => {
    expect(probeCodec(path.join(dir, 'media/part2.mp4')).codec).toBe('mpeg4');
    const d = await call<ItemDetail>(backend, 'item:get', { model: MODEL, split: SPLIT, sampleId: 'm', jobId: 'proxy-job' });
    expect(d.video).not.toBeNull();
    expect(d.videoError).toBeNull();
    const id = d.video!.url.replace('/media/', '');
    const served = backend.media.pathOf(id)!;
    expect(served).toMatch(/proxy-h264\.mp4$/);
    expect(probeCodec(served).codec).toBe('h264');
    const progress = events.filter((e) => e.name === 'job:progress').map((e) => e.payload as { jobId: string; kind: string; done: number });
    expect(progress.some((p) => p.jobId === 'proxy-job' && p.kind === 'proxy' && p.done === 1)).toBe(true);
    // Cached: a second open reuses the same file (not transcoded again).
    const mtime = fs.statSync(served).mtimeMs;
    const d2 = await call<ItemDetail>(backend, 'item:get', { model: MODEL, split: SPLIT, sampleId: 'm' });
    expect(backend.media.pathOf(d2.video!.url.replace('/media/', ''))).toBe(served);
    expect(fs.statSync(served).mtimeMs).toBe(mtime);
    // Strips still come from the original (exact frames of the mpeg4 stream).
    expect(d.frames.find((f) => f.config === '16f')?.indices).toHaveLength(16);
  });

  it('serves the H.264 proxy on the web mode media route', async () => {
    const other = tempDir('fb-backend-web-');
    // A read-only second process would also work; here the web mode owns its own copy of the project.
    const copy = path.join(other, 'p.flipbook');
    fs.copyFileSync(file, copy);
    const web: WebMode = await startWebMode({ project: copy, staticDir: null });
    try {
      const base = `http://127.0.0.1:${web.server.port}`;
      const headers = { 'x-flipbook-token': web.server.token, 'content-type': 'application/json' };
      const r = (await (await fetch(`${base}/api/op/item:get`, { method: 'POST', headers, body: JSON.stringify({ model: MODEL, split: SPLIT, sampleId: 'm' }) })).json()) as {
        ok: boolean;
        value: ItemDetail;
      };
      expect(r.ok).toBe(true);
      expect(r.value.video?.mime).toBe('video/mp4');
      const res = await fetch(`${base}${r.value.video!.url}`, { headers: { ...headers, range: 'bytes=0-' } });
      expect(res.status).toBe(206);
      const body = Buffer.from(await res.arrayBuffer());
      const out = path.join(other, 'served.mp4');
      fs.writeFileSync(out, body);
      expect(probeCodec(out).codec).toBe('h264');
    } finally {
      await web.close();
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it("names each strip's sampler, also for recorded indices; the text-only strip has none", async () => {
    const d = await call<ItemDetail>(backend, 'item:get', { model: MODEL, split: SPLIT, sampleId: 'h' });
    const byKey = new Map(d.configs.map((c) => [c.key, c.sampler]));
    expect(byKey.get('8f')).toBe('uniform-center · recorded indices');
    expect(byKey.get('16f')).toBe('uniform-center (model default)');
    expect(byKey.get('textonly')).toBeNull();
    const s = await call<{ strips: Strip[] }>(backend, 'frames:strips', { model: MODEL, split: SPLIT, sampleId: 'h', jobId: 'labels' });
    const strip8 = s.strips.find((x) => x.config === '8f')!;
    expect(strip8.sampler).toBe('uniform-center · recorded indices');
    expect(strip8.indices).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
    const text = s.strips.find((x) => x.config === 'textonly')!;
    expect(text.sampler).toBeNull();
    expect(text.tiles).toHaveLength(0);
  });

  it('prefetches at background priority and cancels work for an item the user left', async () => {
    const item = { model: MODEL, split: SPLIT, sampleId: 'm' };
    const pre = await call<{ strips: Strip[] }>(backend, 'frames:strips', { ...item, jobId: 'prefetch-1', priority: 1 });
    expect(pre.strips.find((x) => x.config === '16f')?.tiles).toHaveLength(16);
    expect(await call(backend, 'frames:cancel', { jobId: 'prefetch-1' })).toEqual({ cancelled: true });
    expect(await call(backend, 'frames:cancel', { jobId: 'prefetch-1' })).toEqual({ cancelled: false });
    // Opening the item afterwards still delivers every tile exactly (the cancel poisoned nothing).
    const view = await call<{ strips: Strip[] }>(backend, 'frames:strips', { ...item, jobId: 'view-1' });
    const want = new Set(view.strips.flatMap((x) => x.tiles.map((t) => t.index)));
    const exact = () =>
      new Set(
        events
          .filter((e) => e.name === 'frames:tile')
          .map((e) => e.payload as { jobId: string; tile: { index: number; approximate: boolean } })
          .filter((p) => p.jobId === 'view-1' && !p.tile.approximate)
          .map((p) => p.tile.index),
      );
    await expect.poll(() => exact().size, { timeout: 30_000 }).toBe(want.size);
  });

  it('extracts a full-size frame on demand (hover)', async () => {
    const r = await call<{ url: string }>(backend, 'frames:full', { model: MODEL, split: SPLIT, sampleId: 'h', index: 37 });
    const p = backend.media.pathOf(r.url.replace('/media/', ''))!;
    expect(p).toMatch(/37-full\.jpg$/);
    const info = probeCodec(p);
    expect([info.codec, info.width, info.height]).toEqual(['mjpeg', 320, 240]);
  });

  it('opens an item whose video is missing with the reason, and no strips', async () => {
    const d = await call<ItemDetail>(backend, 'item:get', { model: MODEL, split: SPLIT, sampleId: 'gone' });
    expect(d.video).toBeNull();
    expect(d.videoError).toMatch(/video not found: .*missing\.mp4/);
    expect(d.frames).toEqual([]);
    expect(d.question).toBe('q gone');
  });

  it('opens a project held by another process read-only: reason given, writes refused, nothing changed', async () => {
    const second = createBackend({ emit: () => {}, mediaUrl: (id) => `/media/${id}`, readOnlyWhenLocked: true });
    try {
      const info = second.open(file);
      expect(info.readOnly).toBe(true);
      expect(info.readOnlyReason).toContain(`pid ${process.pid}`);
      const item = { model: MODEL, split: SPLIT, sampleId: 'h' };
      const r = await dispatch(second.handlers, 'annotation:apply', { annotator: 'ro', edit: { op: 'setPathway', ...item, pathway: 'evidence-missed', on: true } });
      expect(r).toMatchObject({ ok: false, error: { code: 'read-only' } });
      expect(r.ok ? '' : r.error.message).toContain('another Flipbook');
      for (const op of ['annotation:undo', 'annotation:redo'])
        expect(await dispatch(second.handlers, op, { annotator: 'ro', item: { model: 'M', split: 'S', sampleId: 'x' } })).toMatchObject({
          ok: false,
          error: { code: 'read-only' },
        });
      // Reading still works and shows nothing was written.
      const st = await call<{ pathways: string[] }>(second, 'annotation:state', { ...item, annotator: 'ro' });
      expect(st.pathways).toEqual([]);
      // Without the read-only fallback the second open is refused as locked.
      const strict = createBackend({ emit: () => {}, mediaUrl: (id) => id });
      expect(() => strict.open(file)).toThrow(/another Flipbook/);
    } finally {
      second.close();
    }
  });
});
