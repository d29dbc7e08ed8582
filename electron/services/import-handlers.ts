/**
 * Handlers of the import and export jobs: import files into the open project (with the
 * annotations a team bundle carries) and write a release folder or zip.
 */
import path from 'node:path';
import type { Res } from '../../shared/api/contract';
import { detectFormat, readImport } from '../importers/index';
import { applyImportsWithAnnotations, bundleForImport } from '../team/import-with-annotations';
import { exportRelease } from '../release/export';
import type { Handlers } from './dispatch';
import { assertWritable, type BackendContext } from './backend-session';

export function importHandlers(ctx: BackendContext): Pick<Handlers, 'import:run' | 'export:run'> {
  const { hooks, need } = ctx;
  return {
    'import:run': async (req) => {
      const s = need();
      assertWritable(s);
      const files: Res<'import:run'>['files'] = [];
      let done = 0;
      const overrides = { ...(req.model ? { model: req.model } : {}), ...(req.split ? { split: req.split } : {}), ...(req.config ? { config: req.config } : {}) };
      for (const file of req.paths) {
        hooks.emit('job:progress', { jobId: req.jobId, kind: 'import', done, total: req.paths.length, message: `reading ${file}` });
        const format = req.format ?? (await detectFormat(file));
        const batches = await readImport(file, { format, ...overrides });
        const bundle = await bundleForImport(file, batches);
        const summary = applyImportsWithAnnotations(s.project, batches, bundle ? [bundle] : [], overrides);
        files.push({
          path: file,
          format,
          items: summary.itemsAdded,
          responses: summary.responsesAdded,
          configs: summary.configsAdded,
          warnings: [...batches.flatMap((b) => b.warnings), ...summary.warnings],
        });
        done++;
        hooks.emit('job:progress', { jobId: req.jobId, kind: 'import', done, total: req.paths.length, message: `imported ${file}` });
      }
      s.audit.invalidate();
      s.videoCount = null;
      hooks.emit('data:changed', { scope: 'project', item: null });
      return { files };
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
