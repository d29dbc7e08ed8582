// The CLI when its reader goes away (`flipbook … | head`) and when a refusal would quote a
// huge input (docs/security.md): exit quietly, and messages of bounded length.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flipbook, repoRoot } from './cli-helpers';
import { tempDir } from '../../temp-dir';

const dir = tempDir('fb-cli-out-');

/** Runs the CLI, reads `keep` bytes of stdout, then closes the pipe as `head -c` does. */
function headOf(args: string[], keep: number): Promise<{ code: number | null; signal: string | null; stderr: string; got: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/flipbook.js'), ...args], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let got = '';
    let stderr = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('CLI did not exit within 60 s'))), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.length >= keep) child.stdout!.destroy();
    });
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr, got: got.slice(0, keep) });
    });
  });
}

describe('CLI output', () => {
  it('stops quietly (exit 0, nothing on stderr) when stdout is closed early, as by `| head`', async () => {
    // A project whose metrics report is far larger than a pipe's buffer.
    const header = 'sample_id,model,split,config,frame_count,pixel_count,predicted_option,ground_truth_option,correct,source_tag,protocol_note';
    const lines = [header];
    for (let m = 0; m < 6; m++)
      for (let s = 0; s < 6; s++)
        for (let i = 0; i < 100; i++)
          for (const [c, f] of [
            ['textonly', 0],
            ['8f', 8],
            ['16f', 16],
          ] as const) {
            const p = 'ABCD'[(i * 7 + m * 3 + f) % 4]!;
            const gt = 'ABCD'[(i + s) % 4]!;
            lines.push(`q${i},M${m},S${s},${c},${f},${f === 0 ? 0 : ''},${p},${gt},${p === gt ? 1 : 0},,`);
          }
    fs.writeFileSync(path.join(dir, 'per_item.csv'), `${lines.join('\n')}\n`);
    const project = path.join(dir, 'p.flipbook');
    expect(flipbook('import', path.join(dir, 'per_item.csv'), '--project', project).code).toBe(0);
    for (const args of [
      ['metrics', '--project', project, '--json'],
      ['metrics', '--project', project],
    ]) {
      const r = await headOf(args, 10);
      expect(r.stderr).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      expect(r.got).toHaveLength(10);
    }
  }, 120_000);

  it('a refusal quoting a huge value prints a bounded message', () => {
    // A 100,000-character answer cell the importer must quote when it refuses it.
    const file = path.join(dir, 'M_Video-MME_8frame.tsv');
    fs.writeFileSync(file, `index\tquestion_id\toptions\tanswer\tprediction\n0\tq0\t['A. 1', 'B. 2']\t${'x'.repeat(100_000)}\tA\n`);
    const r = flipbook('import', file, '--project', path.join(dir, 'q.flipbook'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/M_Video-MME_8frame\.tsv:2: answer: /);
    expect(r.stderr).toMatch(/more characters cut\)/);
    expect(r.stderr.length).toBeLessThan(3_000);
  });
});
