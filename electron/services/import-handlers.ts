/**
 * Handlers of the import and export jobs: import files into the open project (with the
 * annotations a team bundle carries) and write a release folder or zip.
 */
import path from 'node:path';
import { applyImportFiles, readImportFiles } from './import-files';
import { exportRelease } from '../release/export';
import type { Handlers } from './dispatch';
import { assertWritable, type BackendContext } from './backend-session';

export function importHandlers(ctx: BackendContext): Pick<Handlers, 'import:run' | 'export:run'> {
  const { hooks, need } = ctx;
  return {
    'import:run': async (req) => {
      const s = need();
      assertWritable(s);
      const { jobId, paths, ...options } = req;
      const total = paths.length;
      // The CLI's path (import-files.ts): read every file, then one transaction for all of them.
      const read = await readImportFiles(paths, options, (done, file) =>
        hooks.emit('job:progress', { jobId, kind: 'import', done, total, message: `reading ${file}` }),
      );
      hooks.emit('job:progress', { jobId, kind: 'import', done: total, total, message: `applying ${total} file(s)` });
      let run;
      try {
        run = applyImportFiles(s.project, read, options);
      } finally {
        // Whatever happened, views re-read the project (a refused import changed nothing, and says so).
        s.audit.invalidate();
        s.videoCount = null;
        hooks.emit('data:changed', { scope: 'project', item: null });
      }
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
    },
    'export:run': (req) => {
      const s = need();
      hooks.emit('job:progress', { jobId: req.jobId, kind: 'export', done: 0, total: 1, message: 'writing release' });
      const summary = exportRelease(s.project, path.resolve(req.outDir), { includeText: req.includeText ?? false, zip: req.zip ?? false });
      hooks.emit('job:progress', { jobId: req.jobId, kind: 'export', done: 1, total: 1, message: `${summary.files.length} files` });
      return { outDir: summary.path, files: summary.files.map((f) => f.path) };
    },
  };
}
