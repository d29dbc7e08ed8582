/**
 * The one key listener of the app. Views register what each action of their scope does
 * (useShortcuts); which key runs which action, and when, comes only from the table in
 * shortcuts.ts (resolveKey). Our dialogs register themselves (useDialog) so the keymap knows
 * one is open, their focus stays inside them and returns where it was when they close.
 */
import { useEffect, useRef, type RefObject } from 'react';
import { keyOf, resolveKey, type ActionId, type Shortcut, type ShortcutScope } from './shortcuts';

export type ActionHandlers = Partial<Record<ActionId, (arg: string | undefined) => void>>;

/** Handlers per scope, newest registration last (it wins). */
const registry = new Map<ShortcutScope, RefObject<ActionHandlers>[]>();
/** Open dialogs, innermost last: their close functions (null: cannot be dismissed). */
const dialogs: { close: (() => void) | null }[] = [];

function textFieldOf(target: EventTarget | null): 'none' | 'search' | 'other' {
  const el = target as HTMLElement | null;
  if (!el || !el.tagName) return 'none';
  const tag = el.tagName.toLowerCase();
  const typing = tag === 'input' || tag === 'textarea' || tag === 'select' || el.isContentEditable;
  if (!typing) return 'none';
  // Checkboxes and buttons styled as inputs take no text: keys stay shortcuts there.
  if (tag === 'input' && ['checkbox', 'radio', 'button', 'submit', 'range'].includes((el as HTMLInputElement).type)) return 'none';
  return el.dataset.keymap === 'search' ? 'search' : 'other';
}

function handlerFor(s: Shortcut): ((arg: string | undefined) => void) | undefined {
  const refs = registry.get(s.scope) ?? [];
  return refs[refs.length - 1]?.current[s.id];
}

/** Runs an action the way its key would (menu commands use this too). */
export function runAction(scope: ShortcutScope, id: ActionId, arg?: string): boolean {
  const refs = registry.get(scope) ?? [];
  const h = refs[refs.length - 1]?.current[id];
  if (!h) return false;
  h(arg);
  return true;
}

/** The keydown handler: looks the key up in the table and runs the live binding's action. */
export function handleKey(table: readonly Shortcut[], e: KeyboardEvent): void {
  if (e.defaultPrevented || e.isComposing) return;
  const liveScopes = new Set<ShortcutScope>([...registry].filter(([, refs]) => refs.length > 0).map(([s]) => s));
  const s = resolveKey(table, keyOf(e), { textField: textFieldOf(e.target), dialogOpen: dialogs.length > 0, liveScopes });
  if (!s) return;
  const h = handlerFor(s);
  if (!h) return;
  e.preventDefault();
  e.stopPropagation();
  h(s.arg);
}

/** Escape: close the innermost dialog, else leave the focused text field. */
export function escape(target: EventTarget | null): void {
  const top = dialogs[dialogs.length - 1];
  if (top) return top.close?.();
  if (textFieldOf(target) !== 'none') (target as HTMLElement).blur();
}

/** Registers the actions of a scope while the component is mounted (handlers may change each render). */
export function useShortcuts(scope: ShortcutScope, handlers: ActionHandlers): void {
  const ref = useRef<ActionHandlers>(handlers);
  useEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    const list = registry.get(scope) ?? [];
    list.push(ref);
    registry.set(scope, list);
    return () => {
      const i = list.indexOf(ref);
      if (i >= 0) list.splice(i, 1);
    };
  }, [scope]);
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: while mounted the keymap treats a dialog as open, Tab cycles inside it, it
 * opens scrolled to its top with focus on `initial` (or its first control), and on close
 * focus returns to what had it before.
 */
export function useDialog(ref: RefObject<HTMLElement | null>, onClose: (() => void) | null, initial?: RefObject<HTMLElement | null>): void {
  const closeRef = useRef(onClose);
  useEffect(() => {
    closeRef.current = onClose;
  });
  useEffect(() => {
    const node = ref.current;
    const before = document.activeElement as HTMLElement | null;
    const entry = { close: () => closeRef.current?.() };
    dialogs.push(entry);
    node?.scrollTo?.({ top: 0 });
    const first = initial?.current ?? node?.querySelector<HTMLElement>(FOCUSABLE) ?? null;
    first?.focus({ preventScroll: true });
    const trap = (e: KeyboardEvent) => {
      if (e.key !== 'Tab' || !node) return;
      const items = [...node.querySelectorAll<HTMLElement>(FOCUSABLE)];
      if (items.length === 0) return;
      const firstEl = items[0] as HTMLElement;
      const lastEl = items[items.length - 1] as HTMLElement;
      if (e.shiftKey && (document.activeElement === firstEl || !node.contains(document.activeElement))) {
        e.preventDefault();
        lastEl.focus();
      } else if (!e.shiftKey && (document.activeElement === lastEl || !node.contains(document.activeElement))) {
        e.preventDefault();
        firstEl.focus();
      }
    };
    // On the document, so a click on the backdrop cannot let Tab wander into the page behind.
    document.addEventListener('keydown', trap);
    return () => {
      document.removeEventListener('keydown', trap);
      const i = dialogs.indexOf(entry);
      if (i >= 0) dialogs.splice(i, 1);
      if (before && document.contains(before)) before.focus({ preventScroll: true });
    };
  }, [ref, initial]);
}
