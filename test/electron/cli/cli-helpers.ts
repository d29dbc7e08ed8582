/** Runs the real CLI (`node bin/flipbook.js`) and writes small release-format inputs. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
