/**
 * The keymap: every keyboard shortcut of the app in one table — what each key does and when
 * (its scope, whether it also works in a text field, whether it works while a dialog is open).
 * The one key listener (keymap.ts) dispatches from it, `?` lists it, and a test proves no two
 * bindings that can be live at once share a key (codebook pathway keys included).
 * Keys are KeyboardEvent.key values; `Ctrl+` means Ctrl or Cmd.
 */

/** Where a binding is live: `global` everywhere; `queue`/`item` while that view is shown. */
export type ShortcutScope = 'global' | 'queue' | 'item';

export type ActionId =
  | 'help'
  | 'escape'
  | 'undo'
  | 'redo'
  | 'focusSearch'
  | 'openSelected'
  | 'nextRow'
  | 'prevRow'
  | 'nextItem'
  | 'prevItem'
  | 'toQueue'
  | 'playPause'
  | 'stepForward'
  | 'stepBack'
  | 'faster'
  | 'slower'
  | 'jump'
  | 'loop'
  | 'markIn'
  | 'markOut'
  | 'nextSpan'
  | 'prevSpan'
  | 'nudgeStartEarlier'
  | 'nudgeStartLater'
  | 'nudgeEndEarlier'
  | 'nudgeEndLater'
  | 'deleteSpan'
  | 'zoomIn'
  | 'zoomOut'
  | 'fitItem'
  | 'fitSpan'
  | 'panEarlier'
  | 'panLater'
  | 'moment'
  | 'nextTransition'
  | 'notes'
  | 'confidence'
  | 'status'
  | 'togglePathway'
  | 'primaryPathway';

export interface Shortcut {
  key: string;
  id: ActionId;
  /** What the key does, as the help dialog shows it. */
  action: string;
  scope: ShortcutScope;
  /** Argument handed to the action (a confidence, a status, a pathway id). */
  arg?: string;
  /** Also live while a text field has focus: in any field, or only in the queue's search field. */
  inTextField?: 'any' | 'search';
  /** Also live while a dialog is open (every other key is the dialog's). */
  inDialog?: boolean;
}

