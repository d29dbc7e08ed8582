/**
 * The work of the backend's jobs, as a worker thread runs it (job-worker.ts): each opens its
 * own connection to the project — under the writer lock the backend's process holds, or
 * read-only for an export — does the whole job there, and returns what the operation answers.
 * WAL lets the thread that serves the UI keep reading meanwhile (docs/architecture.md "Long
 * work is a job"). The same functions run in-thread when called directly (tests).
 */
import path from 'node:path';
import type { Res } from '../../shared/api/contract';
import { exportRelease } from '../release/export';
import { openProject } from '../store/project';
import { mergeBundle } from './merge';
import { applyImportFiles, readImportFiles, type ImportRun } from './import-files';
import type { WorkerJobInput } from './job-protocol';
import { overviewOf } from '../derived/overview';

export interface JobTaskPort {
  progress(done: number, total: number, message: string | null): void;
  /** Around the write transaction: the UI thread holds its own writes meanwhile. */
  writing(active: boolean): void;
  /** The job's transaction is committed (what follows only derives from it). */
  committed(): void;
}

/** What import:run answers for an import. */
export function importRunResponse(run: ImportRun): Res<'import:run'> {
  const sum = run.summary;
  return {
    files: run.files,
    summary: {
      itemsAdded: sum.itemsAdded,
      itemsUpdated: sum.itemsUpdated,
      responsesAdded: sum.responsesAdded,
      responsesUpdated: sum.responsesUpdated,
      configsAdded: sum.configsAdded,
      models: sum.models,
      splits: sum.splits,
      configs: sum.configs,
      warnings: sum.warnings,
      annotationEventsAdded: sum.annotations.eventsAdded,
      groundTruth: run.groundTruth,
      matchedGrid: run.matchedGrid,
    },
  };
}

async function writeWith<T>(port: JobTaskPort, work: () => T | Promise<T>): Promise<T> {
  port.writing(true);
  try {
    return await work();
  } finally {
    port.writing(false);
  }
}

export async function runJobTask(input: WorkerJobInput, port: JobTaskPort): Promise<unknown> {
  switch (input.kind) {
    case 'import': {
      const project = openProject(input.project, { underHeldLock: true });
      try {
        const total = input.paths.length;
        // The CLI's path (import-files.ts): read every file, then one transaction for all of them.
        const read = await readImportFiles(input.paths, input.options, (done, file) => port.progress(done, total, `reading ${file}`));
        port.progress(total, total, `applying ${total} file(s)`);
        const run = await writeWith(port, () => applyImportFiles(project, read, input.options, () => port.committed()));
        // The overview's figures for the new data, computed and kept here, off the thread that
        // serves the UI: its first view after the import is then a read, where computing them
        // held every other request for ~1 s at 10× the bench matrix (docs/architecture.md
        // "Long work is a job"). After the write transaction, so the UI's own writes need not wait.
        port.progress(total, total, 'computing the overview');
        try {
          overviewOf(project);
        } catch {
          // The import is committed and must be reported as done: the overview's own view
          // computes the figures again and shows whatever failed there.
        }
        return importRunResponse(run);
      } finally {
        project.close();
      }
    }
    case 'export': {
      const project = openProject(input.project, { readOnly: true });
      try {
        port.progress(0, 1, 'writing release');
        const summary = await exportRelease(project, path.resolve(input.outDir), { includeText: input.includeText, zip: input.zip });
        port.progress(1, 1, `${summary.files.length} files`);
        const out: Res<'export:run'> = { outDir: summary.path, files: summary.files.map((f) => f.path) };
        return out;
      } finally {
        project.close();
      }
    }
    case 'merge': {
      const project = openProject(input.project, { underHeldLock: true });
      try {
        port.progress(0, 1, `merging ${input.path}`);
        const report: Res<'team:merge'> = await writeWith(port, () => mergeBundle(project, path.resolve(input.path)));
        port.committed();
        return report;
      } finally {
        project.close();
      }
    }
  }
}
