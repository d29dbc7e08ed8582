/**
 * One config identity across sources (docs/formats.md "One config identity"): the same frames
 * and pixel budget get the same key whichever toolkit wrote the file. A real lmms-eval log (its
 * samples as written, its results.json with `max_pixels=151200` in model_args, as lmms-eval's
 * Qwen/LLaVA runs are configured) joins the public release's real V1 grids — `16f_151k`, not
 * `16f_151200` — so the user's model is complete on the release's configs; and a file naming
 * the same setting under another key is imported with a warning that says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openProject } from '../../../electron/store/project';
import { metricsReport } from '../../../electron/cli/commands/metrics';
import { realFixturesPresent } from '../../real-fixtures';
import { tempDir } from '../../temp-dir';
import { flipbook } from '../cli/cli-helpers';
import { sharedFixtures } from './helpers';

const lmmsDir = path.join(sharedFixtures, 'lmms-eval');
const aggDir = path.join(sharedFixtures, 'scalegrid/labels/aggregated');
const present = realFixturesPresent('config identity', lmmsDir, aggDir);
const V1_WIDE = ['Qwen2.5-VL-7B_V1_short_predictions_wide.csv', 'Qwen3-VL-8B_V1_short_predictions_wide.csv', 'InternVL3-8B_V1_short_predictions_wide.csv'];

/** The real log under a run of its own, with `max_frames_num=<n>,max_pixels=151200` in its results' model_args. */
function lmmsRun(dir: string, frames: number): string {
  const run = path.join(dir, `run-${frames}`);
  fs.mkdirSync(run, { recursive: true });
  const results = JSON.parse(fs.readFileSync(path.join(lmmsDir, '20251106_202956_results.json'), 'utf8')) as { config: { model_args: string } };
  results.config.model_args = results.config.model_args.replace(/max_frames_num=\d+/, `max_frames_num=${frames}`) + ',max_pixels=151200';
  fs.writeFileSync(path.join(run, '20251106_202956_results.json'), JSON.stringify(results, null, 2));
  const log = path.join(run, '20251106_202956_samples_videomme.jsonl');
  fs.copyFileSync(path.join(lmmsDir, '20251106_202956_samples_videomme.jsonl'), log);
  return log;
}

describe.skipIf(!present)('one config identity across sources', () => {
  it("lmms-eval's max_pixels=151200 is the release's 151k: one set of configs, and the user's model completes the release's grid", () => {
    const dir = tempDir('fb-config-identity-');
    const project = path.join(dir, 'p.flipbook');
    const gt = path.join(lmmsDir, '20251106_202956_samples_videomme.jsonl');
    const rel = flipbook('import', ...V1_WIDE.map((f) => path.join(aggDir, f)), '--ground-truth', gt, '--project', project);
    expect(rel.code, rel.stderr).toBe(0);
    const logs = [16, 32, 64].map((n) => lmmsRun(dir, n));
    for (const log of logs) {
      const r = flipbook('import', log, '--project', project, '--model', 'My-LLaVA-Qwen2', '--split', 'V1_{duration}', '--json');
      expect(r.code, r.stderr).toBe(0);
      expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings.join('\n')).not.toMatch(/near-duplicate/);
    }
    const p = openProject(project, { readOnly: true });
    try {
      const keys = p.listConfigs().map((c) => c.key);
      expect(keys.filter((k) => k.includes('151200'))).toEqual([]);
      expect(keys).toEqual(expect.arrayContaining(['16f_151k', '32f_151k', '64f_151k']));
      const mine = p.listConfigs().find((c) => c.key === '32f_151k')!;
      expect(mine.pixelCount).toBe(151000);
      const grid = p.listGrids().find((g) => g.model === 'My-LLaVA-Qwen2' && g.split === 'V1_short')!;
      expect(grid.configs.map((c) => c.key)).toEqual(['16f_151k', '32f_151k', '64f_151k']);
      // The exact setting is kept in the config's model args of its grid.
      expect(p.gridConfigs('My-LLaVA-Qwen2', 'V1_short').find((c) => c.key === '32f_151k')!.modelArgs).toMatch(/max_pixels=151200/);
      const report = metricsReport(p, ['16f_151k', '32f_151k', '64f_151k']);
      const status = (model: string) => report.grids.find((g) => g.model === model && g.split === 'V1_short')!.matchedGrid.status;
      expect(status('My-LLaVA-Qwen2')).toBe('complete');
      expect(status('Qwen2.5-VL-7B')).toBe('complete');
      expect(report.matchedGrid.models).toEqual(expect.arrayContaining(['My-LLaVA-Qwen2', 'Qwen2.5-VL-7B', 'Qwen3-VL-8B', 'InternVL3-8B']));
    } finally {
      p.close();
    }
  });

  it('a key naming the same setting another way is imported with a near-duplicate warning', () => {
    const dir = tempDir('fb-config-near-');
    const project = path.join(dir, 'p.flipbook');
    const header = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
    const a = path.join(dir, 'a.csv');
    fs.writeFileSync(a, `${header}\nq1,M,S,32f_151k,32,151000,A,A,1,t,\n`);
    const b = path.join(dir, 'b.csv');
    fs.writeFileSync(b, `${header}\nq1,N,S,32f_151200,32,151200,A,A,1,t,\nq1,N,S,32f_302k,32,302000,A,A,1,t,\n`);
    expect(flipbook('import', a, '--project', project).code).toBe(0);
    const r = flipbook('import', b, '--project', project, '--json');
    expect(r.code, r.stderr).toBe(0);
    const warnings = (JSON.parse(r.stdout) as { warnings: string[] }).warnings;
    expect(warnings).toEqual([
      'config 32f_151200 (151200 pixels per frame) is a near-duplicate of 32f_151k (151000): the same frames and a pixel budget within 1%, under another key, so their grids do not join; if they are one setting, import with --config 32f_151k',
    ]);
    // The same key with the other count of its budget is the same config, not a conflict.
    const c = path.join(dir, 'c.csv');
    fs.writeFileSync(c, `${header}\nq2,M,S,32f_151k,32,151200,B,A,0,t,\n`);
    const again = flipbook('import', c, '--project', project);
    expect(again.code, again.stderr).toBe(0);
  });
});
