/**
 * Release export (docs/release-format.md): writes a project as the public release's folder layout
 * (or a byte-stable zip of it). Deterministic: the same project gives the same bytes except
 * README.md's date line, and export → import → export is byte-identical.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { aggregatedFiles } from './aggregated-files';
import { EVENTS_FILE, eventsJsonl } from './annotation-events';
import { codebookJson, pathwaysCsv, spansCsv } from './annotation-files';
import { unsafeRelativePathReason } from '../../shared/domain/names';
import { compareCodePoints } from './format';
import { optionalColumnsOf, perItemCsvBytes, writePerItemCsv } from './per-item-csv';
import { type ProjectSource, readReleaseData } from './project-source';
import { configsJson, generationsCsv, itemsCsv, videosCsv } from './provenance-files';
import { readmeText } from './readme';
import { assertReplaceableFolder, assertReplaceableZip, removeStaleExportTemps } from './export-target';
import { storageFailure } from '../store/errors';
import type { ReleaseData, ReleaseGrid } from './release-data';
import type { ReleaseFile } from './zip';

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

/** A file whose bytes are handed out in chunks as they are made (`write` returns their total). */
interface StreamedFile {
  path: string;
  write: (emit: (bytes: Uint8Array) => void) => number;
}

type Summary = Omit<ExportSummary, 'path' | 'zip' | 'files'>;

/**
 * Distinct (split, sample_id) over the grids (one matrix each): the store's item ids are
 * exactly that key, so they are counted on a mark array instead of a Set of string keys. Its
 * own function with the loops in functions of their own (each returns right after its loop:
 * no deopt there when cold).
 */
function distinctItems(grids: readonly ReleaseGrid[]): number {
  let maxItem = 0;
  for (const g of grids) maxItem = Math.max(maxItem, maxOf(g.rowItems));
  const seen = new Uint8Array(maxItem + 1);
  let items = 0;
  for (const g of grids) items += markNew(g.rowItems, seen);
  return items;
}

/** Marks the ids not yet in `seen` and returns how many there were. */
function markNew(ids: Int32Array, seen: Uint8Array): number {
  let n = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (seen[id] === 0) ((seen[id] = 1), n++);
  }
  return n;
}

function maxOf(a: Int32Array): number {
  let max = 0;
  for (let i = 0; i < a.length; i++) if (a[i]! > max) max = a[i]!;
  return max;
}

/** Builds every file of the release in memory (paths `/`-separated), in path order. */
export function buildReleaseFiles(data: ReleaseData, opts: ExportOptions = {}): { files: ReleaseFile[]; summary: Summary } {
  return releaseFiles(data, opts, (p) => ({ path: p, data: perItemCsvBytes(data.grids, data.configs, data.items) }));
}

/**
 * The release's files in path order, labels/per_item.csv (~15 MB on the benchmark, the bulk of
 * the release) as `perItem` makes it: in memory like the others, or as a {@link StreamedFile}
 * that a folder export writes chunk by chunk (per-item-csv.ts writePerItemCsv).
 */
function releaseFiles<F extends ReleaseFile | StreamedFile>(
  data: ReleaseData,
  opts: ExportOptions,
  perItem: (path: string) => F,
): { files: (ReleaseFile | F)[]; summary: Summary } {
  // per_item.csv is written as bytes (the bulk of the release); the other files as text.
  const out: ({ path: string; text: string } | ReleaseFile | F)[] = [];
  out.push(perItem('labels/per_item.csv'));
  const agg = aggregatedFiles(data);
  out.push(...agg.files);
  if (opts.includeText) {
    // Generated texts of open-ended cells, beside the benchmark text they answer (docs/release-format.md).
    const gen = generationsCsv(data.grids);
    if (gen !== null) out.push({ path: 'labels/generations.csv', text: gen });
    out.push({ path: 'labels/items.csv', text: itemsCsv(data.items) });
  }
  out.push({ path: 'annotations/codebook.json', text: codebookJson(data.codebook) });
  out.push({ path: 'annotations/pathways.csv', text: pathwaysCsv(data.pathways) });
  out.push({ path: 'annotations/evidence_spans.csv', text: spansCsv(data.spans) });
  // Flipbook's own addition to annotations/: the event log, so that merging an export loses
  // no edit and no history (pathways.csv/evidence_spans.csv only hold the current state).
  out.push({ path: EVENTS_FILE, text: eventsJsonl(data.events) });
  // Counts from the grids' columns (every protocol's: per_item.csv holds them all) rather than passes over every cell.
  const usedConfigs = new Set(data.grids.flatMap((g) => g.columns.map((c) => c.config)));
  out.push({ path: 'provenance/configs.json', text: configsJson(data.configs.filter((c) => usedConfigs.has(c.key))) });
  // Not benchmark text, so in every export: the importer's project finds the videos under its
  // own media root and draws the same strips (docs/release-format.md "provenance/videos.csv").
  out.push({ path: 'provenance/videos.csv', text: videosCsv(data.items) });

  const models = [...new Set(data.matrices.map((m) => m.model))].sort(compareCodePoints);
  const splits = [...new Set(data.matrices.map((m) => m.split))].sort(compareCodePoints);
  const configs = [...usedConfigs].sort(compareCodePoints);
  const items = distinctItems(data.grids);
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
  assertSafePaths(out.map((f) => f.path));
  return {
    files: out.map((f) => ('text' in f ? { path: f.path, data: enc.encode(f.text) } : f)),
    summary: { matchedGrid: data.matchedGrid, includeText: opts.includeText === true, counts, optionalColumns },
  };
}

/**
 * Every file of a release stays inside the release, whatever the project holds (docs/security.md
 * "Export"): model and split names become file names, and a project written before names were
 * checked at import could hold `../../x`. Two names that differ only in case would also write one
 * file over the other on Windows and macOS. Refuses the whole export before anything is written.
 */
