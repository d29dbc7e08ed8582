/**
 * The frame engine's CLI commands (probe, extract-frames, frames) run as a user runs them:
 * `node bin/flipbook.js …`, on real index-encoded videos, with a real project file for `frames`.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/index';
import { sampleFrames } from '../../../shared/samplers/index';
import { barcodeVideo, readBarcodes } from '../frames/barcode-video';
import { batch, config, response } from '../store/helpers';
import { tempDir } from '../../temp-dir';
import { flipbook } from './cli-helpers';

const video = (): string => barcodeVideo({ name: 'bars-b3-offset.mkv', frames: 300, gop: 50, bframes: 3, startOffsetS: 2.5 });
const lastJson = (stdout: string): Record<string, unknown> => JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;

describe('flipbook probe', () => {
  it('prints metadata, and JSON with --json', () => {
    const r = flipbook('probe', '--video', video());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/frames\s+300 \(counted/);
    expect(r.stdout).toMatch(/first frame at 2\.500000 s/);
    const j = flipbook('probe', '--video', video(), '--json');
    expect(JSON.parse(j.stdout)).toMatchObject({ frameCount: 300, startTimeS: 2.5, codec: 'h264', variableFrameRate: false, keyframeCount: 6 });
  });

  it('missing and non-video files: exit 1 with the reason; no --video: exit 2', () => {
    const dir = tempDir('flipbook-cli-probe-');
    writeFileSync(join(dir, 'a.mp4'), 'not a video');
    const missing = flipbook('probe', '--video', join(dir, 'none.mp4'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/video file not found/);
    const bad = flipbook('probe', '--video', join(dir, 'a.mp4'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a readable video file/);
    expect(flipbook('probe').code).toBe(2);
  });
});

describe('flipbook extract-frames', () => {
  it('--indices writes DIR/<index>.jpg showing exactly that frame, and a JSON summary last; the second run hits the cache', () => {
    const dir = tempDir('flipbook-cli-x-');
    const out = join(dir, 'out');
    const args = ['extract-frames', '--video', video(), '--indices', '0,1,49,50,173,299', '--out', out, '--cache-dir', join(dir, 'cache')];
    const r = flipbook(...args);
    expect(r.code, r.stderr).toBe(0);
    const s = lastJson(r.stdout);
    expect(s).toMatchObject({ frames: 6, cacheHits: 0, decoded: 6 });
    expect(typeof s.seconds).toBe('number');
    const files = readdirSync(out).sort((a, b) => parseInt(a) - parseInt(b));
    expect(files).toEqual(['0.jpg', '1.jpg', '49.jpg', '50.jpg', '173.jpg', '299.jpg']);
    expect(readBarcodes(files.map((f) => join(out, f)))).toEqual([0, 1, 49, 50, 173, 299]);
    expect(lastJson(flipbook(...args).stdout)).toMatchObject({ frames: 6, cacheHits: 6, decoded: 0 });
  });

  it('--policy/--n, WebP, and --cache-fps (files named by cache index, showing the native frame fps=r emits)', () => {
    const dir = tempDir('flipbook-cli-p-');
    const out = join(dir, 'out');
    const r = flipbook(
      'extract-frames',
      '--video',
      video(),
      '--policy',
      'uniform-center',
      '--n',
      '5',
      '--format',
      'webp',
      '--width',
      '160',
      '--out',
      out,
      '--cache-dir',
      join(dir, 'c'),
    );
    expect(r.code, r.stderr).toBe(0);
    const want = sampleFrames('uniform-center', { total: 300, n: 5 });
    expect(lastJson(r.stdout).indices).toEqual(want);
    expect(readdirSync(out).every((f) => f.endsWith('.webp'))).toBe(true);
    const out2 = join(dir, 'out2');
    const c = flipbook('extract-frames', '--video', video(), '--indices', '0,3,11', '--cache-fps', '1', '--out', out2, '--cache-dir', join(dir, 'c'));
    expect(c.code, c.stderr).toBe(0);
    // fps=1 over a 25 fps video emits, for tick x, the last frame within x + 0.5 s: 12, 87, 287
    expect(lastJson(c.stdout).nativeFrames).toEqual([12, 87, 287]);
    expect(readBarcodes(['0.jpg', '3.jpg', '11.jpg'].map((f) => join(out2, f)))).toEqual([12, 87, 287]);
  });

  it('bad usage exits 2; an index past the end exits 1 naming the range', () => {
    const dir = tempDir('flipbook-cli-u-');
    expect(flipbook('extract-frames', '--video', video(), '--out', dir).code).toBe(2);
    expect(flipbook('extract-frames', '--video', video(), '--indices', '1', '--policy', 'random', '--n', '3', '--out', dir).code).toBe(2);
    expect(flipbook('extract-frames', '--video', video(), '--policy', 'nope', '--n', '3', '--out', dir).code).toBe(2);
    const r = flipbook('extract-frames', '--video', video(), '--indices', '300', '--out', dir, '--cache-dir', join(dir, 'c'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/outside 0…299/);
  });
});

describe('flipbook frames', () => {
  it('extracts the union of an item’s configs (recorded indices win, overrides apply) and lists files per config', () => {
    const dir = tempDir('flipbook-cli-f-');
    const projectFile = join(dir, 'audit.flipbook');
    const p = openProject(projectFile, { create: true });
    const configs = [
      config('textonly', 0),
      config('8f', 8, 150528, { sampling: { policy: 'uniform-linspace', seed: null, fps: null } }),
      config('16f', 16),
      config('4f_cache', 4, 150528, { pipeline: 'cache', sampling: { policy: 'scalegrid-uniform', seed: null, fps: 1 } }),
      config('3f_rec', 3),
    ];
    p.applyImport(
      batch('grid.csv', {
        configs,
        items: [{ split: 'V1_short', sampleId: 'vid-1', videoFile: basename(video()), videoId: 'vid-1' }],
        responses: configs.map((c, i) =>
          response({ model: 'qwen2-vl', sampleId: 'vid-1', config: c.key, pred: 'A', line: i + 1, frameIndices: c.key === '3f_rec' ? [5, 150, 151] : null }),
        ),
      }),
    );
    p.setSetting('mediaRoot', dirname(video()));
    p.setSetting('samplerOverrides', { '16f': { policy: 'uniform-center' } });
    p.close();

    const r = flipbook('frames', '--project', projectFile, '--item', 'V1_short/vid-1', '--model', 'qwen2-vl', '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      configs: { config: string; policy: string; source: string; indices: number[]; frames: number[]; files: string[] }[];
      unionFrames: number;
    };
    const by = new Map(out.configs.map((c) => [c.config, c]));
    expect(by.get('textonly')?.indices).toEqual([]);
    expect(by.get('8f')).toMatchObject({ policy: 'uniform-linspace', source: 'provenance', indices: sampleFrames('uniform-linspace', { total: 300, n: 8 }) });
    expect(by.get('16f')).toMatchObject({ policy: 'uniform-center', source: 'override', indices: sampleFrames('uniform-center', { total: 300, n: 16 }) });
    expect(by.get('3f_rec')).toMatchObject({ policy: 'explicit', source: 'recorded', indices: [5, 150, 151] });
    // cached pipeline: 12 fps=1 frames, scalegrid-uniform picks 0,4,7,11 → native frames fps=1 emits
    expect(by.get('4f_cache')).toMatchObject({ policy: 'scalegrid-uniform', source: 'provenance', indices: [0, 4, 7, 11], frames: [12, 112, 187, 287] });
    const all = out.configs.flatMap((c) => c.frames.map((f, i) => [f, c.files[i] ?? ''] as const));
    expect(readBarcodes(all.map(([, f]) => f))).toEqual(all.map(([f]) => f));
    expect(all.every(([, f]) => f.startsWith(`${projectFile}.frames/`))).toBe(true);
    expect(out.unionFrames).toBe(new Set(all.map(([f]) => f)).size);

    const human = flipbook('frames', '--project', projectFile, '--item', 'V1_short/vid-1', '--model', 'qwen2-vl');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/0 decoded/); // second run: everything cached
    const missing = flipbook('frames', '--project', projectFile, '--item', 'V1_short/nope', '--model', 'qwen2-vl');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no item V1_short\/nope/);
    expect(flipbook('frames', '--project', projectFile, '--item', 'nosplit', '--model', 'x').code).toBe(2);
  });
});
