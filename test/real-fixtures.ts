/**
 * Whether the real fixtures a test file needs (../shared/fixtures: the lmms-eval log, the
 * scalegrid release files) are present. Without them the tests that need them skip, with
 * the reason printed; under CI (CI=true) a missing fixture is a failure instead, thrown when
 * the file is collected, so a CI run cannot pass by skipping its real-data checks.
 */
import { existsSync } from 'node:fs';

export function realFixturesPresent(what: string, ...paths: string[]): boolean {
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length === 0) return true;
  const reason = `${what}: missing real fixture(s) ${missing.join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing fixture fails the run)`);
  console.warn(`[skipped] ${reason}`);
  return false;
}
