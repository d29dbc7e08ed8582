import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allShortcuts, duplicateKeys, keyOf } from '../../renderer/shortcuts';
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
    for (const id of ['evidence-dilution', 'distractor-frames', 'evidence-missed', 'temporal-misorder', 'count-inflation', 'resolution-loss', 'context-ceiling', 'text-prior-overwrite', 'option-letter-bias', 'label-noise', 'unclear']) {
      expect(ids).toContain(id);
    }
    for (const p of codebook.pathways) expect(p.description.length).toBeGreaterThan(20);
    expect(new Set(codebook.pathways.map((p) => p.shortcut)).size).toBe(codebook.pathways.length);
  });

  it('reads keyboard events in the table\'s notation', () => {
    const ev = (key: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
    expect(keyOf(ev('z', { ctrlKey: true }))).toBe('Ctrl+z');
    expect(keyOf(ev('Z', { ctrlKey: true, shiftKey: true }))).toBe('Ctrl+Shift+z');
    expect(keyOf(ev('C', { shiftKey: true }))).toBe('Shift+C');
    expect(keyOf(ev('?', { shiftKey: true }))).toBe('?');
    expect(keyOf(ev('ArrowLeft', { altKey: true }))).toBe('Alt+ArrowLeft');
  });
});
