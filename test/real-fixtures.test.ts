import { afterEach, describe, expect, it, vi } from 'vitest';
import { realFixturesPresent } from './real-fixtures';

describe('realFixturesPresent', () => {
  afterEach(() => vi.unstubAllEnvs());
  const missing = '/nonexistent/flipbook-fixture.jsonl';

  it('skips (false, with the reason printed) when a fixture is missing outside CI', () => {
    vi.stubEnv('CI', '');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(realFixturesPresent('x', __filename, missing)).toBe(false);
    expect(warn.mock.calls[0]?.[0]).toContain(missing);
    warn.mockRestore();
  });

  it('fails under CI=true when a fixture is missing', () => {
    vi.stubEnv('CI', 'true');
    expect(() => realFixturesPresent('x', missing)).toThrow(/CI=true: a missing fixture fails the run/);
  });

  it('is true when every fixture is there', () => {
    vi.stubEnv('CI', 'true');
    expect(realFixturesPresent('x', __filename)).toBe(true);
  });
});
