/**
 * Import as a user waits for it, at the bench's two sizes: `flipbook import` of the generated
 * per_item.csv at 1× (~145k rows) and 10× (~1.45M rows, a lab's project) as CLI processes —
 * wall time, CPU time (user + system of the child) and peak memory — beside the same import by
 * the tree before the one plain TypeScript per_item.csv reader (the WebAssembly kernel and fast
 * path, main@23696c9), taken in the same run: its files come out of the repository's history
 * (`git archive`) into a temp folder and run with this checkout's node_modules. The two are
 * run alternately, so the machine's load moves both alike. Goal (docs/architecture.md "Import at
 * lab scale"): the import's wall time within 1.5× of the tree before's, at both sizes. Python's
 * csv module reading the same file (how the Python reference exporter, baseline_export.py,
 * starts) is timed beside them for scale.
 *
 * Without the history (a shallow clone, an exported tarball) the tree before cannot be run; the
 * bench then prints its recorded figures (`RECORDED`) and no verdict.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { generatePerItemCsv } from './generate-per-item';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const BIN = path.join(ROOT, 'bin/flipbook.js');
/** The tree compared against: the one before the plain TypeScript reader, or FLIPBOOK_BENCH_BEFORE (e.g. main, to show a change is no slower than it). */
const BEFORE_COMMIT = process.env.FLIPBOOK_BENCH_BEFORE ?? '23696c9';

/**
 * The tree before, measured by an earlier version of this bench on a 2-core machine shared with
 * other work (load ~13): shown only when the tree cannot be run here.
 */
const RECORDED = {
  commit: BEFORE_COMMIT,
  x1: { import_ms: 2049.2, cpu_ms: 720, python_read_ms: 1139.4 },
  x10: { import_ms: 6810.5, cpu_ms: 2160, python_read_ms: 9699.5 },
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

/** The tree at `commit`, unpacked from the repository's history into `work`, built; null when the history lacks it. */
export function treeBefore(work: string, commit = BEFORE_COMMIT): string | null {
  const dir = path.join(work, `before-${commit}`);
  mkdirSync(dir);
  const archive = spawnSync('git', ['-C', ROOT, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
  if (archive.status !== 0) return null;
  const untar = spawnSync('tar', ['-x', '-C', dir], { input: archive.stdout });
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr.toString().slice(0, 400)}`);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const bin = path.join(dir, 'bin/flipbook.js');
  timed(process.execPath, [bin, '--help']); // builds its CLI; not timed
  return bin;
}

interface Side {
  ms: number[];
  cpu: (number | null)[];
}
const side = (): Side => ({ ms: [], cpu: [] });
const summary = (s: Side) => ({
  import_ms: round(median(s.ms)),
  cpu_ms: s.cpu.every((c) => c !== null) ? median(s.cpu as number[]) : null,
  runs_ms: s.ms.map(round),
});

async function atScale(work: string, scale: number, runs: number, before: string | null): Promise<Record<string, unknown>> {
  const csv = path.join(work, `per_item_${scale}x.csv`);
  const gen = generatePerItemCsv(csv, undefined, scale);
  const now = side();
  const then = side();
  const py = side();
  const importWith = (bin: string, into: Side, i: number): void => {
    const project = path.join(work, `p${scale}x-${i}.flipbook`);
    const r = timed(process.execPath, [bin, 'import', csv, '--project', project]);
    into.ms.push(r.ms);
    into.cpu.push(r.cpuMs);
    for (const s of ['', '-wal', '-shm']) rmSync(project + s, { force: true });
  };
  // Each side's first import is not timed: ours makes the command's V8 code cache there
  // (bin/flipbook.js, once per build, like the build itself), and both read the file into the
  // page cache.
  if (before) importWith(before, side(), -1);
  importWith(BIN, side(), -1);
  for (let i = 0; i < runs; i++) {
    const p = timed('python3', ['-c', PY_READ, csv]);
    py.ms.push(p.ms);
    py.cpu.push(p.cpuMs);
    if (before) importWith(before, then, i);
    importWith(BIN, now, i);
  }
  rmSync(csv, { force: true });
  const n = summary(now);
  const b = before ? summary(then) : null;
  return {
    rows: gen.rows,
    bytes: gen.bytes,
    ...n,
    before: b,
    python_read_ms: round(median(py.ms)),
    // The goal's figure: wall time against the tree before's in this run.
    vs_before: b ? Math.round((n.import_ms / b.import_ms) * 1000) / 1000 : null,
    cpu_vs_before: b && n.cpu_ms !== null && b.cpu_ms ? Math.round((n.cpu_ms / b.cpu_ms) * 1000) / 1000 : null,
  };
}

export async function benchImportScale(): Promise<Record<string, unknown>> {
  // A first call makes the CLI build when it is missing or stale; it is not timed.
  timed(process.execPath, [BIN, '--help']);
  const work = mkdtempSync(path.join(tmpdir(), 'fb-bench-import-'));
  try {
    const before = treeBefore(work);
    const x1 = await atScale(work, 1, 5, before);
    const x10 = await atScale(work, 10, 3, before);
    const g1 = x1.vs_before as number | null;
    const g10 = x10.vs_before as number | null;
    return {
      x1,
      x10,
      before: before ? { commit: BEFORE_COMMIT, measured: 'in this run' } : { ...RECORDED, measured: 'not in this run: the history lacks the commit' },
      vs_before: { x1: g1, x10: g10, goal_at_most: 1.5, met: g1 !== null && g10 !== null ? g1 <= 1.5 && g10 <= 1.5 : null },
      machine: { load_average_1m: Math.round((loadavg()[0] ?? 0) * 100) / 100 },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  void benchImportScale().then((r) => process.stdout.write(`${JSON.stringify(r, null, 2)}\n`));
}
