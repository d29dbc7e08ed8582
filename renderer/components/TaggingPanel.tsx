import { useEffect, useState } from 'react';
import { ANNOTATION_STATUSES, type AnnotationState, type AnnotationStatus, type Codebook } from '../../shared/api/contract';

export type SaveState = { kind: 'idle' } | { kind: 'saving' } | { kind: 'saved'; at: string } | { kind: 'error'; message: string };

export interface TaggingActions {
  togglePathway(id: string): void;
  setPrimary(id: string | null): void;
  setTransition(t: string | null): void;
  setNotes(notes: string): void;
  setConfidence(c: number | null): void;
  setStatus(s: AnnotationStatus): void;
}

export function TaggingPanel({
  codebook,
  state,
  transitions,
  transition,
  save,
  readOnly,
  actions,
}: {
  codebook: Codebook | null;
  state: AnnotationState | null;
  transitions: string[];
  transition: string | null;
  save: SaveState;
  readOnly: boolean;
  actions: TaggingActions;
}) {
  // The notes field shows the saved notes until the user types; a draft is kept while typed,
  // even when the saved notes change elsewhere meanwhile (said below the field, never
  // overwritten), and goes once saved.
  const saved = state?.notes ?? '';
  const [draft, setDraft] = useState<{ text: string; base: string } | null>(null);
  useEffect(() => {
    if (draft !== null && draft.text === saved) setDraft(null);
  }, [draft, saved]);
  const notes = draft?.text ?? saved;
  const saveNotes = () => draft !== null && draft.text !== saved && actions.setNotes(draft.text);
  const pathways = codebook?.pathways ?? [];
  const tagged = new Set(state?.pathways ?? []);
  return (
    <section className="tagging" aria-label="Tagging">
      <div className="save-state" role="status" aria-label="Save state" data-state={save.kind}>
        {save.kind === 'saving' && 'Saving…'}
        {save.kind === 'saved' && `Saved ${new Date(save.at).toLocaleTimeString()}`}
        {save.kind === 'error' && `Not saved: ${save.message}`}
        {save.kind === 'idle' && (state?.updatedAt && state.status !== 'todo' ? 'Saved' : 'No edits yet')}
      </div>
      <div className="row tagging-row">
        <label>
          Status
          <select aria-label="Status" value={state?.status ?? 'todo'} disabled={readOnly} onChange={(e) => actions.setStatus(e.target.value as AnnotationStatus)}>
            {ANNOTATION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Transition explained
          <select aria-label="Transition explained" value={transition ?? ''} disabled={readOnly} onChange={(e) => actions.setTransition(e.target.value || null)}>
            <option value="">none</option>
            {transitions.map((t) => (
              <option key={t} value={t}>
                {t.replace('>', ' → ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Primary pathway
          <select aria-label="Primary pathway" value={state?.primaryPathway ?? ''} disabled={readOnly} onChange={(e) => actions.setPrimary(e.target.value || null)}>
            <option value="">none</option>
            {pathways.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <h3>Evidence pathways</h3>
      <div className="pathways" role="group" aria-label="Evidence pathways">
        {pathways.map((p) => (
          <button
            type="button"
            key={p.id}
            aria-pressed={tagged.has(p.id)}
            aria-label={`${p.label} (${p.shortcut ?? ''})`}
            title={p.description}
            className={`pathway${tagged.has(p.id) ? ' on' : ''}${state?.primaryPathway === p.id ? ' primary' : ''}`}
            disabled={readOnly}
            onClick={() => actions.togglePathway(p.id)}
          >
            <kbd>{p.shortcut}</kbd> {p.label}
            {state?.primaryPathway === p.id && <span className="primary-mark"> ★</span>}
          </button>
        ))}
      </div>
      <div className="confidence" role="radiogroup" aria-label="Confidence">
        Confidence:{' '}
        {[1, 2, 3, 4, 5].map((c) => (
          <button
            type="button"
            role="radio"
            key={c}
            aria-checked={state?.confidence === c}
            aria-label={`Confidence ${c}`}
            disabled={readOnly}
            onClick={() => actions.setConfidence(state?.confidence === c ? null : c)}
          >
            {c}
          </button>
        ))}
      </div>
      <label className="notes">
        Notes
        <textarea
          id="notes-input"
          aria-label="Notes"
          rows={3}
          value={notes}
          disabled={readOnly}
          onChange={(e) => setDraft({ text: e.target.value, base: draft?.base ?? saved })}
          onBlur={saveNotes}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) saveNotes();
          }}
        />
      </label>
      {draft !== null && draft.base !== saved && draft.text !== saved && (
        <p className="notes-elsewhere" role="status" aria-label="Notes changed elsewhere">
          The saved notes changed elsewhere while you typed: {saved === '' ? '(none)' : `“${saved}”`}. Yours are kept here; saving them replaces those.
        </p>
      )}
    </section>
  );
}
