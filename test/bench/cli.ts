/**
 * What a CLI user waits for, as whole processes (docs/architecture.md, "CLI start-up"):
 * - start-up: `node bin/flipbook.js --help` against bare `node -e 0`, alternating, same run;
 *   target ≤ 3×;
 * - `flipbook import` then `flipbook export` of the ~145k-row bench per_item.csv as two CLI
 *   processes, against the plain Python exporter (baseline_export.py) on the same input in
 *   the same run; target ≤ 0.5×.
 * With FLIPBOOK_BENCH_BEFORE=<commit>, the same start-up and import + export by that tree
 * (import-scale.ts's treeBefore), alternating with this one's in the same run, and their ratio.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { MATCHED } from './release-cold';
import type { GeneratedCsv } from './generate-per-item';
import { treeBefore } from './import-scale';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(HERE, '../../bin/flipbook.js');

const round = (x: number): number => Math.round(x * 10) / 10;
const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  return round(v[Math.floor(v.length / 2)] as number);
};

/** Wall time of one process, in ms; throws with its stderr when it fails. */
function timed(cmd: string, args: string[]): number {
  spawnSync('sync'); // earlier runs' writeback must not land on this one's fsyncs
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  const t = performance.now() - t0;
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 800)}`);
  return t;
}

/** Median wall time of bare `node -e 0` without NODE_EXTRA_CA_CERTS. */
function withoutExtraCa(): number {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  const runs: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env });
    runs.push(performance.now() - t0);
  }
  return median(runs);
}

/** Timed import + export pairs (and Python runs) per bench: a median of five. */
const RUNS = 5;

export async function benchCli(): Promise<Record<string, unknown>> {
  // A first call makes the CLI build when it is missing or stale; it is not timed.
  timed(process.execPath, [BIN, '--help']);
  const bare: number[] = [];
  const help: number[] = [];
  for (let i = 0; i < 9; i++) {
    bare.push(timed(process.execPath, ['-e', '0']));
    help.push(timed(process.execPath, [BIN, '--help']));
  }
  const startRatio = Math.round((median(help) / median(bare)) * 100) / 100;
  // Node reads NODE_EXTRA_CA_CERTS (set where an extra CA must be trusted, as here) while it
  // starts, before any script: shown so that a slow bare `node` is explained, not timed away.
  const extraCa = process.env.NODE_EXTRA_CA_CERTS ? withoutExtraCa() : null;

  const tmp = mkdtempSync(path.join(tmpdir(), 'flipbook-bench-cli-'));
  try {
    const beforeCommit = process.env.FLIPBOOK_BENCH_BEFORE;
    const before = beforeCommit ? treeBefore(tmp, beforeCommit) : null;
    const beforeHelp: number[] = [];
    if (before) for (let i = 0; i < 9; i++) (beforeHelp.push(timed(process.execPath, [before, '--help'])), help.push(timed(process.execPath, [BIN, '--help'])));
    const csv = path.join(tmp, 'per_item.csv');
    const g = spawnSync(process.execPath, ['--import', 'tsx', path.join(HERE, 'generate-per-item.ts'), csv], { encoding: 'utf8' });
    if (g.status !== 0) throw new Error(`generating the input failed: ${g.stderr}`);
    const gen = JSON.parse(g.stdout) as GeneratedCsv;
    // Each command's first call makes its V8 code cache (bin/flipbook.js, docs/architecture.md
    // "CLI start-up"): once per build, like the build itself, so not timed.
    const warm = path.join(tmp, 'warm.flipbook');
    timed(process.execPath, [BIN, 'import', csv, '--project', warm]);
    timed(process.execPath, [BIN, 'export', '--project', warm, '--out', path.join(tmp, 'warm-out'), '--matched-grid', MATCHED.join(',')]);
    const pair = (bin: string, name: string) => {
      const project = path.join(tmp, `${name}.flipbook`);
      const imp = timed(process.execPath, [bin, 'import', csv, '--project', project]);
      const exp = timed(process.execPath, [bin, 'export', '--project', project, '--out', path.join(tmp, `${name}-out`), '--matched-grid', MATCHED.join(',')]);
      return { import_ms: round(imp), export_ms: round(exp), total_ms: round(imp + exp) };
    };
    if (before) pair(before, 'warm-before');
    const py: number[] = [];
    const fb: { import_ms: number; export_ms: number; total_ms: number }[] = [];
    const fbBefore: typeof fb = [];
    for (let i = 0; i < RUNS; i++) {
      py.push(timed('python3', [path.join(HERE, 'baseline_export.py'), csv, path.join(tmp, `py${i}`), MATCHED.join(',')]));
      if (before) fbBefore.push(pair(before, `before${i}`));
      fb.push(pair(BIN, `run${i}`));
    }
    const pyMs = median(py);
    const fbMs = median(fb.map((r) => r.total_ms));
    const ioRatio = Math.round((fbMs / pyMs) * 1000) / 1000;
    return {
      startup: {
        bare_node_ms: median(bare),
        flipbook_help_ms: median(help),
        runs_bare_node_ms: bare.map(round),
        runs_flipbook_help_ms: help.map(round),
        ratio: startRatio,
        ...(extraCa && { bare_node_without_extra_ca_certs_ms: extraCa }),
        target_ratio: 3,
        meets_target: startRatio <= 3,
      },
      import_export_two_processes: {
        input_rows: gen.rows,
        flipbook_ms: fbMs,
        runs: fb,
        python_ms: pyMs,
        runs_python_ms: py.map(round),
        ratio: ioRatio,
        target_ratio: 0.5,
        meets_target: ioRatio <= 0.5,
      },
      ...(before && {
        before: {
          commit: beforeCommit,
          flipbook_help_ms: median(beforeHelp),
          help_vs_before: Math.round((median(help) / median(beforeHelp)) * 1000) / 1000,
          import_export_ms: median(fbBefore.map((r) => r.total_ms)),
          runs: fbBefore,
          import_export_vs_before: Math.round((fbMs / median(fbBefore.map((r) => r.total_ms))) * 1000) / 1000,
        },
      }),
      machine: { load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
