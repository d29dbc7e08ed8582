/**
 * Importing files into a project — the one path `flipbook import` and the app's import form
 * (`import:run`) both take, with the options of shared/api/import-options.ts:
 * 1. read every file (format detected unless given; model/split/config/ground truth applied
 *    by the readers, split templates such as `V1_{duration}` expanded per item);
 * 2. apply all of them in ONE transaction, with a release's annotations and the matched grid:
 *    a rejected file or row leaves the project exactly as it was.
 */
import path from 'node:path';
import { ImportError } from '../importers/errors';
import { groundTruthCoverage, parseSplitMap } from '../importers/ground-truth';
import { detectFormat, readImport } from '../importers/index';
import { namingStorage, storageFailure } from '../store/errors';
import type { Project } from '../store/project';
import { createQueueTable } from '../derived/queue-table';
import type { Bundle } from '../importers/annotation-bundle';
import { applyImportsWithAnnotations, bundleForImport, type ImportWithAnnotationsSummary } from './import-with-annotations';
import type { ImportBatch } from '../../shared/domain/types';
import { importOptionProblems, splitList, type ImportFormat, type ImportOptionValues } from '../../shared/api/import-options';
import { MAIN_PROTOCOL_SETTING } from '../../shared/engine/protocols';
import { knownProtocol } from '../store/protocols';

export interface ReadFile {
  path: string;
  format: ImportFormat;
  batches: ImportBatch[];
  bundle: Bundle | null;
}

export interface ImportRun {
  files: { path: string; format: ImportFormat; warnings: string[] }[];
  summary: ImportWithAnnotationsSummary;
  /** Answers per split when a ground-truth source was given. */
  groundTruth: ReturnType<typeof groundTruthCoverage> | null;
  matchedGrid: string[] | null;
}

/** Option problems no file can fix (a companion option missing, an empty list, a bad split map); [] when fine. */
export function checkImportOptions(o: ImportOptionValues): string[] {
  const out = importOptionProblems(o);
  if (o.groundTruthSplit !== undefined) {
    try {
      parseSplitMap(o.groundTruthSplit);
    } catch (e) {
      out.push(`--ground-truth-split: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return out;
}

/** Step 1: reads every file, or throws the first ImportError (file:line: field: reason). Writes nothing. */
export async function readImportFiles(paths: string[], o: ImportOptionValues, onFile?: (done: number, path: string) => void): Promise<ReadFile[]> {
  const problems = checkImportOptions(o);
  if (problems.length > 0) throw new ImportError(paths[0] ?? '', 0, 'options', problems.join('; '));
  const out: ReadFile[] = [];
  for (const [i, path] of paths.entries()) {
    onFile?.(i, path);
    const format = o.format ?? (o.columns !== undefined ? 'columns' : await detectFormat(path));
    const batches = await readImport(path, {
      format,
      ...(o.model !== undefined && { model: o.model }),
      ...(o.split !== undefined && { split: o.split }),
      ...(o.config !== undefined && { config: o.config }),
      ...(o.groundTruth !== undefined && { groundTruth: o.groundTruth }),
      ...(o.groundTruthSplit !== undefined && { groundTruthSplit: o.groundTruthSplit }),
      ...(o.columns !== undefined && { columns: o.columns }),
      companions: paths,
    });
    // A release's annotations/ come in with it (same transaction below).
    out.push({ path, format, batches, bundle: await bundleForImport(path, batches) });
  }
  return out;
}

/** Stores the main protocol with the import, refused — with the whole import — when no grid has it. */
function setMainProtocol(project: Project, value: string, file: string): void {
  const name = knownProtocol(project, value);
  if (typeof name !== 'string') throw new ImportError(file, 0, 'main-protocol', name.error);
  project.setSetting(MAIN_PROTOCOL_SETTING, name);
}

/** The files of an import, for messages: the first few by name. */
function describeFiles(files: readonly { path: string }[]): string {
  const names = [...new Set(files.map((f) => path.basename(f.path)))];
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
}

/** Step 2: applies everything read in one transaction (all or nothing). */
export function applyImportFiles(project: Project, files: ReadFile[], o: ImportOptionValues, onCommitted?: () => void): ImportRun {
  const batches = files.flatMap((f) => f.batches);
  const matchedGrid = o.matchedGrid !== undefined ? splitList(o.matchedGrid) : null;
  // A full disk or an I/O error, at any write or at the commit, names the project and the import.
  const summary = namingStorage(project.path, `the import of ${describeFiles(files)}`, () =>
    project.db.transaction(() => {
      // The readers already applied model/split/config (templates expanded per item): the store must not map again.
      const s = applyImportsWithAnnotations(
        project,
        batches,
        files.flatMap((f) => (f.bundle ? [f.bundle] : [])),
      );
      if (matchedGrid !== null) project.setSetting('matchedGrid', matchedGrid);
      if (o.mainProtocol !== undefined) setMainProtocol(project, o.mainProtocol, files[0]?.path ?? '');
      return s;
    })(),
  );
  // From here the import is in the project: a job's cancel no longer applies (background-jobs.ts).
  onCommitted?.();
  // The queue's rows are derived here, once per import, so no view pays for them (queue-table.ts).
  // They are derived again when next asked if they cannot be stored now: the import stands.
  try {
    createQueueTable(project).refresh();
  } catch (err) {
    const s = storageFailure(err);
    if (s === null) throw err;
    summary.warnings.push(`the audit queue could not be stored (${s.failure}); it is derived again when next opened`);
  }
  return {
    files: files.map((f) => ({ path: f.path, format: f.format, warnings: f.batches.flatMap((b) => b.warnings) })),
    summary,
    groundTruth: o.groundTruth !== undefined ? groundTruthCoverage(batches) : null,
    matchedGrid,
  };
}
