/**
 * Importing a release that carries Flipbook's `annotations/` folder brings its annotations in
 * too, in the SAME transaction as its responses: a release is one thing to the user, so a
 * rejected annotations file must leave the responses untouched as well (and vice versa).
 * The annotations merge by event uuid (electron/jobs/merge.ts), so importing the same release
 * twice adds nothing.
 */
import type { ImportBatch } from '../../shared/domain/types';
import type { ImportOverrides, ImportSummary } from '../store/import-apply';
import type { Project } from '../store/project';
import type { Bundle } from '../importers/annotation-bundle';

export interface ImportWithAnnotationsSummary extends ImportSummary {
  annotations: { bundles: number; eventsAdded: number; eventsSkipped: number };
}

/**
 * The annotation bundle of `path` when its batches came from a release with annotations/, else
 * null. The bundle reader is loaded only then (its schemas and unzip cost a few ms of every
 * other import's start).
 */
export async function bundleForImport(path: string, batches: ImportBatch[]): Promise<Bundle | null> {
  return batches.some((b) => b.annotations !== undefined) ? (await import('../importers/annotation-bundle')).readBundle(path) : null;
}

export function applyImportsWithAnnotations(project: Project, batches: ImportBatch[], bundles: Bundle[], opts?: ImportOverrides): ImportWithAnnotationsSummary {
  return project.db.transaction((): ImportWithAnnotationsSummary => {
    const summary = project.applyImports(batches, opts);
    let eventsAdded = 0;
    let eventsSkipped = 0;
    for (const b of bundles) {
      const r = project.annotations.importEvents(b.events);
      eventsAdded += r.added;
      eventsSkipped += r.skipped;
    }
    return { ...summary, annotations: { bundles: bundles.length, eventsAdded, eventsSkipped } };
  })();
}
