import { useState } from 'react';

/** Asked once per machine; the name is recorded on every annotation edit. */
export function AnnotatorPrompt({ onSave }: { onSave: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="modal-backdrop">
      <form
        role="dialog"
        aria-modal="true"
        aria-label="Annotator name"
        className="modal"
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim().length === 0) return setError('Enter a name');
          onSave(name).catch((err: unknown) => setError(String(err)));
        }}
      >
        <h2>Who is annotating?</h2>
        <p>Your name is stored on this machine and recorded with every edit you make.</p>
        <label>
          Your name
          <input aria-label="Your name" value={name} autoFocus onChange={(e) => setName(e.target.value)} />
        </label>
        {error && <p role="alert">{error}</p>}
        <button type="submit">Save name</button>
      </form>
    </div>
  );
}
