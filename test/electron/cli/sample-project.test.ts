import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolveFfmpeg } from '../../../electron/media/ffmpeg-path';
import { openProject } from '../../../electron/store/project';
import { mcqaMetrics } from '../../../shared/engine/mcqa';
import { sampleFrames } from '../../../shared/samplers/index';
import { tempDir } from '../../temp-dir';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const tmp = tempDir('flipbook-sample-project-');
const env = { ...process.env, FLIPBOOK_SAMPLE_CACHE: path.join(tmp, 'cache') };

const missing = spawnSync(resolveFfmpeg(), ['-version']).error;
if (missing) console.log(`skipped sample-project CLI tests that render video: ffmpeg not runnable (${missing.message})`);

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/flipbook.js', 'sample-project', ...args], { cwd: repoRoot, encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Summary {
  project: string;
  mediaRoot: string;
  videos: number;
  media: string;
  projectWritten: boolean;
  items: number | null;
  responses: number | null;
}
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Summary;

describe('flipbook sample-project', () => {
  it('prints help and rejects bad usage with exit 2', () => {
    const help = cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: flipbook sample-project --out DIR/);
    const noOut = cli();
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out is required/);
    expect(cli('--out', tmp, '--bogus').code).toBe(2);
  });

  describe.skipIf(Boolean(missing))('with ffmpeg', () => {
    const out = path.join(tmp, 'proj');

    it('writes sample.flipbook and its media root; the store holds what the engine needs', () => {
      const r = cli('--out', out, '--json');
      expect(r.code, r.stderr).toBe(0);
      const s = lastJson(r.stdout);
      expect(s).toMatchObject({ project: path.join(out, 'sample.flipbook'), mediaRoot: path.join(out, 'media'), videos: 12, media: 'encoded', projectWritten: true });

      const project = openProject(s.project, { readOnly: true });
      try {
        expect(project.getSetting<string>('mediaRoot')).toBe(s.mediaRoot);
        expect(project.listModels()).toEqual(['SimInternVL-8B', 'SimLLaVA-7B', 'SimQwen-7B']);
        const items = project.listItems();
        expect(items).toHaveLength(24);
        for (const it of items) {
          expect(fs.existsSync(path.join(s.mediaRoot, it.videoFile!))).toBe(true);
          expect(it.options).toHaveLength(4);
          expect(it.question).toBeTruthy();
          expect(it.taskType).toBeTruthy();
        }
        // each model's grid keeps its own sampler, and the recorded frames are that sampler's
        const policies = Object.fromEntries(project.listModels().map((m) => [m, project.gridConfigs(m, 'SampleBench').find((c) => c.key === '32f_151k')!.sampling.policy]));
        expect(policies).toEqual({ 'SimInternVL-8B': 'uniform-center', 'SimLLaVA-7B': 'uniform-linspace', 'SimQwen-7B': 'uniform-linspace-round' });
        const rec = project.responsesForItem('SimInternVL-8B', 'SampleBench', 'v01-red-squares-q1').find((x) => x.config === '16f_151k')!;
        expect(rec.frameIndices).toEqual(sampleFrames('uniform-center', { total: 750, n: 16 }));

        let tr = 0;
        let confused = 0;
        let overwritten = 0;
        for (const model of project.listModels()) {
          const c = mcqaMetrics(project.loadMatrix(model, 'SampleBench')).counts;
          tr += c.terminalRegressions;
          confused += c.visuallyConfused;
          overwritten += c.textOverwritten;
        }
        console.log(`sample project (from the store): terminal regressions ${tr}, visually confused ${confused}, text overwritten ${overwritten}`);
        expect(tr).toBeGreaterThanOrEqual(3);
        expect(confused).toBeGreaterThanOrEqual(3);
        expect(overwritten).toBeGreaterThanOrEqual(1);
      } finally {
        project.close();
      }
    });

    it('keeps an existing project and its media on a second run, and rebuilds with --force', () => {
      const again = lastJson(cli('--out', out, '--json').stdout);
      expect(again).toMatchObject({ media: 'marker', projectWritten: false });
      const forced = cli('--out', out, '--json', '--force');
      expect(forced.code, forced.stderr).toBe(0);
      expect(lastJson(forced.stdout)).toMatchObject({ media: 'marker', projectWritten: true, items: 24, responses: 360 });
      // a second folder reuses the shared cache instead of encoding
      expect(lastJson(cli('--out', path.join(tmp, 'proj2'), '--json').stdout)).toMatchObject({ media: 'cache', projectWritten: true });
      expect(fs.readdirSync(out).sort()).toEqual(['media', 'sample.flipbook']);
    });
  });
});
