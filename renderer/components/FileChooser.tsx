import { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import type { Res } from '../../shared/api/contract';
import { useClient } from '../api/use-client';
import { useDialog } from '../keymap';

export type ChooseKind = 'file' | 'files' | 'folder';

const size = (n: number | null) =>
  n === null ? '' : n < 1024 ? `${n} B` : n < 1024 ** 2 ? `${(n / 1024).toFixed(1)} KB` : n < 1024 ** 3 ? `${(n / 1024 ** 2).toFixed(1)} MB` : `${(n / 1024 ** 3).toFixed(2)} GB`;
const join = (dir: string, name: string) => `${dir.replace(/[\\/]+$/, '')}${dir.includes('\\') && !dir.includes('/') ? '\\' : '/'}${name}`;

/**
 * The web mode's file chooser: a folder browser served by the loopback server (`files:list`,
 * only inside the user's own folders; docs/security.md "Web mode"), since a page cannot learn a
 * file's path from the browser's own picker. Keyboard: arrows move, Enter opens a folder or
 * chooses a file, Backspace goes up, Escape closes.
 */
export function FileChooser({
  kind,
  title,
  start,
  onChoose,
  onClose,
}: {
  kind: ChooseKind;
  title: string;
  start: string | null;
  onChoose: (paths: string[]) => void;
  onClose: () => void;
}) {
  const client = useClient();
  const dialog = useRef<HTMLDivElement>(null);
  const list = useRef<HTMLUListElement>(null);
  useDialog(dialog, onClose, list);
  const [listing, setListing] = useState<Res<'files:list'> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [cursor, setCursor] = useState(0);
  const [picked, setPicked] = useState<Set<string>>(() => new Set());

  const load = async (p: string | null) => {
    const r = await client.call('files:list', { path: p });
    if (!r.ok) {
      setError(r.error.message);
      // A start folder that is gone or outside the roots: open at the default instead.
      if (p !== null && listing === null) return load(null);
      return;
    }
    setError(null);
    setListing(r.value);
    setCursor(0);
    setPicked(new Set());
  };
  useEffect(() => {
    void load(start);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads the start folder once
  }, []);

  const entries = listing?.entries ?? [];
  const activate = (i: number) => {
    const e = entries[i];
    if (!e || !listing) return;
    const full = join(listing.path, e.name);
    if (e.kind === 'dir') return void load(full);
    if (kind === 'folder') return;
    if (kind === 'files') return setPicked((s) => new Set(s).add(full));
    onChoose([full]);
  };
  const toggle = (i: number) => {
    const e = entries[i];
    if (!e || !listing || e.kind !== 'file' || kind !== 'files') return;
    const full = join(listing.path, e.name);
    setPicked((s) => {
      const n = new Set(s);
      if (n.has(full)) n.delete(full);
      else n.add(full);
      return n;
    });
  };
  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-i="${cursor}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [cursor, listing]);

  return createPortal(
    <div className="modal-backdrop">
      <div ref={dialog} role="dialog" aria-modal="true" aria-labelledby="chooser-title" className="modal file-chooser">
        <div className="modal-head">
          <h2 id="chooser-title">{title}</h2>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
        <div className="chooser-path row">
          <button type="button" disabled={!listing?.parent} onClick={() => listing?.parent && void load(listing.parent)} aria-label="Up one folder">
            ↑ Up
          </button>
          <code aria-label="Current folder">{listing?.path ?? '…'}</code>
          {listing?.roots.map((r) => (
            <button type="button" key={r} className="chooser-root" onClick={() => void load(r)}>
              {r}
            </button>
          ))}
        </div>
        {error && <p role="alert">{error}</p>}
        <ul
          ref={list}
          className="chooser-list"
          role="listbox"
          aria-label="Folder contents"
          aria-multiselectable={kind === 'files'}
          tabIndex={0}
          aria-activedescendant={entries[cursor] ? `chooser-${cursor}` : undefined}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setCursor((c) => Math.min(entries.length - 1, c + 1));
            else if (e.key === 'ArrowUp') setCursor((c) => Math.max(0, c - 1));
            else if (e.key === 'Enter') activate(cursor);
            else if (e.key === ' ') toggle(cursor);
            else if (e.key === 'Backspace' && listing?.parent) void load(listing.parent);
            else return;
            e.preventDefault();
            e.stopPropagation();
          }}
        >
          {entries.map((en, i) => {
            const full = listing ? join(listing.path, en.name) : en.name;
            return (
              <li
                key={en.name}
                id={`chooser-${i}`}
                data-i={i}
                role="option"
                aria-selected={i === cursor || picked.has(full)}
                className={`${en.kind}${i === cursor ? ' cursor' : ''}${picked.has(full) ? ' picked' : ''}`}
                onClick={() => (setCursor(i), kind === 'files' && en.kind === 'file' ? toggle(i) : undefined)}
                onDoubleClick={() => activate(i)}
                // The listbox above handles the keys (the options take no focus of their own).
                onKeyDown={() => undefined}
              >
                <span className="chooser-icon" aria-hidden="true">
                  {en.kind === 'dir' ? '▸' : '·'}
                </span>
                {en.name}
                {en.kind === 'dir' ? '/' : ''}
                <span className="muted">{size(en.bytes)}</span>
              </li>
            );
          })}
          {listing && entries.length === 0 && <li className="muted">(empty folder)</li>}
        </ul>
        {listing?.truncated && <p className="muted">Only the first {entries.length} entries are listed.</p>}
        <div className="row">
          {kind === 'folder' && (
            <button type="button" disabled={!listing} onClick={() => listing && onChoose([listing.path])}>
              Choose this folder
            </button>
          )}
          {kind === 'file' && (
            <button type="button" disabled={entries[cursor]?.kind !== 'file'} onClick={() => activate(cursor)}>
              Choose file
            </button>
          )}
          {kind === 'files' && (
            <>
              <button type="button" disabled={picked.size === 0} onClick={() => onChoose([...picked])}>
                Choose {picked.size} file{picked.size === 1 ? '' : 's'}
              </button>
              <button type="button" disabled={!listing} onClick={() => listing && onChoose([listing.path])}>
                Choose this folder
              </button>
            </>
          )}
        </div>
      </div>
    </div>,
    document.body,
  );
}
