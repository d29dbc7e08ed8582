/**
 * Merge another annotator's bundle into a project: the bundle's events are added
 * by uuid (existing events are never touched), so nobody's edits are lost or overwritten and
 * merging the same bundle twice adds nothing. Disagreements on the primary pathway then show
 * up in the conflicts queue (AnnotationStore.conflicts()).
 */
import { namingStorage } from '../store/errors';
import type { Project } from '../store/project';
import { readBundle } from '../importers/annotation-bundle';

export interface MergeReport {
  path: string;
  /** `events`: the bundle's event log; `rows`: pathways.csv/evidence_spans.csv as snapshots. */
  source: 'events' | 'rows';
  eventsInBundle: number;
  added: number;
  skipped: number;
  keysRecomputed: number;
  annotators: string[];
  /** Open (unresolved) conflicts in the project after the merge. */
  openConflicts: number;
  /** The bundle's codebook and whether it matches the project's current one. */
  codebook: { id: string; version: number; matchesProject: boolean } | null;
}

export async function mergeBundle(project: Project, path: string): Promise<MergeReport> {
  const bundle = await readBundle(path);
  const summary = namingStorage(project.path, `the merge of ${path}`, () => project.annotations.importEvents(bundle.events));
  const current = project.annotations.getCodebook();
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  return {
    path,
    source: bundle.source,
    eventsInBundle: bundle.events.length,
    ...summary,
    annotators: [...new Set(bundle.events.map((e) => e.annotator))].sort(),
    openConflicts: project.annotations.conflicts().filter((c) => c.resolution === null).length,
    codebook: bundle.codebook
      ? {
          id: bundle.codebook.id,
          version: bundle.codebook.version,
          matchesProject: bundle.codebook.id === current.id && same(bundle.codebook.pathways, current.pathways),
        }
      : null,
  };
}
