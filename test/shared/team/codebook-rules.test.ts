import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_SHORTCUTS } from '../../../renderer/shortcuts';
import { codebookProblems, RESERVED_KEYS } from '../../../shared/team/codebook-rules';

describe('codebook rules', () => {
  it('reserves exactly the single-key app shortcuts of renderer/shortcuts.ts', () => {
    const single = APP_SHORTCUTS.map((s) => s.key).filter((k) => [...k].length === 1);
    expect([...RESERVED_KEYS].sort()).toEqual([...new Set(single)].sort());
  });

  it('accepts the default codebook', () => {
    const cb = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../assets/codebook.json'), 'utf8')) as Parameters<typeof codebookProblems>[0];
    expect(codebookProblems(cb)).toEqual([]);
  });

  it('names duplicate ids and keys, reserved keys, bad ids, empty labels and long keys', () => {
    const problems = codebookProblems({
      id: 'cb',
      pathways: [
        { id: 'a-1', label: 'A', shortcut: 'x' },
        { id: 'a-1', label: 'B', shortcut: 'X' },
        { id: 'bad id', label: '', shortcut: 'j' },
        { id: 'c', label: 'C', shortcut: 'ab' },
        { id: 'd', label: 'D', shortcut: null },
      ],
    });
    expect(problems).toEqual([
      'pathway 2 (a-1) id: same as pathway 1',
      'pathway 2 (a-1) key: "X" is already the key of a-1',
      'pathway 3 (bad id) id: use letters, digits, - or _ (got "bad id")',
      'pathway 3 (bad id) label: empty',
      'pathway 3 (bad id) key: "j" is already an app shortcut',
      'pathway 4 (c) key: one character, got "ab"',
    ]);
  });
});
