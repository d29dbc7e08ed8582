/**
 * The main protocol is a setting of the project (docs/metrics.md §6): `flipbook import
 * --main-protocol` stores it with the import (refused, with the whole import, when no grid has
 * that protocol), and `flipbook metrics --main-protocol` reports another one for one run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../temp-dir';
import { flipbook } from './cli-helpers';

const HEADER = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
// (textonly, 16f, 32f, 16f@random, 32f@random) per item; ground truth A.
const CELLS: Record<string, string> = { q1: '01011', q2: '11000', q3: '10110', q4: '01100' };
const CONFIGS = ['textonly', '16f_151k', '32f_151k', '16f_151k@random', '32f_151k@random'];

function perItem(file: string): void {
  const lines = [HEADER];
  for (const [id, p] of Object.entries(CELLS)) {
    CONFIGS.forEach((c, j) => {
      const frames = c === 'textonly' ? 0 : Number(/^(\d+)f/.exec(c)![1]);
      const ok = p[j] === '1';
      lines.push([id, 'M', 'S', c, frames, frames ? 151000 : 0, ok ? 'A' : 'B', 'A', ok ? 1 : 0, 't', ''].join(','));
    });
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

type Report = { protocols: { main: string; source: string }; grids: { metrics: { configs: string[]; n: number }; protocols: { protocol: string }[] }[] };
const report = (...args: string[]): Report => {
  const r = flipbook('metrics', ...args, '--json');
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
};

describe('the main protocol from the CLI', () => {
  it('untagged by default; --main-protocol on import stores another; metrics can override it', () => {
    const dir = tempDir('fb-main-protocol-');
    const csv = path.join(dir, 'per_item.csv');
    perItem(csv);
    const project = path.join(dir, 'p.flipbook');
    expect(flipbook('import', csv, '--project', project).code).toBe(0);
    let r = report('--project', project);
    expect(r.protocols).toMatchObject({ main: '', source: 'default' });
    expect(r.grids[0]!.metrics.configs).toEqual(['textonly', '16f_151k', '32f_151k']);
    expect(r.grids[0]!.protocols.map((p) => p.protocol)).toEqual(['random']);

    r = report('--project', project, '--main-protocol', '@random');
    expect(r.protocols).toMatchObject({ main: 'random', source: 'flag' });
    expect(r.grids[0]!.metrics.configs).toEqual(['textonly', '16f_151k@random', '32f_151k@random']);
    expect(r.grids[0]!.protocols.map((p) => p.protocol)).toEqual(['']);

    const bad = flipbook('metrics', '--project', project, '--main-protocol', 'dense');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no such protocol \(it has untagged, @random\)/);

    // Stored with an import (here a re-import of the same file: nothing else changes).
    const set = flipbook('import', csv, '--project', project, '--main-protocol', 'random');
    expect(set.code, set.stderr).toBe(0);
    r = report('--project', project);
    expect(r.protocols).toMatchObject({ main: 'random', source: 'setting' });
    expect(r.grids[0]!.metrics.configs).toEqual(['textonly', '16f_151k@random', '32f_151k@random']);

    // A protocol no grid has: refused with the whole import, the project as it was.
    const before = fs.readFileSync(project);
    const other = path.join(dir, 'other.csv');
    fs.writeFileSync(other, `${HEADER}\nq9,M2,S,16f_151k,16,151000,A,A,1,t,\n`);
    const refused = flipbook('import', other, '--project', project, '--main-protocol', 'raw');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/main-protocol: raw: the project has no such protocol/);
    expect(fs.readFileSync(project).equals(before)).toBe(true);
    expect(report('--project', project).grids).toHaveLength(1);
  });
});
