import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { sampleFrames } from '../../../shared/samplers/index';
import { resolveFfmpeg } from '../../../electron/media/ffmpeg-path';
import { openProject } from '../../../electron/store/index';
import { batch } from '../store/helpers';
import { flipbook, makeTwoModelProject } from './cli-helpers';

// Ground truth is A everywhere. Outcomes (textonly, 16f, 32f):
//   q1 0 1 1 · q2 1 1 0 · q3 0 0 1 · q4 1 0 1
let project = '';
beforeAll(() => {
  project = makeTwoModelProject('flipbook-cli-cascade-');
});

describe('flipbook cascade', () => {
  it('finds the cheapest τ matching the reference budget', () => {
    const r = flipbook('cascade', '--project', project, '--model', 'm1', '--split', 'S', '--budgets', '16f_151k,32f_151k', '--reference', '32f_151k', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ model: 'm1', split: 'S', n: 4, signal: 'confidence', referenceAccuracy: 0.75, referenceFrames: 32 });
    // τ = 0.3: q1, q2, q4 stop at 16f (q4 wrong there), q3 goes on to 32f → 3/4 at (16·3 + 32)/4 = 20 frames.
    expect(out.operatingPoint).toMatchObject({ tau: 0.3, accuracy: 0.75, meanSharedCost: 20 });
    expect(out.operatingPoint.savingVsReference).toBeCloseTo(0.375, 12);
    const text = flipbook('cascade', '--project', project, '--model', 'm1', '--split', 'S', '--budgets', '16f_151k,32f_151k', '--reference', '32f_151k');
    expect(text.stdout).toMatch(/operating point: τ 0\.3000, accuracy 75\.00%, 37\.50% fewer frames than 32f_151k/);
  });

  it('counts the shared frame cost from the sampling policy over the real video when no frame_indices are recorded', () => {
    // Give every item one real 100-frame video: uniform-linspace 16 and 32 over 100 frames are
    // not nested, so the union at the top budget is larger than 32 frames.
    const dir = path.dirname(project);
    const media = path.join(dir, 'media');
    fs.mkdirSync(media, { recursive: true });
    const ff = spawnSync(resolveFfmpeg(), ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25', '-t', '4', '-pix_fmt', 'yuv420p', path.join(media, 'v.mp4')]);
    expect(ff.status, String(ff.stderr)).toBe(0);
    const p = openProject(project);
    p.applyImport(batch('meta.json', { items: ['q1', 'q2', 'q3', 'q4'].map((sampleId) => ({ split: 'S', sampleId, videoFile: 'v.mp4' })) }));
    p.setSetting('mediaRoot', media);
    p.close();

    const r = flipbook('cascade', '--project', project, '--model', 'm1', '--split', 'S', '--budgets', '16f_151k,32f_151k', '--reference', '32f_151k', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.frameSets).toMatchObject({ fromPolicy: 4, noVideo: 0 });
    const f16 = sampleFrames('uniform-linspace', { total: 100, n: 16 });
    const f32 = sampleFrames('uniform-linspace', { total: 100, n: 32 });
    const union = new Set([...f16, ...f32]).size;
    expect(union).toBeGreaterThan(32);
    // τ = +∞ (serialised as null): every item climbs to 32f and has decoded both budgets' frames.
    const top = out.sweep.find((pt: { tau: number | null }) => pt.tau === null);
    expect(top.meanSharedCost).toBe(union);
    expect(top.meanUnsharedCost).toBe(48);
  });

  it('fails clearly on an unknown config and exits 2 on bad usage', () => {
    const r = flipbook('cascade', '--project', project, '--model', 'm1', '--split', 'S', '--budgets', '16f_151k,64f_151k', '--reference', '64f_151k');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has no config "64f_151k"/);
    expect(flipbook('cascade', '--project', project, '--model', 'm1').code).toBe(2);
    expect(flipbook('cascade', '--help').code).toBe(0);
  });
});
