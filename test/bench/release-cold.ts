/**
 * One cold import + export of a per_item.csv, as `flipbook import` then `flipbook export`
 * would run them: `node --import tsx test/bench/release-cold.ts <per_item.csv> <dir>` imports
 * into `<dir>/bench.flipbook`, exports to `<dir>/export` and prints the timings as JSON. The
 * release bench (release.ts) runs it in fresh processes — every run starts with V8 knowing
 * nothing of this code, as a real run does — and reports the median.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { readImport } from '../../electron/importers/index';
import { exportRelease } from '../../electron/release/export';
import { openProject } from '../../electron/store/project';

export const MATCHED = ['textonly', '16f_151k', '32f_151k'];

export interface ColdRun {
  read_ms: number;
  open_ms: number;
  apply_ms: number;
  import_ms: number;
  export_ms: number;
  import_plus_export_ms: number;
  cpu_ms: { read: number; open: number; apply: number; import: number; export: number; import_plus_export: number };
  /** Peak resident memory of the process (import and export included). */
  peak_rss_mb: number;
}

const round = (x: number): number => Math.round(x * 10) / 10;
/** CPU time (user + system) of this process since `u`, in ms. */
const cpuSince = (u: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(u);
  return round((d.user + d.system) / 1000);
};

export async function coldRun(csv: string, dir: string): Promise<ColdRun> {
  const u0 = process.cpuUsage();
  let u = u0;
  let t = performance.now();
  const batches = await readImport(csv);
  const read = performance.now() - t;
  const readCpu = cpuSince(u);
  u = process.cpuUsage();
  t = performance.now();
  const project = openProject(path.join(dir, 'bench.flipbook'), { create: true });
  const open = performance.now() - t;
  const openCpu = cpuSince(u);
  try {
    u = process.cpuUsage();
    t = performance.now();
    for (const b of batches) project.applyImport(b);
    const apply = performance.now() - t;
    const applyCpu = cpuSince(u);
    const importCpu = cpuSince(u0);
    project.setSetting('matchedGrid', MATCHED);
    u = process.cpuUsage();
    t = performance.now();
    await exportRelease(project, path.join(dir, 'export'), { now: new Date(0) });
    const exp = performance.now() - t;
    const exportCpu = cpuSince(u);
    return {
      read_ms: round(read),
      open_ms: round(open),
      apply_ms: round(apply),
      import_ms: round(read + open + apply),
      export_ms: round(exp),
      import_plus_export_ms: round(read + open + apply + exp),
      cpu_ms: { read: readCpu, open: openCpu, apply: applyCpu, import: importCpu, export: exportCpu, import_plus_export: round(importCpu + exportCpu) },
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    project.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [csv, dir] = process.argv.slice(2);
  if (!csv || !dir) throw new Error('usage: release-cold.ts <per_item.csv> <dir>');
  process.stdout.write(JSON.stringify(await coldRun(csv, dir)) + '\n');
}
