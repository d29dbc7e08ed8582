/** Runs around every e2e test: no test may leave console errors or failed requests on its pages. */
import { afterEach } from 'vitest';
import { expectNoPageProblems } from './harness';

afterEach(() => {
  expectNoPageProblems();
});
