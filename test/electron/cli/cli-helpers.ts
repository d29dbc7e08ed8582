/** Runs the real CLI (`node bin/flipbook.js`) and writes small release-format inputs. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../temp-dir';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function flipbook(...args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], { encoding: 'utf8', cwd: repoRoot });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note,confidence';
const FRAMES: Record<string, number> = { textonly: 0, '16f_151k': 16, '32f_151k': 32, '64f_151k': 64 };

/**
 * A per_item.csv for model M on split S: `cells[sample][config] = [pred, confidence]`, ground truth 'A'.
 */
export function writePerItem(file: string, model: string, split: string, cells: Record<string, Record<string, [string, number]>>): void {
  const lines = [HEADER];
  for (const [sample, byConfig] of Object.entries(cells)) {
    for (const [config, [pred, conf]] of Object.entries(byConfig)) {
      const frames = FRAMES[config]!;
      lines.push([sample, model, split, config, frames, frames ? 150528 : 0, pred, 'A', pred === 'A' ? 1 : 0, 'test', '', conf].join(','));
    }
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

/**
 * The small two-model project the metrics and cascade tests share. Ground truth is A everywhere.
 * m1 outcomes (textonly, 16f, 32f): q1 0 1 1 · q2 1 1 0 · q3 0 0 1 · q4 1 0 1; m2 lacks 32f
 * (left out of the proposed matched grid).
 */
export const TWO_MODEL_CELLS = {
  q1: { textonly: ['B', 0.5], '16f_151k': ['A', 0.9], '32f_151k': ['A', 0.9] },
  q2: { textonly: ['A', 0.5], '16f_151k': ['A', 0.8], '32f_151k': ['B', 0.9] },
  q3: { textonly: ['B', 0.5], '16f_151k': ['B', 0.2], '32f_151k': ['A', 0.9] },
  q4: { textonly: ['A', 0.5], '16f_151k': ['B', 0.3], '32f_151k': ['A', 0.9] },
} as Record<string, Record<string, [string, number]>>;

/** Imports TWO_MODEL_CELLS (m1) and a one-item m2 into a new project in a temp dir (removed after the file); returns its path. */
export function makeTwoModelProject(prefix: string): string {
  const dir = tempDir(prefix);
  const csv = path.join(dir, 'per_item.csv');
  writePerItem(csv, 'm1', 'S', TWO_MODEL_CELLS);
  const csv2 = path.join(dir, 'per_item_m2.csv');
  writePerItem(csv2, 'm2', 'S', { q1: { textonly: ['A', 0.5], '16f_151k': ['A', 0.5] } });
  const project = path.join(dir, 'p.flipbook');
  const r = flipbook('import', csv, csv2, '--project', project);
  if (r.code !== 0) throw new Error(`import failed: ${r.stderr}`);
  return project;
}