export const APP_SHORTCUTS: readonly Shortcut[] = [
  { key: '?', id: 'help', action: 'Show keyboard shortcuts', scope: 'global' },
  { key: 'Escape', id: 'escape', action: 'Close the dialog / leave the text field', scope: 'global', inTextField: 'any', inDialog: true },
  { key: 'Ctrl+z', id: 'undo', action: 'Undo your last edit of this item', scope: 'item' },
  { key: 'Ctrl+Shift+z', id: 'redo', action: 'Redo on this item', scope: 'item' },
  { key: 'Ctrl+y', id: 'redo', action: 'Redo on this item (alternative)', scope: 'item' },
  { key: '/', id: 'focusSearch', action: 'Focus queue search', scope: 'queue' },
  { key: 'Enter', id: 'openSelected', action: 'Open the selected queue row', scope: 'queue', inTextField: 'search' },
  { key: 'ArrowDown', id: 'nextRow', action: 'Next queue row', scope: 'queue', inTextField: 'search' },
  { key: 'ArrowUp', id: 'prevRow', action: 'Previous queue row', scope: 'queue', inTextField: 'search' },
  { key: 'j', id: 'nextItem', action: 'Next item in the queue', scope: 'item' },
  { key: 'k', id: 'prevItem', action: 'Previous item in the queue', scope: 'item' },
  { key: 'q', id: 'toQueue', action: 'Back to the queue', scope: 'item' },
  { key: ' ', id: 'playPause', action: 'Play / pause', scope: 'item' },
  { key: '.', id: 'stepForward', action: 'Step one frame forward', scope: 'item' },
  { key: ',', id: 'stepBack', action: 'Step one frame back', scope: 'item' },
  { key: ']', id: 'faster', action: 'Faster', scope: 'item' },
  { key: '[', id: 'slower', action: 'Slower', scope: 'item' },
  { key: 'f', id: 'jump', action: 'Jump to a frame or time', scope: 'item' },
  { key: 'y', id: 'loop', action: 'Loop the selected evidence span on/off', scope: 'item' },
  { key: 'i', id: 'markIn', action: 'Mark evidence span in (at the player position)', scope: 'item' },
  { key: 'e', id: 'markOut', action: 'Mark evidence span out and save it', scope: 'item' },
  { key: 'ArrowDown', id: 'nextSpan', action: 'Next evidence span', scope: 'item' },
  { key: 'ArrowUp', id: 'prevSpan', action: 'Previous evidence span', scope: 'item' },
  { key: 'Shift+ArrowLeft', id: 'nudgeStartEarlier', action: 'Selected span: start one frame earlier', scope: 'item' },
  { key: 'Shift+ArrowRight', id: 'nudgeStartLater', action: 'Selected span: start one frame later', scope: 'item' },
  { key: 'Alt+ArrowLeft', id: 'nudgeEndEarlier', action: 'Selected span: end one frame earlier', scope: 'item' },
  { key: 'Alt+ArrowRight', id: 'nudgeEndLater', action: 'Selected span: end one frame later', scope: 'item' },
  { key: 'Delete', id: 'deleteSpan', action: 'Delete the selected span', scope: 'item' },
  { key: '=', id: 'zoomIn', action: 'Time axis: zoom in (around the playhead)', scope: 'item' },
  { key: '+', id: 'zoomIn', action: 'Time axis: zoom in (alternative)', scope: 'item' },
  { key: '-', id: 'zoomOut', action: 'Time axis: zoom out', scope: 'item' },
  { key: '0', id: 'fitItem', action: 'Time axis: fit the whole video', scope: 'item' },
  { key: 'Shift+F', id: 'fitSpan', action: 'Time axis: fit the selected evidence span', scope: 'item' },
  { key: 'ArrowLeft', id: 'panEarlier', action: 'Time axis: pan earlier', scope: 'item' },
  { key: 'ArrowRight', id: 'panLater', action: 'Time axis: pan later', scope: 'item' },
  { key: 'Shift+V', id: 'moment', action: "Moment view on/off: each budget's nearest frame at the playhead", scope: 'item' },
  { key: 'w', id: 'nextTransition', action: 'Next transition to explain', scope: 'item' },
  { key: 'a', id: 'notes', action: 'Edit notes', scope: 'item' },
  ...['1', '2', '3', '4', '5'].map((n): Shortcut => ({ key: n, id: 'confidence', arg: n, action: `Confidence ${n}`, scope: 'item' })),
  { key: 'v', id: 'status', arg: 'done', action: 'Status: done', scope: 'item' },
  { key: 'b', id: 'status', arg: 'needs_review', action: 'Status: needs review', scope: 'item' },
  { key: 's', id: 'status', arg: 'skipped', action: 'Status: skipped', scope: 'item' },
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
    out.push({ key: p.shortcut.toLowerCase(), id: 'togglePathway', arg: p.id, action: `Toggle pathway: ${p.label}`, scope: 'item' });
    out.push({ key: `Shift+${p.shortcut.toUpperCase()}`, id: 'primaryPathway', arg: p.id, action: `Primary pathway: ${p.label}`, scope: 'item' });
  }
  return out;
}

/** Two scopes can be live at once when one is global or they are the same view. */
const overlap = (a: ShortcutScope, b: ShortcutScope) => a === 'global' || b === 'global' || a === b;

/** Keys bound to more than one action that can be live at the same time (must be empty). */
export function duplicateKeys(shortcuts: readonly Shortcut[]): string[] {
  const out = new Set<string>();
  shortcuts.forEach((a, i) => {
    for (const b of shortcuts.slice(i + 1)) if (a.key === b.key && overlap(a.scope, b.scope)) out.add(a.key);
  });
  return [...out];
}

/** When a binding is live, in words (the help dialog's last column). */
export function whenText(s: Shortcut): string {
  const where = s.scope === 'global' ? 'anywhere' : s.scope === 'queue' ? 'queue' : 'item view';
  const extra = [s.inTextField === 'any' ? 'also in text fields' : s.inTextField === 'search' ? 'also in the search field' : '', s.inDialog ? 'also in dialogs' : ''].filter(
    Boolean,
  );
  return [where, ...extra].join(', ');
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

export interface KeyContext {
  /** A text field (input, textarea, select, contenteditable) has focus; 'search' is the queue's. */
  textField: 'none' | 'search' | 'other';
  dialogOpen: boolean;
  /** Scopes with a view mounted (global is always live). */
  liveScopes: ReadonlySet<ShortcutScope>;
}

/** The binding a key selects in a context, or undefined: the keymap's one decision rule. */
export function resolveKey(table: readonly Shortcut[], key: string, ctx: KeyContext): Shortcut | undefined {
  return table.find(
    (s) =>
      s.key === key &&
      (s.scope === 'global' || ctx.liveScopes.has(s.scope)) &&
      (!ctx.dialogOpen || s.inDialog === true) &&
      (ctx.textField === 'none' || s.inTextField === 'any' || (s.inTextField === 'search' && ctx.textField === 'search')),
  );
}

export function displayKey(key: string): string {
  return key === ' ' ? 'Space' : key;
}
