/**
 * Handlers of the import and export jobs: import files into the open project (with the
 * annotations a team bundle carries) and write a release folder or zip. Both run in a worker
 * thread (background-jobs.ts), so the UI keeps being answered meanwhile; `job:cancel` stops one.
 */
import { operations } from '../../shared/api/contract';
import type { Handlers } from './dispatch';
import type { BackendContext, Session } from './backend-session';

/** After a job wrote the project from another connection: every cache derived from it is stale. */
export function afterProjectWrite(ctx: BackendContext, s: Session): void {
  s.audit.invalidate();
  s.itemCounts = null;
  s.selections.clear();
  s.project.annotations.resync();
  ctx.hooks.emit('data:changed', { scope: 'project', item: null });
}

export function importHandlers(ctx: BackendContext): Pick<Handlers, 'import:run' | 'export:run' | 'job:cancel'> {
  const { need, background } = ctx;
  return {
    'import:run': async (req) => {
      const s = need();
      const { jobId, paths, ...options } = req;
      try {
        // The CLI's path (import-files.ts), in a worker: read every file, then one transaction for all of them.
        return await background.run(jobId, { kind: 'import', project: s.project.path, paths, options }, operations['import:run'].response);
      } finally {
        // Whatever happened, views re-read the project (a refused or cancelled import changed nothing, and says so).
        if (ctx.current() === s) afterProjectWrite(ctx, s);
      }
    },
    'export:run': (req) => {
      const s = need();
      return background.run(
        req.jobId,
        { kind: 'export', project: s.project.path, outDir: req.outDir, includeText: req.includeText ?? false, zip: req.zip ?? false },
        operations['export:run'].response,
      );
    },
    'job:cancel': (req) => ({ cancelled: background.cancel(req.jobId) }),
  };
}
