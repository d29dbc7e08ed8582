import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allShortcuts, duplicateKeys, keyOf, resolveKey, type KeyContext, type ShortcutScope } from '../../renderer/shortcuts';
import { Codebook } from '../../shared/api/contract';

const codebook = Codebook.parse(JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../assets/codebook.json'), 'utf8')));

describe('keyboard shortcuts', () => {
  it('no two actions share a key, codebook pathways included', () => {
    const list = allShortcuts(codebook.pathways);
    expect(duplicateKeys(list)).toEqual([]);
    expect(list.length).toBeGreaterThan(codebook.pathways.length * 2);
  });

  it('the default codebook has the required pathways, each with a definition and its own key', () => {
    const ids = codebook.pathways.map((p) => p.id);
    for (const id of [
      'evidence-dilution',
      'distractor-frames',
      'evidence-missed',
      'temporal-misorder',
      'count-inflation',
      'resolution-loss',
      'context-ceiling',
      'text-prior-overwrite',
      'option-letter-bias',
      'label-noise',
      'unclear',
    ]) {
      expect(ids).toContain(id);
    }
    for (const p of codebook.pathways) expect(p.description.length).toBeGreaterThan(20);
    expect(new Set(codebook.pathways.map((p) => p.shortcut)).size).toBe(codebook.pathways.length);
  });

  it('two bindings of one key collide only when both can be live (global vs a view, or the same view)', () => {
    const base = allShortcuts(codebook.pathways);
    expect(duplicateKeys([...base, { key: '/', id: 'help', action: 'x', scope: 'global' }])).toEqual(['/']);
    expect(duplicateKeys([...base, { key: 'j', id: 'nextRow', action: 'x', scope: 'queue' }])).toEqual([]);
  });

  it('decides from the table alone what a key does in a text field, in a dialog and per view', () => {
    const table = allShortcuts(codebook.pathways);
    const ctx = (c: Partial<KeyContext>): KeyContext => ({ textField: 'none', dialogOpen: false, liveScopes: new Set<ShortcutScope>(['queue']), ...c });
    // Escape leaves any text field; other keys are typed there (so `?` after `/` then Escape opens help).
    expect(resolveKey(table, 'Escape', ctx({ textField: 'other' }))?.id).toBe('escape');
    expect(resolveKey(table, '?', ctx({ textField: 'search' }))).toBeUndefined();
    expect(resolveKey(table, '?', ctx({}))?.id).toBe('help');
    // The queue's search field keeps row navigation; other fields do not.
    expect(resolveKey(table, 'ArrowDown', ctx({ textField: 'search' }))?.id).toBe('nextRow');
    expect(resolveKey(table, 'ArrowDown', ctx({ textField: 'other' }))).toBeUndefined();
    // A dialog takes every key but Escape.
    expect(resolveKey(table, '/', ctx({ dialogOpen: true }))).toBeUndefined();
    expect(resolveKey(table, 'Escape', ctx({ dialogOpen: true }))?.id).toBe('escape');
    // The same key means different things per view; a view's keys are dead while it is not shown.
    expect(resolveKey(table, 'ArrowDown', ctx({ liveScopes: new Set<ShortcutScope>(['item']) }))?.id).toBe('nextSpan');
    expect(resolveKey(table, 'v', ctx({}))).toBeUndefined();
    const d = codebook.pathways[0]!;
    expect(resolveKey(table, d.shortcut!.toLowerCase(), ctx({ liveScopes: new Set<ShortcutScope>(['item']) }))).toMatchObject({ id: 'togglePathway', arg: d.id });
  });

  it("reads keyboard events in the table's notation", () => {
    const ev = (key: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({
      key,
      ctrlKey: false,
      metaKey: false,
      shiftKey: false,
      altKey: false,
      ...mods,
    });
    expect(keyOf(ev('z', { ctrlKey: true }))).toBe('Ctrl+z');
    expect(keyOf(ev('Z', { ctrlKey: true, shiftKey: true }))).toBe('Ctrl+Shift+z');
    expect(keyOf(ev('C', { shiftKey: true }))).toBe('Shift+C');
    expect(keyOf(ev('?', { shiftKey: true }))).toBe('?');
    expect(keyOf(ev('ArrowLeft', { altKey: true }))).toBe('Alt+ArrowLeft');
  });
});
