/**
 * frames:strips on real parts (a real project, an ffmpeg-made video, the real frame service):
 * the strips a request draws and the frames it extracts come from ONE selection, so with a
 * project's sampler override every tile of every strip arrives, exact.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, Strip } from '../../../shared/api/contract';
import { sampleFrames } from '../../../shared/samplers/index';
import { createBackend, type Backend } from '../../../electron/api/create-backend';
import { dispatch } from '../../../electron/api/dispatch';
import { openProject } from '../../../electron/store/project';
import { checkedHandlers } from './checked-handlers';
import { config, response, tempDir } from '../store/helpers';

const MODEL = 'InternVL3-8B'; // model default sampler: uniform-center
const SPLIT = 'V1_short';
const FRAMES = 75; // 3 s at 25 fps

describe('frames:strips with a sampler override (real project, real video)', () => {
  let dir: string;
  let backend: Backend;
  const events: { name: EventName; payload: unknown }[] = [];

  beforeAll(() => {
    dir = tempDir('fb-strips-');
    const media = path.join(dir, 'media');
    fs.mkdirSync(media);
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=s=160x120:r=25:d=3',
      '-c:v',
      'libx264',
      '-g',
      '25',
      '-pix_fmt',
      'yuv420p',
      path.join(media, 'v.mp4'),
    ]);
    const file = path.join(dir, 'p.flipbook');
    const configs = [config('textonly', 0), config('8f', 8), config('16f', 16)];
    const p = openProject(file, { create: true });
    p.applyImports([
      {
        run: { sourcePath: 'x', sha256: '0'.repeat(64), format: 'test', toolkit: null, modelArgs: null },
        items: [{ split: SPLIT, sampleId: 'v', question: 'q', options: ['a', 'b'], answer: 'A', videoFile: 'v.mp4' }],
        responses: configs.map((c, i) => response({ model: MODEL, split: SPLIT, sampleId: 'v', config: c.key, line: i + 1, pred: 'A', correct: true, groundTruth: 'A' })),
        configs,
        warnings: [],
      },
    ]);
    p.setSetting('mediaRoot', media);
    // The 16f strip is drawn with uniform-linspace instead of the model's uniform-center.
    p.setSetting('samplerOverrides', { '16f': { policy: 'uniform-linspace' } });
    p.close();
    backend = createBackend({ emit: (name, payload) => events.push({ name, payload }), mediaUrl: (id) => `/media/${id}` });
    backend.open(file);
  });
  afterAll(() => {
    backend?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("draws the override's frames and delivers every one of their tiles exactly", async () => {
    const r = await dispatch(checkedHandlers(backend.handlers), 'frames:strips', { model: MODEL, split: SPLIT, sampleId: 'v', jobId: 'strips-1' });
    if (!r.ok) throw new Error(r.error.message);
    const strips = (r.value as { strips: Strip[] }).strips;
    const s16 = strips.find((s) => s.config === '16f')!;
    const s8 = strips.find((s) => s.config === '8f')!;
    const linspace = sampleFrames('uniform-linspace', { total: FRAMES, n: 16 });
    const center = sampleFrames('uniform-center', { total: FRAMES, n: 16 });
    // The override must make a difference here, or the test would prove nothing.
    expect(linspace).not.toEqual(center);
    expect(s16.sampler).toBe('uniform-linspace (override)');
    expect(s16.indices).toEqual([...new Set(linspace)]);
    expect(s8.indices).toEqual([...new Set(sampleFrames('uniform-center', { total: FRAMES, n: 8 }))]);
    const wanted = new Set(strips.flatMap((s) => s.indices));
    const exact = () =>
      new Set(
        events
          .filter((e) => e.name === 'frames:tile')
          .map((e) => e.payload as { jobId: string; tile: { index: number; approximate: boolean } })
          .filter((t) => t.jobId === 'strips-1' && !t.tile.approximate)
          .map((t) => t.tile.index),
      );
    // Wait for the extraction to finish (its last progress event), then compare what arrived.
    await expect
      .poll(
        () =>
          events.some(
            (e) =>
              e.name === 'job:progress' &&
              (e.payload as { jobId: string; done: number; total: number }).jobId === 'strips-1' &&
              (e.payload as { done: number; total: number }).done === (e.payload as { total: number }).total,
          ),
        { timeout: 30_000 },
      )
      .toBe(true);
    expect([...wanted].filter((i) => !exact().has(i))).toEqual([]);
  });
});
