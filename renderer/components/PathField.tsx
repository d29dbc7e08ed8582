import { useState } from 'react';
import { useClient } from '../api/use-client';
import { FileChooser, type ChooseKind } from './FileChooser';

/** The native dialog each field asks for in the desktop app (dialog:pick). */
export type PickKind = 'open-project' | 'new-project' | 'import' | 'export-dir' | 'media-root';

/**
 * A path field with a Browse… button: the native dialog in the desktop app, the server's
 * folder browser in the web mode (FileChooser). A typed path works in both.
 */
export function PathField({
  label,
  value,
  onChange,
  kind,
  pick = kind === 'folder' ? 'media-root' : 'import',
  placeholder,
  multiline = false,
  onChosen,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  kind: ChooseKind;
  pick?: PickKind;
  placeholder?: string;
  multiline?: boolean;
  /** Called with what was chosen (after onChange), e.g. to open a project at once. */
  onChosen?: (paths: string[]) => void;
}) {
  const client = useClient();
  const [choosing, setChoosing] = useState(false);
  const chosen = (paths: string[]) => {
    setChoosing(false);
    if (paths.length === 0) return;
    onChange(paths.join('\n'));
    onChosen?.(paths);
  };
  const browse = async () => {
    if (client.transport === 'ipc') {
      const r = await client.call('dialog:pick', { kind: pick });
      if (r.ok) chosen(r.value.paths);
      return;
    }
    setChoosing(true);
  };
  const first = value.split('\n')[0]?.trim() ?? '';
  const start = first === '' ? null : kind === 'folder' ? first : first.replace(/[\\/][^\\/]*$/, '') || null;
  return (
    <span className="path-field">
      {multiline ? (
        <textarea className="path" aria-label={label} rows={3} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input className="path" aria-label={label} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
      )}
      {/* Named "Browse…" alone, so that a label query for the field finds the field only. */}
      <button type="button" onClick={() => void browse()}>
        Browse…
      </button>
      {choosing && <FileChooser kind={kind} title={`Choose: ${label}`} start={start} onChoose={chosen} onClose={() => setChoosing(false)} />}
    </span>
  );
}
