/**
 * Release export (release-format.md): writes a project as the public release's folder layout
 * (or a byte-stable zip of it). Deterministic: the same project gives the same bytes except
 * README.md's date line, and export → import → export is byte-identical.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { aggregatedFiles } from './aggregated-files';
import { EVENTS_FILE, eventsJsonl } from './annotation-events';
import { codebookJson, pathwaysCsv, spansCsv } from './annotation-files';
import { compareCodePoints } from './format';
import { optionalColumnsOf, perItemCsvBytes } from './per-item-csv';
import { type ProjectSource, readReleaseData } from './project-source';
import { configsJson, itemsCsv } from './provenance-files';
import { readmeText } from './readme';
import type { ReleaseData } from './release-data';
import { type ReleaseFile, zipRelease } from './zip';

export interface ExportOptions {
  /** Overrides the project's matched-grid setting for this export. */
  matchedGrid?: string[];
  /** Writes labels/items.csv with benchmark question text (off by default: licences). */
  includeText?: boolean;
  /** Writes one zip file instead of a folder (`.zip` appended to the path when missing). */
  zip?: boolean;
  /** The date printed in README.md (tests fix it). */
  now?: Date;
}

export interface ExportedFile {
  path: string;
  bytes: number;
  sha256: string;
}

export interface ExportSummary {
  /** The folder written, or the zip file when `zip` was set. */
  path: string;
  zip: boolean;
  matchedGrid: string[];
  includeText: boolean;
  counts: {
    cells: number;
    derivedRows: number;
    items: number;
    models: number;
    splits: number;
    configs: number;
    grids: number;
    excluded: number;
    pathwayRows: number;
    spanRows: number;
  };
  optionalColumns: string[];
  files: ExportedFile[];
}

const enc = new TextEncoder();

/** Builds every file of the release in memory (paths `/`-separated), in path order. */
export function buildReleaseFiles(data: ReleaseData, opts: ExportOptions = {}): { files: ReleaseFile[]; summary: Omit<ExportSummary, 'path' | 'zip' | 'files'> } {
  // per_item.csv is written as bytes (the bulk of the release); the other files as text.
  const out: ({ path: string; text: string } | ReleaseFile)[] = [];
  out.push({ path: 'labels/per_item.csv', data: perItemCsvBytes(data.grids, data.configs, data.items) });
  const agg = aggregatedFiles(data);
  out.push(...agg.files);
  if (opts.includeText) out.push({ path: 'labels/items.csv', text: itemsCsv(data.items) });
  out.push({ path: 'annotations/codebook.json', text: codebookJson(data.codebook) });
  out.push({ path: 'annotations/pathways.csv', text: pathwaysCsv(data.pathways) });
  out.push({ path: 'annotations/evidence_spans.csv', text: spansCsv(data.spans) });
  // Flipbook's own addition to annotations/: the event log, so that merging an export loses
  // no edit and no history (pathways.csv/evidence_spans.csv only hold the current state).
  out.push({ path: EVENTS_FILE, text: eventsJsonl(data.events) });
  // Counts from the matrices (one per grid) rather than passes over every cell.
  const usedConfigs = new Set(data.matrices.flatMap((m) => m.configs.map((c) => c.key)));
  out.push({ path: 'provenance/configs.json', text: configsJson(data.configs.filter((c) => usedConfigs.has(c.key))) });

  const models = [...new Set(data.matrices.map((m) => m.model))].sort(compareCodePoints);
  const splits = [...new Set(data.matrices.map((m) => m.split))].sort(compareCodePoints);
  const configs = [...usedConfigs].sort(compareCodePoints);
  // Distinct (split, sample_id) over the grids (one matrix each): the store's item ids are
  // exactly that key, so they are counted on a mark array instead of a Set of string keys.
  let maxItem = 0;
  for (const g of data.grids) for (let i = 0; i < g.rowItems.length; i++) maxItem = Math.max(maxItem, g.rowItems[i]!);
  const seenItem = new Uint8Array(maxItem + 1);
  let items = 0;
  for (const g of data.grids) {
    for (let i = 0; i < g.rowItems.length; i++) {
      const id = g.rowItems[i]!;
      if (seenItem[id] === 0) ((seenItem[id] = 1), items++);
    }
  }
  const optionalColumns = optionalColumnsOf(data.grids);
  let cells = 0;
  for (const g of data.grids) for (const c of g.columns) cells += c.length;
  const counts = {
    cells,
    derivedRows: agg.derivedRows,
    items,
    models: models.length,
    splits: splits.length,
    configs: configs.length,
    grids: agg.grids,
    excluded: agg.excluded,
    pathwayRows: data.pathways.length,
    spanRows: data.spans.length,
  };
  out.push({
    path: 'README.md',
    text: readmeText({
      date: opts.now ?? new Date(),
      cells: counts.cells,
      derivedRows: counts.derivedRows,
      items,
      models,
      splits,
      configs,
      pairs: agg.grids,
      excluded: agg.excluded,
      matchedGrid: data.matchedGrid,
      optionalColumns,
      pathwayRows: counts.pathwayRows,
      spanRows: counts.spanRows,
      includeText: opts.includeText === true,
      mixedResolution: agg.mixedResolution,
    }),
  });
  out.sort((a, b) => compareCodePoints(a.path, b.path));
  return {
    files: out.map((f) => ('data' in f ? f : { path: f.path, data: enc.encode(f.text) })),
    summary: { matchedGrid: data.matchedGrid, includeText: opts.includeText === true, counts, optionalColumns },
  };
}

