/**
 * Import as a user waits for it, at the bench's two sizes: `flipbook import` of the generated
 * per_item.csv at 1× (~145k rows) and 10× (~1.45M rows, a lab's project) as CLI processes —
 * wall time, CPU time (user + system of the child) and peak memory. In the same run, as the
 * baseline the ratios are taken against, Python's csv module reads the same file row by row
 * (how the Python reference exporter, test/bench/baseline_export.py, starts): the machine's
 * load moves both alike, so the ratios compare across runs where the times do not.
 *
 * `BEFORE` holds the same measures of this bench run on the tree before the one plain
 * TypeScript per_item.csv reader (the WebAssembly kernel and fast path, main@23696c9), so a run
 * prints today's ratios beside those. Goal (docs/architecture.md "Import at lab scale"): at both
 * sizes import within 1.5× of that.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generatePerItemCsv } from './generate-per-item';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(HERE, '../../bin/flipbook.js');

/**
 * This bench run on main@23696c9 (the WebAssembly reader and the fast path, before the plain
 * TypeScript reader), 2 cores shared with other work (load ~13).
 */
const BEFORE = {
  commit: '23696c9',
  x1: { import_ms: 2049.2, cpu_ms: 720, python_read_ms: 1139.4, python_read_cpu_ms: 350, ratio_vs_python: 1.799, cpu_ratio_vs_python: 2.057 },
  x10: { import_ms: 6810.5, cpu_ms: 2160, python_read_ms: 9699.5, python_read_cpu_ms: 2800, ratio_vs_python: 0.702, cpu_ratio_vs_python: 0.771 },
};

const round = (x: number): number => Math.round(x * 10) / 10;
const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b);
  return v[Math.floor(v.length / 2)] as number;
};

/** CPU time (user + system, ms) of this process's waited-for children so far, from /proc (Linux); null elsewhere. */
function childrenCpuMs(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 16 and 17 of stat(5) (cutime, cstime), in clock ticks (100 per second on Linux).
    return (Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return null;
  }
}

interface Timed {
  ms: number;
  cpuMs: number | null;
}

function timed(cmd: string, args: string[]): Timed {
  spawnSync('sync'); // earlier runs' writeback must not land on this one's fsyncs
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  const c1 = childrenCpuMs();
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 800)}`);
  return { ms, cpuMs: c0 === null || c1 === null ? null : c1 - c0 };
}

const PY_READ = 'import csv, sys\nn = 0\nwith open(sys.argv[1], newline="", encoding="utf-8") as f:\n    for row in csv.reader(f):\n        n += 1\n';

async function atScale(work: string, scale: number, runs: number): Promise<Record<string, unknown>> {
  const csv = path.join(work, `per_item_${scale}x.csv`);
  const gen = generatePerItemCsv(csv, undefined, scale);
  const fb: Timed[] = [];
  const py: Timed[] = [];
  for (let i = 0; i < runs; i++) {
    py.push(timed('python3', ['-c', PY_READ, csv]));
    const project = path.join(work, `p${scale}x-${i}.flipbook`);
    fb.push(timed(process.execPath, [BIN, 'import', csv, '--project', project]));
    rmSync(project, { force: true });
  }
  rmSync(csv, { force: true });
  const ms = median(fb.map((r) => r.ms));
  const cpu = fb.every((r) => r.cpuMs !== null) ? median(fb.map((r) => r.cpuMs as number)) : null;
  const pyMs = median(py.map((r) => r.ms));
  const pyCpu = py.every((r) => r.cpuMs !== null) ? median(py.map((r) => r.cpuMs as number)) : null;
  return {
    rows: gen.rows,
    bytes: gen.bytes,
    import_ms: round(ms),
    cpu_ms: cpu,
    runs_import_ms: fb.map((r) => round(r.ms)),
    python_read_ms: round(pyMs),
    python_read_cpu_ms: pyCpu,
    ratio_vs_python: Math.round((ms / pyMs) * 1000) / 1000,
    cpu_ratio_vs_python: cpu !== null && pyCpu ? Math.round((cpu / pyCpu) * 1000) / 1000 : null,
  };
}

export async function benchImportScale(): Promise<Record<string, unknown>> {
  // A first call makes the CLI build when it is missing or stale; it is not timed.
  timed(process.execPath, [BIN, '--help']);
  const work = mkdtempSync(path.join(tmpdir(), 'fb-bench-import-'));
  try {
    const x1 = await atScale(work, 1, 3);
    const x10 = await atScale(work, 10, 1);
    // CPU ratios: wall time on a shared machine mostly measures waiting for a core.
    const vsBefore = (now: Record<string, unknown>, before: { cpu_ratio_vs_python: number }): number | null =>
      typeof now.cpu_ratio_vs_python === 'number' && before.cpu_ratio_vs_python > 0
        ? Math.round((now.cpu_ratio_vs_python / before.cpu_ratio_vs_python) * 100) / 100
        : null;
    const g1 = vsBefore(x1, BEFORE.x1);
    const g10 = vsBefore(x10, BEFORE.x10);
    return {
      x1,
      x10,
      before: BEFORE,
      // Today's import CPU time against the recorded one, each taken relative to Python's read
      // of the same file in its own run (so differences between the runs' machines cancel out).
      vs_before: { x1: g1, x10: g10, goal_at_most: 1.5, met: g1 !== null && g10 !== null && g1 <= 1.5 && g10 <= 1.5 },
      machine: { load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void benchImportScale().then((r) => process.stdout.write(`${JSON.stringify(r, null, 2)}\n`));
}
