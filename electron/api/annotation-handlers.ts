/**
 * Handlers of one annotator's labels on an item: read the state, apply an edit (evidence spans
 * get the configs whose frames they cover, computed here), undo, redo, and the codebook.
 */
import { emptyAnnotationState, type AnnotationEdit, type AnnotationState } from '../../shared/domain/annotations';
import { evidenceCoverage } from '../../shared/evidence/coverage';
import { toContractCodebook } from '../../shared/api/codebook';
import type { Handlers } from './dispatch';
import { ServiceError } from '../../shared/api/service-error';
import type { ItemRef } from '../../shared/api/contract';
import { selection, type BackendContext, type Session } from './backend-session';

type AnnotationOps = 'annotation:state' | 'annotation:apply' | 'annotation:undo' | 'annotation:redo' | 'codebook:get';

export function annotationHandlers(ctx: BackendContext): Pick<Handlers, AnnotationOps> {
  const { need } = ctx;

  const annotationOf = (s: Session, model: string, split: string, sampleId: string, annotator: string): AnnotationState =>
    s.project.annotations.state(model, split, sampleId).find((a) => a.annotator === annotator) ??
    emptyAnnotationState({ model, split, sampleId, annotator }, new Date().toISOString());

  /** Evidence spans carry the configs whose frames fall inside them (computed here, never trusted from the renderer). */
  const withCoverage = async (s: Session, edit: AnnotationEdit, annotator: string): Promise<AnnotationEdit> => {
    if (edit.op !== 'addSpan' && edit.op !== 'updateSpan') return edit;
    const g = s.audit.grid(edit.model, edit.split);
    const sel = await selection(s, edit.model, edit.split, edit.sampleId, g.configs).catch(() => null);
    const table = (sel?.configs ?? []).filter((c) => c.frames.length > 0).map((c) => ({ config: c.configKey, timestamps: c.timestampsS }));
    if (edit.op === 'addSpan') {
      const cov = evidenceCoverage([edit.span], table)[0]?.coveredBy ?? [];
      return { ...edit, span: { ...edit.span, coveredBy: cov } };
    }
    const cur = annotationOf(s, edit.model, edit.split, edit.sampleId, annotator).spans.find((sp) => sp.id === edit.spanId);
    if (!cur) throw new ServiceError('not-found', `no evidence span ${edit.spanId}`);
    const startS = edit.patch.startS ?? cur.startS;
    const endS = edit.patch.endS ?? cur.endS;
    if (endS < startS) throw new ServiceError('bad-request', `span end ${endS} is before its start ${startS}`);
    const cov = evidenceCoverage([{ startS, endS }], table)[0]?.coveredBy ?? [];
    return { ...edit, patch: { ...edit.patch, coveredBy: cov } };
  };

  /** Undo and redo are one operation in two directions: the annotator's last edit of the item, or the last undone one. */
  const step = (direction: 'undo' | 'redo', annotator: string, on: ItemRef) => {
    const r = need().project.annotations[direction](annotator, on);
    if (!r) return null;
    const item = { model: r.target.model, split: r.target.split, sampleId: r.target.sampleId };
    return { item, state: r.state ?? emptyAnnotationState({ ...item, annotator }, new Date().toISOString()) };
  };

  return {
    'annotation:state': (req) => annotationOf(need(), req.model, req.split, req.sampleId, req.annotator),
    'annotation:apply': async (req) => {
      const s = need();
      const edit = await withCoverage(s, req.edit, req.annotator);
      return s.project.annotations.apply(edit, req.annotator);
    },
    'annotation:undo': (req) => step('undo', req.annotator, req.item),
    'annotation:redo': (req) => step('redo', req.annotator, req.item),
    'codebook:get': () => toContractCodebook(need().project.annotations.getCodebook()),
  };
}