/**
 * An existing target is replaced only when it is empty or is itself a release export: a
 * mistyped --out must never delete an unrelated folder.
 */
function assertReplaceable(target: string): void {
  if (!existsSync(target)) return;
  if (!statSync(target).isDirectory()) throw new Error(`${target}: exists and is not a folder`);
  if (readdirSync(target).length === 0) return;
  if (!existsSync(path.join(target, 'labels', 'per_item.csv'))) {
    throw new Error(`${target}: folder is not empty and holds no labels/per_item.csv; refusing to replace it`);
  }
}

/**
 * The summary's file list. Each sha256 is computed when first read (JSON.stringify reads it,
 * so `flipbook export --json` prints it): hashing the ~15 MB of a 145k-row release took ~10 ms
 * of every export whose caller never looks at the digests (the app, the bench's timed part).
 */
function describe(files: readonly ReleaseFile[]): ExportedFile[] {
  return files.map((f) => {
    let sha256: string | null = null;
    return {
      path: f.path,
      bytes: f.data.byteLength,
      get sha256(): string {
        return (sha256 ??= createHash('sha256').update(f.data).digest('hex'));
      },
    };
  });
}

/**
 * Exports `project` to `outDir` (a folder; with `zip`, a zip file at that path — `.zip` is
 * appended when missing). The folder is written beside its target and renamed into place,
 * so a failed export leaves no half-written release.
 */
export function exportRelease(project: ProjectSource, outDir: string, opts: ExportOptions = {}): ExportSummary {
  const data = readReleaseData(project, opts);
  const { files, summary } = buildReleaseFiles(data, opts);
  if (opts.zip) {
    const target = outDir.endsWith('.zip') ? outDir : `${outDir}.zip`;
    mkdirSync(path.dirname(path.resolve(target)), { recursive: true });
    const tmp = `${target}.tmp-${process.pid}`;
    writeFileSync(tmp, zipRelease(files));
    renameSync(tmp, target);
    return { ...summary, path: target, zip: true, files: describe(files) };
  }
  const target = path.resolve(outDir);
  assertReplaceable(target);
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    const made = new Set<string>();
    for (const f of files) {
      const p = path.join(tmp, ...f.path.split('/'));
      const dir = path.dirname(p);
      if (!made.has(dir)) (mkdirSync(dir, { recursive: true }), made.add(dir));
      writeFileSync(p, f.data);
    }
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { ...summary, path: target, zip: false, files: describe(files) };
}
