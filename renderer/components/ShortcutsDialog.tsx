import { useRef } from 'react';
import { useDialog } from '../keymap';
import { allShortcuts, displayKey, whenText, type PathwayKeyed } from '../shortcuts';

/** The keymap table itself (shortcuts.ts), so what `?` shows is what the keys do. */
export function ShortcutsDialog({ pathways, onClose }: { pathways: readonly PathwayKeyed[]; onClose: () => void }) {
  const dialog = useRef<HTMLDivElement>(null);
  const close = useRef<HTMLButtonElement>(null);
  useDialog(dialog, onClose, close);
  const list = allShortcuts(pathways);
  return (
    <div className="modal-backdrop">
      <div ref={dialog} role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" className="modal shortcuts">
        <div className="modal-head">
          <h2 id="shortcuts-title">Keyboard shortcuts</h2>
          <button type="button" ref={close} onClick={onClose}>
            Close
          </button>
        </div>
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Action</th>
              <th scope="col">Where</th>
            </tr>
          </thead>
          <tbody>
            {list.map((s) => (
              <tr key={s.key + s.action}>
                <td>
                  <kbd>{displayKey(s.key)}</kbd>
                </td>
                <td>{s.action}</td>
                <td>{whenText(s)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
