/**
 * Every keyboard shortcut of the app in one table, so `?` can list them all and a test can
 * prove no two actions share a key (codebook pathway keys included, see allShortcuts()).
 * Keys are KeyboardEvent.key values; `Ctrl+` means Ctrl or Cmd.
 */
export interface Shortcut {
  key: string;
  action: string;
  scope: 'global' | 'queue' | 'item';
}

export const APP_SHORTCUTS: readonly Shortcut[] = [
  { key: '?', action: 'Show keyboard shortcuts', scope: 'global' },
  { key: 'Escape', action: 'Close dialog / leave a text field', scope: 'global' },
  { key: 'Ctrl+z', action: 'Undo your last edit of this item', scope: 'item' },
  { key: 'Ctrl+Shift+z', action: 'Redo on this item', scope: 'item' },
  { key: 'Ctrl+y', action: 'Redo on this item (alternative)', scope: 'item' },
  { key: '/', action: 'Focus queue search', scope: 'queue' },
  { key: 'Enter', action: 'Open the selected queue row', scope: 'queue' },
  { key: 'ArrowDown', action: 'Queue: next row / Item: next evidence span', scope: 'global' },
  { key: 'ArrowUp', action: 'Queue: previous row / Item: previous evidence span', scope: 'global' },
  { key: 'j', action: 'Next item in the queue', scope: 'item' },
  { key: 'k', action: 'Previous item in the queue', scope: 'item' },
  { key: 'q', action: 'Back to the queue', scope: 'item' },
  { key: ' ', action: 'Play / pause', scope: 'item' },
  { key: '.', action: 'Step one frame forward', scope: 'item' },
  { key: ',', action: 'Step one frame back', scope: 'item' },
  { key: ']', action: 'Faster', scope: 'item' },
  { key: '[', action: 'Slower', scope: 'item' },
  { key: 'f', action: 'Jump to a frame or time', scope: 'item' },
  { key: 'y', action: 'Loop the selected evidence span on/off', scope: 'item' },
  { key: 'i', action: 'Mark evidence span in (at the player position)', scope: 'item' },
  { key: 'e', action: 'Mark evidence span out and save it', scope: 'item' },
  { key: 'Shift+ArrowLeft', action: 'Selected span: start one frame earlier', scope: 'item' },
  { key: 'Shift+ArrowRight', action: 'Selected span: start one frame later', scope: 'item' },
  { key: 'Alt+ArrowLeft', action: 'Selected span: end one frame earlier', scope: 'item' },
  { key: 'Alt+ArrowRight', action: 'Selected span: end one frame later', scope: 'item' },
  { key: 'Delete', action: 'Delete the selected span', scope: 'item' },
  { key: 'w', action: 'Next transition to explain', scope: 'item' },
  { key: 'a', action: 'Edit notes', scope: 'item' },
  { key: '1', action: 'Confidence 1', scope: 'item' },
  { key: '2', action: 'Confidence 2', scope: 'item' },
  { key: '3', action: 'Confidence 3', scope: 'item' },
  { key: '4', action: 'Confidence 4', scope: 'item' },
  { key: '5', action: 'Confidence 5', scope: 'item' },
  { key: 'v', action: 'Status: done', scope: 'item' },
  { key: 'b', action: 'Status: needs review', scope: 'item' },
  { key: 's', action: 'Status: skipped', scope: 'item' },
];

export interface PathwayKeyed {
  id: string;
  label: string;
  shortcut?: string | null;
}

/** The app's shortcuts plus one toggle (key) and one primary (Shift+key) per pathway. */
export function allShortcuts(pathways: readonly PathwayKeyed[]): Shortcut[] {
  const out: Shortcut[] = [...APP_SHORTCUTS];
  for (const p of pathways) {
    if (!p.shortcut) continue;
    out.push({ key: p.shortcut.toLowerCase(), action: `Toggle pathway: ${p.label}`, scope: 'item' });
    out.push({ key: `Shift+${p.shortcut.toUpperCase()}`, action: `Primary pathway: ${p.label}`, scope: 'item' });
  }
  return out;
}

/** Keys bound to more than one action (must be empty). */
export function duplicateKeys(shortcuts: readonly Shortcut[]): string[] {
  const seen = new Map<string, number>();
  for (const s of shortcuts) seen.set(s.key, (seen.get(s.key) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/** The table key for a keyboard event, in the same notation as APP_SHORTCUTS. */
export function keyOf(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): string {
  const ctrl = e.ctrlKey || e.metaKey;
  if (ctrl) return `Ctrl+${e.shiftKey ? 'Shift+' : ''}${e.key.toLowerCase()}`;
  if (e.altKey) return `Alt+${e.key}`;
  if (e.shiftKey && e.key.length > 1) return `Shift+${e.key}`;
  // A single uppercase letter with Shift is the primary-pathway chord.
  if (e.shiftKey && /^[A-Z]$/.test(e.key)) return `Shift+${e.key}`;
  return e.key;
}

export function displayKey(key: string): string {
  return key === ' ' ? 'Space' : key;
}
