/**
 * Where an export may write (docs/security.md "Export"): an existing `--out` folder or zip is
 * replaced only when it is exactly a release Flipbook wrote — its README.md carries the
 * `Exported by Flipbook` line and every file in it is one of the files that export wrote (the
 * fixed files, and the two aggregated files of each `<model>_<split>` its
 * table2_metrics.json lists — every grid an export writes is there, `{split: {model: …}}`). Anything else (an upstream release folder, a user's document
 * dropped into an export, an arbitrary file) is refused, naming it. Temp outputs a killed run
 * left beside the target are removed on the next run.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { removeStaleTemps } from '../store/process-alive';
import { README_DATE_PREFIX } from './readme';

/** The files every export may write whatever the project holds (labels/items.csv and generations.csv only with --include-text). */
const FIXED = new Set([
  'README.md',
  'labels/per_item.csv',
  'labels/derived.csv',
  'labels/items.csv',
  'labels/generations.csv',
  'labels/aggregated/table2_metrics.json',
  'labels/aggregated/release_manifest.json',
  'labels/aggregated/protocols.json',
  'annotations/codebook.json',
  'annotations/pathways.csv',
  'annotations/evidence_spans.csv',
  'annotations/events.jsonl',
  'provenance/configs.json',
  'provenance/videos.csv',
]);

const TABLE2 = 'labels/aggregated/table2_metrics.json';
const table2Schema = z.record(z.string(), z.record(z.string(), z.unknown()));

/**
 * Why the files `rel` (`/`-separated) are not exactly an export of Flipbook's, or null when they
 * are. `read` gives a file's text (null when absent or unreadable).
 */
function notAnExport(rel: readonly string[], read: (p: string) => string | null): string | null {
  const readme = read('README.md');
  if (readme === null || !readme.split('\n').some((l) => l.startsWith(README_DATE_PREFIX))) return `it holds no README.md written by Flipbook`;
  const allowed = new Set(FIXED);
  const table2Text = read(TABLE2);
  if (table2Text !== null) {
    let names: string[];
    try {
      const t2 = table2Schema.parse(JSON.parse(table2Text));
      names = Object.entries(t2).flatMap(([split, byModel]) => Object.keys(byModel).map((model) => `${model}_${split}`));
    } catch {
      return `its ${TABLE2} is not one Flipbook wrote`;
    }
    for (const n of names) (allowed.add(`labels/aggregated/${n}.json`), allowed.add(`labels/aggregated/${n}_predictions_wide.csv`));
  }
  const foreign = rel.filter((p) => !allowed.has(p));
  if (foreign.length > 0) return `it holds files Flipbook did not write (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''})`;
  return null;
}

/** Every file below `dir`, `/`-separated; symlinks count as files (never followed). */
function filesBelow(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...filesBelow(path.join(dir, e.name), `${prefix}${e.name}/`));
    else out.push(`${prefix}${e.name}`);
  }
  return out;
}

/** Refuses to replace `target` (a folder path) unless it is absent, empty, or a Flipbook export. */
export function assertReplaceableFolder(target: string): void {
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isDirectory()) throw new Error(`${target}: exists and is not a folder; refusing to replace it`);
  const files = filesBelow(target);
  if (files.length === 0) return;
  const why = notAnExport(files, (p) => {
    const f = path.join(target, ...p.split('/'));
    try {
      return fs.lstatSync(f).isFile() ? fs.readFileSync(f, 'utf8') : null;
    } catch {
      return null;
    }
  });
  if (why !== null) throw new Error(`${target}: not a release Flipbook exported (${why}); refusing to replace it — choose another --out`);
}

/**
 * Refuses to overwrite `target` (a zip path) unless it is absent or a zip Flipbook exported.
 * fflate is loaded here, for a zip only (exportRelease says why).
 */
export async function assertReplaceableZip(target: string): Promise<void> {
  const st = fs.lstatSync(target, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isFile()) throw new Error(`${target}: exists and is not a file; refusing to replace it`);
  const { unzipSync } = await import('fflate');
  let entries: Record<string, Uint8Array>;
  const names: string[] = [];
  try {
    // Only the two small files the check reads are inflated; the rest are listed.
    entries = unzipSync(fs.readFileSync(target), {
      filter: (f) => {
        names.push(f.name);
        return f.name === 'README.md' || f.name === TABLE2;
      },
    });
  } catch {
    throw new Error(`${target}: exists and is not a zip Flipbook exported; refusing to overwrite it — choose another --out`);
  }
  const dec = new TextDecoder();
  const why = notAnExport(
    names.filter((n) => !n.endsWith('/')),
    (p) => (entries[p] ? dec.decode(entries[p]) : null),
  );
  if (why !== null) throw new Error(`${target}: not a zip Flipbook exported (${why}); refusing to overwrite it — choose another --out`);
}

/** Removes what killed runs left beside `target`: `<target>.tmp-<pid>` folders or zip temps. */
export function removeStaleExportTemps(target: string): void {
  removeStaleTemps(path.dirname(target), `${path.basename(target)}.tmp-`);
}
