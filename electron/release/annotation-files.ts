/**
 * Flipbook's extension folder `annotations/` (docs/release-format.md): the codebook, one row per
 * (sample, model, split, annotator) of pathway labels, one row per evidence span.
 */
import { compareCodePoints, compareKeys, csvText, formatNumber, jsonText, type JsonValue } from './format';
import type { ReleaseCodebook, ReleasePathwayRow, ReleaseSpanRow } from './release-data';
import { PATHWAY_COLUMNS, SPAN_COLUMNS } from '../../shared/release/annotation-columns';

export function codebookJson(cb: ReleaseCodebook | null): string {
  const value: JsonValue = cb
    ? {
        id: cb.id,
        version: cb.version,
        pathways: cb.pathways.map((p) => ({
          id: p.id,
          label: p.label,
          description: p.description,
          applies_to: p.appliesTo,
          shortcut: p.shortcut,
        })),
      }
    : { id: null, version: null, pathways: [] };
  return jsonText(value);
}

/** Rows sorted like per_item.csv: (model, split, sample_id, annotator), code-point order. */
export function pathwaysCsv(rows: readonly ReleasePathwayRow[]): string {
  const sorted = rows.slice().sort((a, b) => compareKeys([a.model, a.split, a.sampleId, a.annotator], [b.model, b.split, b.sampleId, b.annotator]));
  return csvText(
    PATHWAY_COLUMNS,
    sorted.map((r) => [
      r.sampleId,
      r.model,
      r.split,
      r.annotator,
      r.status,
      r.primaryPathway,
      r.pathways.join(';'),
      r.transition,
      r.notes,
      r.confidence,
      r.codebookVersion,
      r.createdAt,
      r.updatedAt,
    ]),
  );
}

/**
 * Spans sorted by (model, split, sample_id, annotator, start, end, label) — every column,
 * so the order is total and two exports agree even when spans tie on their start.
 */
export function spansCsv(rows: readonly ReleaseSpanRow[]): string {
  const sorted = rows.slice().sort((a, b) => {
    const k = compareKeys([a.model, a.split, a.sampleId, a.annotator], [b.model, b.split, b.sampleId, b.annotator]);
    if (k !== 0) return k;
    if (a.startS !== b.startS) return a.startS - b.startS;
    if (a.endS !== b.endS) return a.endS - b.endS;
    const l = compareCodePoints(a.label ?? '', b.label ?? '');
    if (l !== 0) return l;
    return compareCodePoints(a.coveredBy.join(';'), b.coveredBy.join(';'));
  });
  return csvText(
    SPAN_COLUMNS,
    sorted.map((r) => [r.sampleId, r.model, r.split, r.annotator, formatNumber(r.startS), formatNumber(r.endS), r.label, r.coveredBy.join(';')]),
  );
}
