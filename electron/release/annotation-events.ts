/**
 * `annotations/events.jsonl`: the project's annotation event log, one JSON object per line in
 * (at, uuid) order with a fixed key order, so exporting twice gives identical bytes. It is
 * what makes a bundle merge lossless (undo/redo, spans, every edit with its own uuid); a
 * bundle without it still merges from pathways.csv/evidence_spans.csv as snapshots
 * (electron/importers/annotation-bundle.ts). The exporter calls eventsJsonl(project.annotations.exportEvents()).
 */
import type { AnnotationEvent } from '../../shared/domain/annotations';

export const EVENTS_FILE = 'annotations/events.jsonl';

export function eventsJsonl(events: readonly AnnotationEvent[]): string {
  const sorted = events.slice().sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  return sorted
    .map(
      (e) =>
        JSON.stringify({
          uuid: e.uuid,
          at: e.at,
          annotator: e.annotator,
          model: e.model,
          split: e.split,
          sampleId: e.sampleId,
          kind: e.kind,
          payload: e.payload,
          codebookVersion: e.codebookVersion,
          targetUuid: e.targetUuid,
        }) + '\n',
    )
    .join('');
}
