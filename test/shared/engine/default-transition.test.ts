/**
 * The transition the item view explains first (README "Item view"; docs/metrics.md §2 lists the
 * transitions): the first harmed step between two visual configs, else the first harmed one.
 */
import { describe, expect, it } from 'vitest';
import { defaultTransition } from '../../../shared/engine/default-transition';

const FRAMES: Record<string, number> = { textonly: 0, '16f': 16, '32f': 32, '64f': 64, '64f_151k': 64, '32f_302k': 32 };
const frames = (k: string): number | undefined => FRAMES[k];

describe('defaultTransition', () => {
  it('terminal regression 1100 over textonly, 16f, 32f, 64f: the step where the item was lost', () => {
    // itemTransitions lists ladder steps first, then text → c; both harmed steps are listed.
    expect(defaultTransition(['16f>32f', 'textonly>64f'], frames)).toBe('16f>32f');
    expect(defaultTransition(['textonly>32f', 'textonly>64f', '16f>32f'], frames)).toBe('16f>32f');
    expect(defaultTransition(['16f>32f', '32f>64f'], frames)).toBe('16f>32f');
  });

  it('text overwrite only: the first harmed transition', () => {
    expect(defaultTransition(['textonly>16f'], frames)).toBe('textonly>16f');
    expect(defaultTransition(['textonly>32f', 'textonly>64f'], frames)).toBe('textonly>32f');
  });

  it('nothing harmed: none', () => {
    expect(defaultTransition([], frames)).toBeNull();
  });

  it('a config the frame lookup does not know is not a visual budget', () => {
    expect(defaultTransition(['16f>ghost', '16f>32f'], frames)).toBe('16f>32f');
    expect(defaultTransition(['ghost>32f', '16f>32f'], frames)).toBe('16f>32f');
    expect(defaultTransition(['16f>ghost'], frames)).toBe('16f>ghost');
  });

  it('an entry that is not a pair is never taken for a visual step', () => {
    // A lookup that calls everything but text only visual would accept any name as visual.
    const visualUnlessText = (k: string): number | undefined => (k === 'textonly' ? 0 : 8);
    expect(defaultTransition(['16f', '16f>32f'], visualUnlessText)).toBe('16f>32f');
    expect(defaultTransition(['16f'], visualUnlessText)).toBe('16f');
  });
});