function assertSafePaths(paths: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const p of paths) {
    const reason = unsafeRelativePathReason(p);
    if (reason !== null) throw new Error(`export: refusing to write ${JSON.stringify(p)}: ${reason} (rename the model or split)`);
    const folded = p.toLowerCase();
    const other = seen.get(folded);
    if (other !== undefined) throw new Error(`export: ${JSON.stringify(other)} and ${JSON.stringify(p)} would be one file on Windows and macOS (rename a model or split)`);
    seen.set(folded, p);
  }
}

/** `rel` (`/`-separated) below `root`, refused if it would resolve anywhere else. */
export function pathInside(root: string, rel: string): string {
  const p = path.resolve(root, ...rel.split('/'));
  const back = path.relative(root, p);
  if (back === '' || back === '..' || back.startsWith(`..${path.sep}`) || path.isAbsolute(back))
    throw new Error(`export: refusing to write ${JSON.stringify(rel)}: it resolves outside ${root}`);
  return p;
}

/**
 * The summary's file list. Each sha256 is computed when first read (JSON.stringify reads it,
 * so `flipbook export --json` prints it): hashing the ~15 MB of a 145k-row release took ~10 ms
 * of every export whose caller never looks at the digests (the app, the bench's timed part).
 * A streamed file is hashed from the file written (`written`: its size and where it now is).
 */
function describe(files: readonly (ReleaseFile | StreamedFile)[], written = new Map<string, { bytes: number; at: string }>()): ExportedFile[] {
  return files.map((f) => {
    // Every streamed file is in `written`: describe is called once all of them were.
    const w = written.get(f.path);
    const bytes = () => ('data' in f ? f.data : readFileSync(w!.at));
    let sha256: string | null = null;
    return {
      path: f.path,
      bytes: 'data' in f ? f.data.byteLength : w!.bytes,
      get sha256(): string {
        return (sha256 ??= createHash('sha256').update(bytes()).digest('hex'));
      },
    };
  });
}

/**
 * A full disk or an I/O error while writing an export, in words naming the target and what was
 * being written; the target is as it was (docs/security.md "Export"). Any other error as it is.
 */
function exportFailure(e: unknown, target: string, writing: string, had: boolean): unknown {
  const s = storageFailure(e);
  if (s === null) return e;
  return new Error(
    `export to ${target} failed: ${s.failure} (${s.code}) while writing ${writing}; ` + (had ? 'the previous export there is kept as it was' : 'nothing was left there'),
    { cause: e },
  );
}

/** Writes all of `bytes` to `fd` (writeSync may write less than asked). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

/**
 * Exports `project` to `outDir` (a folder; with `zip`, a zip file at that path — `.zip` is
 * appended when missing). The folder is written beside its target and renamed into place,
 * so a failed export leaves no half-written release. The zip code (fflate, whose tables cost
 * ~10 ms to build when loaded) is loaded only for a zip (docs/architecture.md "CLI start-up").
 */
export async function exportRelease(project: ProjectSource, outDir: string, opts: ExportOptions = {}): Promise<ExportSummary> {
  const data = readReleaseData(project, opts);
  if (opts.zip) {
    const { zipRelease } = await import('./zip');
    const { files, summary } = buildReleaseFiles(data, opts);
    const target = path.resolve(outDir.endsWith('.zip') ? outDir : `${outDir}.zip`);
    await assertReplaceableZip(target);
    mkdirSync(path.dirname(target), { recursive: true });
    removeStaleExportTemps(target);
    const tmp = `${target}.tmp-${process.pid}`;
    const had = existsSync(target);
    try {
      writeFileSync(tmp, zipRelease(files));
      renameSync(tmp, target);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw exportFailure(e, target, 'the zip', had);
    }
    return { ...summary, path: target, zip: true, files: describe(files) };
  }
  const { files, summary } = releaseFiles(data, opts, (p): StreamedFile => ({ path: p, write: (emit) => writePerItemCsv(data.grids, data.configs, data.items, emit) }));
  const target = path.resolve(outDir);
  assertReplaceableFolder(target);
  removeStaleExportTemps(target);
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  const written = new Map<string, { bytes: number; at: string }>();
  const had = existsSync(target);
  const old = `${tmp}-old`;
  let writing = '';
  try {
    const made = new Set<string>();
    for (const f of files) {
      const p = pathInside(tmp, f.path);
      writing = f.path;
      const dir = path.dirname(p);
      if (!made.has(dir)) (mkdirSync(dir, { recursive: true }), made.add(dir));
      if ('data' in f) writeFileSync(p, f.data);
      else {
        const fd = openSync(p, 'w');
        try {
          written.set(f.path, { bytes: f.write((b) => writeAll(fd, b)), at: path.join(target, ...f.path.split('/')) });
        } finally {
          closeSync(fd);
        }
      }
    }
    // The previous export moves aside (under a name the next run cleans if this one is
    // killed now) and the new one takes its place.
    writing = '';
    if (had) renameSync(target, old);
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    // The previous export, moved aside, goes back when the new one could not take its place.
    if (had && !existsSync(target) && existsSync(old)) renameSync(old, target);
    throw exportFailure(e, target, writing || 'the folder', had);
  }
  // The new export is in place: the export is done even if the previous one, moved aside, cannot
  // be removed now; named as this process's temp, a later run removes it (docs/security.md
  // "Leftovers"). Every error is ignored here, that of a first export (no previous one) too.
  try {
    rmSync(old, { recursive: true });
  } catch {
    /* left for a later run */
  }
  return { ...summary, path: target, zip: false, files: describe(files, written) };
}
