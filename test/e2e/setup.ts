/** Runs around every e2e test: no test may leave console errors or failed requests on its pages. */
import { afterAll, afterEach } from 'vitest';
import { expectNoPageProblems, removeSampleProjects } from './harness';

afterEach(() => {
  expectNoPageProblems();
});

// The file's own afterAll (servers and browsers stopped) runs first: inner suites finish before this one.
afterAll(() => {
  removeSampleProjects();
});
