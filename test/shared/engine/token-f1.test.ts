import { describe, expect, it } from 'vitest';
import { normalizeTokens, tokenF1 } from '../../../shared/engine/token-f1';

describe('tokenF1 (docs/metrics.md §7)', () => {
  it('normalises case, punctuation, articles and whitespace', () => {
    expect(normalizeTokens('The  cat, sat on A mat!')).toEqual(['cat', 'sat', 'on', 'mat']);
    expect(normalizeTokens("An apple's core")).toEqual(['apples', 'core']);
    expect(normalizeTokens('theory another anthem')).toEqual(['theory', 'another', 'anthem']);
    expect(normalizeTokens('the$ a+b')).toEqual(['$', '+b']); // symbols (S*) are not punctuation
    expect(normalizeTokens('«Привет», — сказал он… ¿Qué?')).toEqual(['привет', 'сказал', 'он', 'qué']);
    expect(normalizeTokens('中文，测试。')).toEqual(['中文测试']);
    expect(normalizeTokens('  \t\n ')).toEqual([]);
  });
  it('hand values', () => {
    expect(tokenF1('the cat sat', 'a cat sat down')).toBeCloseTo((2 * 1 * (2 / 3)) / (1 + 2 / 3), 15);
    expect(tokenF1('red red blue', 'red blue blue')).toBeCloseTo(2 / 3, 15); // multiset: common = 2
    expect(tokenF1('Paris.', 'paris')).toBe(1);
    expect(tokenF1('dog', 'cat')).toBe(0);
  });
  it('empty cases', () => {
    expect(tokenF1('', '')).toBe(1);
    expect(tokenF1('the', 'a')).toBe(1); // both normalise to nothing
    expect(tokenF1('', 'cat')).toBe(0);
    expect(tokenF1('cat', '...')).toBe(0);
    expect(tokenF1('cat', [])).toBe(0);
  });
  it('takes the maximum over several references', () => {
    expect(tokenF1('two dogs', ['one cat', 'two dogs running', 'dogs'])).toBeCloseTo(0.8, 15);
  });
});
