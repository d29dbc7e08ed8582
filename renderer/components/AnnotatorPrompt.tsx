import { useRef, useState } from 'react';
import { useDialog } from '../keymap';

/**
 * Who is annotating: asked once per machine (the name is remembered by Flipbook, not the
 * browser) and changed only here, from the header. The project's known annotators are offered
 * first, so a second spelling of the same person does not become a second annotator.
 */
export function AnnotatorPrompt({ current, known, onSave, onCancel }: { current: string | null; known: string[]; onSave: (name: string) => Promise<void>; onCancel?: () => void }) {
  const [name, setName] = useState(current ?? '');
  const [error, setError] = useState<string | null>(null);
  const save = (n: string) => {
    if (n.trim().length === 0) return setError('Enter a name');
    onSave(n).catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  };
  const trimmed = name.trim();
  const near = trimmed !== '' && !known.includes(trimmed) ? known.find((k) => k.toLowerCase().replace(/\s+/g, ' ') === trimmed.toLowerCase().replace(/\s+/g, ' ')) : undefined;
  const form = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  // Escape (the keymap) cancels when there is a name to go back to; the first prompt cannot be dismissed.
  useDialog(form, onCancel ?? null, input);
  return (
    <div className="modal-backdrop">
      <form
        ref={form}
        role="dialog"
        aria-modal="true"
        aria-label="Annotator name"
        className="modal"
        onSubmit={(e) => {
          e.preventDefault();
          save(name);
        }}
      >
        <h2>{current === null ? 'Who is annotating?' : 'Change annotator'}</h2>
        <p>Flipbook remembers your name on this machine and records it with every edit you make.</p>
        {known.length > 0 && (
          <div role="group" aria-label="Known annotators" className="known-annotators">
            <span>Annotators of this project:</span>{' '}
            {known.map((k) => (
              <button key={k} type="button" aria-pressed={k === trimmed} onClick={() => save(k)}>
                {k}
              </button>
            ))}
          </div>
        )}
        <label>
          Your name
          <input aria-label="Your name" value={name} ref={input} list="known-annotators" onChange={(e) => setName(e.target.value)} />
        </label>
        <datalist id="known-annotators">
          {known.map((k) => (
            <option key={k} value={k} />
          ))}
        </datalist>
        {near !== undefined && <p role="note">“{near}” already annotates this project; a different spelling is a different annotator.</p>}
        {error && <p role="alert">{error}</p>}
        <button type="submit">Save name</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </form>
    </div>
  );
}
