import { useEffect, useRef } from 'react';
import { allShortcuts, displayKey, type PathwayKeyed } from '../shortcuts';

export function ShortcutsDialog({ pathways, onClose }: { pathways: readonly PathwayKeyed[]; onClose: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    ref.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
  const list = allShortcuts(pathways);
  return (
    <div className="modal-backdrop">
      <div role="dialog" aria-modal="true" aria-label="Keyboard shortcuts" className="modal shortcuts">
        <h2>Keyboard shortcuts</h2>
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
                <td>{s.scope}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <button type="button" ref={ref} aria-label="Close shortcuts" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
