import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sampleFrames } from '../../../shared/samplers/index';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/flipbook.js', 'sample-frames', ...args], { cwd: repoRoot, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function lastLineJson(stdout: string): unknown {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!);
}

describe('flipbook sample-frames', () => {
  it('prints the sampler output as JSON on the last line', () => {
    const r = cli('--policy', 'uniform-linspace-round', '--total', '12', '--n', '3');
    expect(r.code).toBe(0);
    expect(lastLineJson(r.stdout)).toEqual([0, 6, 11]);
  });

  it('passes seed and video id to scalegrid-random', () => {
    const r = cli('--policy', 'scalegrid-random', '--total', '1000', '--n', '8', '--seed', '1', '--video-id', 'abc');
    expect(r.code).toBe(0);
    expect(lastLineJson(r.stdout)).toEqual(sampleFrames('scalegrid-random', { total: 1000, n: 8, seed: 1, videoId: 'abc' }));
  });

  it('takes recorded indices for explicit', () => {
    const r = cli('--policy', 'explicit', '--total', '10', '--indices', '3,1,3');
    expect(r.code).toBe(0);
    expect(lastLineJson(r.stdout)).toEqual([3, 1, 3]);
  });

  it('prints help with --help', () => {
    const r = cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: flipbook sample-frames --policy P --total T --n N/);
  });

  // Sampler argument checks are unit-tested; these cover each way the CLI layer maps them to exit 2.
  it.each([
    [['--total', '10', '--n', '3'], /--policy is required/],
    [['--policy', 'zigzag', '--total', '10', '--n', '3'], /unknown policy 'zigzag'/],
    [['--policy', 'random', '--total', 'ten', '--n', '3'], /--total must be an integer/],
    [['--policy', 'scalegrid-random', '--total', '10', '--n', '3'], /video id/],
  ])('exits 2 on bad usage %j', (args, message) => {
    const r = cli(...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
